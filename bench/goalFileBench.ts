import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kernel } from '../src/kernel/kernel';
import { applyGoalSpec } from '../src/kernel/goals/goalSpec/apply';
import { parseGoalFile } from '../src/goalFile/parse';
import { analyze } from '../src/languageServer/analysis';
import { StoreRegistry } from '../src/languageServer/storeRegistry';
import { LspClient } from '../test/languageServer/lspClient';

/**
 * `node esbuild.mjs --bench && node dist/bench/goalFileBench.js`: the language server's figures for docs/performance.md.
 * A 500-todo goal file applied to a real store; diagnostics after an edit (the server's own work, and the round
 * trip seen by a client over stdio); server start-up to the initialize answer; its memory with the file open.
 */
const TODOS = Number(process.env.BENCH_GOAL_TODOS ?? 500);
const RUNS = 30;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

function goalFile(todos: number, priorityOfFirst = 1): string {
  const lines = [
    '---',
    'title: Bench goal',
    'objective: Every fixture imports',
    'scope: [src/**]',
    'quota:',
    '  turns: 50',
    '  window: 24h',
    'todos:',
  ];
  for (let i = 0; i < todos; i++) {
    lines.push(
      `  - key: step-${i}`,
      `    title: Step ${i} of the importer`,
      `    detail: What done means for step ${i}, with a fixture.`,
      `    priority: ${i === 0 ? priorityOfFirst : i % 4}`,
    );
    if (i > 0) lines.push(`    after: [step-${i - 1}${i > 5 ? `, step-${i - 5}` : ''}]`);
  }
  return `${lines.join('\n')}\n---\n\nBackground.\n`;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'loopx-goalbench-'));
  try {
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'loopx'));
    const path = 'loopx/bench.goal.md';
    const text = goalFile(TODOS);
    writeFileSync(join(root, path), text);
    const { kernel } = Kernel.init(root, { actor: { name: 'ada', kind: 'human' } });
    const parsed = parseGoalFile(text);
    if (!parsed.spec) throw new Error('bench file does not parse');
    let t = performance.now();
    applyGoalSpec(kernel, parsed.spec, { path });
    const applyMs = performance.now() - t;
    kernel.close();

    // The server's work after an edit, in this process: parse, validate, plan against the store, drift, scope checks.
    // Cold: a fresh parser and store snapshot each time (what every keystroke cost before they were kept).
    const cold: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const registry = new StoreRegistry(() => undefined);
      registry.forFile(join(root, path));
      const edited = goalFile(TODOS, i % 4);
      t = performance.now();
      analyze(edited, join(root, path), registry);
      cold.push(performance.now() - t);
      registry.dispose();
    }

    // A real server over stdio: start-up, round trip of diagnostics after an edit, memory.
    t = performance.now();
    const client = new LspClient();
    await client.initialize(root);
    const startMs = performance.now() - t;
    const uri = pathToFileURL(join(root, path)).href;
    await client.open(uri, text);
    await client.diagnosticsFor(uri, (_d, v) => v === 1);
    const trips: number[] = [];
    for (let v = 2; v < RUNS + 2; v++) {
      t = performance.now();
      await client.change(uri, goalFile(TODOS, v % 4), v);
      await client.diagnosticsFor(uri, (_d, version) => version === v);
      trips.push(performance.now() - t);
    }
    // Measured by the server itself: from the change reaching it to its diagnostics sent (the open excluded).
    const inServer = (await client.request<{ changeToDiagnosticsMs: number[] }>('loopx/timings', null)).changeToDiagnosticsMs.slice(1);
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${client.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    await client.dispose();

    const kb = (Buffer.byteLength(text) / 1024).toFixed(0);
    console.log(`| measure (${TODOS}-todo goal file, ${kb} KB) | median | p90 |`);
    console.log('|---|---|---|');
    const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)] as number;
    console.log(
      `| diagnostics after an edit, in the server: didChange to publishDiagnostics (parse, validate, plan, drift) | ${median(inServer).toFixed(1)} ms | ${p90(inServer).toFixed(1)} ms |`,
    );
    console.log(
      `| the same work cold (fresh parser and store snapshot, as every edit was before) | ${median(cold).toFixed(1)} ms | ${p90(cold).toFixed(1)} ms |`,
    );
    console.log(
      `| diagnostics after an edit, client round trip over stdio | ${median(trips).toFixed(1)} ms | ${p90(trips).toFixed(1)} ms |`,
    );
    console.log(`| server start-up to its initialize answer | ${startMs.toFixed(0)} ms | |`);
    console.log(`| server memory (RSS) with the file open | ${rss.toFixed(0)} MB | |`);
    console.log(`| first apply of the file (${TODOS} todos, one transaction) | ${applyMs.toFixed(0)} ms | |`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main();
