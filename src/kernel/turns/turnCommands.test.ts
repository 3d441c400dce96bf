import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { createGoal } from '../goals/goals';
import { addTodo } from '../todos/todos';
import { startTurn } from './turns';
import { setTodoCheck } from '../checks/checks';
import { TURN_COMMANDS, allowedCommands, claudeAllowedTools, commandPrefix } from './turnCommands';
import { makeStore } from '../../../test/support/testKit';

describe('the commands of a turn: one table for the prompt and the host', () => {
  test('the prefix quotes a loopx path with a space exactly as the prompt shows it', () => {
    expect(commandPrefix('claude', '/usr/local/bin/loopx')).toBe('LOOPX_AGENT=claude /usr/local/bin/loopx');
    expect(commandPrefix('claude', '/Users/ada/Library/Application Support/Code/bin/loopx')).toBe(
      "LOOPX_AGENT=claude '/Users/ada/Library/Application Support/Code/bin/loopx'",
    );
  });

  test("allows exactly the verbs a turn needs and never a command of the agent's choosing", () => {
    const prefix = commandPrefix('claude', '/x/loopx');
    expect(allowedCommands(prefix, 'T3').map((c) => c.slice(prefix.length + 1))).toEqual([
      'todo show',
      'evidence add',
      'evidence run --todo T3 --check',
      'todo ship',
      'todo release',
      'todo block',
      'gate ask',
      'handoff',
      'todo renew',
      'monitor add',
    ]);
    // evidence run -- CMD runs anything: it is in the prompt, never in the rules.
    expect(TURN_COMMANDS.filter((c) => !c.allow).map((c) => c.words('T3'))).toEqual(['evidence run --todo T3']);
    expect(claudeAllowedTools([`${prefix} todo ship`])).toEqual(['Bash(LOOPX_AGENT=claude /x/loopx todo ship:*)']);
  });

  test("every line of the prompt's command block starts with an allowed prefix, or is the one that is not allowed", () => {
    const s = makeStore();
    try {
      const goal = createGoal(s.kernel, { title: 'G' }).id;
      const todo = addTodo(s.kernel, { goalId: goal, title: 'T' }).id;
      setTodoCheck(s.kernel, todo, 'npm test');
      const started = startTurn(s.kernel, { goalId: goal, host: 'claude', agent: 'claude', loopxCommand: '/opt/my tools/loopx' });
      const prompt = readFileSync(started.promptFile, 'utf8');
      const from = prompt.indexOf('```sh\n') + 6;
      const lines = prompt.slice(from, prompt.indexOf('\n```', from)).split('\n');
      expect(lines.length).toBe(TURN_COMMANDS.length);
      const notAllowed = lines.filter((line) => !started.allowedCommands.some((c) => line === c || line.startsWith(`${c} `)));
      expect(notAllowed).toEqual([expect.stringContaining(`'/opt/my tools/loopx' evidence run --todo ${todo} -- npm test`)]);
      expect(started.allowedCommands).toContain(`LOOPX_AGENT=claude '/opt/my tools/loopx' evidence run --todo ${todo} --check`);
    } finally {
      s.dispose();
    }
  });
});
