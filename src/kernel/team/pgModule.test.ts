import { afterEach, expect, test } from 'vitest';
import { loadPg } from './pgModule';

/**
 * Loading pg lends `navigator` only where there is none (Node 20), and leaves alone one the host defines: VS Code's
 * extension host has a getter without a setter that reports an error when read (replacing it threw, and the window's
 * team listener never started: the e2e team part).
 */
const original = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
afterEach(() => {
  delete (globalThis as { navigator?: unknown }).navigator;
  if (original) Object.defineProperty(globalThis, 'navigator', original);
});

test("a host's own navigator getter is neither read nor replaced, and pg loads", () => {
  let reads = 0;
  Object.defineProperty(globalThis, 'navigator', {
    get: () => {
      reads++;
      return undefined;
    },
    configurable: true,
  });
  const before = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  const pg = loadPg();
  expect(typeof pg.Client).toBe('function');
  expect(Object.getOwnPropertyDescriptor(globalThis, 'navigator')).toEqual(before);
  // pg itself reads it once if this is its first load here; loadPg reads nothing of it.
  expect(reads).toBeLessThanOrEqual(1);
});

test("the runtime's own navigator (Node 21+), or none (Node 20), is as it was after pg loads", () => {
  loadPg();
  expect(Object.getOwnPropertyDescriptor(globalThis, 'navigator')).toEqual(original);
});
