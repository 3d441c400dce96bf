import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PRESETS, presetNamed } from '../../src/goalFile/presets';
import { loopx } from './harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';

/** A workspace with a store (in a git repository with a main branch, when asked), for a PATH of folders made for the test. */
function workspace(o: { git?: boolean } = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'loopx-presets-'));
  if (o.git) {
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', root, '-c', 'user.name=ada', '-c', 'user.email=ada@example.com', ...args]);
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'start');
  }
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
      // keep-tests-green proposes each fix on a branch from main: a repository with one.
      const root = workspace({ git: true });
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

describe('the presets run', () => {
  test.skipIf(!PTY_AVAILABLE)(
    "each applied and resumed: the one-off ones take a turn through loopx run, the recurring ones wait for their time; pr-watch's gh check runs without asking, and says so when gh is missing",
    { timeout: 180_000 },
    () => {
      const root = workspace({ git: true });
      for (const [index, preset] of PRESETS.entries()) {
        expect(loopxTty(['preset', 'apply', preset.name], 'apply', { cwd: root }).code).toBe(0);
        expect(loopxTty(['goal', 'resume', `G${index + 1}`], `G${index + 1}`, { cwd: root }).code).toBe(0);
      }
      const agent = join(__dirname, '..', 'extension', 'fixtures', 'scriptedAgent.mjs');
      const turn = (goal: string) =>
        loopx(['run', '--goal', goal, '--host', 'custom', '--command', `node ${agent} {prompt} ship`, '--once'], { cwd: root });
      // changelog-draft (G2): one turn, its todo shipped.
      expect(turn('G2').stdout).toMatch(/R\d+ ended: shipped its todo, exit code 0/);
      // The recurring ones (daily-triage G1 at 09:00, keep-tests-green G4 at 02:00) wait for their time.
      for (const goal of ['G1', 'G4']) {
        const answer = loopx(['quota', 'should-run', '--goal', goal, '--json'], { cwd: root }).json.data as {
          run: boolean;
          nextWakeAt: string;
        };
        expect(answer.run, goal).toBe(false);
        expect(Date.parse(answer.nextWakeAt) - Date.now(), goal).toBeLessThanOrEqual(24 * 3600 * 1000);
      }
      // pr-watch (G3): the agent waits on the PR's checks with a monitor its pattern lets run without asking.
      const codex = { LOOPX_AGENT: 'codex' };
      expect(loopx(['todo', 'claim', 'T3'], { cwd: root, env: codex }).code).toBe(0);
      const monitor = loopx(
        ['monitor', 'add', '--todo', 'T3', '--check', 'gh pr checks 12', '--until', 'exit0', '--every', '10s', '--json'],
        {
          cwd: root,
          env: codex,
        },
      );
      expect(monitor.json.data).toMatchObject({ approval: 'pattern', approvedBy: 'gh pr checks *' });
      // Without gh, the check says so and the monitor keeps waiting.
      const withoutGh = loopx(['monitor', 'tick', '--json'], { cwd: root, env: onPath() }).json.data as {
        runs: { exitCode: number; error?: string }[];
      };
      expect(withoutGh.runs[0]).toMatchObject({ exitCode: 127, error: 'command not found (the shell exited 127)' });
      // With gh (a stand-in whose checks pass; outside /tmp, which loopx's sandbox makes private), it fires.
      mkdirSync(join(__dirname, '..', '..', '.cache'), { recursive: true });
      const gh = fakeGh(0, mkdtempSync(join(__dirname, '..', '..', '.cache', 'fake-gh-')));
      let fired: string[] = [];
      for (let i = 0; i < 30 && !fired.length; i++) {
        fired = (loopx(['monitor', 'tick', '--json'], { cwd: root, env: onPath(gh) }).json.data as { fired: string[] }).fired;
        if (!fired.length) execFileSync('sleep', ['1']);
      }
      expect(fired).toEqual(['M1']);
      rmSync(gh, { recursive: true, force: true });
      expect(turn('G3').stdout).toMatch(/R\d+ ended: shipped its todo, exit code 0/);
    },
  );
});

if (!PTY_AVAILABLE) console.warn(`SKIPPED (a person applying a preset at a terminal): ${PTY_SKIP_REASON}`);
