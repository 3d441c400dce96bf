import * as assert from 'node:assert/strict';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { addEvidence } from '../../src/kernel/evidence/evidence';
import { startTurn } from '../../src/kernel/turns/turns';
import { finishTurn } from '../../src/kernel/turns/turnFinish';
import { app, otherWriter, until, vscodeHuman } from './support';

/** A tooltip's Markdown as words: appendText keeps spaces as &nbsp; and escapes punctuation. */
const words = (markdown: string) => markdown.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');

// Late in the run: its turn stays in the shared store, and earlier suites count the turns they make.
suite("status bar: a goal's cost", () => {
  test("the meter's tooltip says what the window's turns used and what the prompt cache read and saved", async () => {
    const loopx = await app();
    const codex = otherWriter('codex');
    const ada = codex.as(vscodeHuman);
    const goal = createGoal(ada, { title: 'Cached turns', turnsPerWindow: 5 });
    const todo = addTodo(ada, { goalId: goal.id, title: 'Read the cache' });
    const turn = startTurn(ada, { goalId: goal.id, host: 'custom', agent: 'codex', todoId: todo.id }).turn;
    addEvidence(codex, { todoId: todo.id, summary: 'half way' });
    // A Sonnet turn whose host reported tokens but no cost: priced from the table, with its cache reads and writes.
    finishTurn(ada, turn.id, 0, {
      inputTokens: 82_000,
      cachedTokens: 50_000,
      cacheWriteTokens: 30_000,
      outputTokens: 1000,
      model: 'claude-sonnet-4',
    });
    try {
      let seen = '';
      const meter = await until(() => {
        const item = loopx.statusBar.snapshot().find((s) => s.id === goal.id);
        seen = JSON.stringify(item ?? loopx.statusBar.snapshot());
        return item && words(item.tooltip).includes('83k tokens') ? item : undefined;
      }, "the tooltip to tell the turn's usage").catch((error: Error) => {
        throw new Error(`${error.message}; the status bar: ${seen}`);
      });
      assert.match(
        words(meter.tooltip),
        /Used \$0\.\d+ · 83k tokens in the last 24 h; .*61% of input read from the prompt cache, saving \$0\.11/,
      );
    } finally {
      setGoalStatus(ada, goal.id, 'done'); // off the status bar, and not among the paused goals a later test counts
      codex.close();
    }
  });
});
