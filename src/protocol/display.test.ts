import { expect, test } from 'vitest';
import { clockTime, forPeople, untilWords } from './display';

test('stored text reads for people: local clock times instead of ISO, quotes instead of backticks', () => {
  const now = Date.parse('2026-12-01T10:00:00.000Z');
  const stored = 'Waiting on monitor M1: `gh run view 12 --exit-status` every 2m until exit0, expires 2026-12-02T08:14:56.008Z.';
  const shown = forPeople(stored, now);
  expect(shown).toBe(
    `Waiting on monitor M1: “gh run view 12 --exit-status” every 2m until exit0, expires ${clockTime('2026-12-02T08:14:56.008Z', now)}.`,
  );
  expect(shown).not.toMatch(/\d{4}-\d\d-\d\dT|`/);
  // A lone backtick (not a pair) and text without times stay as they are.
  expect(forPeople('it`s done', now)).toBe('it`s done');
});

test('a monitor condition in words', () => {
  expect(untilWords('exit0')).toBe('it exits 0');
  expect(untilWords('change')).toBe('its output changes');
  expect(untilWords('match:^2\\.4\\.')).toBe('its output matches ^2\\.4\\.');
});

test('a clock time has one rule everywhere: a 24-hour clock, the date only when it is not today, in the zone asked', () => {
  const now = Date.parse('2026-12-01T10:00:00.000Z');
  expect(clockTime('2026-12-01T14:05:00.000Z', now, 'UTC')).toBe('14:05');
  expect(clockTime('2026-12-02T08:00:00.000Z', now, 'UTC')).toMatch(/^(Dec 2|2 Dec) 08:00$/);
  // The same instant in a zone where it is already the next day says its date.
  expect(clockTime('2026-12-01T23:30:00.000Z', now, 'Asia/Tokyo')).toMatch(/^(Dec 2|2 Dec) 08:30$/);
  expect(clockTime('2026-12-01T14:05:00.000Z', now, 'Not/AZone')).toMatch(/\d\d:\d\d$/);
});
