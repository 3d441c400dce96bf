/// <reference lib="dom" />
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import type { BoardPatch, BoardSnapshot, Card } from '../src/protocol/boardProtocol';

/**
 * The board's render cost, measured in the browser with performance marks: the built webview bundle in headless
 * chromium, fed a 2,000-card snapshot and then a one-card patch, exactly as the extension host posts them.
 */
const REPO = resolve(__dirname, '..', '..');
const CARDS = Number(process.env.BENCH_CARDS ?? 2000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const STATUSES = ['open', 'open', 'open', 'claimed', 'blocked', 'shipped', 'shipped', 'shipped', 'killed'] as const;

const MOVES: Record<Card['status'], Card['moves']> = {
  open: ['claimed', 'blocked', 'shipped', 'killed'],
  claimed: ['ready', 'blocked', 'killed'],
  in_review: ['ready', 'shipped', 'killed'],
  blocked: ['ready', 'killed'],
  shipped: [],
  killed: [],
};

function snapshot(): BoardSnapshot {
  const now = Date.now();
  const cards: Card[] = Array.from({ length: CARDS }, (_, i) => {
    const status = STATUSES[i % STATUSES.length] as Card['status'];
    return {
      id: `T${i + 1}`,
      goalId: `G${(i % 5) + 1}`,
      title: `Todo number ${i + 1}: make the importer handle case ${i}`,
      priority: i % 4,
      status,
      owner: status === 'claimed' ? (['codex', 'claude'][i % 2] as string) : null,
      ownedByMe: false,
      leaseExpiresAt: status === 'claimed' ? new Date(now + 600_000).toISOString() : null,
      dependsOn: i % 7 === 0 && i > 10 ? [`T${i - 5}`] : [],
      unmetDeps: i % 14 === 0 && i > 10 ? [`T${i - 5}`] : [],
      evidenceCount: status === 'shipped' ? 2 : 0,
      gates: i % 50 === 0 ? [`Q${i / 50 + 1}`] : [],
      goalActive: true,
      revision: 1,
      // Some open cards wait on a monitor, as a board with CI watches does.
      monitor:
        status === 'open' && i % 30 === 0
          ? {
              id: `M${i + 1}`,
              kind: 'check',
              check: 'gh run view 42 --exit-status',
              until: 'exit0',
              everySeconds: 300,
              nextCheckAt: new Date(now + 120_000).toISOString(),
              expiresAt: null,
              lastRun: { n: 3, at: new Date(now - 180_000).toISOString(), exitCode: 1, durationMs: 900, error: null },
              waitsForPerson: false,
            }
          : null,
      recurrence: null,
      recurrenceZone: null,
      waitsUntil: null,
      change: null,
      review: null,
      // The allowed targets the host sends with each card (the kernel's move rule), as many as a real board carries.
      moves: MOVES[status],
    };
  });
  return {
    me: 'ada',
    now: new Date(now).toISOString(),
    goals: [1, 2, 3, 4, 5].map((n) => ({
      id: `G${n}`,
      title: `Goal ${n}`,
      status: 'active',
      spent: n,
      turnsPerWindow: 20,
      windowHours: 24,
      run: true,
      reason: 'ok',
      nextWakeAt: null,
      background: '',
      review: false,
      counts: { open: 400, claimed: 0, in_review: 0, blocked: 0, shipped: 0, killed: 0 },
      liveClaims: 0,
      holders: [],
      windingDown: 0,
      maxConcurrent: 1,
      usage: { tokens: n * 41_000, dollars: n * 0.8, tokensPerWindow: null, dollarsPerWindow: 10, perTurn: null },
      usageLine: `$${(n * 0.8).toFixed(2)} of $10 · ${n * 41}k tokens in the last 24 h`,
    })),
    cards,
    attention: cards
      .filter((c) => c.gates.length)
      .map((c) => ({
        kind: 'gate',
        gateId: c.gates[0] as string,
        goalId: c.goalId,
        todoId: c.id,
        question: `May I change ${c.id}?`,
        askedBy: 'codex',
        askedAt: new Date(now).toISOString(),
      })),
    agents: ['claude', 'codex'],
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'loopx-board-bench-'));
  for (const f of ['board.js', 'board.css', 'codicon.css', 'codicon.ttf']) copyFileSync(join(REPO, 'dist', 'webview', f), join(dir, f));
  writeFileSync(
    join(dir, 'index.html'),
    `<!DOCTYPE html><html><head><link rel="stylesheet" href="codicon.css"><link rel="stylesheet" href="board.css"></head>
<body class="vscode-dark"><div id="app"></div><script>window.acquireVsCodeApi = () => ({ postMessage() {}, getState() {}, setState() {} });</script>
<script src="board.js"></script></body></html>`,
  );
  const browser = await chromium.launch({
    executablePath: process.env.LOOPX_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const first: number[] = [];
  const painted: number[] = [];
  const change: number[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
      await page.goto(`file://${join(dir, 'index.html')}`);
      const snap = snapshot();
      const result = await page.evaluate(async (s) => {
        const t0 = performance.now();
        window.postMessage({ type: 'snapshot', snapshot: s }, '*');
        await new Promise((r) => setTimeout(r, 0));
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        const measure = performance.getEntriesByName('loopx-first-render')[0] as PerformanceMeasure;
        return { render: measure.duration, paint: performance.now() - t0 };
      }, snap);
      first.push(result.render);
      painted.push(result.paint);
      const moved = {
        ...(snap.cards[3] as Card),
        status: 'shipped' as const,
        owner: null,
        leaseExpiresAt: null,
        evidenceCount: 1,
        revision: 2,
      };
      const patch: BoardPatch = {
        now: snap.now,
        upserts: [moved],
        removed: [],
        goals: snap.goals,
        attention: snap.attention,
        agents: snap.agents,
      };
      change.push(
        await page.evaluate(async (p) => {
          window.postMessage({ type: 'patch', patch: p }, '*');
          await new Promise((r) => setTimeout(r, 0));
          return (performance.getEntriesByName('loopx-patch')[0] as PerformanceMeasure).duration;
        }, patch),
      );
      await page.close();
    }
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nLoopX Board in headless chromium, ${CARDS} cards, median of ${RUNS} runs\n`);
  console.log('| measure | median | target |\n| --- | --- | --- |');
  console.log(`| first render (snapshot → every card in the DOM) | ${median(first).toFixed(1)} ms | < 300 ms |`);
  console.log(`| first render to next frame (incl. layout and paint) | ${median(painted).toFixed(1)} ms | |`);
  console.log(`| apply one change (a card moves column) | ${median(change).toFixed(2)} ms | < 16 ms |`);
}

void main();
