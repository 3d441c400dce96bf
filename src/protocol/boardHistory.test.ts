import { describe, expect, test } from 'vitest';
import { changesHeadline, changesSince, momentFieldText, parseMomentField } from './boardHistory';
import type { Card } from './boardProtocol';
import { parseToHost } from './boardSchemas';
import { parseToStoryHost } from './story/storySchemas';

const card = (id: string, status: Card['status'], extra: Partial<Card> = {}): Card => ({
  id,
  goalId: 'G1',
  title: `Todo ${id}`,
  priority: 2,
  status,
  owner: status === 'claimed' ? 'codex' : null,
  ownedByMe: false,
  leaseExpiresAt: status === 'claimed' ? '2099-01-01T00:00:00.000Z' : null,
  dependsOn: [],
  unmetDeps: [],
  evidenceCount: 0,
  gates: [],
  goalActive: true,
  revision: 1,
  monitor: null,
  recurrence: null,
  recurrenceZone: null,
  waitsUntil: null,
  change: null,
  review: null,
  moves: [],
  ...extra,
});

describe('what changed since a past moment', () => {
  test('moves between columns, new cards and cards gone, by the board’s own column rule', () => {
    const past = [card('T1', 'open'), card('T2', 'open', { gates: ['Q1'] }), card('T3', 'claimed'), card('T9', 'open')];
    const now = [card('T1', 'shipped'), card('T2', 'open'), card('T3', 'claimed', { revision: 4 }), card('T4', 'open')];
    const c = changesSince(past, now);
    expect(c.moved).toEqual([
      { id: 'T1', title: 'Todo T1', from: 'ready', to: 'shipped' },
      { id: 'T2', title: 'Todo T2', from: 'waiting', to: 'ready' },
    ]);
    expect(c.added).toEqual([{ id: 'T4', title: 'Todo T4', to: 'ready' }]);
    expect(c.removed).toEqual([{ id: 'T9', title: 'Todo T9', from: 'ready' }]);
    expect(changesHeadline(c)).toBe('4 changes since then: 2 moved, 1 new, 1 gone');
    expect(changesHeadline(changesSince(now, now))).toBe('Nothing on the board changed since then');
  });
});

describe('history and story messages are validated', () => {
  test('history requests need an event number or an exact UTC time; anything else is refused', () => {
    expect(parseToHost({ type: 'history', requestId: 1, seq: 42 }).ok).toBe(true);
    expect(parseToHost({ type: 'historyAt', requestId: 2, at: '2026-01-03T14:05:00.000Z' }).ok).toBe(true);
    expect(parseToHost({ type: 'historyEnd' }).ok).toBe(true);
    expect(parseToHost({ type: 'openStory', goalId: null }).ok).toBe(true);
    for (const bad of [
      { type: 'history', requestId: 1, seq: -1 },
      { type: 'history', requestId: 1, seq: 1.5 },
      { type: 'history', requestId: 1, seq: '42' },
      { type: 'historyAt', requestId: 1, at: 'yesterday' },
      { type: 'historyAt', requestId: 1, at: "2026-01-03T14:05:00Z'; DROP TABLE events" },
      { type: 'openStory', goalId: 'T1' },
    ])
      expect(parseToHost(bad).ok, JSON.stringify(bad)).toBe(false);
  });

  test('the story webview may pick a goal, open a todo or export; nothing else', () => {
    expect(parseToStoryHost({ type: 'ready' }).ok).toBe(true);
    expect(parseToStoryHost({ type: 'pickGoal', goalId: 'G2' }).ok).toBe(true);
    expect(parseToStoryHost({ type: 'export', format: 'pdf' }).ok).toBe(true);
    for (const bad of [
      { type: 'pickGoal', goalId: '../G2' },
      { type: 'openTodo', todoId: 'Q1' },
      { type: 'export', format: 'docx' },
      { type: 'eval', code: '1' },
    ])
      expect(parseToStoryHost(bad).ok, JSON.stringify(bad)).toBe(false);
  });
});

describe("the History bar's time field", () => {
  const now = new Date(2026, 11, 3, 16, 20).getTime(); // 3 Dec 2026 16:20, local

  test('shows a moment as "2026-12-03 14:30" in local time, 24-hour, whatever the language', () => {
    expect(momentFieldText(new Date(2026, 11, 3, 14, 30, 59).toISOString())).toBe('2026-12-03 14:30');
    expect(momentFieldText(new Date(2026, 0, 5, 9, 5).toISOString())).toBe('2026-01-05 09:05');
  });

  test('takes a date and time, a date (its midnight) or a time (today); anything else is null', () => {
    expect(parseMomentField('2026-12-01 09:05', now)).toBe(new Date(2026, 11, 1, 9, 5).toISOString());
    expect(parseMomentField(' 2026-12-01T9:05 ', now)).toBe(new Date(2026, 11, 1, 9, 5).toISOString());
    expect(parseMomentField('2026-12-01', now)).toBe(new Date(2026, 11, 1, 0, 0).toISOString());
    expect(parseMomentField('14:30', now)).toBe(new Date(2026, 11, 3, 14, 30).toISOString());
    for (const bad of ['', 'yesterday', '12/03/2026', '2026-02-31 10:00', '25:00', '2026-13-01', '14:3', '4:30 PM'])
      expect(parseMomentField(bad, now), bad).toBeNull();
  });

  test('what the field shows, it takes back', () => {
    const at = new Date(2026, 6, 14, 23, 59).toISOString();
    expect(parseMomentField(momentFieldText(at), now)).toBe(at);
  });
});
