import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loopx, startGoal, workspace } from './harness';

/** `loopx review-packet --format html|pdf`: the owner's page, with the charts, outside VS Code. */
const ws = workspace();
afterAll(() => ws.dispose());
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
const agent = (args: string[]) => cli(args, { LOOPX_AGENT: 'codex' });
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));

describe('the review packet as a page', () => {
  test('setup: a goal with shipped, blocked and gated work', () => {
    cli(['init']);
    cli(['goal', 'create', '--title', 'Ship the <CSV> importer']);
    startGoal(ws.root);
    for (const title of ['Parse quoted fields', 'Import from S3', 'Drop the legacy importer'])
      cli(['todo', 'add', '--goal', 'G1', '--title', title]);
    agent(['todo', 'claim', 'T1']);
    agent(['todo', 'ship', 'T1', '--evidence', '12 tests pass']);
    agent(['todo', 'claim', 'T2']);
    agent(['todo', 'block', 'T2', '--reason', 'needs S3 credentials']);
    expect(agent(['gate', 'ask', '--todo', 'T3', '--question', 'Delete it? <script>alert(1)</script>', '--json']).json.ok).toBe(true);
    // A turn that ended without writing anything back: its result has a code the page must say in words.
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Detect the delimiter']);
    expect(cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--agent', 'bot', '--json']).json.ok).toBe(true);
    expect(cli(['turn', 'finish', 'R1', '--exit-code', '0', '--json']).json.ok).toBe(true);
  });

  test('the page is words for people: no raw ISO timestamp and no internal code in its text', () => {
    expect(cli(['review-packet', '--format', 'html', '--out', 'words.html']).code).toBe(0);
    const text = readFileSync(join(ws.root, 'words.html'), 'utf8')
      .replace(/<style>[\s\S]*?<\/style>/g, '')
      .replace(/<[^>]+>/g, ' ');
    expect(text).toMatch(/Generated \d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d/);
    expect(text).toContain('R1');
    expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(text).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
    // One turn and one gate so far: counted in the singular ("1 gate", never "1 gates").
    expect(text).toMatch(/\b1\s+turn\b/);
    expect(text).toMatch(/\b1\s+gate\b/);
    expect(text.match(/.{0,60}\b1\s+(todos|turns|gates)\b.{0,20}/)?.[0]).toBeUndefined();
  });

  test('--format html writes one self-contained page: the story with its charts as SVG, then the packet; no script', () => {
    const run = cli(['review-packet', '--format', 'html', '--out', 'review.html', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const html = readFileSync(join(ws.root, 'review.html'), 'utf8');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    for (const part of [
      'Timeline',
      'Burn-down of open work',
      'Throughput per day',
      'Where the time went',
      'Cost per day',
      'Waiting for you',
      'Shipped',
      'Blocked',
    ])
      expect(html).toContain(part);
    expect(html.match(/<svg /g)?.length).toBeGreaterThanOrEqual(5);
    expect(html).toContain('No turn of this goal reported what it cost');
    expect(html).toContain('needs S3 credentials');
    // Where the todo-time went, in four shares that add up to the whole (within rounding).
    const shares = [...html.matchAll(/<div class="tile"><b>(\d+)%<\/b>([^<]+)<\/div>/g)].map((m) => [m[2], Number(m[1])] as const);
    expect(shares.map(([label]) => label)).toEqual([
      'of the time waiting on a person',
      'waiting on the world',
      'working',
      'ready, nobody on it',
    ]);
    expect(Math.abs(shares.reduce((sum, [, p]) => sum + p, 0) - 100)).toBeLessThanOrEqual(2);
    // Store text is escaped, never markup; nothing runs and nothing is fetched.
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('Ship the &#60;CSV&#62; importer');
    expect(html).not.toMatch(/\b(src|href)=["']?(https?:|\/\/)/);
    expect(run.json.data).toMatchObject({ format: 'html', path: join(ws.root, 'review.html') });
  });

  test('markdown stays the default; bad flags are refused with a clear message and write nothing', () => {
    expect(cli(['review-packet']).stdout).toMatch(/^# loopx review packet/);
    const bad = cli(['review-packet', '--format', 'docx', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.json.error?.message).toBe('--format must be markdown, html or pdf, got "docx"');
    expect(cli(['review-packet', '--format', 'pdf', '--json']).json.error?.message).toMatch(/--format pdf needs --out FILE/);
    expect(cli(['review-packet', '--goal', 'G9', '--format', 'html', '--out', 'x.html', '--json']).code).toBe(4);
    expect(existsSync(join(ws.root, 'x.html'))).toBe(false);
  });

  test('--format pdf without a Chromium-based browser says plainly that there is no PDF route, and writes nothing', () => {
    const run = cli(['review-packet', '--format', 'pdf', '--out', 'none.pdf', '--json'], { PATH: '/nonexistent', LOOPX_CHROMIUM: '' });
    expect(run.code).toBe(2);
    expect(run.json.error).toMatchObject({ code: 'pdf_unavailable' });
    expect(run.json.error?.message).toMatch(/no way to make a PDF here/);
    expect(run.json.error?.hint).toMatch(/--format html/);
    expect(existsSync(join(ws.root, 'none.pdf'))).toBe(false);
  });

  test('the page and the browser profile are staged in .loopx, which no agent writes, never the temp folder', () => {
    // A browser that says what it was given and writes a PDF of sorts.
    const browser = join(ws.root, '.loopx', 'fake-chromium');
    const said = join(ws.root, '.loopx', 'browser-args');
    writeFileSync(
      browser,
      `#!/bin/sh\nprintf '%s\\n' "$@" > '${said}'\nfor a in "$@"; do case "$a" in --print-to-pdf=*) printf '%%PDF-fake' > "\${a#--print-to-pdf=}";; esac; done\n`,
      { mode: 0o755 },
    );
    const run = cli(['review-packet', '--format', 'pdf', '--out', 'staged.pdf', '--json'], { LOOPX_CHROMIUM: browser });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const args = readFileSync(said, 'utf8').split('\n');
    const staged = join(ws.root, '.loopx', '.pdf-');
    expect(args.find((a) => a.startsWith('--user-data-dir='))?.startsWith(`--user-data-dir=${staged}`)).toBe(true);
    expect(args.find((a) => a.startsWith('file://'))?.startsWith(`file://${staged}`)).toBe(true);
    expect(readdirSync(join(ws.root, '.loopx')).filter((name) => name.startsWith('.pdf-'))).toEqual([]);
  });

  test.skipIf(!CHROMIUM)('--format pdf prints the page with headless Chromium', () => {
    const run = cli(['review-packet', '--format', 'pdf', '--out', 'review.pdf', '--json'], { LOOPX_CHROMIUM: CHROMIUM as string });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const pdf = readFileSync(join(ws.root, 'review.pdf'));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.length).toBeGreaterThan(10_000);
  });
  if (!CHROMIUM) test.skip('no Chromium on this machine: the PDF print is not tested here', () => undefined);
});
