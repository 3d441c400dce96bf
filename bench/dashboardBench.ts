/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodo, blockTodo, shipTodo } from '../src/kernel/todos/todos';
import { claimTodo } from '../src/kernel/todos/claims';
import { askGate } from '../src/kernel/gates/gates';
import { registerProject } from '../src/kernel/projects/projectRegistry';
import { kernelStoreId } from '../src/kernel/projects/storeIdentity';

/**
 * `loopx dashboard` over many projects (issue 43): PROJECTS stores of TODOS todos each, registered for one person;
 * `bin/loopx dashboard` started as a person starts it; headless chromium opens it. Figures: the server's start, the
 * page's first full paint (every project's card drawn), a change's delay (a write in one store until the open page
 * shows it, over RUNS writes), the server's memory. `node esbuild.mjs --bench && node dist/bench/dashboardBench.js`.
 */
const REPO = resolve(__dirname, '..', '..');
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 20);
const TODOS = Number(process.env.BENCH_TODOS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CHROMIUM = process.env.LOOPX_CHROMIUM ?? '/usr/bin/chromium';
const human = { name: 'ada', kind: 'human', channel: 'vscode' } as const;
const agent = { name: 'codex', kind: 'agent' } as const;

function seed(root: string, place: { env: NodeJS.ProcessEnv }): void {
  mkdirSync(root, { recursive: true });
  const { kernel } = Kernel.init(root, { actor: human });
  kernel.db.exec('PRAGMA synchronous = OFF'); // a benchmark's store: seeded fast, read as any store is
  const codex = kernel.as(agent);
  const goals = Array.from({ length: 10 }, (_, i) => createGoal(kernel, { title: `Goal ${i}`, turnsPerWindow: 1000 }).id);
  const ids = Array.from({ length: TODOS }, (_, i) => addTodo(kernel, { goalId: goals[i % 10]!, title: `Todo ${i}: do the thing` }).id);
  ids.slice(0, Math.floor(TODOS * 0.6)).forEach((id) => {
    claimTodo(codex, id);
    shipTodo(codex, id, { evidence: 'tests pass' });
  });
  ids.slice(TODOS - 20, TODOS - 15).forEach((id) => askGate(codex, { todoId: id, question: `ok to change ${id}?` }));
  ids.slice(TODOS - 10).forEach((id) => {
    claimTodo(codex, id);
    blockTodo(codex, id, 'needs a credential');
  });
  registerProject(root, 'init', kernelStoreId(kernel), place);
  kernel.close();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'loopx-dashboard-bench-'));
  const env: NodeJS.ProcessEnv = { ...process.env, LOOPX_CONFIG_DIR: join(work, 'person'), NO_COLOR: '1' };
  delete env.LOOPX_AGENT;
  const place = { env };
  const seeded = Date.now();
  const roots = Array.from({ length: PROJECTS }, (_, i) => join(work, `project-${i}`));
  roots.forEach((root) => seed(root, place));
  console.log(`seeded ${PROJECTS} projects × ${TODOS} todos in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);

  const startedAt = Date.now();
  const server = spawn(process.execPath, [join(REPO, 'bin', 'loopx'), 'dashboard', '--no-open', '--json'], { env, cwd: work });
  const listening = await new Promise<{ openUrl: string }>((done, fail) => {
    let out = '';
    server.stdout.on('data', (c) => {
      out += c;
      if (out.includes('\n')) done(JSON.parse(out.split('\n')[0]!) as { openUrl: string });
    });
    server.on('exit', (code) => fail(new Error(`loopx dashboard exited with ${code}`)));
  });
  const startMs = Date.now() - startedAt;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const paints: number[] = [];
  for (let i = 0; i < 5; i++) {
    const page = await (await browser.newContext()).newPage();
    await page.goto(listening.openUrl);
    await page.waitForFunction((n) => document.querySelectorAll('article.project').length === n, PROJECTS, { timeout: 60_000 });
    paints.push(await page.evaluate(() => performance.now()));
    await page.context().close();
  }
  const page = await (await browser.newContext()).newPage();
  await page.goto(listening.openUrl);
  await page.waitForFunction((n) => document.querySelectorAll('article.project').length === n, PROJECTS, { timeout: 60_000 });
  const delays: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const question = `Bench question ${i}?`;
    const seen = page.waitForFunction((q) => [...document.querySelectorAll('.item .title')].some((e) => e.textContent === q), question, {
      timeout: 30_000,
      polling: 'raf',
    });
    const kernel = Kernel.open(roots[i % PROJECTS]!, { actor: agent });
    const before = Date.now();
    askGate(kernel, { goalId: 'G1', question });
    kernel.close();
    await seen;
    delays.push(Date.now() - before);
  }
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? 0);
  await browser.close();
  server.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
  const result = {
    projects: PROJECTS,
    todos: TODOS,
    startMs,
    firstPaintMs: { median: Math.round(median(paints)), max: Math.round(Math.max(...paints)) },
    changeDelayMs: { median: median(delays), p95: p95(delays), runs: RUNS },
    serverRssMb: Math.round(rssKb / 102.4) / 10,
  };
  console.log(JSON.stringify(result));
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
