import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** An import or re-export of a relative module, type-only ones included: the module's specifier is group 1. */
export const IMPORT = /^\s*(?:import|export)\s+(?:[^'"]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Imports of one module, type-only ones included, as file paths (`./x` is x.ts or x/index.ts). */
export function importsOf(path: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const base = resolve(dirname(path), match[1] as string);
    const file = [`${base}.ts`, join(base, 'index.ts'), base].find((candidate) => existsSync(candidate) && candidate.endsWith('.ts'));
    if (file) found.push(file);
  }
  return found;
}
