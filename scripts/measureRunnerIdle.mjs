#!/usr/bin/env node
// Measures what `loopx run` costs while it waits: a goal whose only todo waits on a monitor (a check every 10 s that
// keeps failing), a runner serving it for SECONDS (default 60), and the CPU time the runner and the checks it ran
// used, from /proc (Linux). Usage: npm run build && node scripts/measureRunnerIdle.mjs [SECONDS]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const seconds = Number(process.argv[2] ?? 60);
const loopx = resolve(import.meta.dirname, '..', 'bin', 'loopx');
const root = mkdtempSync(join(tmpdir(), 'loopx-idle-'));
const env = { ...process.env, LOOPX_HUMAN: 'ada', NO_COLOR: '1' };
delete env.LOOPX_AGENT;
delete env.LOOPX_ROOT;
const cli = (...args) => execFileSync(process.execPath, [loopx, ...args], { cwd: root, env, encoding: 'utf8' });
cli('init');
cli('goal', 'create', '--title', 'Idle');
cli('todo', 'add', '--goal', 'G1', '--title', 'Wait for the deploy');
cli('monitor', 'add', '--todo', 'T1', '--check', 'test -f deployed', '--every', '10s');
const tick = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
// utime, stime, cutime, cstime: the runner's own time and that of the children it waited for (the checks).
const cpu = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ').slice(11, 15).map(Number);
const runner = spawn(process.execPath, [loopx, 'run', '--host', 'custom', '--command', 'true', '--json'], {
  cwd: root,
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
runner.stdout.on('data', (d) => (out += d));
await new Promise((r) => setTimeout(r, 3000)); // start-up (loading Node and the bundle) is not idle time
const before = cpu(runner.pid);
const wall = Date.now();
await new Promise((r) => setTimeout(r, seconds * 1000));
const after = cpu(runner.pid);
const elapsed = (Date.now() - wall) / 1000;
runner.kill('SIGTERM');
await new Promise((r) => runner.on('close', r));
const d = after.map((v, i) => (v - before[i]) / tick);
const own = d[0] + d[1];
const checks = d[2] + d[3];
const turns = out.split('\n').filter((l) => l.includes('"turn_started"')).length;
console.log(
  `runner waiting ${elapsed.toFixed(1)} s on a monitor checked every 10 s: runner ${own.toFixed(2)} s CPU (${((own / elapsed) * 100).toFixed(2)}% of a core), ` +
    `checks it ran ${checks.toFixed(2)} s (${((checks / elapsed) * 100).toFixed(2)}%), together ${(((own + checks) / elapsed) * 100).toFixed(2)}%; turns started: ${turns}`,
);
rmSync(root, { recursive: true, force: true });
