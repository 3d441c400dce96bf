import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { LOOPX, cleanEnv, loopx, loopxAsync } from './harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';

/** `loopx projects`: the workspaces loopx initialised or opened for a person, and what waits on them in each. */
const made: string[] = [];
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

function setUp() {
  const parent = mkdtempSync(join(tmpdir(), 'loopx-projects-cli-'));
  made.push(parent);
  const env = { LOOPX_CONFIG_DIR: join(parent, 'person-config') };
  const folder = (name: string) => {
    const root = join(parent, name);
    mkdirSync(root, { recursive: true });
    return root;
  };
  const cli = (args: string[], cwd = parent, extra: Record<string, string> = {}) => loopx(args, { cwd, env: { ...env, ...extra } });
  const list = () => (cli(['projects', '--json']).json.data as { projects: { name: string; root: string; state: string }[] }).projects;
  return { parent, env, folder, cli, list };
}

describe('loopx projects', () => {
  test('init lists a workspace; many inits at once, of many folders and of one, lose no entry and add none twice', async () => {
    const { env, folder, list } = setUp();
    const roots = Array.from({ length: 6 }, (_, i) => folder(`p${i}`));
    const runs = await Promise.all([
      ...roots.map((root) => loopxAsync(['init', '--json'], { cwd: root, env })),
      ...[1, 2, 3].map(() => loopxAsync(['init', '--json'], { cwd: roots[0]!, env })),
    ]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.data).toMatchObject({ listed: true });
    }
    expect(
      list()
        .map((p) => p.root)
        .sort(),
    ).toEqual([...roots].sort());
  });

  test('inits killed at any moment (kill -9) leave the list whole: every entry there before, every init that finished', async () => {
    const { env, folder, list } = setUp();
    const before = Array.from({ length: 4 }, (_, i) => folder(`kept${i}`));
    for (const root of before) expect(loopx(['init'], { cwd: root, env }).code).toBe(0);
    const runs = Array.from({ length: 10 }, (_, i) => {
      const root = folder(`raced${i}`);
      const child = spawn(process.execPath, [LOOPX, 'init', '--json'], { cwd: root, env: cleanEnv(env) });
      // Half are killed between 20 and 200 ms in: before, during or after their write to the list.
      if (i % 2 === 0) setTimeout(() => child.kill('SIGKILL'), 20 + i * 18);
      return new Promise<{ root: string; code: number | null }>((resolve) => child.on('exit', (code) => resolve({ root, code })));
    });
    const ended = await Promise.all(runs);
    const listed = list().map((p) => p.root);
    for (const root of before) expect(listed).toContain(root);
    for (const { root, code } of ended) if (code === 0) expect(listed).toContain(root);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.every((root) => before.includes(root) || ended.some((e) => e.root === root))).toBe(true);
  });

  test('what waits on a person is counted and said, the busiest project first', () => {
    const { folder, cli } = setUp();
    const quiet = folder('quiet');
    const busy = folder('busy');
    cli(['init'], quiet);
    cli(['init'], busy);
    cli(['goal', 'create', '--title', 'Ship'], busy); // from a script: it waits for a person to start it
    const json = cli(['projects', '--json']).json.data as { projects: { name: string; waiting: { total: number; pausedGoals: number } }[] };
    expect(json.projects.map((p) => [p.name, p.waiting.total])).toEqual([
      ['busy', 1],
      ['quiet', 0],
    ]);
    const text = cli(['projects']).stdout;
    expect(text).toContain('2 projects, 1 waiting on you');
    expect(text).toMatch(/busy .*\n {4}1 goal waiting to be started · local store · last change/);
    expect(text).toMatch(/quiet .*\n {4}nothing waits on you · local store/);
  });

  test('a folder gone or without its store is said with what to do, never an error; the list itself still answers', () => {
    const { folder, cli } = setUp();
    const gone = folder('gone');
    const bare = folder('bare');
    cli(['init'], gone);
    cli(['init'], bare);
    rmSync(gone, { recursive: true });
    rmSync(join(bare, '.loopx'), { recursive: true });
    const run = cli(['projects']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'its folder is gone (moved or deleted); moved? open it from its new place and it is found again; else loopx projects forget "gone"',
    );
    expect(run.stdout).toContain(
      'its folder has no loopx store any more; loopx init there starts a new store, or loopx projects forget "bare"',
    );
  });

  test('a config folder loopx may not write does not fail an init: it says the workspace is not listed, and why', () => {
    const { parent, folder } = setUp();
    const blocker = join(parent, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const run = loopx(['init', '--json'], { cwd: folder('w'), env: { LOOPX_CONFIG_DIR: join(blocker, 'loopx') } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.data).toMatchObject({ created: true, listed: false, notListed: expect.stringMatching(/ENOTDIR|not a directory/) });
  });

  test('a damaged list is exit 6 naming the file, and says how to start again', () => {
    const { env, cli } = setUp();
    mkdirSync(env.LOOPX_CONFIG_DIR, { recursive: true });
    writeFileSync(join(env.LOOPX_CONFIG_DIR, 'projects.db'), 'x'.repeat(200));
    const run = cli(['projects', '--json']);
    expect(run.code).toBe(6);
    expect(run.json.error).toMatchObject({ code: 'projects_damaged', message: expect.stringContaining('projects.db') });
    expect(run.json.error?.hint).toContain('move that file aside');
  });

  test('hostile folder names are only text', () => {
    const { folder, cli } = setUp();
    cli(['init'], folder('evil\u001b[31mred\u001b]0;title\u0007'));
    const text = cli(['projects']).stdout;
    const control = (s: string) => [...s].some((c) => c === '\u001b' || c === '\u0007');
    expect(control(text)).toBe(false);
    expect(control(cli(['projects', '--json']).stdout)).toBe(false);
  });

  test("add, rename and forget are a person's at a terminal: agents and scripts are refused with nothing changed", () => {
    const { folder, cli, list } = setUp();
    const api = folder('api');
    cli(['init'], api);
    const before = JSON.stringify(list());
    for (const args of [
      ['forget', 'api'],
      ['rename', 'api', 'Billing'],
      ['add', api],
    ]) {
      const agent = cli(['projects', ...args, '--json'], api, { LOOPX_AGENT: 'bot' });
      expect(agent.code, args.join(' ')).toBe(3);
      expect(agent.json.error?.code).toBe('not_allowed');
      const script = cli(['projects', ...args, '--json'], api);
      expect(script.code).toBe(3);
      expect(script.json.error?.code).toBe('human_channel_required');
    }
    expect(JSON.stringify(list())).toBe(before);
  });

  test.skipIf(!PTY_AVAILABLE)(
    `a person adds, renames and forgets at a terminal, typing the name (${PTY_AVAILABLE ? 'pty' : PTY_SKIP_REASON})`,
    () => {
      const { parent, env, folder, cli, list } = setUp();
      const api = folder('api');
      const web = folder('web');
      cli(['init'], api);
      loopx(['init'], { cwd: web, env: { LOOPX_CONFIG_DIR: join(parent, 'elsewhere') } }); // listed in another person's list
      const tty = (args: string[], typed: string) => loopxTty(['projects', ...args, '--json'], typed, { cwd: parent, env });

      expect(tty(['add', join(parent, 'nowhere')], 'nowhere').code).toBe(5); // judged before anything is asked
      expect(tty(['rename', 'api', 'x'.repeat(61)], 'api').code).toBe(2);
      expect(tty(['forget', 'nope'], 'nope').code).toBe(4);
      expect(tty(['add', web], 'not-web').code).toBe(3); // the wrong name typed: not confirmed
      expect(list().map((p) => p.name)).toEqual(['api']);

      expect(tty(['add', web, '--name', 'Website'], 'web').code).toBe(0);
      expect(tty(['rename', 'api', 'Billing API'], 'api').code).toBe(0);
      expect(
        list()
          .map((p) => p.name)
          .sort(),
      ).toEqual(['Billing API', 'Website']);
      expect(tty(['forget', 'website'], 'Website').code).toBe(0);
      expect(list().map((p) => p.name)).toEqual(['Billing API']);
    },
  );
});
