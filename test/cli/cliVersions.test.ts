import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { LOOPX, REPO, loopx, workspace } from './harness';

let ws: ReturnType<typeof workspace>;
/** Where the installs are: outside the workspace (doctor never runs a loopx inside it, which agents can write). */
let installs: ReturnType<typeof workspace>;
beforeEach(() => {
  ws = workspace();
  installs = workspace();
});
afterEach(() => {
  ws.dispose();
  installs.dispose();
});

const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
type Check = { name: string; level: string; detail: string };

test('doctor names every loopx on PATH whose version differs from its own, first to last, and says what to do', () => {
  loopx(['init'], { cwd: ws.root });
  // An older global install first on PATH (what a person's terminal runs), then this checkout's loopx by a link.
  const older = join(installs.root, 'older-bin');
  mkdirSync(older);
  writeFileSync(join(older, 'loopx'), `#!/bin/sh\nprintf '%s' '{"ok":true,"data":{"version":"0.0.1"}}'\n`);
  chmodSync(join(older, 'loopx'), 0o755);
  const ours = join(installs.root, 'our-bin');
  mkdirSync(ours);
  symlinkSync(LOOPX, join(ours, 'loopx'));
  const path = [older, ours, process.env.PATH ?? ''].join(delimiter);
  const doctor = loopx(['doctor', '--json'], { cwd: ws.root, env: { PATH: path } });
  expect(doctor.code, doctor.stderr).toBe(0); // a warning, not a failure
  const check = (doctor.json?.data as { checks: Check[] }).checks.find((c) => c.name === 'loopx on PATH');
  expect(check).toEqual({
    name: 'loopx on PATH',
    level: 'warn',
    detail:
      `loopx versions differ: this one is ${version}; on PATH, first to last: 0.0.1 at ${join(older, 'loopx')}; ${version} at ` +
      `${join(ours, 'loopx')} (this one). A newer one migrates the store and an older one then refuses it: update or remove the older ones (\`loopx update plan\`, run with each, says how it was installed and how to update it)`,
  });

  // Only this loopx on PATH: fine.
  const alone = loopx(['doctor', '--json'], { cwd: ws.root, env: { PATH: [ours, process.env.PATH ?? ''].join(delimiter) } });
  expect((alone.json?.data as { checks: Check[] }).checks.find((c) => c.name === 'loopx on PATH')?.level).toBe('ok');
});

test('doctor never runs a loopx an agent planted inside the workspace on PATH (npm scripts put its node_modules/.bin there), and warns', () => {
  loopx(['init'], { cwd: ws.root });
  const planted = join(ws.root, 'node_modules', '.bin');
  mkdirSync(planted, { recursive: true });
  const ran = join(installs.root, 'planted-loopx-ran');
  writeFileSync(join(planted, 'loopx'), `#!/bin/sh\ntouch '${ran}'\nprintf '%s' '{"ok":true,"data":{"version":"0.0.1"}}'\n`);
  chmodSync(join(planted, 'loopx'), 0o755);
  const doctor = loopx(['doctor', '--json'], { cwd: ws.root, env: { PATH: [planted, process.env.PATH ?? ''].join(delimiter) } });
  expect(doctor.code, doctor.stderr).toBe(0);
  expect(existsSync(ran), 'the planted loopx was run').toBe(false);
  const check = (doctor.json?.data as { checks: Check[] }).checks.find((c) => c.name === 'loopx on PATH');
  expect(check?.level).toBe('warn');
  expect(check?.detail).toContain(`a version not asked (inside this workspace, which agents can write) at ${join(planted, 'loopx')}`);
});
