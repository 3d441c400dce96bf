import { describe, expect, test } from 'vitest';
import { AGENT_COMMANDS, agentHandles } from './agentCommands';
import { CLI_COMMANDS } from './registry';

describe('the agent bundle and the whole CLI', () => {
  test('every agent verb loads the whole CLI’s own command object, under its own words', async () => {
    for (const entry of AGENT_COMMANDS) {
      const command = await entry.load();
      expect(CLI_COMMANDS).toContain(command);
      expect(command.name).toEqual(entry.name);
    }
  });

  test('each command is answered by the bundle that holds it: the agent bundle never takes a call meant for another command', () => {
    const agentVerbs = new Set(AGENT_COMMANDS.map((c) => c.name.join(' ')));
    for (const command of CLI_COMMANDS) {
      const words = command.name.join(' ');
      expect([words, agentHandles([...command.name, '--json'])]).toEqual([words, agentVerbs.has(words)]);
    }
  });

  test('help, --version, an unknown word and no words at all go to the whole CLI', () => {
    for (const argv of [[], ['--help'], ['-h'], ['help', 'todo', 'list'], ['--version'], ['version'], ['todo'], ['todox', 'list']]) {
      expect([argv, agentHandles(argv)]).toEqual([argv, false]);
    }
  });

  test('the verbs of an agent’s turn are all in the agent bundle', () => {
    const turnVerbs = [
      'status',
      'todo next',
      'todo list',
      'todo show',
      'todo claim',
      'todo renew',
      'todo release',
      'todo ship',
      'evidence add',
      'gate ask',
      'goal show',
      'quota should-run',
      'turn start',
      'turn finish',
      'monitor tick',
    ];
    expect(turnVerbs.filter((verb) => !agentHandles(verb.split(' ')))).toEqual([]);
  });
});
