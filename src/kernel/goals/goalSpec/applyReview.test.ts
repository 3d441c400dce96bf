import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, human, makeStore, type TestStore } from '../../../../test/support/testKit';
import { checkReplay } from '../../replay';
import { applyGoalSpec } from './apply';
import { exportGoalSpec } from './export';
import { getGoal } from '../goalQueries';
import { PATH, eventCount, refusal, spec, tableSnapshot } from '../../../../test/support/specTestKit';
import { parseGoalFile } from '../../../goalFile/parse';
import { formatGoalFile } from '../../../goalFile/format';

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

const review = () => getGoal(s.kernel.db, 'G1').review;

describe('review in a goal file: asked for on a new goal by anyone, changed on an existing one by a person only', () => {
  test("an agent's file may ask for review on the goal it creates; export writes it back and applying that changes nothing", () => {
    applyGoalSpec(s.as(agent('claude')), spec({ quota: {}, review: { reviewerHost: 'codex', maxRounds: 2 } }), { path: PATH });
    expect(review()).toEqual({ reviewerHost: 'codex', reviewerAgent: null, otherHost: true, maxRounds: 2, blocking: ['P0', 'P1', 'P2'] });
    const exported = exportGoalSpec(s.kernel.db, 'G1');
    expect(exported.review).toEqual(review());
    const before = eventCount(s);
    applyGoalSpec(s.as(human), exported, { path: PATH });
    expect(eventCount(s)).toBe(before);
  });

  test("an agent's file may not ask for approved changes to land on their own, even on a goal it creates; a person's may", () => {
    const before = tableSnapshot(s);
    const landing = { reviewerHost: 'codex', autoLand: true };
    expect(refusal(() => applyGoalSpec(s.as(agent('claude')), spec({ quota: {}, review: landing }), { path: PATH }))[0]).toBe(
      'not_allowed',
    );
    expect(tableSnapshot(s)).toEqual(before);
    applyGoalSpec(s.as(human), spec({ review: landing }), { path: PATH });
    expect(review()).toMatchObject({ reviewerHost: 'codex', autoLand: true });
    // Exported and applied again by an agent, it is the same setting: nothing changes, nothing refused.
    const exported = exportGoalSpec(s.kernel.db, 'G1');
    const events = eventCount(s);
    applyGoalSpec(s.as(agent('claude')), exported, { path: PATH });
    expect(eventCount(s)).toBe(events);
  });

  test("an agent's file may not change it on an existing goal (nor turn it off): refused with nothing applied", () => {
    applyGoalSpec(s.as(human), spec({ review: {} }), { path: PATH });
    const before = tableSnapshot(s);
    for (const changed of [null, { reviewerHost: 'gemini' }, { maxRounds: 9 }])
      expect(refusal(() => applyGoalSpec(s.as(agent('claude')), spec({ review: changed }), { path: PATH }))).toEqual([
        'not_allowed',
        "a goal file applied by an agent may not change who reviews goal G1's changes; nothing was applied",
      ]);
    expect(tableSnapshot(s)).toEqual(before);
    // Left out, the file does not manage it: an agent's apply of other changes goes through.
    applyGoalSpec(s.as(agent('claude')), spec({ objective: 'Every fixture parses' }), { path: PATH });
    expect(review()).toMatchObject({ reviewerHost: null, otherHost: false });
  });

  test('a person applies a change of it through the event Set Review… writes; null turns it off', () => {
    applyGoalSpec(s.as(human), spec({}), { path: PATH });
    applyGoalSpec(s.as(human), spec({ review: { otherHost: true } }), { path: PATH });
    expect(review()).toMatchObject({ otherHost: true, maxRounds: 3 });
    applyGoalSpec(s.as(human), spec({ review: null }), { path: PATH });
    expect(review()).toBeNull();
    const set = s.kernel.db.prepare(`SELECT data FROM events WHERE kind = 'goal.review_set' ORDER BY seq`).all();
    expect(set.map((r) => (JSON.parse(String(r.data)) as { review: unknown }).review)).toEqual([
      expect.objectContaining({ otherHost: true }),
      null,
    ]);
    expect(checkReplay(s.kernel.db).ok).toBe(true);
  });

  test('the front matter reads `review:`, lint names a bad value where it is, and format writes it back', () => {
    const text = ['---', 'title: Ship the parser', 'review:', '  reviewerHost: codex', '  maxRounds: 0', '---', ''].join('\n');
    const bad = parseGoalFile(text);
    expect(bad.diagnostics.map((d) => [d.message, d.range.start.line])).toContainEqual([
      'review rounds are a whole number from 1 to 10',
      3,
    ]);
    const good = parseGoalFile(text.replace('maxRounds: 0', 'maxRounds: 2'));
    expect(good.spec?.review).toEqual({ reviewerHost: 'codex', maxRounds: 2 });
    expect(formatGoalFile(good.spec as NonNullable<typeof good.spec>)).toMatch(/review:\n {2}reviewerHost: codex\n {2}maxRounds: 2/);
  });
});
