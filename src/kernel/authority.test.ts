import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, bareHuman, makeStore, type TestStore } from '../../test/support/testKit';
import { createGoal, setGoalStatus } from './goals/goals';
import { addTodo, blockTodo, killTodo, unblockTodo } from './todos/todos';
import { askGate, decideGate } from './gates/gates';
import { claimTodo } from './todos/claims';
import { spendQuota } from './goals/quota';
import { checkReplay } from './replay';
import { KERNEL, PERSONS_PAYLOADS } from './authority';
import { decidingData } from '../../test/support/personsPayloadsKit';
import type { EventDraft } from './events/eventTypes';

let s: TestStore;
let goalId: string;
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'g' }).id;
});
afterEach(() => s.dispose());

const channelRequired = expect.objectContaining({ code: 'human_channel_required', exitCode: 3 });
const notAllowed = expect.objectContaining({ code: 'not_allowed', exitCode: 3 });

test('a human without a channel (an agent that unset LOOPX_AGENT) cannot decide a gate; the channel is recorded', () => {
  const todoId = addTodo(s.kernel, { goalId, title: 't' }).id;
  const gate = askGate(s.as(agent('codex')), { todoId, question: 'Drop it?' });
  expect(() => decideGate(s.as(bareHuman), gate.id, 'approved')).toThrow(channelRequired);
  expect(() => decideGate(s.as(agent('codex')), gate.id, 'approved')).toThrow(notAllowed);
  decideGate(s.as({ ...bareHuman, channel: 'tty' }), gate.id, 'approved');
  const row = s.kernel.db.prepare(`SELECT data FROM events WHERE kind = 'gate.decided'`).get();
  expect(JSON.parse(String(row?.data))).toMatchObject({ id: gate.id, status: 'approved', channel: 'tty' });
  expect(checkReplay(s.kernel.db).ok).toBe(true);
});

test('only a human with a channel unblocks, even the agent that blocked its own todo', () => {
  const todoId = addTodo(s.kernel, { goalId, title: 't' }).id;
  claimTodo(s.as(agent('codex')), todoId);
  blockTodo(s.as(agent('codex')), todoId, 'needs a password');
  expect(() => unblockTodo(s.as(agent('codex')), todoId)).toThrow(notAllowed);
  expect(() => unblockTodo(s.as(bareHuman), todoId)).toThrow(channelRequired);
  expect(unblockTodo(s.kernel, todoId).status).toBe('open');
});

test('killing a todo with a pending gate (which cancels the gate) is human-only; without a gate an agent may kill its own', () => {
  const gated = addTodo(s.kernel, { goalId, title: 'gated' }).id;
  claimTodo(s.as(agent('codex')), gated);
  askGate(s.as(agent('codex')), { todoId: gated, question: 'Ship it?' });
  expect(() => killTodo(s.as(agent('codex')), gated, 'escape')).toThrow(notAllowed);
  expect(() => killTodo(s.as(bareHuman), gated, 'escape')).toThrow(channelRequired);
  expect(killTodo(s.kernel, gated, 'dropped').status).toBe('killed');
  const plain = addTodo(s.kernel, { goalId, title: 'plain' }).id;
  claimTodo(s.as(agent('codex')), plain);
  expect(killTodo(s.as(agent('codex')), plain, 'obsolete').status).toBe('killed');
});

test("an agent's goal starts paused and only a human resumes it; an agent may undo its own pause, not a human's", () => {
  const proposed = createGoal(s.as(agent('codex')), { title: 'mine', turnsPerWindow: 100_000 });
  expect(proposed.status).toBe('paused');
  expect(createGoal(s.as(bareHuman), { title: 'bare' }).status).toBe('paused');
  expect(() => setGoalStatus(s.as(agent('codex')), proposed.id, 'active')).toThrow(notAllowed);
  expect(() => setGoalStatus(s.as(bareHuman), proposed.id, 'active')).toThrow(channelRequired);
  expect(setGoalStatus(s.kernel, proposed.id, 'active').status).toBe('active');

  setGoalStatus(s.as(agent('codex')), goalId, 'paused');
  expect(setGoalStatus(s.as(agent('codex')), goalId, 'active').status).toBe('active');
  setGoalStatus(s.kernel, goalId, 'paused');
  expect(() => setGoalStatus(s.as(agent('codex')), goalId, 'active')).toThrow(notAllowed);
  setGoalStatus(s.kernel, goalId, 'stopped');
  expect(() => setGoalStatus(s.as(agent('codex')), goalId, 'active')).toThrow(notAllowed);
  expect(checkReplay(s.kernel.db).ok).toBe(true);
});

test('quota turn ids are case-insensitive like every other id: R7 and r7 spend once', () => {
  const first = spendQuota(s.as(agent('codex')), goalId, 'R7');
  expect(first.spent).toBe(true);
  expect(spendQuota(s.as(agent('codex')), goalId, 'r7')).toMatchObject({ spent: false, alreadySpent: true });
  spendQuota(s.as(agent('codex')), goalId, 'Run-A');
  expect(spendQuota(s.as(agent('codex')), goalId, 'run-a')).toMatchObject({ spent: false, alreadySpent: true });
  expect(first.quota.spent).toBe(1);
});

test.each([
  ['U+202E', '\u202e'],
  ['U+200B', '\u200b'],
  ['U+200F', '\u200f'],
  ['U+061C', '\u061c'],
  ['U+2028', '\u2028'],
  ['U+2029', '\u2029'],
  ['U+2066', '\u2066'],
  ['U+FEFF', '\ufeff'],
])('text with %s is refused at input, naming the code point', (name, char) => {
  const todoId = addTodo(s.kernel, { goalId, title: 't' }).id;
  const before = s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n;
  expect(() => addTodo(s.kernel, { goalId, title: `Approve ${char}evil` })).toThrow(
    expect.objectContaining({ exitCode: 2, message: expect.stringContaining(name) }),
  );
  expect(() => askGate(s.as(agent('codex')), { todoId, question: `Keep the${char} data?` })).toThrow(
    expect.objectContaining({ exitCode: 2, message: expect.stringContaining(name) }),
  );
  expect(() => createGoal(s.kernel, { title: 'g', objective: `x${char}y` })).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(() => blockTodo(s.kernel, todoId, `r${char}s`)).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n).toBe(before);
});

test("the kernel's appender refuses every person's decision PERSONS_PAYLOADS lists to an agent and to the kernel itself; nothing is written", () => {
  const todoId = addTodo(s.kernel, { goalId, title: 't' }).id;
  const count = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
  const before = count();
  let n = 100;
  for (const rule of PERSONS_PAYLOADS) {
    const data = decidingData(rule, n++);
    const draft = {
      kind: rule.kind,
      goalId: rule.kind === 'goal.created' ? (data.id as string) : goalId,
      todoId: rule.kind.startsWith('goal.') ? null : todoId,
      data,
    } as EventDraft;
    for (const actor of [agent('codex'), KERNEL]) {
      expect(() => s.as(agent('codex')).write((tx) => tx.emit(draft, actor)), `${rule.act} by ${actor.name}`).toThrow(
        expect.objectContaining({ code: 'not_allowed', message: expect.stringContaining(`${rule.act} is a person's decision`) }),
      );
    }
  }
  expect(count()).toBe(before);
});

test("the kernel's next occurrence of a recurring todo carries its person's check, inside an agent's kill", () => {
  const daily = addTodo(s.kernel, { goalId, title: 'daily', check: 'true', recurrence: { every: 86_400 } });
  claimTodo(s.as(agent('codex')), daily.id);
  killTodo(s.as(agent('codex')), daily.id, 'skipped today');
  const next = s.kernel.db
    .prepare('SELECT check_command, actor FROM todos t JOIN events e ON e.todo_id = t.id WHERE t.previous_id = ?')
    .get(daily.id);
  expect(next).toEqual({ check_command: 'true', actor: 'kernel' });
});
