import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { LOOPX, cleanEnv, loopx, startGoal } from './harness';

/**
 * A folder inside the workspace first on PATH (a Python `.venv/bin` a person activated, the `node_modules/.bin` an npm
 * script puts there, a relative `node_modules/.bin`) holds what the workspace's agents wrote. loopx runs git for a
 * person (worktrees, landing) outside any agent's sandbox: a `git` planted there must never be the one it runs.
 */
let parent: string;
let root: string;
let marker: string;
beforeEach(() => {
  parent = realpathSync(mkdtempSync(join(tmpdir(), 'loopx-persons-path-')));
  root = join(parent, 'app');
  marker = join(parent, 'planted-git-ran');
  mkdirSync(root);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
  for (const bin of [join(root, '.venv', 'bin'), join(root, 'node_modules', '.bin')]) {
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$0 $*" >> '${marker}'\nexit 1\n`);
    chmodSync(join(bin, 'git'), 0o755);
  }
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

test('git planted in a workspace folder on PATH (absolute or relative) is never run; the person’s git is', () => {
  const PATH = [join(root, '.venv', 'bin'), 'node_modules/.bin', process.env.PATH ?? ''].join(delimiter);
  // The plant is real: the shell with this PATH runs it.
  expect(() => execFileSync('/bin/sh', ['-c', 'git --version'], { cwd: root, env: { ...process.env, PATH }, stdio: 'ignore' })).toThrow();
  expect(existsSync(marker)).toBe(true);
  rmSync(marker);

  expect(loopx(['init'], { cwd: root, env: { PATH } }).code).toBe(0);
  const list = loopx(['worktree', 'list', '--json'], { cwd: root, env: { PATH } });
  expect(list.code, list.stderr).toBe(0);
  expect(list.json.ok).toBe(true);
  const doctor = loopx(['doctor', '--json'], { cwd: root, env: { PATH } });
  expect(doctor.json.ok, doctor.stderr).toBe(true);
  // doctor says which folders loopx leaves out, and why.
  expect((doctor.json.data as { checks: { name: string; detail: string }[] }).checks.find((c) => c.name === 'PATH')?.detail).toBe(
    `loopx never runs git, a host or the node it needs from ${join(root, '.venv/bin')}, node_modules/.bin: in a workspace (or relative), where agents can write`,
  );
  expect(existsSync(marker)).toBe(false);
});

test('a host program planted in a workspace folder first on PATH is never run: the turn is refused, nothing claimed', () => {
  const planted = join(root, '.venv', 'bin');
  writeFileSync(join(planted, 'codex'), `#!/bin/sh\necho "$0 $*" >> '${marker}'\nexit 0\n`);
  chmodSync(join(planted, 'codex'), 0o755);
  // The person's PATH has no codex of its own (cleanEnv drops the checkout's node_modules/.bin, where the real one is).
  const PATH = [planted, cleanEnv().PATH ?? ''].join(delimiter);
  expect(loopx(['init'], { cwd: root, env: { PATH } }).code).toBe(0);
  expect(loopx(['goal', 'create', '--title', 'ship it'], { cwd: root, env: { PATH } }).code).toBe(0);
  startGoal(root);
  expect(loopx(['todo', 'add', '--goal', 'G1', '--title', 'work'], { cwd: root, env: { PATH } }).code).toBe(0);
  const run = loopx(['run', '--host', 'codex', '--goal', 'G1', '--once', '--json'], { cwd: root, env: { PATH } });
  expect(run.code).toBe(2);
  expect(run.json.error).toMatchObject({
    code: 'host_missing',
    message: `the codex host needs "codex", which is on PATH only at ${join(planted, 'codex')}: in a workspace folder (or a relative one), where agents can write, so loopx does not run it`,
    hint: 'install it outside the workspace, or name it by its full path in the command',
  });
  expect(existsSync(marker)).toBe(false);
  const list = loopx(['todo', 'list', '--json'], { cwd: root, env: { PATH } });
  expect((list.json.data as { status: string }[]).map((t) => t.status)).toEqual(['open']);
});

test("a host that is a Node script runs on the person's node, never a node planted in a workspace folder on PATH", () => {
  const planted = join(root, '.venv', 'bin');
  writeFileSync(join(planted, 'node'), `#!/bin/sh\necho "$0 $*" >> '${marker}'\nexit 0\n`);
  chmodSync(join(planted, 'node'), 0o755);
  // The person's agent, a Node script outside the workspace: it says which node runs it.
  const tools = join(parent, 'tools');
  mkdirSync(tools);
  const ran = join(parent, 'agent-ran-on');
  writeFileSync(join(tools, 'my-agent'), `#!/usr/bin/env node\nrequire('fs').writeFileSync(${JSON.stringify(ran)}, process.execPath);\n`);
  chmodSync(join(tools, 'my-agent'), 0o755);
  const PATH = [planted, tools, cleanEnv().PATH ?? ''].join(delimiter);
  expect(loopx(['init'], { cwd: root, env: { PATH } }).code).toBe(0);
  expect(loopx(['goal', 'create', '--title', 'ship it'], { cwd: root, env: { PATH } }).code).toBe(0);
  startGoal(root);
  expect(loopx(['todo', 'add', '--goal', 'G1', '--title', 'work'], { cwd: root, env: { PATH } }).code).toBe(0);
  const run = loopx(['run', '--host', 'custom', '--command', 'my-agent {prompt}', '--agent', 'bot', '--goal', 'G1', '--once'], {
    cwd: root,
    env: { PATH },
  });
  expect(run.code, run.stderr).toBe(0);
  expect(existsSync(marker)).toBe(false);
  expect(readFileSync(ran, 'utf8')).not.toContain(root);
});

test("the dashboard opens the person's browser, never an xdg-open planted in a workspace folder on PATH", async () => {
  const opened = join(parent, 'persons-browser-opened');
  const persons = join(parent, 'persons-bin');
  mkdirSync(persons);
  for (const [dir, mark] of [
    [join(root, '.venv', 'bin'), marker],
    [persons, opened],
  ] as const) {
    writeFileSync(join(dir, 'xdg-open'), `#!/bin/sh\necho "$0 $*" >> '${mark}'\n`);
    chmodSync(join(dir, 'xdg-open'), 0o755);
  }
  const env: Record<string, string> = { ...cleanEnv(), PATH: [join(root, '.venv', 'bin'), persons, cleanEnv().PATH ?? ''].join(delimiter) };
  delete env.BROWSER;
  expect(loopx(['init'], { cwd: root, env }).code).toBe(0);
  const server = spawn(process.execPath, [LOOPX, 'dashboard', '--json'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    for (let i = 0; i < 200 && !existsSync(opened); i++) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(opened, 'utf8')).toMatch(/^\S+persons-bin\/xdg-open http:\/\/127\.0\.0\.1:\d+\//);
    expect(existsSync(marker)).toBe(false);
  } finally {
    server.kill();
  }
});
