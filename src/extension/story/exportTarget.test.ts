import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { exportTarget } from './exportTarget';

const homes: string[] = [];
afterEach(() => homes.splice(0).forEach((h) => rmSync(h, { recursive: true, force: true })));
const home = () => {
  const h = mkdtempSync(join(tmpdir(), 'loopx-home-'));
  homes.push(h);
  return h;
};

test("an export is offered in the person's Downloads folder when there is one", () => {
  const h = home();
  mkdirSync(join(h, 'Downloads'));
  expect(exportTarget('loopx-review-G1.html', h)).toBe(join(h, 'Downloads', 'loopx-review-G1.html'));
});

test('without a Downloads folder, in their home; never in the workspace', () => {
  const h = home();
  expect(exportTarget('loopx-review-G1.pdf', h)).toBe(join(h, 'loopx-review-G1.pdf'));
});
