import { expect, test } from 'vitest';
import { decisionSentence } from './decisionWords';

test("a decision in a person's name reads as words: what, who, how, when, and the event to look up", () => {
  const at = '2026-01-01T10:42:00.000Z';
  const now = Date.parse(at) + 60_000;
  const sentence = decisionSentence({ seq: 41, at, kind: 'monitor.approved', actor: 'ada', channel: 'vscode' }, now);
  expect(sentence).toMatch(/^an agent's monitor check allowed to run, by ada in VS Code at .+ \(event 41\)$/);
  expect(sentence).not.toContain('monitor.approved');
  expect(decisionSentence({ seq: 7, at, kind: 'gate.decided', actor: 'ada', channel: 'tty' }, now)).toContain(
    'a gate decided, by ada at a terminal',
  );
  expect(decisionSentence({ seq: 8, at, kind: 'hook.added', actor: 'bob', channel: null }, now)).toContain('a hook added, by bob at');
});
