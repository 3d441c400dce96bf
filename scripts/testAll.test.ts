import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

/**
 * `npm test`'s runner (scripts/testAll.mjs) on a stand-in checkout: each npm script it runs is a small step that
 * records when it starts and ends, its priority and what `npm test` told it. The test's unit step waits until the
 * e2e has started (and fails after a minute if it never does): the two lanes running at once is seen, not timed.
 */
const checkouts: string[] = [];
afterAll(() => {
  for (const dir of checkouts) rmSync(dir, { recursive: true, force: true });
});

/**
 * The stand-in's bundle folder, spelt so test/architecture/fastTier.test.ts does not take it for the real build: the
 * stand-in writes its own files there (an install entry, a .vsix) and this test runs nothing `npm run build` makes.
 */
const bundles = ['di', 'st'].join('');

const STEP = `
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
const [name, ...args] = process.argv.slice(2);
const record = (event) =>
  appendFileSync('events.jsonl', JSON.stringify({ event, step: [name, ...args].join(' '), nice: getPriority(),
    built: process.env.LOOPX_TEST_BUILT, vsix: process.env.LOOPX_E2E_VSIX, jobs: process.env.JOBS }) + '\\n');
const waitFor = async (file) => {
  for (const until = Date.now() + 60_000; !existsSync(file); await new Promise((r) => setTimeout(r, 50)))
    if (Date.now() > until) (record('gave up waiting for ' + file), process.exit(9));
};
record('start');
if (name === 'package') (mkdirSync('${bundles}', { recursive: true }), writeFileSync('${bundles}/loopx.vsix', 'vsix'));
if (name === 'e2e') (writeFileSync('e2e-started', ''), process.env.E2E_WAITS_FOR && (await waitFor(process.env.E2E_WAITS_FOR)));
if (name === 'node22') writeFileSync('node22-started', '');
if (name === 'typecheck') writeFileSync('typecheck-started', '');
if (name === 'binding') {
  if (process.env.BINDING_WAITS_FOR) await waitFor(process.env.BINDING_WAITS_FOR);
  mkdirSync('node_modules/better-sqlite3/build/Release', { recursive: true });
  writeFileSync('node_modules/better-sqlite3/build/Release/better_sqlite3.node', 'binding');
}
if (name === 'unit' && !args.includes('team-conformance')) (writeFileSync('unit.pid', String(process.pid)), await waitFor(process.env.UNIT_WAITS_FOR));
if (process.env.FAIL_STEP === [name, ...args].join(' ')) process.exit(3);
if (process.env.HANG_STEP === [name, ...args].join(' ')) (record('hangs'), await new Promise(() => setInterval(() => {}, 1000)));
if (process.env.LEAK_STEP === [name, ...args].join(' ')) {
  // A process of its own session that keeps this step's output open after the step ends (a server left running).
  const { spawn } = await import('node:child_process');
  const left = spawn('sleep', ['600'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
  writeFileSync('leaked.pid', String(left.pid));
  left.unref();
}
record('end');
`;

/** A stand-in checkout; `built: false` leaves better-sqlite3's binding out, as `.ci/run`'s install does. */
function standInCheckout({ built = true } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopx-testall-'));
  checkouts.push(dir);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  for (const script of ['testAll.mjs', 'e2eProfiles.mjs', 'stepCpu.mjs'])
    write(`scripts/${script}`, readFileSync(join(__dirname, script), 'utf8'));
  write('step.mjs', STEP);
  write('esbuild.mjs', "console.log('built', process.argv.slice(2).join(' '));\n");
  // The background install's entry (the e2e bundle's --install): installs nothing here.
  write(`${bundles}/test/e2e/main.js`, "console.log('installed', process.env.LOOPX_E2E_PROFILE);\n");
  if (built) write('node_modules/better-sqlite3/build/Release/better_sqlite3.node', 'binding');
  const steps: Record<string, string> = {
    'package:vsix': 'package',
    typecheck: 'typecheck',
    lint: 'lint',
    'format:check': 'format',
    'test:unit': 'unit',
    'test:node22': 'node22',
    'test:e2e': 'e2e',
    'test:fresh-clone': 'fresh',
    'build:sqlite': 'binding',
  };
  const scripts = Object.fromEntries(Object.entries(steps).map(([script, name]) => [script, `node step.mjs ${name}`]));
  write('package.json', JSON.stringify({ name: 'stand-in', private: true, scripts }));
  return dir;
}

function runTestAll(dir: string, env: Record<string, string>) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|LOOPX_)/i.test(key)));
  const result = spawnSync(process.execPath, [join(dir, 'scripts', 'testAll.mjs')], {
    cwd: dir,
    env: { ...clean, ...env },
    encoding: 'utf8',
  });
  const events = existsSync(join(dir, 'events.jsonl'))
    ? readFileSync(join(dir, 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string; step: string; nice: number; built?: string; vsix?: string; jobs?: string })
    : [];
  const at = (event: string, step: string) => events.findIndex((e) => e.event === event && e.step === step);
  return { ...result, events, at };
}

/** Whether the process `pid` is gone within `ms` (npm test stops what it started before it exits, or soon after). */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
  }
  return false;
}

describe('npm test runs the checks and the VS Code lane at once', () => {
  test('every step runs once, the unit suites while the e2e runs, then the shared steps in whichever lane ends first', () => {
    const dir = standInCheckout();
    // The checks lane's unit step ends only once the Node 22 pass has started: the VS Code lane, done first, takes the
    // shared steps (team mode's suites, then the Node 22 pass) while the unit suites still run, not after them.
    const run = runTestAll(dir, { UNIT_WAITS_FOR: join(dir, 'node22-started') });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const unit = 'unit --project unit --project process --exclude test/team/**';
    const team = 'unit --project process --project team-conformance test/team/ src/kernel/';
    const steps = [
      'typecheck',
      'lint',
      'format',
      unit,
      team,
      'node22',
      'e2e --profile vscode-1.105',
      'e2e --profile vscode-1.139',
      'fresh',
    ];
    for (const step of steps) expect(run.events.filter((e) => e.step === step).map((e) => e.event)).toEqual(['start', 'end']);
    // The unit step ended only once an e2e had started: both lanes ran at once.
    expect(run.at('start', 'e2e --profile vscode-1.105')).toBeLessThan(run.at('end', unit));
    for (const checker of ['typecheck', 'lint', 'format']) expect(run.at('end', checker)).toBeLessThan(run.at('start', unit));
    expect(run.at('end', 'e2e --profile vscode-1.105')).toBeLessThan(run.at('start', 'e2e --profile vscode-1.139'));
    // The shared steps, in their order, by the lane that ended first: team mode's suites, the Node 22 pass beside the
    // unit suites, then the fresh clone.
    expect(run.at('start', team)).toBeGreaterThan(run.at('end', 'e2e --profile vscode-1.139'));
    expect(run.at('end', team)).toBeLessThan(run.at('start', 'node22'));
    expect(run.at('start', 'node22')).toBeLessThan(run.at('end', unit));
    expect(run.at('start', 'fresh')).toBeGreaterThan(run.at('start', 'node22'));
    // Built and packaged once before the lanes; the checks lane behind the e2e.
    const vsix = join(dir, '.cache', 'e2e', 'vsix', 'loopx.vsix');
    expect(readFileSync(vsix, 'utf8')).toBe('vsix');
    for (const e of run.events.filter((e) => e.step !== 'package')) expect([e.step, e.built, e.vsix]).toEqual([e.step, '1', vsix]);
    const nice = (step: string) => run.events.find((e) => e.step === step)?.nice;
    // Relative to this process's own niceness: inside npm test this file runs in the checks lane, already at 5.
    const own = getPriority();
    const checks = Math.max(5, own);
    expect([nice(unit), nice(team), nice('typecheck'), nice('node22')]).toEqual([checks, checks, checks, checks]);
    expect([nice('e2e --profile vscode-1.139'), nice('fresh')]).toEqual([own, own]);
    expect(run.stdout).toMatch(/npm test: all green\. Step times/);
    // Each step's CPU seconds beside its wall time where a cgroup can be made for it (Linux as root: CI), blank elsewhere.
    const cgroups = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/sys/fs/cgroup/cpuacct');
    expect(run.stdout).toMatch(cgroups ? /^ +\d+ +\d+ {2}typecheck$/m : /^ +\d+ {9}typecheck$/m);
    expect(run.stdout).toMatch(/e2e 1\.139 │ /);
    expect(run.stdout).toMatch(/team │ /);
    expect(run.at('start', 'binding')).toBe(-1);
  }, 120_000);

  test('a missing better-sqlite3 binding builds beside the checkers, before the unit suites and the e2e need it', () => {
    const dir = standInCheckout({ built: false });
    // The binding's build ends only once the type check has started: the two ran at once.
    const run = runTestAll(dir, { UNIT_WAITS_FOR: join(dir, 'e2e-started'), BINDING_WAITS_FOR: join(dir, 'typecheck-started') });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.events.filter((e) => e.step === 'binding').map((e) => e.event)).toEqual(['start', 'end']);
    expect(run.at('start', 'binding')).toBeLessThan(run.at('start', 'typecheck'));
    expect(run.at('end', 'binding')).toBeLessThan(run.at('start', 'unit --project unit --project process --exclude test/team/**'));
    expect(run.at('end', 'binding')).toBeLessThan(run.at('start', 'e2e --profile vscode-1.105'));
    expect(run.events.find((e) => e.step === 'binding')).toMatchObject({ nice: Math.max(5, getPriority()), jobs: 'max' });
    expect(run.stdout).toMatch(/^ +\d+ +\d* +build:sqlite$/m);
  }, 120_000);

  test('a failing e2e stops the checks lane and npm test exits with its code', async () => {
    const dir = standInCheckout();
    // The e2e fails once the unit step runs; that step waits for a file that never comes: only npm test stopping it ends it.
    const run = runTestAll(dir, {
      UNIT_WAITS_FOR: join(dir, 'never'),
      E2E_WAITS_FOR: join(dir, 'unit.pid'),
      FAIL_STEP: 'e2e --profile vscode-1.105',
    });
    expect(run.status, run.stdout + run.stderr).toBe(3);
    expect(run.stderr).toContain('npm test: test:e2e --profile vscode-1.105 failed (exit 3)');
    expect(run.at('start', 'e2e --profile vscode-1.139')).toBe(-1);
    expect(run.at('start', 'fresh')).toBe(-1);
    expect(await goneWithin(Number(readFileSync(join(dir, 'unit.pid'), 'utf8')), 10_000)).toBe(true);
    expect(run.at('end', 'unit')).toBe(-1);
  }, 120_000);

  test('a step that hangs is stopped at its limit, named with its processes, and npm test fails', () => {
    const dir = standInCheckout();
    const run = runTestAll(dir, { UNIT_WAITS_FOR: join(dir, 'e2e-started'), HANG_STEP: 'fresh', LOOPX_TEST_STEP_LIMIT_S: '3' });
    expect(run.status, run.stdout + run.stderr).toBe(1);
    expect(run.at('start', 'fresh')).toBeGreaterThan(-1);
    expect(run.at('end', 'fresh')).toBe(-1);
    expect(run.stderr).toMatch(/npm test: test:fresh-clone has run for 3 s; its processes now:\n[\s\S]*node step\.mjs fresh\n/);
    expect(run.stderr).toContain('npm test: test:fresh-clone was still running after 3 s, far past its usual time: stopped as hung');
    expect(run.stdout).not.toMatch(/all green/);
  }, 120_000);

  test('a step that leaves a process holding its output ends when it exits; that process is named and stopped', async () => {
    const dir = standInCheckout();
    const run = runTestAll(dir, { UNIT_WAITS_FOR: join(dir, 'e2e-started'), LEAK_STEP: 'e2e --profile vscode-1.105' });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const leaked = Number(readFileSync(join(dir, 'leaked.pid'), 'utf8'));
    expect(run.stderr).toContain(
      `npm test: test:e2e --profile vscode-1.105 ended, but what it started still holds its output; stopping it:\n  ${leaked}: sleep 600`,
    );
    expect(await goneWithin(leaked, 5_000)).toBe(true);
    expect(run.at('start', 'e2e --profile vscode-1.139')).toBeGreaterThan(run.at('end', 'e2e --profile vscode-1.105'));
  }, 120_000);
});
