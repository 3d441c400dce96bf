import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal, setGoalStatus } from '../goals/goals';
import { addTodo, shipTodo } from '../todos/todos';
import { claimTodo, releaseTodo } from '../todos/claims';
import { addEvidence } from '../evidence/evidence';
import { askGate, decideGate } from '../gates/gates';
import { startTurn } from './turns';
import { finishTurn } from './turnFinish';
import { quotaState, shouldRun } from '../goals/quotaQueries';
import { verifyChain } from '../events/verify';
import { checkReplay } from '../replay';
import { getGoal } from '../goals/goalQueries';
import { getTodo } from '../todos/todoQueries';

let s: TestStore;
let goalId: string;
const codex = agent('codex');
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'Ship the parser', objective: 'All fixtures parse', scope: ['src/**'], turnsPerWindow: 5 }).id;
  addTodo(s.kernel, { goalId, title: 'Parse headers', detail: 'tests/headers pass', priority: 0 });
  addTodo(s.kernel, { goalId, title: 'Parse body' });
});
afterEach(() => s.dispose());

/** Concurrency is set at creation; recreate the goal's todos under a goal that allows two. */
function setGoalMaxConcurrent(n: number): void {
  goalId = createGoal(s.kernel, { title: 'Two at once', turnsPerWindow: 5, maxConcurrent: n }).id;
  addTodo(s.kernel, { goalId, title: 'Parse headers', priority: 0 });
  addTodo(s.kernel, { goalId, title: 'Parse body' });
}

const spent = () => quotaState(s.kernel.db, getGoal(s.kernel.db, goalId), s.clock.ms).spent;
const answer = () => shouldRun(s.kernel.db, getGoal(s.kernel.db, goalId), s.clock.ms);

describe('turn start', () => {
  test('claims the next ready todo for the agent, records the turn and writes a prompt that teaches the protocol', () => {
    const started = startTurn(s.kernel, { goalId, host: 'codex', loopxCommand: '/opt/loopx/bin/loopx' });
    expect(started.turn).toMatchObject({
      id: 'R1',
      goalId,
      todoId: 'T1',
      agent: 'codex',
      host: 'codex',
      route: 'ready_for_host',
      spent: false,
      endedAt: null,
    });
    expect(getTodo(s.kernel.db, 'T1')).toMatchObject({ status: 'claimed', owner: 'codex' });
    expect(started.env).toMatchObject({ LOOPX_AGENT: 'codex', LOOPX_TURN: 'R1', LOOPX_GOAL: goalId, LOOPX_TODO: 'T1', LOOPX_ROOT: s.root });
    const prompt = readFileSync(started.promptFile, 'utf8');
    for (const part of [
      'All fixtures parse',
      'src/**',
      'tests/headers pass',
      'LOOPX_AGENT=codex /opt/loopx/bin/loopx todo ship T1',
      'gate ask --todo T1',
      'todo release T1 --note',
      'for a',
      'Before you exit',
    ])
      expect(prompt).toContain(part);
    // The claim is the agent's; the turn record is the starter's (a human at the keyboard here).
    const actors = s.kernel.db.prepare(`SELECT kind, actor FROM events WHERE kind IN ('todo.claimed', 'turn.started') ORDER BY seq`).all();
    expect(actors).toEqual([
      { kind: 'todo.claimed', actor: 'codex' },
      { kind: 'turn.started', actor: 'ada' },
    ]);
  });

  test('a loopx path with spaces is shell-quoted in the prompt (macOS keeps editor storage under "Application Support")', () => {
    const cli = '/Users/ada/Library/Application Support/Code/User/globalStorage/loopx.loopx/bin/loopx';
    const prompt = readFileSync(startTurn(s.kernel, { goalId, host: 'codex', loopxCommand: cli }).promptFile, 'utf8');
    expect(prompt).toContain(`LOOPX_AGENT=codex '${cli}' todo ship T1`);
  });

  test('the prompt carries the continuation left by the previous holder', () => {
    const first = startTurn(s.kernel, { goalId, host: 'codex' });
    addEvidence(s.as(codex), { todoId: 'T1', summary: 'header tokenizer works' });
    releaseTodo(s.as(codex), 'T1', { note: 'headers half done; quoted names next' });
    expect(finishTurn(s.as(codex), first.turn.id, 0).resultKind).toBe('validated_progress');
    const second = startTurn(s.kernel, { goalId, host: 'claude', todoId: 'T1' });
    expect(readFileSync(second.promptFile, 'utf8')).toContain('headers half done; quoted names next');
  });

  test('when should-run says no, nothing is claimed or recorded, and the answer says why and when', () => {
    setGoalStatus(s.kernel, goalId, 'paused');
    const before = s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n;
    expect(() => startTurn(s.kernel, { goalId, host: 'codex' })).toThrow(
      expect.objectContaining({
        code: 'should_not_run',
        exitCode: 3,
        data: expect.objectContaining({ route: 'user_action_required', reason: 'goal_inactive', run: false }),
      }),
    );
    expect(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n).toBe(before);
    expect(existsSync(`${s.root}/.loopx/turns`)).toBe(false);
  });

  test("turn start claims through the todos' claim: the agent's own live claim is renewed, not taken again", () => {
    setGoalMaxConcurrent(2); // the held claim takes one slot
    const held = claimTodo(s.as(codex), 'T3', { leaseSeconds: 120 });
    s.clock.advance(60);
    startTurn(s.kernel, { goalId, host: 'codex', todoId: 'T3', leaseSeconds: 600 });
    const events = s.kernel.db.prepare(`SELECT kind, actor FROM events WHERE todo_id = 'T3' AND kind LIKE 'todo.%' ORDER BY seq`).all();
    expect(events).toEqual([
      { kind: 'todo.added', actor: 'ada' },
      { kind: 'todo.claimed', actor: 'codex' },
      { kind: 'todo.renewed', actor: 'codex' },
    ]);
    // The same fencing token, a lease the turn's length from now.
    expect(getTodo(s.kernel.db, 'T3').leaseExpiresAt).toBe(new Date(s.clock.ms + 600_000).toISOString());
    expect(s.kernel.db.prepare(`SELECT lease_token FROM todos WHERE id = 'T3'`).get()?.lease_token).toBe(held.leaseToken);
  });

  test("a todo another agent holds: turn start keeps its code (not_ready) and names the claim's own refusal", () => {
    setGoalMaxConcurrent(2);
    claimTodo(s.as(agent('claude')), 'T3');
    const before = s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n;
    expect(() => startTurn(s.kernel, { goalId, host: 'codex', todoId: 'T3' })).toThrow(
      expect.objectContaining({
        code: 'not_ready',
        message: expect.stringMatching(/^todo T3 cannot start a turn: todo T3 is claimed by claude until /),
        data: { claimRefusal: 'already_claimed' },
      }),
    );
    expect(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n).toBe(before);
  });

  test('a lapsed claim taken by a turn names its previous owner, as a claim does', () => {
    claimTodo(s.as(agent('claude')), 'T1', { leaseSeconds: 60 });
    s.clock.advance(120);
    startTurn(s.kernel, { goalId, host: 'codex', todoId: 'T1' });
    const claimed = s.kernel.db.prepare(`SELECT data FROM events WHERE kind = 'todo.claimed' ORDER BY seq DESC LIMIT 1`).get();
    expect(JSON.parse(String(claimed?.data))).toMatchObject({ owner: 'codex', previousOwner: 'claude' });
  });

  test('bad hosts and agents are invalid input; an agent cannot start a turn for another', () => {
    expect(() => startTurn(s.kernel, { goalId, host: 'Codex CLI' })).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => startTurn(s.kernel, { goalId, host: 'codex', agent: 'bad name' })).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => startTurn(s.as(codex), { goalId, host: 'claude', agent: 'claude' })).toThrow(
      expect.objectContaining({ code: 'not_allowed' }),
    );
  });
});

describe('turn finish', () => {
  test('shipped with evidence: validated completion, spent once', () => {
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex' });
    shipTodo(s.as(codex), 'T1', { evidence: 'headers parse; 12 tests' });
    expect(finishTurn(s.kernel, turn.id, 0)).toMatchObject({ resultKind: 'validated_completion', spent: true, exitCode: 0 });
    expect(spent()).toBe(1);
    expect(() => finishTurn(s.kernel, turn.id, 0)).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
    expect(spent()).toBe(1);
  });

  test('evidence without shipping: validated progress, spent, claim released with a continuation', () => {
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex' });
    addEvidence(s.as(codex), { todoId: 'T1', summary: 'tokenizer done' });
    expect(finishTurn(s.as(codex), turn.id, 0)).toMatchObject({ resultKind: 'validated_progress', spent: true });
    expect(getTodo(s.kernel.db, 'T1')).toMatchObject({
      status: 'open',
      owner: null,
      continuation: expect.stringContaining('tokenizer done'),
    });
  });

  test('an agent that says it succeeded but wrote nothing back: validation failed, not spent; its todo backs off, the next one runs', () => {
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex' });
    expect(finishTurn(s.kernel, turn.id, 0)).toMatchObject({ resultKind: 'validation_failed', spent: false });
    expect(spent()).toBe(0);
    expect(getTodo(s.kernel.db, 'T1')).toMatchObject({
      status: 'open',
      continuation: expect.stringContaining('without writing anything back'),
    });
    expect(answer()).toMatchObject({ run: true, reason: 'ok' });
    expect(startTurn(s.kernel, { goalId, host: 'codex' }).turn.todoId).toBe('T2');
  });

  test("two turns of one agent in one goal: each is judged by its own todo (and goal-level writes), not the other's", () => {
    setGoalMaxConcurrent(2);
    const busy = startTurn(s.kernel, { goalId, host: 'codex' }).turn;
    const idle = startTurn(s.kernel, { goalId, host: 'codex' }).turn;
    expect([busy.todoId, idle.todoId]).toEqual(['T3', 'T4']);
    shipTodo(s.as(codex), 'T3', { evidence: 'headers parse' });
    expect(finishTurn(s.kernel, idle.id, 0)).toMatchObject({ resultKind: 'validation_failed', spent: false });
    expect(finishTurn(s.kernel, busy.id, 0)).toMatchObject({ resultKind: 'validated_completion', spent: true });
    expect(spent()).toBe(1);
  });

  test("goal-level evidence by the turn's agent counts as progress", () => {
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex' });
    addEvidence(s.as(codex), { goalId, summary: 'benchmarked the whole parser' });
    expect(finishTurn(s.kernel, turn.id, 0)).toMatchObject({ resultKind: 'validated_progress', spent: true });
  });

  test('a crashed host: host failure, not spent', () => {
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex' });
    expect(finishTurn(s.kernel, turn.id, 137)).toMatchObject({ resultKind: 'host_failure', spent: false, exitCode: 137 });
    expect(spent()).toBe(0);
  });

  test('a gate asked: user action required, not spent; the decision is a change, so the todo runs next without waiting', () => {
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex' });
    const gate = askGate(s.as(codex), { todoId: 'T1', question: 'rename the module?' });
    expect(finishTurn(s.kernel, turn.id, 0)).toMatchObject({ resultKind: 'user_action_required', spent: false });
    decideGate(s.kernel, gate.id, 'approved');
    expect(answer().reason).toBe('ok');
    expect(startTurn(s.kernel, { goalId, host: 'codex' }).turn.todoId).toBe('T1');
  });

  test('a release with a note but no evidence: wait, not spent', () => {
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex' });
    releaseTodo(s.as(codex), 'T1', { note: 'needs the fixtures first' });
    expect(finishTurn(s.kernel, turn.id, 0)).toMatchObject({ resultKind: 'wait', spent: false });
  });

  test('another agent may not finish the turn; a human may', () => {
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex' });
    expect(() => finishTurn(s.as(agent('claude')), turn.id, 0)).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    expect(() => finishTurn(s.kernel, turn.id, 999)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });

  test('a turn id already spent through quota spend is not spent twice', () => {
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex' });
    s.kernel.write((tx) => tx.emit({ kind: 'quota.spent', goalId, todoId: null, data: { turnId: turn.id } }));
    shipTodo(s.as(codex), 'T1', { evidence: 'done' });
    expect(finishTurn(s.kernel, turn.id, 0)).toMatchObject({ spent: true });
    expect(spent()).toBe(1);
  });

  test('turns replay like everything else', () => {
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex' });
    addEvidence(s.as(codex), { todoId: 'T1', summary: 'x' });
    finishTurn(s.kernel, turn.id, 0);
    expect(verifyChain(s.kernel.db).ok).toBe(true);
    expect(checkReplay(s.kernel.db).differences).toEqual([]);
  });
});
