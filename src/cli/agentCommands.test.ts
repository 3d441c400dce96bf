import { describe, expect, test } from 'vitest';
import { AGENT_COMMANDS, agentHandles } from './agentCommands';
import { CLI_COMMANDS } from './registry';

describe('the agent bundle and the whole CLI', () => {
  test('every agent verb is the whole CLI’s own command object, so it behaves the same from either bundle', () => {
    for (const command of AGENT_COMMANDS) expect(CLI_COMMANDS).toContain(command);
  });

  test('each command is answered by the bundle that holds it: the agent bundle never takes a call meant for another command', () => {
    for (const command of CLI_COMMANDS) {
      expect([command.name.join(' '), agentHandles([...command.name, '--json'])]).toEqual([
        command.name.join(' '),
        AGENT_COMMANDS.includes(command),
      ]);
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
