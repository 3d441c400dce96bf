import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo } from '../todos/todos';
import { startTurn } from './turns';
import { finishTurn } from './turnFinish';
import { FIXED_PROMPT_LINES } from './prompt';
import { readTurnPrompt } from './turnCommands';

let s: TestStore;
beforeEach(() => {
  s = makeStore();
});
afterEach(() => s.dispose());

/** A turn's prompt as its host reads it: started, read, finished (so the next turn may start). */
function promptOf(input: { goalId: string; host: string; agent: string; todoId?: string }): string {
  const started = startTurn(s.kernel, { ...input, loopxCommand: '/opt/loopx/bin/loopx' });
  const prompt = readFileSync(started.promptFile, 'utf8');
  finishTurn(s.kernel, started.turn.id, 0);
  return prompt;
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

test("every turn's prompt starts with the same fixed part, byte for byte, whatever its goal, todo, agent or host", () => {
  const fixed = FIXED_PROMPT_LINES.join('\n');
  const g1 = createGoal(s.kernel, { title: 'Parser', objective: 'All fixtures parse', scope: ['src/**'], turnsPerWindow: 10 }).id;
  const g2 = createGoal(s.kernel, { title: 'Docs', objective: 'The README says what is true', turnsPerWindow: 10 }).id;
  addTodo(s.kernel, { goalId: g1, title: 'Parse headers', detail: 'tests/headers pass' });
  addTodo(s.kernel, { goalId: g1, title: 'Parse body' });
  addTodo(s.kernel, { goalId: g2, title: 'Rewrite the README' });
  const prompts = [
    promptOf({ goalId: g1, host: 'claude', agent: 'claude' }),
    promptOf({ goalId: g1, host: 'codex', agent: 'codex' }), // the MCP write-back
    promptOf({ goalId: g2, host: 'custom', agent: 'bot' }),
  ];
  for (const prompt of prompts) expect(prompt.startsWith(`${fixed}\n`)).toBe(true);
  // Nothing of a turn is in it: no id, no agent, no goal.
  expect(fixed).not.toMatch(/\b[RTG]\d+\b|claude|codex|Parser/);
  // Two turns of one goal share the goal's part too; what differs starts at the turn's own heading.
  const shared = commonPrefix(prompts[0] as string, prompts[1] as string);
  expect(shared).toContain('Objective: All fixtures parse');
  expect((prompts[0] as string).slice(shared.length)).toMatch(/^1: T1 Parse headers/);
  expect((prompts[1] as string).slice(shared.length)).toMatch(/^2: T2 Parse body/);
  // An agent still reads its todo and its exact command prefix from it (the sample agent, the tests' model).
  expect(readTurnPrompt(prompts[1] as string)).toEqual({ prefix: 'LOOPX_AGENT=codex /opt/loopx/bin/loopx', todo: 'T2', mcp: true });
  expect(prompts[2]).toContain('## loopx turn R3: T3 Rewrite the README\n\nYou are bot, and this turn is yours.');
});

// The turn's own loopx is a POSIX shell script, made on no Windows machine (turnLoopx.ts needsTurnLoopx).
test.skipIf(process.platform === 'win32')(
  "each host's prompt names the loopx its rules allow: Copilot CLI's the turn's own, Qwen Code's none at all (MCP tools alone); the agent reads its todo from every one",
  () => {
    const g1 = createGoal(s.kernel, { title: 'Parser', turnsPerWindow: 10 }).id;
    for (let i = 1; i <= 3; i++) addTodo(s.kernel, { goalId: g1, title: `Step ${i}` });
    const claude = promptOf({ goalId: g1, host: 'claude', agent: 'claude' });
    const copilot = promptOf({ goalId: g1, host: 'copilot', agent: 'copilot' });
    const qwen = promptOf({ goalId: g1, host: 'qwen', agent: 'qwen' });
    expect(readTurnPrompt(claude)).toEqual({ prefix: 'LOOPX_AGENT=claude /opt/loopx/bin/loopx', todo: 'T1', mcp: false });
    const own = `${s.kernel.root}/.loopx/turns/R2/loopx`;
    expect(readTurnPrompt(copilot)).toEqual({ prefix: expect.stringMatching(/\/\.loopx\/turns\/R2\/loopx'?$/), todo: 'T2', mcp: false });
    expect(copilot).not.toContain('LOOPX_AGENT=');
    expect(readFileSync(own, 'utf8')).toContain('LOOPX_AGENT=copilot ');
    expect(readTurnPrompt(qwen)).toEqual({ prefix: '', todo: 'T3', mcp: true });
    expect(qwen).toContain('This turn has no shell: read your todo and write back through the loopx MCP tools');
    expect(qwen).not.toContain('```sh');
    // Its own loopx runs the MCP server alone.
    expect(readFileSync(`${s.kernel.root}/.loopx/turns/R3/loopx`, 'utf8')).toContain('[ "$1" = mcp ] && return 0');
  },
);
