import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { addHook } from '../../src/kernel/hooks/hooks';
import { dumpStore, inVsCode, loopx, startGoal, workspace } from './harness';
import { type RunnerChild, agentCommand, startRunner } from './runner';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';

/** Hooks through the CLI and across real `loopx run` processes (each test in its own workspace). */
const spaces: { dispose(): void }[] = [];
const children: RunnerChild[] = [];
afterAll(() => {
  for (const r of children) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  for (const ws of spaces) ws.dispose();
});

function setUp(goalFlags: string[] = []) {
  const ws = workspace();
  spaces.push(ws);
  const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
  cli(['init']);
  cli(['goal', 'create', '--title', 'Nightly', ...goalFlags]);
  startGoal(ws.root);
  return { root: ws.root, cli };
}

/** Appends one line per run: the event, what it is about, and the event's seq from the JSON on stdin. */
const RECORDER = `echo "$LOOPX_EVENT $LOOPX_SUBJECT $(node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).event.seq))')" >> "$LOOPX_ROOT/hooks.log"`;

describe('loopx hook', () => {
  test('an agent cannot add, remove or test a hook, and a script without a terminal cannot add one; nothing changes', () => {
    const { root, cli } = setUp();
    const before = dumpStore(root);
    const asAgent = cli(['hook', 'add', '--on', 'gate.asked', '--command', 'true', '--json'], { LOOPX_AGENT: 'codex' });
    expect(asAgent.code).toBe(3);
    expect(asAgent.json.error?.code).toBe('not_allowed');
    const noTty = cli(['hook', 'add', '--on', 'gate.asked', '--command', 'true', '--json']);
    expect(noTty.code).toBe(3);
    expect(noTty.json.error?.code).toBe('human_channel_required');
    expect(cli(['hook', 'test', 'N1', '--json'], { LOOPX_AGENT: 'codex' }).json.error?.code).toBe('not_allowed');
    expect(dumpStore(root)).toBe(before);
  });

  test.skipIf(!PTY_AVAILABLE)('a person at a terminal adds a hook by typing its id; hook list shows it', () => {
    const { root, cli } = setUp();
    const run = loopxTty(
      ['hook', 'add', '--on', 'gate.asked', '--on', 'todo.blocked', '--command', 'notify-send "$LOOPX_TITLE"', '--json'],
      'N1',
      {
        cwd: root,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Type N1 to confirm');
    expect(run.json?.data).toMatchObject({ id: 'N1', on: ['gate.asked', 'todo.blocked'], addedChannel: 'tty' });
    expect(cli(['hook', 'list']).stdout).toContain('N1 on gate.asked, todo.blocked (limit 30 s): notify-send "$LOOPX_TITLE"');
    const bad = loopxTty(['hook', 'add', '--on', 'gate.askd', '--command', 'true', '--json'], 'N2', { cwd: root });
    expect(bad.code).toBe(2);
    expect(bad.json?.error?.message).toMatch(/unknown hook event "gate.askd"/);
  });
  if (!PTY_AVAILABLE) test.skip(PTY_SKIP_REASON, () => undefined);

  test('two runners on one store run each hook once per event: a gate asked, each runner stopping', async () => {
    const { root, cli } = setUp();
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Step 1']);
    inVsCode(root, (k) => addHook(k, { command: RECORDER, on: ['all'] }));
    cli(['gate', 'ask', '--goal', 'G1', '--question', 'Use the staging bucket?'], { LOOPX_AGENT: 'codex' });
    const run = (agent: string) => {
      const r = startRunner(root, ['--host', 'custom', '--command', agentCommand('fail'), '--agent', agent, '--until-idle']);
      children.push(r);
      return r;
    };
    const [a, b] = [run('bot-a'), run('bot-b')];
    expect(await a.exited).toEqual({ code: 0, signal: null });
    expect(await b.exited).toEqual({ code: 0, signal: null });
    // The goal-level gate keeps turns from starting; a dispatch afterwards finds nothing left to run.
    expect(cli(['hook', 'dispatch', '--json']).json.data).toEqual({ runs: [] });
    const lines = readFileSync(join(root, 'hooks.log'), 'utf8').trim().split('\n').sort();
    expect(lines).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith('gate.asked Q1 '))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('runner.stopped bot-a '))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('runner.stopped bot-b '))).toHaveLength(1);
    const seqs = lines.map((l) => l.split(' ')[2]);
    expect(new Set(seqs).size).toBe(3);
    const reported = [...a.events, ...b.events].filter((e) => e.event === 'hook');
    expect(reported).toHaveLength(3);
    const runs = (cli(['hook', 'list', '--json']).json.data as { runs: { claimedBy: string; exitCode: number }[] }).runs;
    expect(runs).toHaveLength(3);
    expect(runs.every((r) => r.exitCode === 0 && /^loopx run bot-[ab] \(pid \d+\)$/.test(r.claimedBy))).toBe(true);
  });

  test('runners race on failed turns: each turn.failed runs the hook once across both runners', async () => {
    const { root, cli } = setUp(['--max-concurrent', '2']);
    for (let i = 1; i <= 4; i++) cli(['todo', 'add', '--goal', 'G1', '--title', `Step ${i}`]);
    inVsCode(root, (k) => addHook(k, { command: RECORDER, on: ['turn.failed'] }));
    const run = (agent: string) => {
      const r = startRunner(root, ['--host', 'custom', '--command', agentCommand('fail'), '--agent', agent, '--until-idle']);
      children.push(r);
      return r;
    };
    const [a, b] = [run('bot-a'), run('bot-b')];
    await Promise.all([a.exited, b.exited]);
    cli(['hook', 'dispatch']);
    const failed = (cli(['turn', 'list', '--json']).json.data as { id: string; resultKind: string }[]).filter(
      (t) => t.resultKind === 'host_failure',
    );
    expect(failed.length).toBeGreaterThan(0);
    const lines = readFileSync(join(root, 'hooks.log'), 'utf8').trim().split('\n');
    expect(lines.map((l) => l.split(' ')[1]).sort()).toEqual(failed.map((t) => t.id).sort());
  });
});
