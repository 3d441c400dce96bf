import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, parse } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { agent, bareHuman, human, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo, blockTodo } from '../todos/todos';
import { askGate } from '../gates/gates';
import { claimTodo } from '../todos/claims';
import { spendQuota } from '../goals/quota';
import { startTurn } from '../turns/turns';
import { finishTurn } from '../turns/turnFinish';
import { addMonitor } from '../monitors/monitors';
import { settleDue } from '../monitors/tickSteps';
import { checkReplay } from '../replay';
import { addHook, hookRuns, listHooks, removeHook } from './hooks';
import { HookDispatcher, dispatchHooks, hookFolder } from './dispatch';

let store: TestStore;
afterEach(() => store?.dispose());

/** A hook that appends what it was told (its variables and its stdin) as one JSON line to the workspace's hook.log. */
const RECORDER = `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>require("fs").appendFileSync(process.env.LOOPX_ROOT+"/hook.log",JSON.stringify({event:process.env.LOOPX_EVENT,subject:process.env.LOOPX_SUBJECT,title:process.env.LOOPX_TITLE,summary:process.env.LOOPX_SUMMARY,goal:process.env.LOOPX_GOAL,todo:process.env.LOOPX_TODO,seq:process.env.LOOPX_EVENT_SEQ,agent:process.env.LOOPX_AGENT??null,stdin:JSON.parse(s)})+"\\n"))'`;

function logged(root: string): { event: string; subject: string; summary: string; seq: string; stdin: Record<string, unknown> }[] {
  const file = join(root, 'hook.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

function goalWithTodo(s: TestStore, turns = 20): { goalId: string; todoId: string } {
  const goalId = createGoal(s.kernel, { title: 'Ship the CSV importer', turnsPerWindow: turns }).id;
  const todoId = addTodo(s.kernel, { goalId, title: 'Drop the legacy importer' }).id;
  return { goalId, todoId };
}

describe('hooks: a person decides them', () => {
  test('an agent may not add or remove a hook; neither may a "person" without a channel; a person in VS Code may', () => {
    store = makeStore();
    expect(() => addHook(store.as(agent('codex')), { command: 'true', on: ['gate.asked'] })).toThrow(
      expect.objectContaining({ code: 'not_allowed' }),
    );
    expect(() => addHook(store.as(bareHuman), { command: 'true', on: ['gate.asked'] })).toThrow(
      expect.objectContaining({ code: 'human_channel_required' }),
    );
    const hook = addHook(store.as(human), { command: 'notify-send "$LOOPX_TITLE"', on: ['gate.asked', 'todo.blocked'] });
    expect(hook).toMatchObject({
      id: 'N1',
      on: ['gate.asked', 'todo.blocked'],
      addedBy: 'ada',
      addedChannel: 'vscode',
      timeoutSeconds: 30,
    });
    expect(() => removeHook(store.as(agent('codex')), 'N1')).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    expect(listHooks(store.kernel.db)).toHaveLength(1);
  });

  test('bad input changes nothing: no event, an unknown event name, a timeout out of range, an unknown goal', () => {
    store = makeStore();
    const k = store.as(human);
    const before = k.read((db) => db.prepare('SELECT count(*) AS n FROM events').get()?.n);
    expect(() => addHook(k, { command: 'true', on: [] })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => addHook(k, { command: 'true', on: ['gate.askd'] })).toThrow(/unknown hook event "gate.askd"/);
    expect(() => addHook(k, { command: 'true', on: ['all'], timeoutSeconds: 0 })).toThrow(/--timeout must be from/);
    expect(() => addHook(k, { command: '  ', on: ['all'] })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => addHook(k, { command: 'true', on: ['all'], goalId: 'G9' })).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(k.read((db) => db.prepare('SELECT count(*) AS n FROM events').get()?.n)).toBe(before);
  });
});

describe('hooks: what runs, and how often', () => {
  test('a gate asked runs the hook once, with what happened in its variables and as JSON on stdin, without an agent identity', async () => {
    store = makeStore();
    const { goalId, todoId } = goalWithTodo(store);
    addHook(store.as(human), { command: RECORDER, on: ['gate.asked'] });
    const gate = askGate(store.as(agent('codex')), { todoId, question: 'Delete the legacy importer?' });
    const runs = await dispatchHooks(store.kernel, { by: 'test', env: { ...process.env, LOOPX_AGENT: 'codex' } });
    expect(runs).toMatchObject([{ hookId: 'N1', trigger: 'gate.asked', subject: gate.id, exitCode: 0, error: null }]);
    const [line] = logged(store.root);
    expect(line).toMatchObject({
      event: 'gate.asked',
      subject: gate.id,
      title: 'LoopX: a gate waits for you',
      goal: goalId,
      todo: todoId,
      agent: null,
      summary: `codex asks (gate ${gate.id} on ${todoId} Drop the legacy importer): Delete the legacy importer?`,
    });
    expect(line?.stdin).toMatchObject({
      hook: 'N1',
      trigger: 'gate.asked',
      goal: { id: goalId, title: 'Ship the CSV importer' },
      event: { kind: 'gate.asked', actor: 'codex', data: { question: 'Delete the legacy importer?' } },
    });
    // Looking again finds nothing new: the hook ran for that gate once.
    expect(await dispatchHooks(store.kernel, { by: 'test' })).toEqual([]);
    expect(logged(store.root)).toHaveLength(1);
    expect(hookRuns(store.kernel.db)).toMatchObject([{ hookId: 'N1', trigger: 'gate.asked', claimedBy: 'test', exitCode: 0 }]);
  });

  test('two runners on one store (two connections, two dispatchers) run each hook once per event', async () => {
    store = makeStore();
    const { todoId } = goalWithTodo(store);
    const other = addTodo(store.kernel, { goalId: 'G1', title: 'Import from S3' }).id;
    addHook(store.as(human), { command: RECORDER, on: ['all'] });
    addHook(store.as(human), { command: RECORDER, on: ['todo.blocked'] });
    const second = store.open({ clock: store.clock.now, actor: agent('runner-2') });
    try {
      const a = new HookDispatcher(store.as(agent('runner-1')), { by: 'runner-1' });
      const b = new HookDispatcher(second, { by: 'runner-2' });
      askGate(store.as(agent('codex')), { todoId, question: 'May I?' });
      a.poke();
      b.poke();
      claimTodo(store.as(agent('codex')), other);
      blockTodo(store.as(agent('codex')), other, 'needs S3 credentials');
      b.poke();
      a.poke();
      b.poke();
      await Promise.all([a.settle(), b.settle()]);
      const lines = logged(store.root);
      // gate.asked for N1; todo.blocked for N1 and N2: three runs, no event twice for one hook.
      expect(lines.map((l) => l.event).sort()).toEqual(['gate.asked', 'todo.blocked', 'todo.blocked']);
      const runs = hookRuns(store.kernel.db);
      expect(new Set(runs.map((r) => `${r.hookId}@${r.seq}`)).size).toBe(3);
      expect(new Set(runs.map((r) => r.claimedBy))).toEqual(new Set(['runner-1', 'runner-2']));
    } finally {
      second.close();
    }
    expect(checkReplay(store.kernel.db).ok).toBe(true);
  });

  test('a hung hook is killed with its process group at its limit and recorded; poke does not wait for it', async () => {
    store = makeStore();
    const { todoId } = goalWithTodo(store);
    addHook(store.as(human), {
      command: 'sleep 300 & echo $! > "$LOOPX_ROOT/child.pid"; echo started; wait',
      on: ['gate.asked'],
      timeoutSeconds: 1,
    });
    askGate(store.as(agent('codex')), { todoId, question: 'May I?' });
    const reports: unknown[] = [];
    const d = new HookDispatcher(store.kernel, { by: 'test', onRun: (r) => reports.push(r) });
    d.poke();
    // The loop that poked goes on at once: the run is claimed, still going, and nothing is reported yet.
    expect(d.busy).toBe(1);
    expect(reports).toEqual([]);
    expect(hookRuns(store.kernel.db)).toMatchObject([{ hookId: 'N1', endedAt: null }]);
    await d.settle();
    expect(reports).toMatchObject([{ hookId: 'N1', timedOut: true, exitCode: null, error: 'killed at its time limit of 1 s' }]);
    expect(hookRuns(store.kernel.db)).toMatchObject([
      { timedOut: true, error: 'killed at its time limit of 1 s', outputTail: 'started\n' },
    ]);
    // What it left running in its group went with it (gone, or a zombie waiting for init to reap it).
    const child = Number(readFileSync(join(store.root, 'child.pid'), 'utf8'));
    const state = existsSync(`/proc/${child}/status`) ? /State:\s+(\w)/.exec(readFileSync(`/proc/${child}/status`, 'utf8'))?.[1] : 'gone';
    expect(['gone', 'Z']).toContain(state);
  });

  test('a failing hook is recorded with its exit code; the next event still runs it', async () => {
    store = makeStore();
    const { todoId } = goalWithTodo(store);
    addHook(store.as(human), { command: 'echo "no route to chat.example"; exit 7', on: ['gate.asked'] });
    askGate(store.as(agent('codex')), { todoId, question: 'One?' });
    askGate(store.as(agent('codex')), { goalId: 'G1', question: 'Two?' });
    const runs = await dispatchHooks(store.kernel, { by: 'test' });
    expect(runs.map((r) => r.exitCode)).toEqual([7, 7]);
    expect(hookRuns(store.kernel.db)[0]).toMatchObject({ exitCode: 7, error: 'exited 7', outputTail: 'no route to chat.example\n' });
  });

  test('only later events, only the events asked for, only its goal; a removed hook runs no more', async () => {
    store = makeStore();
    const { todoId } = goalWithTodo(store);
    const elsewhere = createGoal(store.kernel, { title: 'Other' }).id;
    askGate(store.as(agent('codex')), { todoId, question: 'Before the hook?' });
    addHook(store.as(human), { command: RECORDER, on: ['gate.asked'], goalId: 'G1' });
    askGate(store.as(agent('codex')), { goalId: elsewhere, question: 'Another goal?' });
    const other = addTodo(store.kernel, { goalId: 'G1', title: 'Import from S3' }).id;
    claimTodo(store.as(agent('codex')), other);
    blockTodo(store.as(agent('codex')), other, 'not asked for');
    askGate(store.as(agent('codex')), { goalId: 'G1', question: 'After the hook?' });
    await dispatchHooks(store.kernel, { by: 'test' });
    expect(logged(store.root).map((l) => l.summary)).toEqual([expect.stringContaining('After the hook?')]);
    removeHook(store.as(human), 'N1');
    askGate(store.as(agent('codex')), { goalId: 'G1', question: 'After removal?' });
    expect(await dispatchHooks(store.kernel, { by: 'test' })).toEqual([]);
  });

  test('a failed turn and a spent budget call for hooks; a turn that made progress and a spend that leaves budget do not', async () => {
    store = makeStore();
    const { goalId } = goalWithTodo(store, 2);
    addTodo(store.kernel, { goalId, title: 'Second' });
    addHook(store.as(human), { command: RECORDER, on: ['turn.failed', 'budget.spent'] });
    const codex = store.as(agent('codex'));
    const first = startTurn(codex, { goalId, host: 'codex' }).turn;
    finishTurn(codex, first.id, 3); // nothing written back, non-zero exit: a host failure
    spendQuota(codex, goalId, 'manual-1'); // 1 of 2: budget left
    store.clock.advance(60);
    spendQuota(codex, goalId, 'manual-2'); // 2 of 2: spent
    await dispatchHooks(store.kernel, { by: 'test' });
    const lines = logged(store.root).sort((a, b) => Number(a.seq) - Number(b.seq));
    expect(lines.map((l) => [l.event, l.subject])).toEqual([
      ['turn.failed', first.id],
      ['budget.spent', goalId],
    ]);
    expect(lines[1]?.summary).toBe(`Goal ${goalId} Ship the CSV importer spent 2 of 2 turns in 24 h; no turn runs until a slot frees.`);
  });

  test('a todo blocked, a monitor fired and a monitor expired each run the hook once, in the order they happened', async () => {
    store = makeStore();
    const { goalId, todoId } = goalWithTodo(store);
    const deploy = addTodo(store.kernel, { goalId, title: 'Wait for the deploy' }).id;
    const review = addTodo(store.kernel, { goalId, title: 'Wait for the review' }).id;
    addHook(store.as(human), { command: RECORDER, on: ['todo.blocked', 'monitor.fired', 'monitor.expired'] });
    const codex = store.as(agent('codex'));
    claimTodo(codex, todoId);
    blockTodo(codex, todoId, 'the S3 credentials are missing');
    claimTodo(codex, deploy);
    const fires = addMonitor(codex, { todoId: deploy, afterSeconds: 60 });
    claimTodo(codex, review);
    const expires = addMonitor(codex, { todoId: review, afterSeconds: 3600, timeoutSeconds: 120 });
    store.clock.advance(600);
    expect(settleDue(store.kernel)).toEqual({ fired: [fires.id], expired: [expires.id] });
    expect(await dispatchHooks(store.kernel, { by: 'test' })).toHaveLength(3);
    const lines = logged(store.root).sort((a, b) => Number(a.seq) - Number(b.seq));
    expect(lines.map((l) => [l.event, l.subject])).toEqual([
      ['todo.blocked', todoId],
      ['monitor.fired', fires.id],
      ['monitor.expired', expires.id],
    ]);
    expect(lines[0]?.summary).toBe(`codex blocked ${todoId} Drop the legacy importer: the S3 credentials are missing`);
    expect(lines[1]?.summary).toMatch(new RegExp(`^${deploy} Wait for the deploy is ready again: its timer ran out`));
    expect(lines[2]?.summary).toMatch(new RegExp(`^${review} Wait for the review is ready again: expired at`));
    expect(await dispatchHooks(store.kernel, { by: 'test' })).toEqual([]);
  });

  test('a window or runner that starts after a day away does not run hooks for older events', async () => {
    store = makeStore();
    const { todoId } = goalWithTodo(store);
    addHook(store.as(human), { command: RECORDER, on: ['gate.asked'] });
    askGate(store.as(agent('codex')), { todoId, question: 'Two days ago?' });
    store.clock.advance(2 * 86400);
    askGate(store.as(agent('codex')), { goalId: 'G1', question: 'Just now?' });
    await dispatchHooks(store.kernel, { by: 'test' });
    expect(logged(store.root).map((l) => l.summary)).toEqual([expect.stringContaining('Just now?')]);
  });

  test("a hook runs from the person's home folder, never the workspace: a module an agent planted there is not what it loads", async () => {
    store = makeStore();
    const { todoId } = goalWithTodo(store);
    // What an agent may write in its workspace: a package its host's sandbox lets it put in node_modules.
    mkdirSync(join(store.root, 'node_modules', 'notifier'), { recursive: true });
    writeFileSync(
      join(store.root, 'node_modules', 'notifier', 'index.js'),
      `require('fs').writeFileSync(${JSON.stringify(join(store.root, 'planted-ran'))}, 'as the person')`,
    );
    const home = mkdtempSync(join(tmpdir(), 'loopx-home-'));
    // A person's hook that uses a notifier they installed, and says where it ran.
    const command = `node -e 'require("fs").writeFileSync(process.env.LOOPX_ROOT+"/cwd.txt",process.cwd()); try { require("notifier") } catch {}'`;
    addHook(store.as(human), { command, on: ['gate.asked'] });
    askGate(store.as(agent('codex')), { todoId, question: 'Ship it?' });
    const [run] = await dispatchHooks(store.kernel, { by: 'test', env: { ...process.env, HOME: home } });
    expect(run).toMatchObject({ exitCode: 0, error: null });
    expect(realpathSync(readFileSync(join(store.root, 'cwd.txt'), 'utf8'))).toBe(realpathSync(home));
    expect(existsSync(join(store.root, 'planted-ran'))).toBe(false);
    rmSync(home, { recursive: true, force: true });
  });

  test("a home folder inside a loopx workspace, or missing, is not where a hook runs: the file system's root is", () => {
    store = makeStore();
    const inside = join(store.root, 'people', 'ann');
    mkdirSync(inside, { recursive: true });
    expect(hookFolder({ HOME: inside })).toBe(parse(inside).root);
    expect(hookFolder({ HOME: join(tmpdir(), 'loopx-no-such-home') })).toBe(parse(tmpdir()).root);
    const home = mkdtempSync(join(tmpdir(), 'loopx-home-'));
    expect(hookFolder({ HOME: home })).toBe(home);
    rmSync(home, { recursive: true, force: true });
  });
});
