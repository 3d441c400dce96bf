import { describe, expect, test } from 'vitest';
import type { Card, CardMonitor } from './boardProtocol';
import { allowedTargets, columnOf, groupCards, lastRunSummary, moveFor, waitingReason } from './board';

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

describe('moves', () => {
  const live = '2026-01-01T12:30:00.000Z';
  test('each allowed move names its kernel transition', () => {
    expect(moveFor(card(), 'claimed', 'ada', NOW)).toEqual({ transition: 'claim' });
    expect(moveFor(card(), 'shipped', 'ada', NOW)).toEqual({ transition: 'ship' });
    expect(moveFor(card({ status: 'claimed', owner: 'ada', leaseExpiresAt: live }), 'ready', 'ada', NOW)).toEqual({
      transition: 'release',
    });
    expect(moveFor(card({ status: 'blocked' }), 'ready', 'ada', NOW)).toEqual({ transition: 'unblock' });
    expect(moveFor(card({ status: 'claimed', owner: 'codex', leaseExpiresAt: live }), 'blocked', 'ada', NOW)).toEqual({
      transition: 'block',
    });
    expect(moveFor(card(), 'killed', 'ada', NOW)).toEqual({ transition: 'kill' });
  });

  test.each([
    ['claiming a gated todo', card({ gates: ['Q1'] }), 'claimed', /gate Q1 needs a decision/],
    ['shipping a gated todo', card({ gates: ['Q1'] }), 'shipped', /gate Q1 on T1 needs a decision before it ships/],
    ['claiming before the dependencies ship', card({ unmetDeps: ['T9'] }), 'claimed', /cannot be claimed yet: after T9/],
    ['shipping what an agent holds', card({ status: 'claimed', owner: 'codex', leaseExpiresAt: live }), 'shipped', /held by codex/],
    ['dropping into Waiting', card(), 'waiting', /waits by itself/],
    ['moving a shipped card', card({ status: 'shipped' }), 'ready', /final/],
    ['claiming a blocked card', card({ status: 'blocked' }), 'claimed', /unblock it first/],
    ['claiming a card that waits on a monitor', card({ monitor: MONITOR }), 'claimed', /cannot be claimed yet: waits on M2/],
    ['making a monitored card ready by hand', card({ monitor: MONITOR }), 'ready', /cancel the monitor/],
    ['shipping an occurrence before its time', card({ waitsUntil: '2026-01-02T09:00:00.000Z' }), 'shipped', /cannot ship yet/],
  ] as const)('refuses %s and says why', (_label, c, to, why) => {
    const result = moveFor(c, to, 'ada', NOW);
    expect('refused' in result && result.refused).toMatch(why);
  });

  test('a move a pending gate refuses names the gates to decide, so the board can offer the decision there', () => {
    expect(moveFor(card({ gates: ['Q1', 'Q4'] }), 'shipped', 'ada', NOW)).toEqual({
      refused: 'gate Q1, Q4 on T1 needs a decision before it ships',
      decide: ['Q1', 'Q4'],
    });
    expect(moveFor(card({ gates: ['Q1'] }), 'claimed', 'ada', NOW)).toMatchObject({ decide: ['Q1'] });
    // Refused for another reason first (a paused goal, a finished card): no decision would let it through.
    expect(moveFor(card({ gates: ['Q1'], goalActive: false }), 'claimed', 'ada', NOW)).not.toHaveProperty('decide');
    expect(moveFor(card({ unmetDeps: ['T9'] }), 'claimed', 'ada', NOW)).not.toHaveProperty('decide');
  });

  test('a lapsed lease held by another agent may be shipped by the person (the kernel reclaims it first)', () => {
    expect(moveFor(card({ status: 'claimed', owner: 'codex', leaseExpiresAt: NOW }), 'shipped', 'ada', NOW)).toEqual({
      transition: 'ship',
    });
  });

  test('the keyboard menu offers only allowed targets', () => {
    expect(allowedTargets(card(), 'ada', NOW)).toEqual(['claimed', 'blocked', 'shipped', 'killed']);
    expect(allowedTargets(card({ status: 'shipped' }), 'ada', NOW)).toEqual([]);
    expect(allowedTargets(card({ unmetDeps: ['T2'] }), 'ada', NOW)).toEqual(['blocked', 'killed']);
  });
});
