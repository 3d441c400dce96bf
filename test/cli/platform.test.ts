import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { LOOPX, cleanEnv, dumpStore, loopx, startGoal, workspace } from './harness';

const FAKE_WINDOWS = join(__dirname, 'fixtures', 'fakeWindows.mjs');
const spaces: { dispose(): void }[] = [];
afterEach(() => spaces.splice(0).forEach((s) => s.dispose()));

/** bin/loopx in a process that believes it runs on Windows. */
function onWindows(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, ['--import', FAKE_WINDOWS, LOOPX, ...args], { cwd, env: cleanEnv(), encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('on Windows `loopx run` says it needs /bin/sh and what to do instead, exits 3 and claims nothing', () => {
  const ws = workspace();
  spaces.push(ws);
  loopx(['init'], { cwd: ws.root });
  loopx(['goal', 'create', '--title', 'g'], { cwd: ws.root });
  loopx(['todo', 'add', '--goal', 'G1', '--title', 't'], { cwd: ws.root });
  startGoal(ws.root);
  const before = dumpStore(ws.root);
  const run = onWindows(['run', '--host', 'custom', '--command', 'node agent.js {prompt}', '--once', '--json'], ws.root);
  expect(run.code).toBe(3);
  expect(JSON.parse(run.stdout)).toMatchObject({
    ok: false,
    error: {
      code: 'unsupported_platform',
      message: 'loopx run does not run on Windows yet: it starts the agent through /bin/sh, which Windows lacks',
      hint: expect.stringContaining('WSL'),
    },
  });
  const human = onWindows(['run', '--host', 'custom', '--command', 'node agent.js {prompt}', '--once'], ws.root);
  expect(human.stderr).toContain('loopx run does not run on Windows yet');
  expect(human.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/); // a sentence, not a stack trace
  expect(dumpStore(ws.root)).toBe(before);
});

test("on Windows the agent's verbs still work: they are plain Node (the store, claims, evidence)", () => {
  const ws = workspace();
  spaces.push(ws);
  loopx(['init'], { cwd: ws.root });
  loopx(['goal', 'create', '--title', 'g'], { cwd: ws.root });
  loopx(['todo', 'add', '--goal', 'G1', '--title', 't'], { cwd: ws.root });
  startGoal(ws.root);
  const claim = onWindows(['todo', 'claim', '--next', '--agent', 'codex', '--json'], ws.root);
  expect(JSON.parse(claim.stdout)).toMatchObject({ ok: true, data: { id: 'T1', owner: 'codex' } });
});
