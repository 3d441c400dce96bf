import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { LOOPX, approveWaitingChecks, cleanEnv, dumpStore, loopx, seededWorkspace, startGoal } from './harness';
import { type RunnerChild, agentCommand, startRunner } from './runner';
import { decisionLine } from '../../src/cli/run/runnerWords';
import type { ShouldRun } from '../../src/kernel/goals/quotaQueries';
import { processAlive } from '../../src/runtime/launchers';

/** `loopx run` as a black box: bin/loopx run with a scripted host (no model), each test in its own workspace. */
const spaces: { root: string; dispose(): void }[] = [];
const children: RunnerChild[] = [];
afterAll(() => {
  for (const r of children) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  // A runner killed here leaves its agents running (that is the point of some tests): end any a failed test left.
  for (const ws of spaces) {
    const turns = join(ws.root, '.loopx', 'turns');
    for (const turn of existsSync(turns) ? readdirSync(turns, { withFileTypes: true }).filter((d) => d.isDirectory()) : []) {
      const file = join(ws.root, '.loopx', 'turns', turn.name, 'launcher.json');
      const hostPid = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { hostPid?: number }).hostPid : undefined;
      if (hostPid && processAlive(hostPid)) process.kill(-hostPid, 'SIGKILL');
    }
    ws.dispose();
  }
});

type Turn = {
  id: string;
  todoId: string;
  agent: string;
  resultKind: string | null;
  exitCode: number | null;
  spent: boolean;
  endedAt: string | null;
  startedAt: string;
};

function setUp(todos: number, goalFlags: string[] = []) {
  const ws = seededWorkspace(`${todos} todos ${goalFlags.join(' ')}`, (root) => {
    const made = (args: string[]) => loopx(args, { cwd: root });
    made(['init']);
    made(['goal', 'create', '--title', 'Nightly', ...goalFlags]);
    startGoal(root); // a goal made outside VS Code and a terminal starts paused
    for (let i = 1; i <= todos; i++) made(['todo', 'add', '--goal', 'G1', '--title', `Step ${i}`]);
  });
  spaces.push(ws);
  const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
  const runner = (args: string[], env: Record<string, string> = {}) => {
    const r = startRunner(ws.root, args, env);
    children.push(r);
    return r;
  };
  const turns = () => (cli(['turn', 'list', '--json']).json.data as Turn[]).slice().reverse();
  return { root: ws.root, cli, runner, turns };
}

describe('loopx run', () => {
  test("runs a goal of three todos to completion with --until-idle, teeing each host's output with a prefix", () => {
    const { root, cli, turns } = setUp(3);
    const run = spawnSync(
      process.execPath,
      [LOOPX, 'run', '--host', 'custom', '--command', agentCommand('ship'), '--agent', 'bot', '--until-idle'],
      {
        cwd: root,
        env: cleanEnv(),
        encoding: 'utf8',
        timeout: 50_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('G1: turn R1 on T1 · custom · started');
    expect(run.stdout).toContain('R1 │ agent bot (turn R1) works on T1: ship');
    expect(run.stdout).toMatch(/R3 ended: shipped its todo, exit code 0, quota spent 3\/20/);
    expect(run.stdout).toContain('G1: should run: no (every todo has shipped)');
    expect(run.stdout).toMatch(/loopx run stopped \(idle\): 3 turns run\./);
    expect(turns()).toMatchObject([
      { id: 'R1', todoId: 'T1', agent: 'bot', resultKind: 'validated_completion', spent: true, exitCode: 0 },
      { id: 'R2', todoId: 'T2', resultKind: 'validated_completion', spent: true },
      { id: 'R3', todoId: 'T3', resultKind: 'validated_completion', spent: true },
    ]);
    expect(readFileSync(join(root, '.loopx', 'turns', 'R2', 'output.log'), 'utf8')).toContain('shipped T2');
    expect(JSON.parse(readFileSync(join(root, '.loopx', 'turns', 'R2', 'launcher.json'), 'utf8'))).toMatchObject({
      runner: 'bot',
      host: 'custom',
    });
    expect(cli(['doctor']).stdout).toMatch(/runners\s+bot \(host custom, pid \d+\) last seen/);
  });

  test('a host that exits non-zero is a host failure, spends nothing, and its todo waits for a retry (--until-idle stops)', async () => {
    const { cli, runner, turns } = setUp(1);
    const r = runner(['--host', 'custom', '--command', agentCommand('fail'), '--agent', 'bot', '--until-idle']);
    expect(await r.exited).toEqual({ code: 0, signal: null });
    expect(turns()).toMatchObject([{ id: 'R1', resultKind: 'host_failure', exitCode: 3, spent: false }]);
    expect(r.events.find((e) => e.event === 'turn_ended')).toMatchObject({
      turnId: 'R1',
      resultKind: 'host_failure',
      exitCode: 3,
      spent: false,
    });
    expect(r.events.at(-2)).toMatchObject({
      event: 'decision',
      goalId: 'G1',
      run: false,
      reason: 'no_change',
      nextWakeAt: expect.any(String),
    });
    expect(r.events.at(-1)).toMatchObject({ ok: true, data: { stoppedBecause: 'idle', turns: [{ id: 'R1' }] } });
    expect(cli(['todo', 'list', '--json']).json.data).toMatchObject([{ id: 'T1', status: 'open' }]);
  });

  test("a host without placeholders reads the prompt on stdin, in the workspace root, with the turn's environment", async () => {
    const { root, runner, turns } = setUp(1);
    const r = runner([
      '--host',
      'claude',
      '--command',
      'sh -c \'pwd; echo "$LOOPX_TURN $LOOPX_TODO $LOOPX_GOAL $LOOPX_AGENT"; head -n 3\'',
      '--agent',
      'claude-night',
      '--once',
    ]);
    expect(await r.exited).toEqual({ code: 0, signal: null });
    const log = readFileSync(join(root, '.loopx', 'turns', 'R1', 'output.log'), 'utf8');
    const prompt = readFileSync(join(root, '.loopx', 'turns', 'R1', 'prompt.md'), 'utf8');
    expect(log).toContain(`R1 T1 G1 claude-night\n${prompt.split('\n').slice(0, 3).join('\n')}`);
    expect(log.split('\n')[0]).toBe(realpathSync(root));
    expect(turns()).toMatchObject([{ id: 'R1', agent: 'claude-night', resultKind: 'validation_failed', spent: false }]);
  });

  test("the prompt's loopx runs in an agent's login shell whose PATH has no Node (Codex's bash -lc after nvm)", async () => {
    const { root, runner, turns } = setUp(1);
    // The agent: a shell that drops PATH (as a login profile resetting it does) and runs the prompt's ship line.
    const agent = `/bin/sh -c 'PATH=${join(root, 'no-node-here')}; line=$(/bin/grep -m1 " todo ship " "$0"); eval "\${line%%  #*}"' {prompt}`;
    const r = runner(['--host', 'custom', '--command', agent, '--agent', 'bot', '--once']);
    expect(await r.exited).toEqual({ code: 0, signal: null });
    expect(turns()).toMatchObject([{ id: 'R1', todoId: 'T1', resultKind: 'validated_completion', exitCode: 0 }]);
    const launcher = join(root, '.loopx', 'bin', 'loopx');
    expect(readFileSync(join(root, '.loopx', 'turns', 'R1', 'prompt.md'), 'utf8')).toMatch(
      /^LOOPX_AGENT=bot \/\S+\/\.loopx\/bin\/loopx todo ship T1/m,
    );
    expect(readFileSync(launcher, 'utf8')).toContain(`\nexec '${process.execPath}' '${LOOPX}' "$@"\n`); // no ELECTRON_RUN_AS_NODE on Node
  });

  test('bad input and a missing host executable are refused before anything is claimed or recorded', () => {
    const { root, cli } = setUp(1);
    const before = dumpStore(root);
    const cases: [string[], number, string][] = [
      [['--host', 'custom', '--command', 'no-such-agent-xyz {prompt}'], 2, 'host_missing'],
      [['--host', 'codex'], 2, 'host_missing'],
      [['--host', 'custom'], 2, 'invalid_input'],
      [['--host', 'gpt'], 2, 'invalid_input'],
      [['--host', 'custom', '--command', 'true', '--goal', 'G9'], 4, 'not_found'],
      [['--host', 'custom', '--command', 'true', '--turn-limit', '1s'], 2, 'invalid_input'],
      [['--host', 'custom', '--command', 'true', '--max-turns', '0'], 2, 'invalid_input'],
    ];
    for (const [args, code, error] of cases) {
      const r = cli(['run', ...args, '--json'], { PATH: '/usr/bin:/bin' });
      expect([r.code, r.json.error?.code], args.join(' ')).toEqual([code, error]);
    }
    expect(dumpStore(root)).toBe(before);
  });

  test('a todo waiting on a monitor: the runner sleeps, spends no turn, and starts one at the first check after it holds, in the same pass', async () => {
    const { root, cli, runner, turns } = setUp(1);
    cli(['monitor', 'add', '--todo', 'T1', '--check', 'test -f deployed', '--every', '10s']);
    approveWaitingChecks(root);
    const r = runner(['--host', 'custom', '--command', agentCommand('ship'), '--agent', 'bot', '--max-turns', '1']);
    await r.waitFor((e) => e.event === 'sleeping' && e.because === 'next monitor check');
    expect(turns()).toEqual([]);
    expect(r.events.filter((e) => e.event === 'turn_started')).toEqual([]);
    const heldAt = Date.now();
    writeFileSync(join(root, 'deployed'), 'yes');
    await r.waitFor((e) => e.event === 'turn_started');
    // Order, not durations (a loaded machine stretches any interval): the first check that began after the file
    // existed fired the monitor, and the turn started in that same pass, before the runner slept again.
    const runs = (cli(['monitor', 'show', 'M1', '--json']).json.data as { runs: { at: string; exitCode: number }[] }).runs;
    expect(runs.filter((run) => run.exitCode === 0)).toHaveLength(1);
    expect(runs.filter((run) => Date.parse(run.at) >= heldAt && run.exitCode !== 0)).toEqual([]);
    const order = r.events.map((e) => (e.event === 'monitors' ? `fired ${String(e.fired)}` : e.event));
    const fired = order.indexOf('fired M1');
    expect(order.slice(fired, order.indexOf('turn_started') + 1).filter((e) => e !== 'decision')).toEqual(['fired M1', 'turn_started']);
    expect(await r.exited).toEqual({ code: 0, signal: null });
    expect(turns()).toMatchObject([{ id: 'R1', todoId: 'T1', resultKind: 'validated_completion', spent: true }]);
  });

  test('two runners on one goal with max concurrent 1 never run two hosts at once, hold two claims nor claim a todo twice', async () => {
    const { root, runner, turns } = setUp(4);
    // Each host ships, then takes another 1.5 s to exit: its turn still holds the goal's one slot until it ends.
    const a = runner(['--host', 'custom', '--command', agentCommand('linger', '1500'), '--agent', 'bot-a', '--until-idle']);
    const b = runner(['--host', 'custom', '--command', agentCommand('linger', '1500'), '--agent', 'bot-b', '--until-idle']);
    expect(await a.exited).toEqual({ code: 0, signal: null });
    expect(await b.exited).toEqual({ code: 0, signal: null });
    const all = turns();
    expect(all.map((t) => t.todoId).sort()).toEqual(['T1', 'T2', 'T3', 'T4']);
    expect(all.every((t) => t.resultKind === 'validated_completion')).toBe(true);
    // Replay the claims from the log: at every claim, no other todo of the goal may be held.
    const db = spawnSync(process.execPath, [LOOPX, 'history', '--limit', '500', '--json'], {
      cwd: root,
      env: cleanEnv(),
      encoding: 'utf8',
    });
    const events = (JSON.parse(db.stdout).data as { seq: number; kind: string; todoId: string | null }[]).sort((x, y) => x.seq - y.seq);
    const held = new Set<string>();
    let most = 0;
    for (const e of events) {
      if (e.kind === 'todo.claimed') held.add(e.todoId as string);
      if (['todo.shipped', 'todo.released', 'todo.blocked', 'todo.killed'].includes(e.kind)) held.delete(e.todoId as string);
      most = Math.max(most, held.size);
    }
    expect(events.filter((e) => e.kind === 'todo.claimed')).toHaveLength(4);
    expect(most).toBe(1);
    expect(mostHostsAtOnce(readFileSync(join(root, 'hosts.log'), 'utf8'))).toBe(1);
  });

  test('a turn that outlives its lease keeps its claim: the runner renews every third of --lease', async () => {
    const { root, cli, runner, turns } = setUp(1);
    // A 12 s lease and a host that ships after 20 s: without renewal the lease lapses and the ship is refused.
    const r = runner([
      '--host',
      'custom',
      '--command',
      agentCommand('sleep', '20'),
      '--agent',
      'bot',
      '--lease',
      '12s',
      '--max-turns',
      '1',
    ]);
    await r.waitFor((e) => e.event === 'output' && e.line === 'sleeping');
    const claimed = (cli(['todo', 'list', '--json']).json.data as { id: string; leaseExpiresAt: string }[])[0];
    expect(Date.parse(claimed?.leaseExpiresAt ?? '') - Date.now()).toBeLessThanOrEqual(12_000);
    expect(await r.exited).toEqual({ code: 0, signal: null });
    expect(r.events.filter((e) => e.event === 'renew_failed')).toEqual([]);
    expect(turns()).toMatchObject([{ id: 'R1', todoId: 'T1', resultKind: 'validated_completion', spent: true }]);
    const history = JSON.parse(
      spawnSync(process.execPath, [LOOPX, 'history', '--todo', 'T1', '--json'], { cwd: root, env: cleanEnv(), encoding: 'utf8' }).stdout,
    );
    const renewals = (history.data as { kind: string; actor: string }[]).filter((e) => e.kind === 'todo.renewed');
    expect(renewals.length).toBeGreaterThanOrEqual(4); // 20 s at one renewal per 4 s
    expect(renewals.every((e) => e.actor === 'bot')).toBe(true);
  });

  // SIGTERM is how systemd (or tmux kill-session) stops the unit: it must do what Ctrl-C does.
  test.each(['SIGINT', 'SIGTERM'] as const)('%s during a turn starts nothing more and lets the turn end cleanly', async (signal) => {
    const { root, runner, turns } = setUp(2);
    const release = join(root, 'release');
    const r = runner(['--host', 'custom', '--command', agentCommand('wait-for', release), '--agent', 'bot']);
    await r.waitFor((e) => e.event === 'output' && e.line === 'waiting');
    r.child.kill(signal);
    expect(await r.waitFor((e) => e.event === 'stopping')).toMatchObject({
      signal: signal === 'SIGINT' ? 'Ctrl-C' : signal,
      waitingFor: ['R1'],
    });
    writeFileSync(release, 'go');
    expect(await r.exited).toEqual({ code: 0, signal: null });
    expect(turns()).toMatchObject([{ id: 'R1', todoId: 'T1', resultKind: 'validated_completion', exitCode: 0, spent: true }]);
    expect(r.events.at(-1)).toMatchObject({ ok: true, data: { stoppedBecause: 'signal' } });
  });

  test('a second Ctrl-C ends the running host and finishes its turn as interrupted, judged by what it wrote back', async () => {
    const { root, runner, turns } = setUp(1);
    const r = runner(['--host', 'custom', '--command', agentCommand('hang'), '--agent', 'bot']);
    await r.waitFor((e) => e.event === 'output' && e.line === 'hanging');
    const { hostPid } = JSON.parse(readFileSync(join(root, '.loopx', 'turns', 'R1', 'launcher.json'), 'utf8')) as { hostPid: number };
    r.child.kill('SIGINT');
    await r.waitFor((e) => e.event === 'stopping');
    r.child.kill('SIGINT');
    expect(await r.exited).toEqual({ code: 0, signal: null });
    expect(r.events.find((e) => e.event === 'turn_ended')).toMatchObject({ turnId: 'R1', interrupted: true, exitCode: 130 });
    expect(turns()).toMatchObject([{ id: 'R1', resultKind: 'validated_progress', exitCode: 130, spent: true }]);
    expect(alive(hostPid)).toBe(false);
  });

  test('a turn past --turn-limit is ended with its process group and finished with exit code 124', async () => {
    const { root, runner, turns } = setUp(1);
    const r = runner(['--host', 'custom', '--command', agentCommand('hang'), '--agent', 'bot', '--turn-limit', '10s', '--max-turns', '1']);
    await r.waitFor((e) => e.event === 'output' && e.line === 'hanging');
    const { hostPid } = JSON.parse(readFileSync(join(root, '.loopx', 'turns', 'R1', 'launcher.json'), 'utf8')) as { hostPid: number };
    expect(await r.exited).toEqual({ code: 0, signal: null });
    expect(r.events.find((e) => e.event === 'turn_ended')).toMatchObject({ turnId: 'R1', timedOut: true, exitCode: 124 });
    expect(turns()).toMatchObject([{ id: 'R1', resultKind: 'validated_progress', exitCode: 124 }]);
    expect(alive(hostPid)).toBe(false);
  });

  test('after kill -9 the next runner adopts the agent still running: no second turn on its todo, and it is held to the turn limit', async () => {
    const { root, runner, turns } = setUp(1);
    const first = runner(['--host', 'custom', '--command', agentCommand('hang'), '--agent', 'bot', '--turn-limit', '15s']);
    await first.waitFor((e) => e.event === 'output' && e.line === 'hanging');
    const launcher = readLauncher(root, 'R1');
    expect(launcher).toMatchObject({ pid: first.child.pid, runner: 'bot' });
    first.child.kill('SIGKILL');
    await first.exited;
    const next = runner(['--host', 'custom', '--command', agentCommand('ship'), '--agent', 'bot-2', '--until-idle', '--lease', '10s']);
    expect(await next.waitFor((e) => e.event === 'adopted')).toMatchObject({ turnId: 'R1', hostPid: launcher.hostPid });
    expect(readLauncher(root, 'R1')).toMatchObject({ pid: next.child.pid, runner: 'bot-2', hostPid: launcher.hostPid });
    expect(await next.exited).toEqual({ code: 0, signal: null });
    expect(next.events.find((e) => e.event === 'recovered')).toMatchObject({ turnId: 'R1', exitCode: 124, adopted: true });
    expect(alive(launcher.hostPid)).toBe(false);
    const [r1, r2] = turns();
    expect(r1).toMatchObject({ id: 'R1', agent: 'bot', resultKind: 'validated_progress', exitCode: 124, spent: true });
    expect(r2).toMatchObject({ id: 'R2', agent: 'bot-2', todoId: 'T1', resultKind: 'validated_completion' });
    // One turn at a time on T1: R2 started only after R1 ended, although R1's lease lapsed while its runner was dead.
    expect(Date.parse((r2 as Turn).startedAt)).toBeGreaterThanOrEqual(Date.parse(r1?.endedAt as string));
    // Adopted at once, held to the 15 s limit from R1's start (its own runner's), not the next runner's 2 hours.
    expect(Date.parse(r1?.endedAt as string) - Date.parse(r1?.startedAt as string)).toBeLessThan(45_000);
  });

  test('an agent that prints all the time outlives its killed runner, ships, and its turn is recovered with its real exit code', async () => {
    const { root, runner, turns, cli } = setUp(1);
    const first = runner(['--host', 'custom', '--command', agentCommand('chatty', '60'), '--agent', 'bot']);
    await first.waitFor((e) => e.event === 'output' && e.line === 'line 5 of 60');
    const { hostPid } = readLauncher(root, 'R1');
    first.child.kill('SIGKILL');
    await first.exited;
    await until(() => !alive(hostPid)); // it goes on printing into its log file, then ships and exits 0
    expect(cli(['todo', 'list', '--json']).json.data).toMatchObject([{ id: 'T1', status: 'shipped' }]);
    const log = readFileSync(join(root, '.loopx', 'turns', 'R1', 'output.log'), 'utf8');
    expect(log).toContain('line 60 of 60\nshipped T1');
    const next = runner(['--host', 'custom', '--command', agentCommand('ship'), '--agent', 'bot-2', '--until-idle']);
    expect(await next.exited).toEqual({ code: 0, signal: null });
    expect(next.events.find((e) => e.event === 'recovered')).toMatchObject({
      turnId: 'R1',
      exitCode: 0,
      resultKind: 'validated_completion',
    });
    expect(turns()).toMatchObject([{ id: 'R1', exitCode: 0, resultKind: 'validated_completion', spent: true }]);
  });

  test('a runner that stays up adopts a killed runner’s agent within seconds and finishes its turn as soon as it ends', async () => {
    const { root, runner, turns } = setUp(2);
    const release = join(root, 'release');
    const first = runner(['--host', 'custom', '--command', agentCommand('wait-for', release), '--agent', 'bot']);
    await first.waitFor((e) => e.event === 'output' && e.line === 'waiting');
    const other = runner(['--host', 'custom', '--command', agentCommand('ship'), '--agent', 'bot-2']);
    await other.waitFor((e) => e.event === 'decision' && e.reason === 'concurrency_limit');
    first.child.kill('SIGKILL');
    await first.exited;
    await other.waitFor((e) => e.event === 'adopted' && e.turnId === 'R1');
    writeFileSync(release, 'go');
    const recovered = await other.waitFor((e) => e.event === 'recovered' && e.turnId === 'R1');
    expect(recovered).toMatchObject({ exitCode: 0, resultKind: 'validated_completion', adopted: true });
    await other.waitFor((e) => e.event === 'turn_ended' && e.turnId === 'R2');
    other.child.kill('SIGTERM');
    expect(await other.exited).toEqual({ code: 0, signal: null });
    expect(turns()).toMatchObject([
      { id: 'R1', todoId: 'T1', resultKind: 'validated_completion', exitCode: 0 },
      { id: 'R2', todoId: 'T2', agent: 'bot-2', resultKind: 'validated_completion' },
    ]);
  });

  test('while its own turn runs the runner says so, not a wake time that never matters', async () => {
    const { root, runner } = setUp(2);
    const release = join(root, 'release');
    const r = runner(['--host', 'custom', '--command', agentCommand('wait-for', release), '--agent', 'bot', '--max-turns', '2']);
    const held = await r.waitFor((e) => e.event === 'decision' && e.run === false);
    expect(held).toMatchObject({ reason: 'concurrency_limit', running: ['R1'] });
    expect(decisionLine('G1', held as unknown as ShouldRun, Date.now(), { running: ['R1'], max: 1 })).toBe(
      'G1: R1 runs (1 of 1 at once) · the next turn starts when it ends',
    );
    writeFileSync(release, 'go');
    expect(await r.exited).toEqual({ code: 0, signal: null });
  });
});

function readLauncher(root: string, turnId: string): { pid: number; hostPid: number; runner: string } {
  return JSON.parse(readFileSync(join(root, '.loopx', 'turns', turnId, 'launcher.json'), 'utf8')) as {
    pid: number;
    hostPid: number;
    runner: string;
  };
}

/** The most host processes alive at one moment, from the scripted host's start/end lines. */
function mostHostsAtOnce(log: string): number {
  const marks = log
    .trim()
    .split('\n')
    .map((line) => {
      const [what, , at] = line.split(' ');
      return { at: Number(at), delta: what === 'start' ? 1 : -1 };
    });
  marks.sort((x, y) => x.at - y.at || x.delta - y.delta); // an end and a start in the same millisecond do not overlap
  let now = 0;
  let most = 0;
  for (const m of marks) most = Math.max(most, (now += m.delta));
  return most;
}

/** Alive and not a zombie: a killed runner's host is reaped by whoever adopts orphans, which may take a while here. */
function alive(pid: number): boolean {
  return processAlive(pid);
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}
