import { describe, expect, test } from 'vitest';
import { AGENT_VERBS, COMMAND_BUNDLES, WHOLE_CLI_WORDS } from './agentCommands';
import type { Command } from './command';
import { CLI_COMMANDS } from './registry';

describe('the verbs with bundles of their own', () => {
  test('each verb’s module exports the whole CLI’s own command object, under the verb’s words', async () => {
    for (const verb of AGENT_VERBS) {
      const command = ((await import(/* @vite-ignore */ verb.module)) as Record<string, Command>)[verb.export];
      expect([verb.words, CLI_COMMANDS.includes(command as Command)]).toEqual([verb.words, true]);
      expect(command?.name).toEqual(verb.words);
    }
  });

  test('a call meant for another command never reaches a verb’s bundle: a longer command on the same words has its own', () => {
    // bin/loopx tries a call's two words before its first one (`handoff accept` before `handoff`).
    const bundled = new Set(AGENT_VERBS.map((v) => v.words.join(' ')));
    for (const verb of AGENT_VERBS) {
      const longer = CLI_COMMANDS.filter(
        (c) => c.name.length > verb.words.length && verb.words.every((word, i) => c.name[i] === word) && !bundled.has(c.name.join(' ')),
      );
      expect([verb.words, longer.map((c) => c.name.join(' '))]).toEqual([verb.words, []]);
    }
  });

  test('the verbs of an agent’s turn all have bundles of their own', () => {
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
    const bundled = new Set(AGENT_VERBS.map((v) => v.words.join(' ')));
    expect(turnVerbs.filter((verb) => !bundled.has(verb))).toEqual([]);
  });
});

describe('the bundles of every other command, one per first word', () => {
  test('each word’s bundle holds every command that starts with it, the whole CLI’s own objects in its order', async () => {
    for (const { word, commands } of COMMAND_BUNDLES) {
      const held: Command[] = [];
      for (const c of commands) {
        const exported = ((await import(/* @vite-ignore */ c.module)) as Record<string, Command | Command[]>)[c.export];
        held.push(...(Array.isArray(exported) ? exported : [exported as Command]));
      }
      expect([word, held.map((c) => c.name.join(' '))]).toEqual([
        word,
        CLI_COMMANDS.filter((c) => c.name[0] === word).map((c) => c.name.join(' ')),
      ]);
      expect(held.every((c) => CLI_COMMANDS.includes(c))).toBe(true);
    }
  });

  test('every word has one, but those dist/cli.js answers itself and those whose every command is a verb’s', () => {
    const bundled = new Set(AGENT_VERBS.map((v) => v.words.join(' ')));
    const words = [...new Set(CLI_COMMANDS.map((c) => c.name[0] as string))];
    const needed = words.filter(
      (word) => !WHOLE_CLI_WORDS.includes(word) && CLI_COMMANDS.some((c) => c.name[0] === word && !bundled.has(c.name.join(' '))),
    );
    expect(COMMAND_BUNDLES.map((b) => b.word)).toEqual(needed);
  });
});
