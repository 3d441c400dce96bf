import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { needsTurnLoopx, writeTurnLoopx } from './turnLoopx';

const base = mkdtempSync(join(tmpdir(), "loopx turn's own "));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A stand-in for the workspace's loopx, in a folder with a space and a quote: it says who called it with what. */
function setUp(): string {
  const tools = join(base, "my 'tools'");
  mkdirSync(tools, { recursive: true });
  const loopx = join(tools, 'loopx');
  writeFileSync(loopx, '#!/bin/sh\nprintf "%s|" "$LOOPX_AGENT" "$@"\n', { mode: 0o755 });
  writeFileSync(join(tools, 'env-loopx'), '#!/bin/sh\nenv | sort\n', { mode: 0o755 });
  const folder = join(base, 'R7');
  mkdirSync(join(folder, 'env'), { recursive: true });
  const env = { PATH: '/usr/bin:/bin', HOME: base, LOOPX_CONFIG_DIR: join(base, 'key folder') };
  writeTurnLoopx(join(folder, 'env'), {
    turnId: 'R7',
    host: 'copilot',
    agent: 'copilot',
    loopx: join(tools, 'env-loopx'),
    todo: 'T3',
    root: base,
    env,
  });
  return writeTurnLoopx(folder, { turnId: 'R7', host: 'copilot', agent: 'copilot', loopx, todo: 'T3', root: base, env });
}

// The launcher is a POSIX shell script, as no Windows host needs one (needsTurnLoopx): the fast tier on Windows skips it.
describe.skipIf(process.platform === 'win32')("a turn's own loopx (hosts whose rules match the program alone)", () => {
  const launcher = process.platform === 'win32' ? '' : setUp();
  const run = (args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(launcher, args, { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', ...env } });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  test("runs the turn's verbs as the turn's agent, whatever LOOPX_AGENT the caller sets, with every word kept as it was", () => {
    expect(run(['todo', 'show', 'T3', '--json'])).toEqual({ code: 0, stdout: 'copilot|todo|show|T3|--json|', stderr: '' });
    expect(run(['evidence', 'add', '--todo', 'T3', '--summary', "it's done; $(no)"], { LOOPX_AGENT: 'intruder' }).stdout).toBe(
      "copilot|evidence|add|--todo|T3|--summary|it's done; $(no)|",
    );
    expect(run(['evidence', 'run', '--todo', 'T3', '--check']).code).toBe(0);
    expect(run(['handoff', 'T3', '--to', 'claude']).code).toBe(0);
  });

  test("runs loopx in the environment the turn started with: a command line's NODE_OPTIONS, PATH, root or key folder never reach it", () => {
    const r = spawnSync(join(base, 'R7', 'env', 'loopx'), ['todo', 'show', 'T3'], {
      encoding: 'utf8',
      env: {
        PATH: join(base, 'evil'),
        NODE_OPTIONS: '--import=./mine.mjs',
        LOOPX_ROOT: '/elsewhere',
        LOOPX_CONFIG_DIR: '/elsewhere/key',
        LOOPX_AGENT: 'intruder',
        PGUSER: 'loopx_agent',
        LANG: 'C.UTF-8',
      },
    });
    expect(r.stderr).toBe('');
    // PWD: the stand-in's own shell sets it.
    expect(
      r.stdout
        .trim()
        .split('\n')
        .filter((line) => !line.startsWith('PWD=')),
    ).toEqual(
      [
        `HOME=${base}`,
        'LANG=C.UTF-8',
        `LOOPX_AGENT=copilot`,
        `LOOPX_CONFIG_DIR=${join(base, 'key folder')}`,
        `LOOPX_ROOT=${base}`,
        'PATH=/usr/bin:/bin',
        'PGUSER=loopx_agent',
      ].sort(),
    );
  });

  test('refuses any other verb before loopx starts: in JSON with --json (exit 3, not_allowed), else in words on stderr', () => {
    const refused = [
      ['goal', 'pause', 'G1', '--json'],
      ['evidence', 'run', '--todo', 'T3', '--json', '--', 'touch', 'x'],
      ['evidence', 'run', '--todo', 'T9', '--check', '--json'],
      ['todo show', 'T3', '--json'],
      ['--json'],
      ['todo', 'show', 'T3', '--json', '--agent', 'intruder'],
      ['todo', 'ship', 'T3', '--json', '--root=/elsewhere'],
    ];
    for (const args of refused) {
      const r = run(args);
      expect([r.code, JSON.parse(r.stdout).error.code], args.join(' ')).toEqual([3, 'not_allowed']);
    }
    const words = run(['gate', 'approve', 'G1']);
    expect(words).toMatchObject({ code: 3, stdout: '' });
    expect(words.stderr).toMatch(/^loopx: turn R7 runs only its own loopx verbs \(todo show, evidence add, .*\)/);
  });
});

test("the turn's loopx pins the person's PATH: no workspace folder (an activated .venv/bin) where a planted node would be found", () => {
  const ws = join(base, 'ws');
  mkdirSync(join(ws, '.loopx'), { recursive: true });
  const folder = join(base, 'R8');
  mkdirSync(folder, { recursive: true });
  const env = { PATH: [join(ws, '.venv/bin'), 'node_modules/.bin', '/usr/bin', '/bin'].join(':'), HOME: base };
  const file = writeTurnLoopx(folder, { turnId: 'R8', host: 'copilot', agent: 'copilot', loopx: '/opt/loopx', todo: 'T3', root: ws, env });
  const script = readFileSync(file, 'utf8');
  expect(script).toContain("PATH='/usr/bin:/bin'");
  expect(script).not.toContain('.venv');
});

test('only hosts whose rules match the program get a loopx of their own, and not on Windows (no POSIX shell to run it)', () => {
  expect(needsTurnLoopx('copilot', 'linux')).toBe(true);
  expect(needsTurnLoopx('copilot', 'win32')).toBe(false);
  for (const host of ['claude', 'codex', 'opencode', 'gemini', 'custom']) expect(needsTurnLoopx(host, 'linux')).toBe(false);
});
