import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo } from '../todos/todos';
import { startTurn } from './turns';
import { finishTurn } from './turnFinish';
import { planTurn } from '../goals/quotaQueries';
import { backoffSeconds, cacheAwareRetry, recentRetries } from './backoff';
import { getGoal } from '../goals/goalQueries';
import { shouldRunReason } from '../../protocol/shouldRunWords';

describe('cacheAwareRetry: a wait that just misses the prompt cache ends inside it', () => {
  const t0 = Date.parse('2026-12-05T10:00:00Z');
  const wait = (seconds: number, window: number | null) => {
    const r = cacheAwareRetry(t0, seconds, window);
    return { seconds: (r.at - t0) / 1000, warm: r.keepsCacheWarm };
  };

  test('with a 5-minute window: waits inside it are kept, one just past it starts 30 s before its end, longer ones are kept', () => {
    expect([60, 120, 240, 480, 960, 1920, 3600].map((s) => wait(s, 300))).toEqual([
      { seconds: 60, warm: false },
      { seconds: 120, warm: false },
      { seconds: 240, warm: false },
      { seconds: 270, warm: true },
      { seconds: 960, warm: false },
      { seconds: 1920, warm: false },
      { seconds: 3600, warm: false },
    ]);
  });

  test('a wait is never cut by more than half, so a todo that keeps failing still waits longer each time', () => {
    for (const window of [60, 300, 600, 3600, 86_400]) {
      let previous = 0;
      for (let failures = 1; failures <= 8; failures++) {
        const plain = backoffSeconds(failures);
        const { seconds } = wait(plain, window);
        expect(seconds).toBeGreaterThanOrEqual(plain / 2);
        expect(seconds).toBeLessThanOrEqual(plain);
        expect(seconds).toBeGreaterThanOrEqual(previous);
        previous = seconds;
      }
    }
  });

  test('with a 1-hour window the hour-long wait starts a minute early; no window, or a zero one, changes nothing', () => {
    expect(wait(3600, 3600)).toEqual({ seconds: 3540, warm: true });
    expect(wait(480, null)).toEqual({ seconds: 480, warm: false });
    expect(wait(480, 0)).toEqual({ seconds: 480, warm: false });
  });
});

describe('should-run and turn start time a retry by the host of the turn that failed', () => {
  let s: TestStore;
  let goalId: string;
  // The test file's own config folder (test/humanKeySetup.ts), where a person's hosts.json is read.
  const hostsFile = join(process.env.LOOPX_CONFIG_DIR as string, 'hosts.json');
  beforeEach(() => {
    s = makeStore();
  });
  afterEach(() => {
    s.dispose();
    rmSync(hostsFile, { force: true });
  });

  const plan = () => planTurn(s.kernel.db, getGoal(s.kernel.db, goalId), s.clock.ms);
  /**
   * Four failed turns in a row on the one todo of a new goal, each on `host` reading `inputTokens`; returns the wait
   * after the fourth (the goal is then the one `plan` asks about).
   */
  function fourFailures(host: string, inputTokens: number | null): number {
    goalId = createGoal(s.kernel, { title: `Flaky on ${host}`, turnsPerWindow: 100 }).id;
    const todo = addTodo(s.kernel, { goalId, title: 'flaky' }).id;
    for (let i = 0; i < 4; i++) {
      const started = startTurn(s.kernel, { goalId, host, agent: 'codex', todoId: todo }).turn;
      const usage =
        inputTokens === null
          ? undefined
          : { inputTokens, outputTokens: 900, cachedTokens: Math.floor(inputTokens * 0.8), model: 'claude-sonnet-4' };
      finishTurn(s.kernel, started.id, 1, usage);
      const wake = plan().answer.nextWakeAt as string;
      if (i < 3) s.clock.ms = Date.parse(wake);
    }
    return (Date.parse(plan().answer.nextWakeAt as string) - s.clock.ms) / 1000;
  }

  test('a Claude Code turn that read a cacheable prompt is retried inside the 5-minute window (270 s, not 480 s)', () => {
    expect(fourFailures('claude', 40_000)).toBe(270);
    const answer = plan().answer;
    expect(answer).toMatchObject({ run: false, reason: 'no_change', keepsCacheWarm: true });
    expect(shouldRunReason(answer)).toContain("while the model's prompt cache still holds the turn's context");
    expect(recentRetries(s.kernel.db, s.clock.ms)[0]).toMatchObject({ failures: 4, keepsCacheWarm: true });
    // Turn start agrees with should-run: refused one second before, taken at the wake time.
    s.clock.advance(269);
    expect(() => startTurn(s.kernel, { goalId, host: 'claude', agent: 'codex' })).toThrow(
      expect.objectContaining({ code: 'should_not_run' }),
    );
    s.clock.advance(1);
    expect(startTurn(s.kernel, { goalId, host: 'claude', agent: 'codex' }).turn.todoId).toBeDefined();
  });

  test('a host with no known cache, a turn whose usage is unknown, or a prompt too small to cache waits the whole 480 s', () => {
    expect(fourFailures('custom', 40_000)).toBe(480);
    expect(fourFailures('claude', null)).toBe(480);
    expect(fourFailures('claude', 600)).toBe(480);
    expect(plan().answer.keepsCacheWarm).toBeUndefined();
  });

  test("a person's hosts.json sets a host's window: none for Claude Code (0), 5 minutes for a custom host", () => {
    writeFileSync(hostsFile, JSON.stringify({ hosts: {}, promptCache: { claude: { windowMinutes: 0 }, custom: { windowMinutes: 5 } } }));
    expect(fourFailures('claude', 40_000)).toBe(480);
    expect(fourFailures('custom', 40_000)).toBe(270);
  });

  test('a hosts.json that is not of its shape sets no window (the published one holds)', () => {
    writeFileSync(hostsFile, JSON.stringify({ promptCache: { claude: { windowMinutes: -3 } } }));
    expect(fourFailures('claude', 40_000)).toBe(270);
  });
});
