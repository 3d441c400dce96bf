import { describe, expect, it } from 'vitest';
import { LoopxError } from '../../kernel/errors';
import { agent, makeStore } from '../../../test/support/testKit';
import { createGoal } from '../../kernel/goals/goals';
import { addTodo } from '../../kernel/todos/todos';
import { askGate } from '../../kernel/gates/gates';
import { claimTodo } from '../../kernel/todos/claims';
import { actionsFor } from './errorActions';
import { COMMANDS } from './commandIds';

describe('a refusal in VS Code offers buttons, not CLI commands', () => {
  it('a todo held back by a gate offers to decide that gate', () => {
    const store = makeStore();
    try {
      const goal = createGoal(store.kernel, { title: 'G' });
      const todo = addTodo(store.kernel, { goalId: goal.id, title: 'T' });
      const gate = askGate(store.as(agent('codex')), { todoId: todo.id, question: 'Go?' });
      let refusal: unknown;
      try {
        claimTodo(store.kernel, todo.id);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(LoopxError);
      expect(actionsFor(refusal as LoopxError)).toEqual([
        { title: `Approve ${gate.id}…`, command: COMMANDS.approveGate, args: [gate.id] },
        { title: `Reject ${gate.id}…`, command: COMMANDS.rejectGate, args: [gate.id] },
      ]);
    } finally {
      store.dispose();
    }
  });

  it('other refusals map to the place to act', () => {
    const refusal = (code: string) => new LoopxError(code, 'refused', 3);
    expect(actionsFor(refusal('already_claimed')).map((a) => a.command)).toEqual([COMMANDS.openBoard]);
    expect(actionsFor(refusal('evidence_required')).map((a) => a.command)).toEqual([COMMANDS.addEvidence]);
    expect(actionsFor(refusal('budget_exhausted')).map((a) => a.command)).toEqual([COMMANDS.showQuota]);
    expect(actionsFor(refusal('no_store')).map((a) => a.command)).toEqual([COMMANDS.initialize]);
    expect(actionsFor(refusal('invalid_input'))).toEqual([]);
  });
});
