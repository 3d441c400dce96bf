import { describe, expect, test } from 'vitest';
import type { StoryDay, StoryItem } from './storyProtocol';
import { burndownChart, costChart, throughputChart, timeChart, timelineChart, timeShareBar } from './storyCharts';

/** The story's charts are SVG text drawn from the story's data: what a person hovers must say the numbers. */
const H = 3_600_000;
const day = (d: string, over: Partial<StoryDay> = {}): StoryDay => ({
  day: d,
  added: 0,
  shipped: 0,
  killed: 0,
  turns: 0,
  turnsFailed: 0,
  spent: 0,
  time: { working: 0, person: 0, world: 0, queued: 0 },
  cost: null,
  ...over,
});
const days = [
  day('2026-01-05', { added: 4, shipped: 2, turns: 5, turnsFailed: 1, time: { working: 3 * H, person: 2 * H, world: H, queued: 0 } }),
  day('2026-01-06', { added: 1, shipped: 3, turns: 3, time: { working: 5 * H, person: 0, world: 0, queued: 0.5 * H } }),
];
const titlesOf = (svg: string) => [...svg.matchAll(/<title[^>]*>([^<]*)<\/title>/g)].map((m) => m[1]);

describe('the story charts', () => {
  test('every day is one hover away with its numbers; the chart says its summary to a screen reader', () => {
    const svg = throughputChart(days);
    expect(titlesOf(svg)).toEqual([
      'Throughput per day: todos shipped (bars) and turns run (line)',
      'Mon 5 Jan: 2 shipped · 5 turns (1 failed) · 4 added',
      'Tue 6 Jan: 3 shipped · 3 turns · 1 added',
    ]);
    expect(svg).toContain('<desc id="throughput-d">5 shipped over 2 days; most on Tue 6 Jan (3).</desc>');
    expect(svg.match(/class="c-fail"/g)).toHaveLength(1);
    expect(titlesOf(timeChart(days))[1]).toBe(
      'Mon 5 Jan: working 3.0 h · waiting on a person 2.0 h · waiting on the world 1.0 h · ready, nobody on it 0 min',
    );
    expect(titlesOf(timeShareBar({ working: 6 * H, person: 2 * H, world: 0, queued: 0 }))).toEqual([
      'Share of the time',
      'working: 6.0 h (75%)',
      'waiting on a person: 2.0 h (25%)',
    ]);
  });

  test('the burn-down steps between its points and says open and done at each', () => {
    const svg = burndownChart({
      burndown: [
        { at: '2026-01-05T08:00:00.000Z', open: 3, done: 0 },
        { at: '2026-01-05T12:00:00.000Z', open: 1, done: 2 },
      ],
      range: { from: '2026-01-05T08:00:00.000Z', to: '2026-01-05T16:00:00.000Z' },
      offsetMinutes: 60,
    });
    expect(titlesOf(svg).slice(1)).toEqual(['5 Jan 09:00: 3 open, 0 done', '5 Jan 13:00: 1 open, 2 done']);
    expect(svg).toContain('1 open and 2 done now; at most 3 open at once.');
  });

  test('cost per day is drawn only once turns carry usage, in dollars', () => {
    expect(costChart(days)).toBeNull();
    const svg = costChart([day('2026-01-05', { cost: 1.5 }), day('2026-01-06', { cost: 0 }), day('2026-01-07', { cost: 2.25 })]);
    expect(titlesOf(svg ?? '').slice(1)).toEqual(['Mon 5 Jan: $1.50', 'Wed 7 Jan: $2.25']);
    expect(svg).toContain('$3.75 in all.');
  });

  test('what agents wrote is text, never markup: no script, no inline style, titles escaped', () => {
    const timeline: StoryItem[] = [
      {
        kind: 'gate',
        id: 'Q1',
        todoId: 'T1',
        question: '<script>alert(1)</script> "drop" it?',
        askedBy: 'codex',
        start: '2026-01-05T09:00:00.000Z',
        end: null,
        status: 'pending',
        decidedBy: null,
      },
      { kind: 'block', todoId: 'T1', reason: 'needs <b>keys</b>', by: 'codex', start: '2026-01-05T10:00:00.000Z', end: null },
    ];
    const svg = timelineChart(
      { timeline, titles: { T1: 'Import <img src=x onerror=alert(1)>' }, offsetMinutes: 0, now: '2026-01-05T12:00:00.000Z' },
      Date.parse('2026-01-05T08:00:00.000Z'),
      Date.parse('2026-01-05T12:00:00.000Z'),
    );
    const tags = new Set([...svg.matchAll(/<([a-z]+)/g)].map((m) => m[1]));
    expect([...tags].sort()).toEqual(['desc', 'line', 'rect', 'svg', 'text', 'title']);
    expect(svg).not.toMatch(/ style=| on[a-z]+="/i);
    expect(svg).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#34;drop&#34; it?');
    expect(svg).toMatch(/gate Q1 on T1 Import &#60;img src=x onerror=alert\(1\)&#62; asked by codex: .* waiting for you for 3\.0 h so far/);
    expect(svg.match(/class="c-gate c-open"/g)).toHaveLength(1);
    expect(svg.match(/class="c-block c-open"/g)).toHaveLength(1);
  });
});
