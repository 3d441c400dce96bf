import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { runSoak } from './soak';

/**
 * The soak, short (90 s of `loopx run` left alone, three kill -9 of the runner, a second runner, the person, the
 * monitor ticker), in every `npm test`. `npm run soak -- --minutes N` runs it for an hour or a night.
 */
test('a loop left alone: every invariant holds after 90 seconds of everything a night throws at it', async () => {
  const lines: string[] = [];
  const report = await runSoak({
    repo: resolve(__dirname, '..', '..'),
    seconds: 90,
    seed: 21,
    killEvery: [20, 30],
    secondRunner: [0.3, 0.6],
    turnLimitSeconds: 12,
    personEverySeconds: 3,
    smallBudget: 8,
    idleSeconds: 10,
    keep: false,
    log: (line) => lines.push(line),
  });
  const failed = report.audit.invariants.filter((i) => !i.ok);
  expect(failed, `${lines.join('\n')}\nworkspace kept: ${report.root}`).toEqual([]);
  const f = report.audit.figures as { turns: number; byResult: Record<string, number> };
  expect(report.kills).toBeGreaterThanOrEqual(2);
  // What the scripted agent did shows in the results: ships, crashes and hangs, a person's questions, monitors.
  expect(Object.keys(f.byResult)).toEqual(
    expect.arrayContaining(['validated_completion', 'validated_progress', 'host_failure', 'user_action_required', 'wait']),
  );
  expect(report.runners.some((r) => r.name === 'soak-b')).toBe(true);
}, 300_000);
