import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Kernel } from '../kernel';
import { createGoal } from '../goals/goals';
import { checkReplay } from '../replay';
import { verifyChain } from '../events/verify';
import { StoreMovedError } from '../errors';
import { recordTeamMove } from './teamEvents';
import { teamPointerPath } from './teamPointer';

/**
 * A SQLite store `loopx team push` moved into a team store: its newest event is `team.pushed` (written under the push's
 * write lock, before the pointer). A process that still has the file open is refused at its next write, before
 * anything changes; the store stays valid (replay and verify accept the new kinds).
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});
const ada = { name: 'ada', kind: 'human' as const, channel: 'tty' as const };
const codex = { name: 'codex', kind: 'agent' as const };

function pushedStore(): { root: string; kernel: Kernel } {
  const root = mkdtempSync(join(tmpdir(), 'loopx-moved-'));
  roots.push(root);
  const kernel = Kernel.init(root, { actor: ada }).kernel;
  createGoal(kernel, { title: 'before the push' });
  kernel.write((tx) => recordTeamMove(tx, 'team.pushed', { database: 'db.example:5432/loopx', events: 2 }));
  return { root, kernel };
}
const pointTo = (root: string) => writeFileSync(teamPointerPath(root), '{"version":1,"database":"postgresql://db.example/loopx"}');
const events = (kernel: Kernel) => kernel.read((db) => Number(db.prepare('SELECT count(*) AS n FROM events').get()?.n));

describe('a store moved into a team store', () => {
  test('a process that had it open is refused (store_moved, retryable) and writes nothing once the pointer exists', () => {
    const { root, kernel } = pushedStore();
    const agent = kernel.as(codex);
    pointTo(root);
    const before = events(kernel);
    let refused: unknown;
    try {
      createGoal(agent, { title: 'lost?' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(StoreMovedError);
    expect(refused).toMatchObject({
      code: 'store_moved',
      exitCode: 3,
      message: expect.stringMatching(/moved to the team store at db\.example:5432\/loopx at /),
    });
    expect(events(kernel)).toBe(before);
    expect(kernel.read((db) => db.prepare("SELECT count(*) AS n FROM goals WHERE title = 'lost?'").get()?.n)).toBe(0);
    kernel.close();
  });

  test('without the pointer (a person put the old store back) it takes writes again; team.left chains onto it either way', () => {
    const { root, kernel } = pushedStore();
    createGoal(kernel.as(codex), { title: 'after putting it back' });
    expect(existsSync(teamPointerPath(root))).toBe(false);
    const other = pushedStore();
    pointTo(other.root);
    other.kernel.write((tx) => recordTeamMove(tx, 'team.left', { database: 'db.example:5432/loopx', events: 3 }));
    for (const k of [kernel, other.kernel]) {
      expect(k.read((db) => verifyChain(db))).toMatchObject({ ok: true });
      expect(k.read((db) => checkReplay(db))).toMatchObject({ ok: true });
      k.close();
    }
  });

  test("the team verbs are a person's: an agent cannot record them", () => {
    const { kernel } = pushedStore();
    for (const kind of ['team.pushed', 'team.joined', 'team.left'] as const)
      expect(() => kernel.as(codex).write((tx) => recordTeamMove(tx, kind, { database: 'x:1/y', events: 0 }))).toThrow(/human decision/);
    kernel.close();
  });
});
