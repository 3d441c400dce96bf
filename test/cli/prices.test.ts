import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { dumpStore, loopx, seededWorkspace, startGoal } from './harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';

/** `loopx prices` and what a turn costs, through real processes (each test in its own workspace). */
const spaces: { dispose(): void }[] = [];
afterAll(() => spaces.forEach((ws) => ws.dispose()));

function setUp(goalFlags: string[] = []) {
  const ws = seededWorkspace(`a goal ${goalFlags.join(' ')}`, (root) => {
    loopx(['init'], { cwd: root });
    loopx(['goal', 'create', '--title', 'Nightly', '--turns', '10', ...goalFlags], { cwd: root });
    startGoal(root);
  });
  spaces.push(ws);
  const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
  const tty = (args: string[], typed: string) => loopxTty(args, typed, { cwd: ws.root });
  return { root: ws.root, cli, tty };
}

/**
 * One turn of a custom host that reports tokens but no money (as Codex does): a million input tokens on `model`,
 * progress made, finished with `--usage`. Returns the turn's recorded usage.
 */
function turnOnMillionTokens(cli: ReturnType<typeof setUp>['cli'], model: string) {
  cli(['todo', 'add', '--goal', 'G1', '--title', `Work on ${model}`]);
  const start = cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--agent', 'bot', '--json']);
  expect(start.code, start.stderr).toBe(0);
  const { id, todoId } = start.json.data as { id: string; todoId: string };
  cli(['evidence', 'add', '--todo', todoId, '--summary', 'half way'], { LOOPX_AGENT: 'bot' });
  const usage = JSON.stringify({ inputTokens: 1_000_000, outputTokens: 0, model });
  const finish = cli(['turn', 'finish', id, '--exit-code', '0', '--usage', usage, '--json']);
  expect(finish.code, finish.stderr).toBe(0);
  return (finish.json.data as { usage: { costUsd: number | null; costSource: string | null } }).usage;
}

const SET_GPT5 = ['prices', 'set', 'gpt-5', '--input', '2', '--cached-input', '0.2', '--output', '16', '--json'];

describe('loopx prices', () => {
  test('an agent cannot set, remove or import a price, and a script without a terminal cannot either; nothing changes', () => {
    const { root, cli } = setUp();
    writeFileSync(join(root, '.loopx', 'prices.json'), JSON.stringify({ 'gpt-5': { input: 0, cachedInput: 0, output: 0 } }));
    const before = dumpStore(root);
    for (const args of [SET_GPT5, ['prices', 'remove', 'gpt-5', '--json'], ['prices', 'import', '--json']]) {
      const asAgent = cli(args, { LOOPX_AGENT: 'codex' });
      expect(asAgent.code, args.join(' ')).toBe(3);
      expect(asAgent.json.error?.code).toBe('not_allowed');
      const noTty = cli(args);
      expect(noTty.code, args.join(' ')).toBe(3);
      expect(noTty.json.error?.code).toBe('human_channel_required');
    }
    expect(dumpStore(root)).toBe(before);
    // An agent may read the table.
    const list = cli(['prices', '--json'], { LOOPX_AGENT: 'codex' });
    expect(list.json.data).toMatchObject({
      ignoredFile: true,
      prices: expect.arrayContaining([expect.objectContaining({ model: 'gpt-5', origin: 'built-in', input: 1.25 })]),
    });
  });

  test("a rewritten .loopx/prices.json (gpt-5 at 0) changes no turn's cost: the built-in price applies and the money cap holds", () => {
    const { root, cli } = setUp(['--dollars', '1']);
    const zero = { input: 0, cachedInput: 0, output: 0 };
    writeFileSync(join(root, '.loopx', 'prices.json'), JSON.stringify({ 'gpt-5': zero, 'loopx-scripted': zero }));
    expect(turnOnMillionTokens(cli, 'gpt-5')).toMatchObject({ costUsd: 1.25, costSource: 'prices' });
    // The cap ($1) is spent: no next turn.
    cli(['todo', 'add', '--goal', 'G1', '--title', 'More']);
    const next = cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--agent', 'bot', '--json']);
    expect(next.code).toBe(3);
    expect(next.json.error?.code).toBe('should_not_run');
    expect(next.json.data).toMatchObject({ reason: 'budget_exhausted', budget: 'dollars' });
    // The file is named as ignored, with the way to adopt it.
    const doctor = cli(['doctor', '--json']);
    expect((doctor.json.data as { checks: { name: string; level: string; detail: string }[] }).checks).toContainEqual({
      name: 'prices.json',
      level: 'warn',
      detail: expect.stringMatching(/is ignored: .*loopx prices import at an interactive terminal/),
    });
  });

  test.skipIf(!PTY_AVAILABLE)("a person at a terminal sets a price by typing the model's name; the next turn costs that", () => {
    const { root, cli, tty } = setUp();
    const before = dumpStore(root);
    const wrong = tty(SET_GPT5, 'gpt-4');
    expect(wrong.code).toBe(3);
    expect(wrong.json?.error?.code).toBe('not_confirmed');
    const bad = tty(['prices', 'set', 'gpt-5', '--input', '2', '--cached-input', '-1', '--output', '16', '--json'], 'gpt-5');
    expect(bad.code).toBe(2);
    expect(bad.json?.error?.message).toMatch(/numbers ≥ 0/);
    expect(dumpStore(root)).toBe(before);

    const run = tty(SET_GPT5, 'gpt-5');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Type gpt-5 to confirm');
    expect(run.stderr).toContain('now: gpt-5: $1.25 in · $0.125 cached · $10 out per million tokens');
    expect(run.json?.data).toMatchObject({ model: 'gpt-5', input: 2, cachedInput: 0.2, output: 16, setChannel: 'tty' });
    expect(turnOnMillionTokens(cli, 'gpt-5')).toMatchObject({ costUsd: 2, costSource: 'prices' });
    expect(cli(['prices']).stdout).toMatch(
      /^gpt-5 +\$2 in · \$0\.2 cached · \$16 out per million tokens; as of \d{4}-\d\d-\d\d; set by \S+ \(tty\) on .*, over the built-in price$/m,
    );

    const removed = tty(['prices', 'remove', 'GPT-5', '--json'], 'gpt-5');
    expect(removed.code, removed.stderr).toBe(0);
    expect(turnOnMillionTokens(cli, 'gpt-5')).toMatchObject({ costUsd: 1.25 });
  });

  test.skipIf(!PTY_AVAILABLE)('a price may name its cache-write rate: shown in the table, refused when negative', () => {
    const { root, tty, cli } = setUp();
    const before = dumpStore(root);
    const sonnet = ['prices', 'set', 'claude-sonnet-4', '--input', '3', '--cached-input', '0.3', '--output', '15', '--json'];
    const bad = tty([...sonnet, '--cache-write', '-2'], 'claude-sonnet-4');
    expect(bad.code).toBe(2);
    expect(bad.json?.error?.message).toMatch(/cacheWrite, when given, is a number ≥ 0/);
    expect(dumpStore(root)).toBe(before);
    const run = tty([...sonnet, '--cache-write', '6'], 'claude-sonnet-4');
    expect(run.code, run.stderr).toBe(0);
    // The built-in price it replaces carries Anthropic's 1.25x for cache writes.
    expect(run.stderr).toContain('now: claude-sonnet-4: $3 in · $0.3 cached · $3.75 cache write · $15 out per million tokens');
    expect(run.json?.data).toMatchObject({ model: 'claude-sonnet-4', cacheWrite: 6 });
    expect(cli(['prices']).stdout).toMatch(/^claude-sonnet-4 +\$3 in · \$0\.3 cached · \$6 cache write · \$15 out per million tokens;/m);
  });

  test.skipIf(!PTY_AVAILABLE)(
    "loopx prices import records an old file's entries as the person's decision, and skips a bad one in words",
    () => {
      const { root, cli, tty } = setUp();
      writeFileSync(
        join(root, '.loopx', 'prices.json'),
        JSON.stringify({ 'loopx-scripted': { input: 2, cachedInput: 0.2, output: 8, asOf: '2026-12-01' }, 'gpt-5': { input: 'cheap' } }),
      );
      expect(turnOnMillionTokens(cli, 'loopx-scripted').costUsd).toBeNull();
      const run = tty(['prices', 'import', '--json'], 'import');
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('loopx-scripted: $2 in · $0.2 cached · $8 out per million tokens, as of 2026-12-01 (prices.json)');
      expect(run.stderr).toContain('not imported: prices.json: gpt-5 needs input');
      expect(run.json?.data).toMatchObject({
        prices: [{ model: 'loopx-scripted', setChannel: 'tty' }],
        problems: [expect.stringContaining('gpt-5')],
      });
      expect(turnOnMillionTokens(cli, 'loopx-scripted')).toMatchObject({ costUsd: 2 });
    },
  );
  if (!PTY_AVAILABLE) test.skip(PTY_SKIP_REASON, () => undefined);
});
