import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodo, blockTodo, unblockTodo, shipTodo } from '../src/kernel/todos/todos';
import { claimTodo, renewTodo } from '../src/kernel/todos/claims';
import { addEvidence } from '../src/kernel/evidence/evidence';
import { askGate, decideGate } from '../src/kernel/gates/gates';
import { addMonitor, cancelMonitor } from '../src/kernel/monitors/monitors';
import { startTurn } from '../src/kernel/turns/turns';
import { finishTurn } from '../src/kernel/turns/turnFinish';
import { replayLog } from '../src/kernel/replay';
import { boardFacts } from '../src/kernel/readModels/cards';
import { goalStory, storyReader } from '../src/kernel/readModels/story';
import { PastStore } from '../src/kernel/readModels/pastStore';
import { buildSnapshot } from '../src/extension/board/boardData';

/**
 * The story view and the board at a past moment at 100,000 events (`npm run bench`, or `node dist/bench/storyBench.js`
 * after `node esbuild.mjs --bench`): a week and more of one goal's agent work, seeded through kernel operations
 * (turns, ships, gates, blocks, monitors, renewals and evidence), then timed in this process. Medians over runs; the
 * full replay `loopx doctor` does is timed in the same run as the baseline the scrubbing figures compare with.
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const SCRUBS = Number(process.env.BENCH_SCRUBS ?? 60);
const human = { name: 'ada', kind: 'human', channel: 'vscode' } as const;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)] as number;
const time = <T>(fn: () => T): [number, T] => {
  const t0 = performance.now();
  const value = fn();
  return [performance.now() - t0, value];
};

function seed(root: string): { goalId: string; events: number; seconds: number } {
  const started = performance.now();
  let clock = Date.parse('2026-01-05T08:00:00.000Z');
  mkdirSync(root, { recursive: true });
  const { kernel } = Kernel.init(root, { actor: human, clock: () => clock });
  kernel.db.exec('PRAGMA synchronous = OFF'); // a benchmark store: no fsync per transaction while seeding
  const codex = kernel.as({ name: 'codex', kind: 'agent' });
  const goalId = createGoal(kernel, { title: 'A week of agent work', turnsPerWindow: 100_000, maxConcurrent: 50 }).id;
  const count = () => Number(kernel.db.prepare('SELECT max(seq) AS n FROM events').get()?.n);
  for (let i = 0; count() < EVENTS; i++) {
    clock += 7 * 60_000;
    const todo = addTodo(kernel, { goalId, title: `Step ${i}: make the importer handle case ${i}` }).id;
    const turn = startTurn(codex, { goalId, host: 'codex', todoId: todo, leaseSeconds: 3600 }).turn;
    for (let k = 0; k < 6; k++) {
      clock += 60_000;
      if (k % 2) renewTodo(codex, todo, { leaseSeconds: 3600 });
      else addEvidence(codex, { todoId: todo, summary: `step ${k}` });
    }
    if (i % 9 === 3) {
      const gate = askGate(codex, { todoId: todo, question: `May I change the schema for case ${i}?` });
      clock += 40 * 60_000;
      decideGate(kernel, gate.id, 'approved');
    }
    if (i % 13 === 5) {
      blockTodo(codex, todo, 'needs a credential');
      clock += 90 * 60_000;
      unblockTodo(kernel, todo);
      claimTodo(codex, todo, { leaseSeconds: 3600 });
    }
    if (i % 11 === 7) {
      const monitor = addMonitor(codex, { todoId: todo, afterSeconds: 3600, note: 'CI run' });
      clock += 30 * 60_000;
      cancelMonitor(codex, monitor.id, 'green early');
      claimTodo(codex, todo, { leaseSeconds: 3600 });
    }
    if (i % 17 === 0) finishTurn(codex, turn.id, 1);
    else {
      shipTodo(codex, todo, { evidence: 'tests pass' });
      finishTurn(codex, turn.id, 0);
    }
  }
  const events = count();
  kernel.close();
  return { goalId, events, seconds: (performance.now() - started) / 1000 };
}

function main(): void {
  // BENCH_STORE_DIR keeps the seeded store between runs (seeding takes a while): a second run reuses it.
  const keep = process.env.BENCH_STORE_DIR;
  const root = keep ?? mkdtempSync(join(tmpdir(), 'loopx-story-bench-'));
  try {
    const seeded = keep && existsSync(Kernel.storePath(root)) ? { goalId: 'G1', events: -1, seconds: 0 } : seed(root);
    const load = loadavg()[0]?.toFixed(1);
    const kernel = Kernel.open(root, { actor: human });
    // Monday morning: an hour after the last event.
    const now = Date.parse(String(kernel.db.prepare('SELECT max(at) AS at FROM events').get()?.at)) + 3600_000;
    if (seeded.events < 0) seeded.events = Number(kernel.db.prepare('SELECT max(seq) AS n FROM events').get()?.n);
    const story: number[] = [];
    let built: ReturnType<typeof goalStory> | undefined;
    for (let r = 0; r < RUNS; r++) {
      const [ms, s] = time(() => kernel.read((db) => goalStory(db, seeded.goalId, now)));
      story.push(ms);
      built = s;
    }
    const json = JSON.stringify(built).length;
    // The view keeps its reader: a refresh after agents wrote reads only the new events.
    const reader = storyReader(seeded.goalId);
    reader.read(kernel.db);
    const refresh: number[] = [];
    const codex = kernel.as({ name: 'codex', kind: 'agent' });
    for (let r = 0; r < RUNS; r++) {
      for (let i = 0; i < 10; i++) addTodo(codex, { goalId: seeded.goalId, title: `Refresh ${r}.${i}` });
      const [ms] = time(() => kernel.read((db) => (reader.read(db), reader.build(db, now))));
      refresh.push(ms);
    }
    const [fullReplay, replayed] = time(() => replayLog(kernel.db));
    replayed.close();
    const rssBefore = process.memoryUsage().rss;
    const past = new PastStore(Kernel.storePath(root), kernel.db.driver);
    const head = past.head();
    const [firstMove] = time(() => past.moveTo(Math.floor(head / 2)));
    const [toHead] = time(() => past.moveTo(head));
    const scrub: number[] = [];
    const withBoard: number[] = [];
    for (let i = 0; i < SCRUBS; i++) {
      const seq = Math.floor(Math.random() * head);
      const [moved, db] = time(() => past.moveTo(seq));
      scrub.push(moved);
      const at = Date.parse(past.event(seq)?.at ?? new Date(now).toISOString());
      const [board] = time(() => buildSnapshot(boardFacts(db, at), 'ada'));
      withBoard.push(moved + board);
    }
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    past.close();
    kernel.close();
    console.log(
      `\nThe story and the past board at ${seeded.events.toLocaleString('en')} events (one goal, ${built?.totals.todos} todos, ${built?.totals.turns} turns; seeded in ${seeded.seconds.toFixed(1)} s; load ${load}; ${kernel.db.driver})\n`,
    );
    console.log('| measure | median | p90 |\n| --- | --- | --- |');
    console.log(
      `| a goal's story from the log (${RUNS} runs; ${(json / 1024).toFixed(0)} KB as JSON) | ${median(story).toFixed(0)} ms | ${p90(story).toFixed(0)} ms |`,
    );
    console.log(
      `| the story again after 10 new events (the view's refresh: only new events are read) | ${median(refresh).toFixed(0)} ms | ${p90(refresh).toFixed(0)} ms |`,
    );
    console.log(`| full replay from empty (loopx doctor's, the baseline) | ${fullReplay.toFixed(0)} ms | |`);
    console.log(
      `| first move to a past moment (the middle: replays half the log, checkpoints on the way) | ${firstMove.toFixed(0)} ms | |`,
    );
    console.log(`| then to now (the other half) | ${toHead.toFixed(0)} ms | |`);
    console.log(`| a scrub: move to a random moment (${SCRUBS} moves) | ${median(scrub).toFixed(1)} ms | ${p90(scrub).toFixed(1)} ms |`);
    console.log(`| a scrub with the board built at that moment | ${median(withBoard).toFixed(1)} ms | ${p90(withBoard).toFixed(1)} ms |`);
    console.log(`| memory the replay and its checkpoints hold (RSS growth) | ${(rssGrowth / 1048576).toFixed(0)} MB | |`);
    console.log(`| scrub ÷ full replay | ${(median(scrub) / fullReplay).toFixed(3)}x | |`);
  } finally {
    if (!keep) rmSync(root, { recursive: true, force: true });
  }
}

main();
