import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, test } from 'vitest';
import { LOOPX, cleanEnv, loopx, startGoal, workspace } from './harness';
import { agentCommand } from './runner';

/** `loopx run` against a money budget: a custom host that reports each turn's cost with a loopx-usage: line. */
const spaces: { dispose(): void }[] = [];
afterAll(() => spaces.forEach((ws) => ws.dispose()));

describe('loopx run and a budget in dollars', () => {
  test('stops before the turn that would likely overspend, says which budget in words, and every turn records its cost', () => {
    const ws = workspace();
    spaces.push(ws);
    const cli = (args: string[]) => loopx(args, { cwd: ws.root });
    cli(['init']);
    expect(cli(['goal', 'create', '--title', 'Nightly', '--dollars', '0.05']).stdout).toContain('at most $0.05');
    startGoal(ws.root);
    for (let i = 1; i <= 5; i++) cli(['todo', 'add', '--goal', 'G1', '--title', `Step ${i}`]);
    // Each turn ships and then reports it cost two cents, as a custom host documents (turn finish --help).
    const command = `${agentCommand('ship')}; echo 'loopx-usage: {"inputTokens":1200,"outputTokens":300,"costUsd":0.02}'`;
    const run = spawnSync(process.execPath, [LOOPX, 'run', '--host', 'custom', '--command', command, '--agent', 'bot', '--until-idle'], {
      cwd: ws.root,
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    // Two turns ($0.04); a third, at about $0.02, would pass $0.05.
    const turns = cli(['turn', 'list', '--json']).json.data as { usage: { costUsd: number } | null }[];
    expect(turns.map((t) => t.usage?.costUsd)).toEqual([0.02, 0.02]);
    expect(run.stdout).toContain('R1 ended: shipped its todo, exit code 0, quota spent 1/20; used $0.02 · 1.5k tokens');
    // While R2 runs: $0.02 spent, R2 likely another $0.02, so a third turn would pass $0.05.
    expect(run.stdout).toContain(
      'G1: should run: no (the next turn would likely pass the money budget ($0.02 of $0.05 spent in 24 h; a turn costs about $0.02))',
    );
    expect(run.stdout).toContain('loopx run stopped (idle): 2 turns run.');
    const quota = cli(['quota', 'show', '--goal', 'G1', '--json']).json.data as { shouldRun: Record<string, unknown> };
    expect(quota.shouldRun).toMatchObject({ run: false, reason: 'budget_exhausted', budget: 'dollars' });
    expect(cli(['quota', 'show']).stdout).toContain('used $0.04 of $0.05 · 3k tokens');
  });
});
