// `npm test`: every check, stopping at the first that fails, in two lanes that run at once on CI's two cores:
// - the checks lane, CPU-bound: typecheck, lint and format:check at once, then the vitest projects (test:unit) but team
//   mode's suites;
// - the VS Code lane, mostly waiting on a browser and a code-server: the e2e pass on each profile, each as soon as its
//   pinned code-server is installed (they install in the background, one after the other, from the start).
// Then each lane, as it ends, takes the next of the shared steps (SHARED_STEPS: team mode's suites, the Node 22 pass,
// the fresh-clone check), so neither lane stands idle while the other still has work that could run beside it. Run
// one after another these took about 1,640 s of the last 1,779 s CI; side by side the run is as long as the longer lane
// (docs/testing.md has the layout and the times).
// The bundles are built once, before both lanes, and the .vsix packaged once: no step rewrites dist/ while the other
// lane's code-server or bin/loopx reads it (LOOPX_TEST_BUILT tells test/globalSetup.ts and test:e2e to use them).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { E2E_PROFILES } from './e2eProfiles.mjs';
import { allStepsCpu, cpuOf, removeCpuGroups } from './stepCpu.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const started = Date.now();
const seconds = (since) => Math.round((Date.now() - since) / 1000);
/** Every child running now (steps and the install), each the leader of its own process group, with its name and start. */
const running = new Map();
/**
 * How long a step may run before it counts as hung (s): about three times its usual time on a loaded machine. A step
 * that hangs is stopped and named, with its processes, instead of holding CI until its own limit says nothing (stop 53:
 * a run printed nothing for over an hour after the unit suites). LOOPX_TEST_STEP_LIMIT_S sets them all (the stand-in
 * test of this file).
 */
const LIMITS_S = {
  typecheck: 600,
  lint: 600,
  'format:check': 600,
  'test:unit': 2700,
  'test:node22': 900,
  'test:e2e': 1500,
  'test:fresh-clone': 1200,
  install: 1200,
  'build:sqlite': 900,
};
const limitOf = (name) => Number(process.env.LOOPX_TEST_STEP_LIMIT_S) || LIMITS_S[name] || 1800;
/** After a step exits, how long its output may stay open (a process it left behind holding the pipe) (ms). */
const DRAIN_MS = 10_000;
/** The niceness of the checks lane and the background install (the VS Code lane runs at the caller's). */
const CHECKS_NICE = 5;
/**
 * Each step's wall time and CPU seconds (stepCpu.mjs; none where it cannot be read), printed at the end: what
 * docs/testing.md's table is made of. The CPU is what a step costs in a run where both cores are busy.
 */
const times = [];

/** Stops everything still running, with everything under it (npm and its children run in its process group). */
function stopAll() {
  for (const child of running.keys()) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
}

function fail(message, code = 1) {
  console.error(message);
  stopAll();
  process.exit(code);
}

/**
 * Runs one npm script in its own process group, awaiting it (the event loop stays free for the other lane and the
 * install's pipe). The VS Code lane's lines get a prefix: two lanes print at once, and each line says whose it is.
 */
async function step(script, args = [], { prefix = '', nice = 0, env } = {}) {
  const at = Date.now();
  const name = [script, ...args].join(' ');
  const child = spawnMarked(npm, ['run', script, ...(args.length ? ['--', ...args] : [])], {
    cwd: repo,
    stdio: prefix ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env: env && { ...process.env, ...env },
  });
  running.set(child, { name, at });
  const cpu = cpuOf(child.pid, name);
  behind(child, nice);
  if (prefix) {
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ])
      prefixLines(from, to, prefix);
  }
  const { code, signal, hung } = await supervise(child, name, limitOf(script));
  running.delete(child);
  const used = cpu({ last: true });
  times.push([name, seconds(at), used]);
  // As it ends, not only in the table at the end: a run that fails later still says what each step cost.
  if (used !== null) console.log(`npm test: ${name} took ${seconds(at)} s and ${used} CPU s`);
  if (hung) fail(`npm test: ${name} was still running after ${limitOf(script)} s, far past its usual time: stopped as hung`);
  if (code !== 0) fail(`npm test: ${name} failed (exit ${code ?? signal})`, code || 1);
}

/**
 * Waits for a child to exit, within its limit. Past the limit it is hung: what its process group is doing is printed
 * and the group stopped. Once it exits, its output is awaited only a short while: a process it left behind (a server,
 * a database) may hold the pipe open for ever; it is named and stopped, and the step counts by its own exit.
 */
async function supervise(child, name, limitS) {
  const closed = new Promise((resolve) => child.on('close', resolve));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, hung: false })));
  let timer;
  const hung = new Promise((resolve) => (timer = setTimeout(() => resolve({ code: null, signal: null, hung: true }), limitS * 1000)));
  const result = await Promise.race([exited, hung]);
  clearTimeout(timer);
  if (result.hung) {
    console.error(`npm test: ${name} has run for ${limitS} s; its processes now:\n${stopMarked(child) || '  (none found)'}`);
    return result;
  }
  let drainTimer;
  const drained = await Promise.race([
    closed.then(() => true),
    new Promise((resolve) => (drainTimer = setTimeout(() => resolve(false), DRAIN_MS))),
  ]);
  clearTimeout(drainTimer);
  if (!drained) {
    console.error(
      `npm test: ${name} ended, but what it started still holds its output; stopping it:\n${stopMarked(child) || '  (none found)'}`,
    );
    for (const stream of [child.stdout, child.stderr]) stream?.destroy();
  }
  return result;
}

/**
 * The processes a step started, wherever they went (a group or session of their own, a daemon): each carries the step's
 * mark in its environment (LOOPX_NPM_TEST_STEP, set by spawnMarked). Read from /proc (Linux, where CI runs;
 * elsewhere none are found, and the step's pipes are closed all the same).
 */
function markedWith(mark) {
  const found = [];
  let pids;
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return found;
  }
  for (const pid of pids) {
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`LOOPX_NPM_TEST_STEP=${mark}`)) continue;
      found.push({ pid: Number(pid), args: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

/** Stops a step's process group and every process it started elsewhere; returns them, a line each, for a person. */
function stopMarked(child) {
  const marked = markedWith(child.mark);
  for (const target of [-child.pid, ...marked.map(({ pid }) => pid)]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  return marked.map(({ pid, args }) => `  ${pid}: ${args.slice(0, 200)}`).join('\n');
}

let marks = 0;
/** Spawns a step in a process group of its own, its environment marked so whatever it starts can be found (markedWith). */
function spawnMarked(command, args, options) {
  const mark = `${process.pid}-${++marks}`;
  const child = spawn(command, args, { ...options, env: { ...(options.env ?? process.env), LOOPX_NPM_TEST_STEP: mark }, detached: true });
  child.mark = mark;
  return child;
}

/**
 * Lowers a child's CPU priority (its children, started after this, inherit it). The checks lane runs behind the VS Code
 * lane: the e2e mostly waits, and when its browser or code-server wants a core it gets one at once (a starved window
 * missed a 60 s wait at a load of 16 here), while the suites take every cycle it leaves.
 */
function behind(child, nice) {
  if (!nice) return;
  try {
    setPriority(child.pid, nice);
  } catch {
    /* not allowed here: it competes as it is */
  }
}

function prefixLines(from, to, prefix) {
  let partial = '';
  from.setEncoding('utf8');
  from.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const line of lines) to.write(`${prefix}${line}\n`);
  });
  from.on('end', () => partial && to.write(`${prefix}${partial}\n`));
}

/**
 * Installs each profile's code-server in turn (a no-op where installed), its output in a log shown on failure.
 * Returns one promise per profile, settled when that profile's install ends: the e2e of the floor build starts while
 * the newest one still installs. An install that fails or hangs (npm waiting on the registry) is tried once more.
 */
function installCodeServersInBackground() {
  const log = join(repo, '.cache', 'e2e', 'background-install.log');
  mkdirSync(dirname(log), { recursive: true });
  const out = createWriteStream(log);
  const done = E2E_PROFILES.map(() => {
    let settle;
    const promise = new Promise((resolve) => (settle = resolve));
    return { promise, settle };
  });
  /** One try at a profile's install: whether it ended well, and the CPU seconds it used (null where unmeasured). */
  const attempt = async (profile) => {
    const child = spawnMarked(process.execPath, ['dist/test/e2e/main.js', '--install'], {
      cwd: repo,
      env: { ...process.env, LOOPX_E2E_PROFILE: profile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const name = `install ${profile}`;
    running.set(child, { name, at: Date.now() });
    const cpu = cpuOf(child.pid, name);
    // As far behind the e2e as the checks lane, beside which it runs: the floor build's e2e waits for it (installed in
    // about three minutes on a fresh machine, the newest build's about three more, during the floor build's e2e).
    behind(child, CHECKS_NICE);
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    const { code, hung } = await supervise(child, name, limitOf('install'));
    running.delete(child);
    if (hung) out.write(`\n${name}: still running after ${limitOf('install')} s: stopped as hung\n`);
    return { ok: code === 0 && !hung, cpu: cpu({ last: true }) };
  };
  (async () => {
    for (const [i, profile] of E2E_PROFILES.entries()) {
      const at = Date.now();
      let { ok, cpu } = await attempt(profile);
      if (!ok) {
        console.error(`npm test: installing the code-server for ${profile} failed or hung; trying once more`);
        out.write(`\n--- installing ${profile} again ---\n`);
        const again = await attempt(profile);
        ok = again.ok;
        cpu = cpu === null || again.cpu === null ? null : cpu + again.cpu;
      }
      times.push([`install ${profile} (background)`, seconds(at), cpu]);
      if (cpu !== null) console.log(`npm test: install ${profile} took ${seconds(at)} s and ${cpu} CPU s`);
      if (!ok) {
        out.end();
        for (const rest of done.slice(i)) rest.settle({ ok: false, log, profile });
        return;
      }
      done[i].settle({ ok: true });
    }
    out.end();
  })();
  return done.map((d) => d.promise);
}

async function installed(install) {
  const result = await install;
  if (!result.ok) {
    console.error(readFileSync(result.log, 'utf8'));
    fail(`npm test: installing the code-server for ${result.profile} failed (its output is above)`);
  }
}

// However the run ends, the cgroups it made for its steps go with it (those whose processes are gone).
process.on('exit', removeCpuGroups);

// A person's Ctrl-C or CI's time limit stops every lane and the install (each runs in a group of its own).
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
])
  process.on(signal, () => (stopAll(), process.exit(code)));

/**
 * better-sqlite3's binding, built here when the install left it out (`.ci/run` installs with `--ignore-scripts`): from
 * source it is one C file on one core for over a minute, which `npm ci` ran alone before any test could start; here it
 * builds beside the bundles and the three checkers, at the checks lane's priority. The unit suites and the e2e (whose
 * extension host starts `bin/loopx` on Node 20) wait for it; nothing else loads it.
 */
const BINDING = join(repo, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
// JOBS: node-gyp compiles its two files at once (SQLite's amalgamation alone is most of the minute).
const bindingBuilt = existsSync(BINDING) ? Promise.resolve() : step('build:sqlite', [], { nice: CHECKS_NICE, env: { JOBS: 'max' } });

// The build (`npm run build`'s bundles), with the process suites' test fixture and the e2e bundles in the same run.
const buildStarted = Date.now();
const build = spawnSync(process.execPath, ['esbuild.mjs', '--with-test-fixtures', '--e2e'], { cwd: repo, stdio: 'inherit' });
if (build.status !== 0) fail(`npm test: the build failed (exit ${build.status})`, build.status || 1);
process.env.LOOPX_TEST_BUILT = '1';
// The .vsix the e2e installs, as `npm run package:vsix` makes it, kept apart: test/package.test.ts packages dist/loopx.vsix
// again while the e2e runs.
const vsix = join(repo, '.cache', 'e2e', 'vsix', 'loopx.vsix');
// Not the npm_* settings of this `npm test` (as test/e2e/vsix.ts packages it).
const npmFree = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
const packaged = spawnSync(npm, ['run', '--silent', 'package:vsix'], { cwd: repo, env: npmFree, stdio: ['ignore', 'ignore', 'inherit'] });
if (packaged.status !== 0) fail(`npm test: npm run package:vsix failed (exit ${packaged.status})`, packaged.status || 1);
mkdirSync(dirname(vsix), { recursive: true });
copyFileSync(join(repo, 'dist', 'loopx.vsix'), vsix);
process.env.LOOPX_E2E_VSIX = vsix;
times.push(['build and package:vsix', seconds(buildStarted)]);

/** What is running now and for how long: printed every few minutes and when a lane ends, so a log shows what waits. */
function sayWhatRuns(why) {
  const now = [...running.values()].map(({ name, at }) => `${name} (${seconds(at)} s)`);
  if (now.length) console.log(`npm test: ${why} at ${seconds(started)} s; running: ${now.join(', ')}`);
}
setInterval(() => sayWhatRuns('still going'), Number(process.env.LOOPX_TEST_PROGRESS_S || 300) * 1000).unref();

const installs = installCodeServersInBackground();

/**
 * test:unit's files in two parts that together are all of them: team mode's suites (a PostgreSQL per file, the kernel's
 * tests again on the team engine: about a quarter of the unit suites' time) and the rest. The checks lane runs the
 * rest; team mode's part is a shared step.
 */
const TEAM_SUITES = 'test/team/';
const UNIT_BUT_TEAM = ['--project', 'unit', '--project', 'process', '--exclude', `${TEAM_SUITES}**`];
const TEAM_PART = ['--project', 'process', '--project', 'team-conformance', TEAM_SUITES, 'src/kernel/'];

/**
 * What either lane runs once its own steps are done, taken in this order by whichever lane ends first (the longest
 * first): so the lane that ends first does not stand idle while the other still runs a part that fits beside it (stop
 * 64's CI: the VS Code lane ended at 1,133 s, the checks lane at about 1,770).
 */
const SHARED_STEPS = [
  () => step('test:unit', TEAM_PART, { nice: CHECKS_NICE, prefix: 'team │ ' }),
  () => step('test:node22', [], { nice: CHECKS_NICE, prefix: 'node 22 │ ' }),
  // It links the default profile's code-server, the last installed.
  async () => (await installed(installs.at(-1)), step('test:fresh-clone', [], { prefix: 'fresh clone │ ' })),
];
async function takeSharedSteps(lane) {
  sayWhatRuns(`the ${lane} lane ended its own steps`);
  for (let next = SHARED_STEPS.shift(); next; next = SHARED_STEPS.shift()) await next();
}

const checks = (async () => {
  // Three single-threaded tools at once: for their first minutes the VS Code lane only waits for its code-server.
  await Promise.all(['typecheck', 'lint', 'format:check'].map((script) => step(script, [], { nice: CHECKS_NICE })));
  await bindingBuilt;
  await step('test:unit', UNIT_BUT_TEAM, { nice: CHECKS_NICE });
  await takeSharedSteps('checks');
})();
const vscode = (async () => {
  for (const [i, profile] of E2E_PROFILES.entries()) {
    await installed(installs[i]);
    await bindingBuilt;
    await step('test:e2e', ['--profile', profile], { prefix: `e2e ${profile.slice(7)} │ ` });
  }
  await takeSharedSteps('VS Code');
})();
await Promise.all([checks, vscode]);

const stepsCpu = allStepsCpu();
console.log('npm test: all green. Step times (wall s, CPU s; the two lanes ran at once):');
for (const [name, s, cpu] of times) console.log(`  ${String(s).padStart(5)}  ${String(cpu ?? '').padStart(5)}  ${name}`);
console.log(`  ${String(seconds(started)).padStart(5)}  ${String(stepsCpu ?? '').padStart(5)}  npm test (its CPU: every step's)`);
