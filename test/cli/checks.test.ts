import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dumpStore, loopx, workspace } from './harness';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/goals/goals';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';

const ws = workspace();
const root = ws.root;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env });
const bot = (args: string[]) => cli(args, { LOOPX_AGENT: 'bot' });

beforeAll(() => {
  cli(['init']);
  // The project's test suite, as a script: failing until the fix is in.
  writeFileSync(
    join(root, 'suite.mjs'),
    `import { existsSync } from 'node:fs';
if (existsSync('fixed')) { console.log('48 passing'); } else { console.log('46 passing'); console.error('2 failing: parser > quotes'); process.exit(1); }\n`,
  );
  if (PTY_AVAILABLE) {
    // A check is a person's decision: at a terminal, they type `check` to confirm (the goal then starts at once).
    const made = loopxTty(['goal', 'create', '--title', 'Parser', '--check', 'node suite.mjs', '--json'], 'check', { cwd: root });
    expect(made.json).toMatchObject({ ok: true, data: { id: 'G1', check: 'node suite.mjs', status: 'active' } });
  } else {
    const kernel = Kernel.open(root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
    createGoal(kernel, { title: 'Parser', check: 'node suite.mjs' });
    kernel.close();
  }
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Quoted fields']);
});
afterAll(() => ws.dispose());

describe('an acceptance check set by a human', () => {
  test('check_required refuses the ship until a passing kernel run; check_failed shows the output', () => {
    bot(['todo', 'claim', 'T1']);
    bot(['evidence', 'add', '--todo', 'T1', '--summary', 'all tests pass (trust me)', '--kind', 'test']);
    const before = dumpStore(root);
    const refused = bot(['todo', 'ship', 'T1', '--evidence', 'done', '--json']);
    expect(refused.code).toBe(3);
    expect(refused.json.error).toMatchObject({
      code: 'check_required',
      message: expect.stringContaining('`node suite.mjs`'),
      hint: 'run it: loopx evidence run --todo T1 --check',
    });
    expect(dumpStore(root)).toBe(before);

    // The run fails: the evidence is recorded, loopx exits with the command's status.
    const failing = bot(['evidence', 'run', '--todo', 'T1', '--check', '--json']);
    expect(failing.code).toBe(1);
    expect(failing.json).toMatchObject({
      ok: false,
      error: { code: 'command_failed', hint: expect.stringContaining('2 failing') },
      data: {
        source: 'kernel',
        kind: 'test',
        actor: 'bot',
        run: { command: 'node suite.mjs', check: 'node suite.mjs', exitCode: 1, outputTail: expect.stringContaining('46 passing') },
      },
    });
    const failed = bot(['todo', 'ship', 'T1', '--json']);
    expect(failed.code).toBe(3);
    expect(failed.json.error).toMatchObject({
      code: 'check_failed',
      message: expect.stringContaining('exit 1'),
      hint: expect.stringContaining('2 failing: parser > quotes'),
    });
    const human = bot(['todo', 'ship', 'T1']);
    expect(human.stderr).toContain('2 failing: parser > quotes');

    writeFileSync(join(root, 'fixed'), '');
    const passing = bot(['evidence', 'run', '--todo', 'T1', '--check']);
    expect(passing.code).toBe(0);
    expect(passing.stdout).toMatch(/48 passing\nRecorded #\d+ T1 \[test\] kernel-verified acceptance check ran `node suite.mjs`: exit 0/);
    expect(bot(['todo', 'ship', 'T1', '--json']).json).toMatchObject({ ok: true, data: { status: 'shipped' } });
    const list = cli(['evidence', 'list', '--todo', 'T1', '--json']).json.data as { source: string }[];
    expect(list.map((e) => e.source)).toEqual(['kernel', 'kernel', 'agent']);
  });

  test('an agent cannot set or change a check; a human can', () => {
    const before = dumpStore(root);
    for (const args of [
      ['goal', 'create', '--title', 'Mine', '--check', 'true', '--json'],
      ['todo', 'add', '--goal', 'G1', '--title', 'Mine', '--check', 'true', '--json'],
      ['goal', 'set-check', 'G1', '--clear', '--json'],
      ['todo', 'set-check', 'T1', '--check', 'true', '--json'],
    ]) {
      const run = bot(args);
      expect(run.code).toBe(3);
      expect(run.json.error?.code).toBe('not_allowed');
    }
    // Setting a check, when the goal or todo is made or later, is a human decision: VS Code or a terminal where the
    // person types the id. A "human" without either (an agent that unset LOOPX_AGENT) is refused, nothing changes.
    for (const args of [
      ['todo', 'set-check', 'T1', '--check', 'x', '--json'],
      ['todo', 'add', '--goal', 'G1', '--title', 'Docs', '--check', 'true', '--json'],
      ['goal', 'create', '--title', 'Mine', '--check', 'true', '--json'],
    ]) {
      const run = cli(args);
      expect([args.slice(0, 2), run.code, run.json.error?.code]).toEqual([args.slice(0, 2), 3, 'human_channel_required']);
    }
    expect(dumpStore(root)).toBe(before);
    if (!PTY_AVAILABLE) return console.warn(`skipped the terminal half: ${PTY_SKIP_REASON}`);
    // At a terminal: a wrong answer changes nothing; the goal id adds the todo with its check, recorded with the channel.
    expect(
      loopxTty(['todo', 'add', '--goal', 'G1', '--title', 'Docs', '--check', 'true', '--json'], 'G9', { cwd: root }).json?.error?.code,
    ).toBe('not_confirmed');
    expect(dumpStore(root)).toBe(before);
    expect(
      loopxTty(['todo', 'add', '--goal', 'G1', '--title', 'Docs', '--check', 'true', '--json'], 'G1', { cwd: root }).json,
    ).toMatchObject({ ok: true, data: { id: 'T2', check: 'true' } });
    const added = cli(['history', '--todo', 'T2', '--json']).json.data as { kind: string; data: { channel?: string } }[];
    expect(added.find((e) => e.kind === 'todo.added')?.data.channel).toBe('tty');
    expect(loopxTty(['goal', 'set-check', 'G1', '--json'], 'G1', { cwd: root }).code).toBe(2);
    expect(loopxTty(['goal', 'set-check', 'G1', '--check', 'x', '--clear', '--json'], 'G1', { cwd: root }).code).toBe(2);
    expect(loopxTty(['todo', 'set-check', 'T2', '--check', 'test -f docs.md', '--json'], 'T2', { cwd: root }).json).toMatchObject({
      ok: true,
      data: { id: 'T2', check: 'test -f docs.md' },
    });
    expect(cli(['goal', 'show', 'G1']).stdout).toContain('acceptance check: `node suite.mjs`');
  });
});

describe('evidence run', () => {
  test("passes the command its arguments untouched (no shell, --json after -- is the command's) and exits with its status", () => {
    const echo = bot(['evidence', 'run', '--goal', 'G1', '--kind', 'lint', '--', 'echo', '--json', '$(id)', 'a;b']);
    expect(echo.code).toBe(0);
    expect(echo.stdout).toMatch(
      /^--json \$\(id\) a;b\nRecorded #\d+ G1 \[lint\] kernel-verified ran `echo --json '\$\(id\)' 'a;b'`: exit 0/,
    );
    const exit5 = bot(['evidence', 'run', '--goal', 'G1', '--json', '--', process.execPath, '-e', 'process.exit(5)']);
    expect(exit5.code).toBe(5);
    expect(exit5.json).toMatchObject({
      ok: false,
      error: { code: 'command_failed' },
      data: { source: 'kernel', run: { exitCode: 5, shell: false } },
    });
    const shell = bot(['evidence', 'run', '--goal', 'G1', '--shell', '--json', '--', 'echo one && echo two']);
    expect(shell.json).toMatchObject({
      ok: true,
      data: { run: { command: 'echo one && echo two', shell: true, outputTail: 'one\ntwo\n' } },
    });
    const missing = bot(['evidence', 'run', '--goal', 'G1', '--json', '--', 'no-such-tool-loopx']);
    expect(missing.code).toBe(127);
    const slow = bot(['evidence', 'run', '--goal', 'G1', '--run-limit', '1s', '--json', '--', 'sleep', '20']);
    expect(slow.code).toBe(124);
    expect(slow.json.data).toMatchObject({ run: { timedOut: true } });
  }, 30_000);

  const bad: [string, string[], number, string][] = [
    ['no -- before the command', ['evidence', 'run', '--goal', 'G1', 'npm', 'test', '--json'], 2, 'invalid_input'],
    ['no command', ['evidence', 'run', '--goal', 'G1', '--json', '--'], 2, 'invalid_input'],
    ['both todo and goal', ['evidence', 'run', '--goal', 'G1', '--todo', 'T1', '--json', '--', 'true'], 2, 'invalid_input'],
    ['--check with a command', ['evidence', 'run', '--todo', 'T2', '--check', '--json', '--', 'true'], 2, 'invalid_input'],
    ['bad duration', ['evidence', 'run', '--goal', 'G1', '--run-limit', 'forever', '--json', '--', 'true'], 2, 'invalid_input'],
    ['unknown todo', ['evidence', 'run', '--todo', 'T42', '--json', '--', 'touch', 'ran'], 4, 'not_found'],
  ];
  test.each(bad)('%s: a clear error, nothing runs, nothing changes', (_label, args, code, errorCode) => {
    const before = dumpStore(root);
    const run = bot(args);
    expect(run.code).toBe(code);
    expect(run.json).toMatchObject({ ok: false, error: { code: errorCode } });
    expect(dumpStore(root)).toBe(before);
  });

  test('turn finish and the review packet say which evidence the kernel verified', () => {
    if (!PTY_AVAILABLE) return console.warn(`skipped: ${PTY_SKIP_REASON}`);
    expect(loopxTty(['todo', 'set-check', 'T2', '--clear'], 'T2', { cwd: root }).code).toBe(0);
    expect(loopxTty(['goal', 'set-check', 'G1', '--check', 'true'], 'G1', { cwd: root }).code).toBe(0);
    const start = cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--agent', 'bot', '--json']);
    expect(start.json).toMatchObject({ ok: true, data: { todoId: 'T2' } });
    bot(['evidence', 'add', '--todo', 'T2', '--summary', 'wrote the docs']);
    bot(['evidence', 'run', '--todo', 'T2', '--check']);
    bot(['todo', 'ship', 'T2']);
    const finish = cli(['turn', 'finish', 'R1', '--exit-code', '0', '--json']);
    expect(finish.json).toMatchObject({
      ok: true,
      data: { resultKind: 'validated_completion', evidence: { agent: 1, kernel: [{ command: 'true', exitCode: 0, check: 'true' }] } },
    });
    const packet = (cli(['review-packet', '--json']).json.data as { markdown: string }).markdown;
    expect(packet).toContain('**kernel-verified:** ran `true`: exit 0');
    expect(packet).toContain("note by bot (the agent's word): wrote the docs");
    expect(packet).toContain('| yes | unknown | 1 kernel-verified, 1 claimed |');
  });
});
