import { existsSync, statSync } from 'node:fs';
import { expect, test } from 'vitest';
import { Kernel, WAL_KEEP_BYTES } from '../../src/kernel/kernel';
import { TEXT_LIMITS } from '../../src/shared/textLimits';
import { loopx, startGoal, workspace } from './harness';

/**
 * A CLI call leaves its connection to the process's exit (Kernel.leaveForExit), so the WAL is kept between calls
 * (two fsyncs a write, not five). SQLite never starts that WAL over for processes that live one call each, so a call
 * that finds it past SQLite's checkpoint size closes as before: checkpointed and deleted. Without that the WAL grew by
 * every write (52 MB after 1,000 `todo add`).
 */
test("an agent's writes keep the WAL between calls, and never let it grow past SQLite's checkpoint size", { timeout: 120_000 }, () => {
  const ws = workspace();
  loopx(['init', '--json'], { cwd: ws.root });
  loopx(['goal', 'create', '--title', 'Grow', '--json'], { cwd: ws.root });
  startGoal(ws.root);
  const wal = `${Kernel.storePath(ws.root)}-wal`;
  const sizes: number[] = [];
  // The longest detail a todo takes (TEXT_LIMITS.text): the WAL passes its size in about 50 calls, not 110 (each call
  // is a process); the calls stop three after the WAL started over.
  let startedOver = -1;
  for (let i = 0; i < 200 && (startedOver < 0 || i < startedOver + 3); i++) {
    const r = loopx(['todo', 'add', '--goal', 'G1', '--title', `todo ${i}`, '--detail', 'x'.repeat(TEXT_LIMITS.text), '--json'], {
      cwd: ws.root,
      env: { LOOPX_AGENT: 'codex' },
    });
    expect(r.code, r.stderr).toBe(0);
    sizes.push(existsSync(wal) ? statSync(wal).size : 0);
    if (startedOver < 0 && i > 0 && (sizes[i] as number) < (sizes[i - 1] as number)) startedOver = i;
  }
  expect(sizes[0], 'the WAL is kept after a write').toBeGreaterThan(0);
  // One write's pages beyond the size at which the next call closes it (a todo add of that detail is about 20 pages here).
  expect(Math.max(...sizes)).toBeLessThan(WAL_KEEP_BYTES + 256 * 1024);
  // It went past the size once and started over (the loop noted the first call that found it smaller).
  expect(startedOver, 'the WAL started over').toBeGreaterThan(0);
  expect(loopx(['log', 'verify', '--json'], { cwd: ws.root }).code).toBe(0);
});
