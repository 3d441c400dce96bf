import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';

/**
 * The README is a front page and the rest lives in docs/: every relative link and picture between them must land,
 * anchors included, so a newcomer can walk from the README to any page and back.
 */
const REPO = join(__dirname, '..');
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Lines outside fenced code blocks: a `# comment` in a shell block is no heading, a `](x)` in code no link. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(path: string): Set<string> {
  const headings = prose(readFileSync(path, 'utf8')).flatMap((line) => /^#{1,6} (.+)$/.exec(line)?.[1] ?? []);
  return new Set(headings.map(slug));
}

describe('the docs link up', () => {
  test.each(PAGES)('every relative link and picture in %s lands on a file and an anchor that exist', (page) => {
    const from = join(REPO, page);
    const broken: string[] = [];
    for (const line of prose(readFileSync(from, 'utf8')))
      for (const [, target = ''] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
        const [file = '', anchor] = target.split('#');
        const path = file ? join(dirname(from), file) : from;
        if (!existsSync(path)) broken.push(`${target}: no file ${relative(REPO, path)}`);
        else if (anchor && path.endsWith('.md') && !anchorsOf(path).has(anchor)) broken.push(`${target}: no heading #${anchor}`);
      }
    expect(broken).toEqual([]);
  });

  test('the README is a front page: the two commands as written, and one or two screens', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    expect(readme).toContain('npm start   # installs what is missing');
    expect(readme).toContain('npm test    # installs what is missing');
    expect(readme.split('\n').length).toBeLessThanOrEqual(100);
  });
});
