import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { LOOPX, REPO, cleanEnv, loopx, startGoal, workspace } from './harness';

const ws = workspace();
afterAll(() => ws.dispose());

test('the sample agent works a turn through the CLI as an agent would, labelled a demo: evidence, then the todo handed back', () => {
  const cli = (args: string[]) => loopx(args, { cwd: ws.root });
  cli(['init']);
  cli(['goal', 'create', '--title', 'Try loopx']);
  startGoal(ws.root);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Parse quoted fields', '--detail', 'fixtures/quoted.csv round-trips']);
  const agent = join(REPO, 'bin', 'loopx-sample-agent');
  const run = spawnSync(
    process.execPath,
    [LOOPX, 'run', '--host', 'custom', '--command', `${agent} {prompt}`, '--agent', 'sample', '--once'],
    {
      cwd: ws.root,
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toContain('R1 │ LoopX sample agent: a demo with no AI.');
  // What it runs reads as a person would type it: no agent variable, no launcher path.
  expect(run.stdout).toContain('R1 │ $ loopx todo show T1 --json');
  expect(run.stdout).not.toContain('LOOPX_AGENT=');
  expect(run.stdout).toContain('R1 │   acceptance: fixtures/quoted.csv round-trips');
  expect(run.stdout).toMatch(/R1 ended: .*progress.*quota spent 1\/20/);
  expect(cli(['evidence', 'list', '--todo', 'T1', '--json']).json.data).toEqual([
    expect.objectContaining({
      actor: 'sample',
      source: 'agent',
      summary: 'Sample agent (demo, no AI) read T1 and its acceptance; no work was done',
    }),
  ]);
  expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({
    status: 'open',
    continuation: 'A sample agent (a demo) looked at this todo and did no work; a real agent picks it up next.',
  });
  expect(cli(['turn', 'list', '--json']).json.data).toEqual([expect.objectContaining({ resultKind: 'validated_progress', spent: true })]);
});
