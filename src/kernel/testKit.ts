import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from './kernel';
import type { Actor } from './events/eventTypes';

/** Test support: a controllable clock and a real store in a temporary workspace. Never used by product code. */
export class FakeClock {
  constructor(public ms = Date.parse('2026-01-01T00:00:00.000Z')) {}
  readonly now = (): number => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** A human acting through a channel an agent lacks (what VS Code's UI and a confirmed terminal give). */
export const human: Actor = { name: 'ada', kind: 'human', channel: 'vscode' };
/** What an agent that unset LOOPX_AGENT looks like: a human name and no channel. */
export const bareHuman: Actor = { name: 'ada', kind: 'human' };
export const agent = (name: string): Actor => ({ name, kind: 'agent' });

export interface TestStore {
  root: string;
  clock: FakeClock;
  kernel: Kernel;
  /** The same store acting as another actor. */
  as(actor: Actor): Kernel;
  dispose(): void;
}

export function makeStore(): TestStore {
  const root = mkdtempSync(join(tmpdir(), 'loopx-test-'));
  const clock = new FakeClock();
  const { kernel } = Kernel.init(root, { clock: clock.now, actor: human });
  return {
    root,
    clock,
    kernel,
    as: (actor) => kernel.as(actor),
    dispose() {
      kernel.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
