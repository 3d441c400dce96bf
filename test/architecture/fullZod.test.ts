import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';

/**
 * Schemas are written with zod/mini. The full zod (its messages in 64 languages, JSON Schema both ways) is 450 KB
 * minified: one import of it anywhere below a bundle's entry put it in dist/cli.js, which every command that is not an
 * agent verb loads, and in VS Code's dist/extension.js, a third of each (webPush.ts and personHosts.ts did, until
 * session 35: dist/cli.js 1,357 KB → 948 KB). Only the MCP server imports it: its SDK takes full zod schemas, and
 * dist/mcp.js is a bundle of its own.
 */
const ROOT = resolve(__dirname, '..', '..');
const MAY_IMPORT_FULL_ZOD = new Set(['src/cli/mcp/tools.ts']);
const FULL_ZOD = /\bfrom\s+['"]zod(\/v4(\/classic)?)?['"]/;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

test('the detector sees the full zod in the shapes an import takes, and not zod/mini', () => {
  for (const line of [
    "import { z } from 'zod';",
    "import * as z from 'zod';",
    'import { z } from "zod/v4";',
    "import * as z from 'zod/v4/classic';",
  ])
    expect([line, FULL_ZOD.test(line)]).toEqual([line, true]);
  for (const line of ["import * as z from 'zod/mini';", "import * as z from 'zod/v4/mini';", "import { zodLike } from './zodLike';"])
    expect([line, FULL_ZOD.test(line)]).toEqual([line, false]);
});

test('only the MCP server imports the full zod; every other schema is zod/mini', () => {
  const files = [...sources('src'), ...sources('webview-ui/src')];
  expect(files.length).toBeGreaterThan(100);
  const found = files.filter((file) => !MAY_IMPORT_FULL_ZOD.has(file) && FULL_ZOD.test(readFileSync(join(ROOT, file), 'utf8')));
  expect(found).toEqual([]);
});
