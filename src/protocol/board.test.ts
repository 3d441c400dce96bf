import { describe, expect, test } from 'vitest';
import type { Card, CardMonitor } from './boardProtocol';
import { columnOf, groupCards, lastRunSummary, moveRefusalWords, waitingReason } from './board';

const NOW = '2026-01-01T12:00:00.000Z';
const MONITOR: CardMonitor = {
  id: 'M2',
  kind: 'check',
  check: 'gh run view 42 --exit-status',
  until: 'exit0',
  everySeconds: 300,
  nextCheckAt: '2026-01-01T12:05:00.000Z',
  expiresAt: null,
  lastRun: { n: 3, at: '2026-01-01T12:00:00.000Z', exitCode: 1, durationMs: 800, error: null },
  waitsForPerson: false,
};
const card = (over: Partial<Card> = {}): Card => ({
  id: 'T1',
  goalId: 'G1',
  title: 'Parse headers',
  priority: 2,
  status: 'open',
  owner: null,
  ownedByMe: false,
  leaseExpiresAt: null,
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
  ...over,
});

describe('columns', () => {
  test.each([
    [card(), 'ready'],
    [card({ unmetDeps: ['T2'] }), 'waiting'],
    [card({ gates: ['Q1'] }), 'waiting'],
    [card({ goalActive: false }), 'waiting'],
    [card({ status: 'claimed', owner: 'codex', leaseExpiresAt: '2026-01-01T12:30:00.000Z' }), 'claimed'],
    [card({ status: 'blocked' }), 'blocked'],
    [card({ status: 'shipped' }), 'shipped'],
    [card({ status: 'killed' }), 'killed'],
    [card({ monitor: MONITOR }), 'waiting'],
    [card({ waitsUntil: '2026-01-02T09:00:00.000Z', recurrence: 'daily at 09:00 (UTC)' }), 'waiting'],
    [card({ recurrence: 'daily at 09:00 (UTC)' }), 'ready'],
  ] as const)('%o goes to %s', (c, column) => expect(columnOf(c)).toBe(column));

  test('a card waiting on a monitor says what it checks and what it saw last; a recurring one when it is next', () => {
    expect(waitingReason(card({ monitor: MONITOR }))).toBe('waits on M2: “gh run view 42 --exit-status” until it exits 0');
    expect(waitingReason(card({ monitor: { ...MONITOR, kind: 'timer', check: null, until: 'time' } }))).toBe('waits on M2: a timer');
    expect(lastRunSummary(MONITOR)).toBe('exit 1 (run 3)');
    expect(
      lastRunSummary({
        ...MONITOR,
        lastRun: { ...(MONITOR.lastRun as NonNullable<CardMonitor['lastRun']>), exitCode: null, error: 'command not found' },
      }),
    ).toBe('command not found (run 3)');
    expect(
      waitingReason(card({ waitsUntil: '2026-01-01T13:00:00.000Z', recurrence: 'daily at 13:00 (UTC)', recurrenceZone: 'UTC' })),
    ).toMatch(/^recurs daily at 13:00 \(UTC\) · next (\S+ \d+ )?13:00$/);
    // One clock: the next occurrence reads in the series' own zone, whatever the viewer's zone is (here Berlin,
    // an hour off UTC in winter: the viewer's clock would say 10:00 beside "at 09:00").
    const berlin = card({
      waitsUntil: '2030-01-02T08:00:00.000Z',
      recurrence: 'daily at 09:00 (Europe/Berlin)',
      recurrenceZone: 'Europe/Berlin',
    });
    expect(waitingReason(berlin)).toMatch(/^recurs daily at 09:00 \(Europe\/Berlin\) · next \S+ \d+ 09:00$/);
  });

  test('waiting says why', () => {
    expect(waitingReason(card({ unmetDeps: ['T2', 'T3'] }))).toBe('after T2, T3');
    expect(waitingReason(card({ gates: ['Q4'] }))).toBe('gate Q4 needs a decision');
    expect(waitingReason(card())).toBeNull();
  });
});

describe('grouping and filters', () => {
  const cards = [
    card({ id: 'T3', priority: 1 }),
    card({ id: 'T10', priority: 0, title: 'Stream files' }),
    card({ id: 'T2', priority: 1, goalId: 'G2' }),
    card({ id: 'T4', status: 'claimed', owner: 'codex', leaseExpiresAt: NOW }),
    card({ id: 'T5', status: 'claimed', owner: 'claude', leaseExpiresAt: NOW }),
  ];
  test('sorts by priority then age within a column', () => {
    expect(groupCards(cards, { goalId: null, agent: null, text: '' }).ready.map((c) => c.id)).toEqual(['T10', 'T2', 'T3']);
  });
  test('filters by goal, agent and text (id or title, any case)', () => {
    expect(groupCards(cards, { goalId: 'G2', agent: null, text: '' }).ready.map((c) => c.id)).toEqual(['T2']);
    expect(groupCards(cards, { goalId: null, agent: 'claude', text: '' }).claimed.map((c) => c.id)).toEqual(['T5']);
    expect(groupCards(cards, { goalId: null, agent: null, text: 'STREAM' }).ready.map((c) => c.id)).toEqual(['T10']);
    expect(groupCards(cards, { goalId: null, agent: null, text: 't1' }).ready.map((c) => c.id)).toEqual(['T10']);
  });
});

describe('refused moves in words', () => {
  const live = '2026-01-01T12:30:00.000Z';
  test.each([
    ['claiming a gated todo', 'not_yet', card({ gates: ['Q1'] }), 'claimed', /gate Q1 needs a decision/],
    ['shipping a gated todo', 'gated', card({ gates: ['Q1'] }), 'shipped', /^gate Q1 on T1 needs a decision before it ships$/],
    ['claiming before the dependencies ship', 'not_yet', card({ unmetDeps: ['T9'] }), 'claimed', /^T1 cannot be claimed yet: after T9$/],
    [
      'shipping what an agent holds',
      'held_by_other',
      card({ status: 'claimed', owner: 'codex', leaseExpiresAt: live }),
      'shipped',
      /^T1 is held by codex; only its holder ships it$/,
    ],
    ['dropping into Waiting', 'not_a_place', card(), 'waiting', /waits by itself/],
    ['moving a shipped card', 'final', card({ status: 'shipped' }), 'ready', /^T1 is shipped; that is final$/],
    ['claiming a blocked card', 'blocked', card({ status: 'blocked' }), 'claimed', /unblock it first/],
    ['claiming a card that waits on a monitor', 'not_yet', card({ monitor: MONITOR }), 'claimed', /cannot be claimed yet: waits on M2/],
    [
      'making a monitored card ready by hand',
      'waits_on_monitor',
      card({ monitor: MONITOR }),
      'ready',
      /^T1 waits on M2: .*cancel the monitor/,
    ],
    ['making a waiting card ready by hand', 'waits', card({ unmetDeps: ['T9'] }), 'ready', /^T1 waits: after T9$/],
    [
      'shipping an occurrence before its time',
      'not_yet',
      card({ waitsUntil: '2026-01-02T09:00:00.000Z' }),
      'shipped',
      /cannot ship yet: next/,
    ],
    ['a card already there', 'already_there', card({ status: 'claimed' }), 'claimed', /^T1 is already in progress$/],
    ['an agent unblocking', 'person_only', card({ status: 'blocked' }), 'ready', /only a person unblocks it/],
    [
      'an agent killing another’s claim',
      'held_by_other',
      card({ owner: 'claude' }),
      'killed',
      /held by claude; only its holder or a person may kill it/,
    ],
    ['an agent blocking what it does not hold', 'not_holder', card(), 'blocked', /an agent moves only what it holds/],
  ] as const)('refusing %s says why', (_label, code, c, to, why) => {
    expect(moveRefusalWords(code, c, to)).toMatch(why);
  });
});
