import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { LOOPX, cleanEnv, loopx, startGoal, workspace } from './harness';
import { agentCommand } from './runner';

/** What a turn used, as `loopx run` and `quota should-run` tell it: who may report it, and what is said about it. */
const spaces: { dispose(): void }[] = [];
afterAll(() => spaces.forEach((ws) => ws.dispose()));

function store(goalFlags: string[] = []) {
  const ws = workspace();
  spaces.push(ws);
  const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
  cli(['init']);
  cli(['goal', 'create', '--title', 'Nightly', ...goalFlags]);
  startGoal(ws.root);
  return { root: ws.root, cli };
}

/** `loopx run --until-idle` with a custom host command, to its end. */
function run(root: string, command: string, json = false) {
  const args = [LOOPX, 'run', '--host', 'custom', '--command', command, '--agent', 'bot', '--until-idle', ...(json ? ['--json'] : [])];
  const ran = spawnSync(process.execPath, args, { cwd: root, env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
  expect(ran.status, ran.stderr).toBe(0);
  return ran.stdout;
}

describe("a loopx run turn's usage", () => {
  test("its agent cannot finish it with a cheaper report: refused (exit 3, not_allowed), and the host's figure stands", () => {
    const { root, cli } = store();
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Step 1']);
    // The agent ships, then tries to finish its own turn cheaply before the host's report; the host then reports $0.02.
    const cheat = `'${process.execPath}' '${LOOPX}' turn finish "$LOOPX_TURN" --exit-code 0 --usage '{"costUsd":0.0001}' --json`;
    const command = `${agentCommand('ship')}; ${cheat} > cheat.out 2>&1; echo $? > cheat.code; echo 'loopx-usage: {"inputTokens":1200,"outputTokens":300,"costUsd":0.02}'`;
    const out = run(root, command);
    expect(readFileSync(join(root, 'cheat.code'), 'utf8').trim()).toBe('3');
    expect(JSON.parse(readFileSync(join(root, 'cheat.out'), 'utf8'))).toMatchObject({
      ok: false,
      error: { code: 'not_allowed', message: "turn R1 is finished by the runner that started it, from the host's own report" },
    });
    expect(out).toContain('R1 ended: shipped its todo, exit code 0, quota spent 1/20; used $0.02 · 1.5k tokens');
    const turns = cli(['turn', 'list', '--json']).json.data as { usage: { costUsd: number } | null; resultKind: string }[];
    expect(turns).toEqual([
      expect.objectContaining({ resultKind: 'validated_completion', usage: expect.objectContaining({ costUsd: 0.02 }) }),
    ]);
  });

  test("says why its usage is unknown: a line in its text, usageWarnings in --json's turn_ended", () => {
    const { root, cli } = store();
    const command = `${agentCommand('ship')}; echo 'loopx-usage: about two cents'`;
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Step 1']);
    const events = run(root, command, true)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.find((e) => e.event === 'turn_ended')).toMatchObject({
      turnId: 'R1',
      usage: null,
      usageWarnings: ['the loopx-usage line is not JSON; recorded as unknown'],
    });
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Step 2']);
    expect(run(root, command)).toContain('R2: usage warning: the loopx-usage line is not JSON; recorded as unknown');
  });
});

describe('quota should-run in words', () => {
  test('says why the goal waits as loopx run does (the money budget), keeps the code in JSON, and counts "1 turn"', () => {
    const { root, cli } = store(['--turns', '2', '--dollars', '0.05']);
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Step 1']);
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Step 2']);
    // The agent's own turn, from its shell: it reports what it used itself ($0.04).
    const bot = { LOOPX_AGENT: 'bot' };
    cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--json'], bot);
    writeFileSync(join(root, 'out.txt'), 'ok');
    cli(['todo', 'ship', 'T1', '--evidence', 'done', '--artifact', 'out.txt'], bot);
    const finish = cli(
      ['turn', 'finish', 'R1', '--exit-code', '0', '--usage', '{"inputTokens":100,"outputTokens":10,"costUsd":0.04}', '--json'],
      bot,
    );
    expect(finish.json).toMatchObject({ ok: true, data: { usage: { costUsd: 0.04 } } });
    const text = cli(['quota', 'should-run', '--goal', 'G1']).stdout;
    expect(text).toMatch(
      /^no: the next turn would likely pass the money budget \(\$0\.04 of \$0\.05 spent in 24 h; a turn costs about \$0\.04\); 1 turn left; wake /,
    );
    expect(text).not.toContain('budget_exhausted');
    expect(cli(['quota', 'should-run', '--goal', 'G1', '--json']).json.data).toMatchObject({
      run: false,
      reason: 'budget_exhausted',
      budget: 'dollars',
    });
    expect(cli(['quota', 'show', '--goal', 'G1']).stdout).toContain('should run: no (the next turn would likely pass the money budget');
  });
});

describe('the prompt cache in the cost view', () => {
  test("quota show says the window's share of input read from the prompt cache and what it saved, with the figures in JSON", () => {
    const { root, cli } = store();
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Step 1']);
    // A Sonnet turn whose host reports tokens, cache reads and writes but no cost: priced from the table.
    const report = '{"inputTokens":82000,"cachedTokens":50000,"cacheWriteTokens":30000,"outputTokens":1000,"model":"claude-sonnet-4"}';
    run(root, `${agentCommand('ship')}; echo 'loopx-usage: ${report}'`);
    expect(cli(['quota', 'show', '--goal', 'G1']).stdout).toContain('(61% of input read from the prompt cache, saving $0.11)');
    const data = cli(['quota', 'show', '--goal', 'G1', '--json']).json.data as { cache: Record<string, number> };
    expect(data.cache).toMatchObject({ turns: 1, inputTokens: 82_000, cachedTokens: 50_000, cacheWriteTokens: 30_000 });
    expect(data.cache.savedUsd).toBeCloseTo((50_000 * 2.7 - 30_000 * 0.75) / 1e6, 6);
  });
});
