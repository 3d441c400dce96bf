import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';

/** src/shared sits below every layer (the kernel and the browser bundle import it), so it imports nothing itself. */
test('src/shared imports nothing', () => {
  const dir = resolve(__dirname, '..', '..', 'src', 'shared');
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(0);
  const imports = files.flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => /^\s*(import|export .* from)\b/.test(l))
      .map((l) => `${f}: ${l}`),
  );
  expect(imports).toEqual([]);
});
