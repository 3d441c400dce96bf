import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../../src/kernel/kernel';
import type { Actor } from '../../src/kernel/events/eventTypes';
import { teamEngineUnderTest, teamTestDatabase } from './teamTestStore';

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
  /** A second kernel on the same store, as another process opens it (its own connection); the caller closes it. */
  open(options: { clock?: () => number; actor?: Actor }): Kernel;
  dispose(): void;
}

/**
 * A store on the engine under test: SQLite's by default; the team engine (a PostgreSQL log, this workspace's SQLite
 * file its replica) when LOOPX_TEST_ENGINE=team, which the vitest project `team-conformance` sets (docs/team.md).
 */
/**
 * How many random cases a property test that opens a store per case runs: all of them on SQLite, a fifth on the team
 * engine (each case there opens a team store and pays a round trip per write; the kernel's rules the cases explore are
 * the same code on both, the engine is what the second run checks). Keeps the conformance run's time small.
 */
export function propertyRuns(runs: number): number {
  return teamEngineUnderTest() ? Math.max(10, Math.ceil(runs / 5)) : runs;
}

export function makeStore(): TestStore {
  const root = mkdtempSync(join(tmpdir(), 'loopx-test-'));
  const clock = new FakeClock();
  const team = teamEngineUnderTest() ? teamTestDatabase() : null;
  const kernel = team ? team.open(root, { clock: clock.now, actor: human }) : Kernel.init(root, { clock: clock.now, actor: human }).kernel;
  return {
    root,
    clock,
    kernel,
    as: (actor) => kernel.as(actor),
    open: (options) => (team ? team.open(root, options) : Kernel.open(root, options)),
    dispose() {
      kernel.close();
      team?.release();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
