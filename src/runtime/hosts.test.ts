import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { DEFAULT_HOSTS, findExecutable, hostCommand, planHost, shellQuote } from './hosts';
import { BUILT_IN_HOSTS } from '../shared/hostCatalog';
import { turnBoundary } from './hostBoundary';

const dir = mkdtempSync(join(tmpdir(), 'loopx hosts \' "$(id)"-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const turn = {
  promptFile: join(dir, 'prompt.md'),
  dir,
  env: { LOOPX_TURN: 'R1', LOOPX_TODO: 'T1', LOOPX_GOAL: 'G1', LOOPX_AGENT: 'codex' },
};

describe('host command lines', () => {
  test('quote hostile paths so the shell runs them literally', () => {
    expect(shellQuote(`a'b $(rm -rf /) \`id\``)).toBe(`'a'\\''b $(rm -rf /) \`id\`'`);
    expect(execFileSync('/bin/sh', ['-c', `printf '%s' ${shellQuote(`x'y $(id) "z"`)}`], { encoding: 'utf8' })).toBe(`x'y $(id) "z"`);
  });

  test('codex and claude read the prompt on stdin; the exit code lands in a file and the output in a log', () => {
    writeFileSync(turn.promptFile, 'hello prompt');
    const plan = planHost('custom', { ...DEFAULT_HOSTS, custom: 'cat' }, turn);
    const out = execFileSync('/bin/sh', ['-c', plan.commandLine], { encoding: 'utf8', input: '\n' });
    expect(out.startsWith('hello prompt')).toBe(true);
    expect(out).toContain('[loopx] the turn ended with exit code 0');
    expect(readFileSync(join(dir, 'exit-code'), 'utf8')).toBe('0');
    expect(readFileSync(join(dir, 'output.log'), 'utf8')).toContain('hello prompt');
    // Without a turn's boundary to give (no root, no MCP server yet) the placeholder goes, space and all.
    expect(planHost('codex', DEFAULT_HOSTS, turn)).toMatchObject({
      executable: 'codex',
      commandLine: expect.stringContaining(`codex exec --skip-git-repo-check --json - < ${shellQuote(turn.promptFile)}`),
    });
  });

  test("claude's default command allows exactly the turn's loopx commands, each rule one quoted word", () => {
    const allowedCommands = ["LOOPX_AGENT=claude '/opt/my tools/loopx' todo ship", "LOOPX_AGENT=claude '/opt/my tools/loopx' todo show"];
    const line = hostCommand('claude', DEFAULT_HOSTS, { ...turn, allowedCommands });
    // What the shell hands to claude, word by word: the rules arrive intact, quotes and spaces included.
    const argv = execFileSync('/bin/sh', ['-c', `printf '%s\\n' ${line.replace(/^claude /, '').replace(/ < .*$/, '')}`], {
      encoding: 'utf8',
    }).split('\n');
    const at = argv.indexOf('--allowedTools');
    expect(argv.slice(0, 6)).toEqual(['-p', '--permission-mode', 'acceptEdits', '--output-format', 'stream-json', '--verbose']);
    expect(argv.slice(at, at + 3)).toEqual([
      '--allowedTools',
      "Bash(LOOPX_AGENT=claude '/opt/my tools/loopx' todo ship:*)",
      "Bash(LOOPX_AGENT=claude '/opt/my tools/loopx' todo show:*)",
    ]);
    expect(line.endsWith(`< ${shellQuote(turn.promptFile)}`)).toBe(true);
  });

  test("a host's program is the person's copy, never one planted in a workspace folder first on PATH", () => {
    const ws = join(dir, 'ws');
    const planted = join(ws, '.venv/bin');
    const persons = join(dir, 'persons-bin');
    mkdirSync(join(ws, '.loopx'), { recursive: true });
    for (const bin of [planted, persons]) {
      mkdirSync(bin, { recursive: true });
      writeFileSync(join(bin, 'codex'), '#!/bin/sh\n');
      chmodSync(join(bin, 'codex'), 0o755);
    }
    const path = process.env.PATH;
    try {
      process.env.PATH = [planted, persons].join(delimiter);
      expect(findExecutable('codex')).toBe(join(persons, 'codex'));
      // A terminal's line sets PATH first, without the workspace folder: the shell finds the person's codex, and its
      // own `#!/usr/bin/env node` finds no planted node either.
      expect(planHost('codex', DEFAULT_HOSTS, turn).commandLine.startsWith(`PATH=${shellQuote(persons)}; export PATH; { `)).toBe(true);
      // Only the planted one: none is found (a turn is refused, host_missing, before its command line is made).
      process.env.PATH = planted;
      expect(findExecutable('codex')).toBeUndefined();
    } finally {
      process.env.PATH = path;
    }
  });

  test("in a VS Code terminal, Codex runs as the person's program with the person's PATH, and its agent's commands get the terminal's whole PATH", () => {
    const ws = join(dir, 'venv ws');
    const venv = join(ws, '.venv/bin');
    const persons = join(dir, 'persons bin');
    mkdirSync(join(ws, '.loopx'), { recursive: true });
    mkdirSync(venv, { recursive: true });
    mkdirSync(persons, { recursive: true });
    const seen = join(dir, 'codex saw');
    // The person's codex says what it was given: its PATH, then its arguments, one a line.
    writeFileSync(join(persons, 'codex'), `#!/bin/sh\n{ printf '%s\\n' "$PATH"; printf '%s\\n' "$@"; } > ${shellQuote(seen)}\n`);
    chmodSync(join(persons, 'codex'), 0o755);
    writeFileSync(join(venv, 'codex'), `#!/bin/sh\necho planted > ${shellQuote(seen)}\n`);
    chmodSync(join(venv, 'codex'), 0o755);
    const terminal = [venv, persons, '/usr/bin', '/bin'].join(delimiter);
    const path = process.env.PATH;
    try {
      process.env.PATH = terminal;
      const boundary = turnBoundary({ cwd: ws, env: { ...turn.env, LOOPX_ROOT: ws } }, 'loopx', join(dir, 'key'), {});
      const plan = planHost('codex', DEFAULT_HOSTS, { ...turn, boundary });
      execFileSync('/bin/sh', ['-c', plan.commandLine], { env: { PATH: terminal }, stdio: ['pipe', 'ignore', 'ignore'], input: '\n' });
    } finally {
      process.env.PATH = path;
    }
    const [codexPath, ...argv] = readFileSync(seen, 'utf8').split('\n').slice(0, -1);
    expect(codexPath).toBe([persons, '/usr/bin', '/bin'].join(delimiter));
    // A TOML string of the terminal's PATH (this folder's name has a quote in it: escaped).
    const word = `shell_environment_policy.set.PATH=${JSON.stringify(terminal)}`;
    expect(terminal).toContain('"');
    expect(argv.filter((w) => w.includes('shell_environment'))).toEqual([word]);
    expect(argv[argv.indexOf(word) - 1]).toBe('-c');
  });

  test('only {prompt} takes the prompt off stdin: a template naming just the todo still gets it there', () => {
    expect(hostCommand('custom', { ...DEFAULT_HOSTS, custom: 'my-agent {todo}' }, turn)).toBe(
      `my-agent 'T1' < ${shellQuote(turn.promptFile)}`,
    );
    expect(hostCommand('custom', { ...DEFAULT_HOSTS, custom: 'my-agent {prompt}' }, turn)).toBe(`my-agent ${shellQuote(turn.promptFile)}`);
  });

  test('a template names values with placeholders; the real exit code comes back', () => {
    const plan = planHost('custom', { ...DEFAULT_HOSTS, custom: 'sh -c "exit 7" {prompt} {todo}' }, turn);
    let code = 0;
    try {
      execFileSync('/bin/sh', ['-c', plan.commandLine], { stdio: ['pipe', 'ignore', 'ignore'], input: '\n' });
    } catch (error) {
      code = (error as { status: number }).status;
    }
    expect(code).toBe(7);
    expect(readFileSync(join(dir, 'exit-code'), 'utf8')).toBe('7');
    expect(plan.commandLine).toContain(`${shellQuote(turn.promptFile)} 'T1'`);
  });

  test('an unconfigured host says how to configure it; executables are looked up on PATH', () => {
    expect(() => planHost('custom', DEFAULT_HOSTS, turn)).toThrow(/loopx.hosts.custom.command/);
    expect(findExecutable('sh')).toMatch(/\/sh$/);
    expect(findExecutable('surely-not-installed-loopx-host')).toBeUndefined();
  });
});

describe("the built-in hosts in VS Code's settings", () => {
  test('each has its command setting with the default from the catalog, its agent setting, and a place in the host pickers', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown; enum?: string[] }> } };
    };
    const settings = manifest.contributes.configuration.properties;
    for (const host of BUILT_IN_HOSTS) {
      expect(settings[`loopx.hosts.${host.id}.command`]?.default, host.id).toBe(host.command);
      expect(settings[`loopx.hosts.${host.id}.agent`]?.default, host.id).toBe(host.id);
    }
    const ids = [...BUILT_IN_HOSTS.map((h) => h.id), 'custom'];
    expect(settings['loopx.defaultHost']?.enum).toEqual(ids);
    expect(settings['loopx.autoRun.host']?.enum).toEqual(ids);
  });
});
