import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createGoal } from '../../src/kernel/goals/goals';
import { Kernel } from '../../src/kernel/kernel';
import { writeTeamPointer } from '../../src/kernel/team/teamPointer';
import { openTeamKernel } from '../../src/kernel/team/teamStore';
import { addTodo } from '../../src/kernel/todos/todos';
import { human } from '../../src/kernel/testKit';
import { type Run, loopx } from '../cli/harness';
import { POSTGRES_MISSING } from '../support/postgres';
import { install, newTeamStore, useCluster } from './teamKit';

/**
 * bin/loopx starts the team client's worker thread before the verb's bundle loads, in a workspace with
 * .loopx/team.json (src/kernel/team/pgWorker.ts), and the command's client adopts it: LOOPX_TIMING's team line says
 * so (`earlyWorker`, `workerStartAtMs`) beside bin/loopx's own line (the bundle loaded at startUpMs + loadMs). Whatever
 * the early worker meets, the call answers, and fails, in the words it has without it.
 */

if (!install) test.skip(POSTGRES_MISSING, () => {});
const fixture = useCluster();
const work = mkdtempSync(join(tmpdir(), 'loopx-earlyworker-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** bin/loopx's timing line and the team client's, from a call's stderr. */
function timing(run: Run): { bin: Record<string, number>; team: Record<string, number> | null } {
  let bin: Record<string, number> = {};
  let team: Record<string, number> | null = null;
  for (const line of run.stderr.split('\n')) {
    if (line.startsWith('{"startUpMs"')) bin = JSON.parse(line) as Record<string, number>;
    if (line.startsWith('{"team"')) team = (JSON.parse(line) as { team: Record<string, number> }).team;
  }
  return { bin, team };
}

const asAgent = { LOOPX_AGENT: 'codex', LOOPX_TIMING: '1' };

describe.skipIf(!install)("bin/loopx starts the team client's worker before the verb's bundle", () => {
  test('a claim adopts the early worker, found from the current directory, --root or LOOPX_ROOT, and answers', async () => {
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    const root = join(work, 'agent');
    mkdirSync(join(root, '.loopx'), { recursive: true });
    const owner = openTeamKernel(join(work, 'owner'), {
      replicaPath: join(work, 'owner', 'replica.db'),
      connection: { connectionString: ownerUrl },
      actor: human,
    });
    const goal = createGoal(owner.kernel, { title: 'g', maxConcurrent: 10 });
    for (const title of ['a', 'b', 'c']) addTodo(owner.kernel, { goalId: goal.id, title });
    owner.kernel.close();
    writeTeamPointer(root, ownerUrl);
    const elsewhere = join(work, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });

    const ways: [string, string[], string, Record<string, string>][] = [
      ['the current directory', [], root, {}],
      ['--root', ['--root', root], elsewhere, {}],
      ['LOOPX_ROOT', [], elsewhere, { LOOPX_ROOT: root }],
    ];
    const claimed: string[] = [];
    for (const [way, rootArgs, cwd, env] of ways) {
      const run = loopx(['todo', 'claim', '--next', ...rootArgs, '--json'], { cwd, env: { ...asAgent, ...env } });
      expect(run.code, `${way}: ${run.stderr}`).toBe(0);
      claimed.push((run.json.data as { id: string }).id);
      const { bin, team } = timing(run);
      expect(team?.earlyWorker, `${way}: ${run.stderr}`).toBe(1);
      // Started before bin/loopx required the verb's bundle (an order of events, not a duration).
      expect(team?.workerStartAtMs, way).toBeLessThan((bin.startUpMs as number) + (bin.loadMs as number));
    }
    expect(claimed.sort()).toEqual(['T1', 'T2', 'T3']);
  }, 120_000);

  test('an early worker that cannot connect: the same refusal, in the same words, as the kernel opened without it', () => {
    const root = join(work, 'unreachable');
    mkdirSync(join(root, '.loopx'), { recursive: true });
    writeTeamPointer(root, 'postgresql://127.0.0.1:1/nowhere'); // nobody listens there
    let expected: unknown;
    try {
      Kernel.open(root).close(); // this process: no bin/loopx, no early worker
    } catch (error) {
      expected = error;
    }
    expect(expected).toMatchObject({ code: 'team_unreachable' });
    const { message, hint } = expected as { message: string; hint?: string };
    for (const args of [['status'], ['todo', 'claim', '--next']]) {
      const run = loopx([...args, '--json'], { cwd: root, env: asAgent });
      expect(run.code, run.stderr).toBe(6);
      expect(run.json.error).toMatchObject({ code: 'team_unreachable', message, hint: hint ?? null });
      expect(timing(run).team?.earlyWorker, run.stderr).toBe(1);
    }
  }, 60_000);
});
