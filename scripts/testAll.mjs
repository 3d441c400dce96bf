// `npm test`: every check in order, stopping at the first that fails. The pinned code-servers install in the
// background while the unit suites run: on a fresh machine their install (downloads and native builds) takes about
// four minutes that would otherwise add to the run, and the e2e pass only needs them at its start.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { E2E_PROFILES } from './e2eProfiles.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** The background install's current child, stopped when a step fails (no install left running after the verdict). */
let installing = null;

/** Stops the background install with everything under it (npm and its build scripts run in its process group). */
function stopInstalling() {
  if (!installing?.pid) return;
  try {
    process.kill(-installing.pid, 'SIGTERM');
  } catch {
    /* already gone */
  }
}

/**
 * Runs one npm script, awaiting it: the event loop must stay free while a step runs, or the background install's
 * output pipe fills and its next profile never starts (with spawnSync it only ran once the unit steps were over).
 */
async function step(script) {
  const child = spawn(npm, ['run', script], { cwd: repo, stdio: 'inherit' });
  const [code, signal] = await new Promise((resolve) => child.on('close', (...exit) => resolve(exit)));
  if (code !== 0) {
    console.error(`npm test: ${script} failed (exit ${code ?? signal})`);
    stopInstalling();
    process.exit(code || 1);
  }
}

/** Installs each profile's code-server in turn (a no-op where installed), its output in a log shown on failure. */
function installCodeServersInBackground() {
  const log = join(repo, '.cache', 'e2e', 'background-install.log');
  mkdirSync(dirname(log), { recursive: true });
  const out = createWriteStream(log);
  const started = Date.now();
  return new Promise((resolve) => {
    const next = (i) => {
      if (i === E2E_PROFILES.length) {
        out.end();
        return resolve({ ok: true, log, seconds: Math.round((Date.now() - started) / 1000) });
      }
      const child = spawn(process.execPath, ['dist/test/e2e/main.js', '--install'], {
        cwd: repo,
        env: { ...process.env, LOOPX_E2E_PROFILE: E2E_PROFILES[i] },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group, so a failing step stops the npm processes under it too, not only this child.
        detached: true,
      });
      installing = child;
      // Behind the test steps for the CPU: they are what the run waits on; the install only has to be done by the e2e.
      try {
        setPriority(child.pid, 10);
      } catch {
        /* not allowed here: it competes as it is */
      }
      child.stdout.pipe(out, { end: false });
      child.stderr.pipe(out, { end: false });
      child.on('close', (code) => (code === 0 ? next(i + 1) : (out.end(), resolve({ ok: false, log, profile: E2E_PROFILES[i] }))));
    };
    next(0);
  });
}

await step('build');
const e2eBuild = spawnSync(process.execPath, ['esbuild.mjs', '--e2e'], { cwd: repo, stdio: 'inherit' });
if (e2eBuild.status !== 0) process.exit(e2eBuild.status || 1);
// A person's Ctrl-C or CI's time limit stops the install with this script (it runs in a group of its own).
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
])
  process.on(signal, () => (stopInstalling(), process.exit(code)));
const installs = installCodeServersInBackground();
for (const script of ['typecheck', 'lint', 'format:check', 'test:unit', 'test:node22']) await step(script);
const installed = await installs;
if (!installed.ok) {
  console.error(readFileSync(installed.log, 'utf8'));
  console.error(`npm test: installing the code-server for ${installed.profile} failed (its output is above)`);
  process.exit(1);
}
console.log(`npm test: the code-servers were ready (installed in the background in ${installed.seconds} s)`);
for (const script of ['test:e2e', 'test:fresh-clone']) await step(script);
