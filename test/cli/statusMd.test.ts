import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loopx, startGoal, workspace } from './harness';

/** STATUS.md after writes: a human's write regenerates it, an agent's marks it out of date until status reads it. */
const ws = workspace();
const root = ws.root;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env });
const agent = (args: string[]) => cli(args, { LOOPX_AGENT: 'codex' });
const statusMd = () => readFileSync(join(root, '.loopx', 'STATUS.md'), 'utf8');

beforeAll(() => {
  cli(['init']);
  cli(['goal', 'create', '--title', 'Parser']);
  startGoal(root);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Headers']);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Body']);
});
afterAll(() => ws.dispose());

test("a human's write regenerates STATUS.md", () => {
  expect(statusMd()).toContain('| G1 Parser | active | T1 Headers |');
  expect(statusMd()).not.toContain('Out of date');
});

test("an agent's write marks it out of date, and a person's loopx status brings it up to date", () => {
  expect(agent(['todo', 'claim', 'T1', '--json']).code).toBe(0);
  const marked = statusMd();
  expect(marked).toMatch(
    /^Updated .*\. \*\*Out of date:\*\* agents changed the store since \(first at .*\); `loopx status` run by a person rewrites this file/m,
  );
  expect(marked).toContain('T1 Headers'); // the old content, as it was
  agent(['evidence', 'add', '--todo', 'T1', '--summary', 'half done']);
  expect(statusMd().match(/Out of date/g)).toHaveLength(1); // marked once
  expect(agent(['status', '--json']).code).toBe(0);
  expect(statusMd()).toContain('Out of date'); // an agent's status call stays cheap
  expect(cli(['status', '--json']).code).toBe(0);
  expect(statusMd()).toContain('| G1 Parser | active | T2 Body |');
  expect(statusMd()).not.toContain('Out of date');
});

test("a human's write after an agent's brings it up to date too", () => {
  agent(['todo', 'release', 'T1']);
  expect(statusMd()).toContain('Out of date');
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Trailers']);
  expect(statusMd()).not.toContain('Out of date');
  expect(statusMd()).toContain('T1 Headers');
});

test('status and goal show say in words why a goal waits; the reason code stays in --json', () => {
  expect(agent(['todo', 'claim', 'T2', '--json']).code).toBe(0); // the goal allows one agent at a time
  const json = JSON.parse(cli(['status', '--json']).stdout);
  expect(json.data.goals[0].shouldRun.reason).toBe('concurrency_limit');
  for (const args of [['status'], ['goal', 'show', 'G1']]) {
    const text = cli(args).stdout;
    expect(text).toMatch(/should run: no \(codex holds a todo of this goal; it allows 1 at a time/);
    expect(text).not.toContain('concurrency_limit');
  }
  agent(['todo', 'release', 'T2']);
});
