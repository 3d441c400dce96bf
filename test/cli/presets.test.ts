import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PRESETS, presetNamed } from '../../src/goalFile/presets';
import { loopx } from './harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';

/** A workspace with a store, and a PATH of folders made for the test (the node running loopx is found by path). */
function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'loopx-presets-'));
  expect(loopx(['init'], { cwd: root }).code).toBe(0);
  return root;
}

/** A stand-in `gh` whose `auth status` exits `status`, in a folder of its own (or `inside` one). */
function fakeGh(status: number, inside?: string): string {
  const bin = inside ?? mkdtempSync(join(tmpdir(), 'loopx-gh-'));
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'gh'), `#!/bin/sh\n[ "$1 $2" = "auth status" ] && exit ${status}\nexit 0\n`);
  chmodSync(join(bin, 'gh'), 0o755);
  return bin;
}

const onPath = (...dirs: string[]) => ({ PATH: [...dirs, dirname(process.execPath), '/bin'].join(delimiter) });
const goals = (root: string) =>
  loopx(['goal', 'list', '--json'], { cwd: root }).json.data as { id: string; status: string; title: string }[];

describe('loopx preset list and show', () => {
  test('list names each preset with its file, and says when gh is missing, not signed in, or only inside the workspace', () => {
    const root = workspace();
    const tools = (env: Record<string, string>) => {
      const r = loopx(['preset', 'list', '--json'], { cwd: root, env });
      expect(r.code).toBe(0);
      const data = r.json.data as { name: string; file: string; tools: { program: string; problem: string | null }[] }[];
      expect(data.map((p) => [p.name, p.file])).toEqual(PRESETS.map((p) => [p.name, `loopx/${p.name}.goal.md`]));
      return data.find((p) => p.name === 'daily-triage')?.tools[0];
    };
    expect(tools(onPath())?.problem).toMatch(/^gh is not installed: GitHub's CLI reads issues/);
    expect(tools(onPath(fakeGh(1)))?.problem).toMatch(/^gh is installed but not ready \(gh auth status failed\)/);
    expect(tools(onPath(fakeGh(0)))).toMatchObject({ program: 'gh', problem: null });
    // One an agent could have put in the workspace is never run, so it does not count.
    expect(tools(onPath(fakeGh(0, join(root, 'node_modules', '.bin'))))?.problem).toMatch(/^gh is not installed/);
    const text = loopx(['preset', 'list'], { cwd: root, env: onPath() }).stdout;
    expect(text).toContain('pr-watch          Watch a pull request');
    expect(text).toContain('! gh is not installed');
  });

  test('show prints the goal file it would write, and changes nothing; an unknown name is said with the names', () => {
    const root = workspace();
    const shown = loopx(['preset', 'show', 'changelog-draft', '--json'], { cwd: root });
    expect(shown.json.data).toMatchObject({
      name: 'changelog-draft',
      file: 'loopx/changelog-draft.goal.md',
      text: presetNamed('changelog-draft')?.text,
    });
    expect(existsSync(join(root, 'loopx'))).toBe(false);
    const unknown = loopx(['preset', 'show', 'nightly', '--json'], { cwd: root });
    expect(unknown.code).toBe(2);
    expect(unknown.json.error).toMatchObject({ message: 'there is no preset "nightly"' });
    expect(unknown.json.error?.hint).toBe('the presets: daily-triage, changelog-draft, pr-watch, keep-tests-green');
  });
});

describe('loopx preset apply', () => {
  test.skipIf(!PTY_AVAILABLE)(
    'a person applies each preset at a terminal: the file is written as shown, its goal created paused with its budget',
    () => {
      const root = workspace();
      // keep-tests-green proposes each fix on a branch from main: a repository with one.
      const git = (...args: string[]) =>
        execFileSync('git', ['-C', root, '-c', 'user.name=ada', '-c', 'user.email=ada@example.com', ...args]);
      git('init', '-q', '-b', 'main');
      git('commit', '-q', '--allow-empty', '-m', 'start');
      for (const [index, preset] of PRESETS.entries()) {
        const applied = loopxTty(['preset', 'apply', preset.name, '--json'], 'apply', { cwd: root, env: onPath(fakeGh(0)) });
        expect(applied.code, applied.stdout + applied.stderr).toBe(0);
        expect(readFileSync(join(root, 'loopx', `${preset.name}.goal.md`), 'utf8')).toBe(preset.text);
        const id = `G${index + 1}`;
        expect(applied.json?.data).toMatchObject({ preset: preset.name, written: true, apply: { goalId: id, applied: true } });
        // Paused even though a person confirmed it: reviewed before anything runs; the budget as the file says.
        const goal = loopx(['goal', 'show', id, '--json'], { cwd: root }).json.data as { status: string; title: string; policy: object };
        expect(goal).toMatchObject({ status: 'paused', title: preset.title, policy: { maxConcurrent: 1 } });
      }
      // Applied again: the same text, nothing to change.
      const again = loopxTty(['preset', 'apply', 'daily-triage', '--json'], 'apply', { cwd: root, env: onPath(fakeGh(0)) });
      expect(again.code).toBe(0);
      expect(again.json?.data).toMatchObject({ written: false, apply: { goalId: 'G1' } });
      expect(goals(root)).toHaveLength(PRESETS.length);
    },
  );

  test('without a terminal a person is refused and nothing is left: no file, no folder, no goal', () => {
    const root = workspace();
    const r = loopx(['preset', 'apply', 'daily-triage', '--json'], { cwd: root, env: onPath() });
    expect(r.code).toBe(3);
    expect(r.json.error?.code).toBe('human_channel_required');
    expect(existsSync(join(root, 'loopx'))).toBe(false);
    expect(goals(root)).toEqual([]);
  });

  test("an agent's apply is a proposal: the file only, for a person to review and apply; no goal", () => {
    const root = workspace();
    const r = loopx(['preset', 'apply', 'pr-watch', '--json'], { cwd: root, env: { ...onPath(), LOOPX_AGENT: 'codex' } });
    expect(r.code).toBe(0);
    expect(r.json.data).toMatchObject({ preset: 'pr-watch', proposed: true, written: true });
    expect(readFileSync(join(root, 'loopx', 'pr-watch.goal.md'), 'utf8')).toBe(presetNamed('pr-watch')?.text);
    expect(goals(root)).toEqual([]);
  });

  test('a file already there with other text is left as it is and nothing applied; --file outside the workspace or in .loopx is refused', () => {
    const root = workspace();
    mkdirSync(join(root, 'loopx'));
    writeFileSync(join(root, 'loopx', 'daily-triage.goal.md'), '---\ntitle: Mine\ntodos: []\n---\n');
    const taken = loopx(['preset', 'apply', 'daily-triage', '--json'], { cwd: root });
    expect(taken.code).toBe(3);
    expect(taken.json.error).toMatchObject({ code: 'file_exists' });
    expect(readFileSync(join(root, 'loopx', 'daily-triage.goal.md'), 'utf8')).toBe('---\ntitle: Mine\ntodos: []\n---\n');
    for (const file of ['../elsewhere.goal.md', '.loopx/x.goal.md', 'loopx/triage.md', '']) {
      const refused = loopx(['preset', 'apply', 'daily-triage', '--file', file, '--json'], { cwd: root });
      expect(refused.code, file).toBe(2);
    }
    expect(goals(root)).toEqual([]);
  });
});

if (!PTY_AVAILABLE) console.warn(`SKIPPED (a person applying a preset at a terminal): ${PTY_SKIP_REASON}`);
