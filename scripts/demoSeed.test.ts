import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { seedDemo } from './demoSeed';
import { Kernel } from '../src/kernel/kernel';
import { planTurn } from '../src/kernel/goals/quotaQueries';
import { getGoal } from '../src/kernel/goals/goalQueries';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

test("the demo's first Run Turn can start beside the seeded agent's live claim (the walkthrough's step as written)", () => {
  const workspace = join(mkdtempSync(join(tmpdir(), 'loopx-demo-')), 'workspace');
  dirs.push(join(workspace, '..'));
  seedDemo(workspace, 'ada');
  const kernel = Kernel.open(workspace, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  try {
    const plan = kernel.read((db, nowMs) => planTurn(db, getGoal(db, 'G1'), nowMs));
    // claude's claim on T3 is live and the goal has a slot besides it; T2 is the first ready todo.
    expect(kernel.read((db) => db.prepare(`SELECT owner FROM todos WHERE status = 'claimed'`).all())).toEqual([{ owner: 'claude' }]);
    expect(plan).toEqual({ answer: expect.objectContaining({ run: true, reason: 'ok' }), todoId: 'T2' });
  } finally {
    kernel.close();
  }
});
