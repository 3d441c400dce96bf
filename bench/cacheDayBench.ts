import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { getGoal } from '../src/kernel/goals/goalQueries';
import { planTurn } from '../src/kernel/goals/quotaQueries';
import { addTodo, shipTodo } from '../src/kernel/todos/todos';
import { startTurn } from '../src/kernel/turns/turns';
import { finishTurn } from '../src/kernel/turns/turnFinish';
import { cacheFigures } from '../src/kernel/readModels/cacheFigures';
import { DEFAULT_PRICES } from '../src/kernel/prices/modelPrices';
import { ANTHROPIC_PROMPT_CACHE } from '../src/shared/hostCatalog';

/**
 * A simulated day of one goal's turns on Claude Code, priced from the price table, with and without cache-aware waking
 * (`npm run bench`, or `node dist/bench/cacheDayBench.js` after `node esbuild.mjs --bench`). Not a timing: the figures
 * are dollars and tokens, the same on every machine.
 *
 * The day runs through the real kernel with a simulated clock: turns start when should-run (planTurn) says so and the
 * clock jumps to its wake time when it says no, as `loopx run` sleeps. Work arrives every ARRIVAL_MINUTES from 08:00 to
 * 20:00; every FLAKY_EVERY-th todo fails FAILURES turns before one ships it (each failure backs off: 60, 120, 240,
 * 480 s). A turn lasts TURN_MINUTES. What a turn reads is the provider's cache, modelled as Anthropic publishes it: a
 * prefix lives 5 minutes after its last use. Every turn's first request reads the same fixed prefix (the host's system
 * prompt and tools, loopx's fixed prompt part, the agent file: FIXED tokens): inside the window it is read from the
 * cache at a tenth of the input price, after it written again at 1.25x. The rest of a turn (its own part of the prompt,
 * and the calls after the first, each reading the growing conversation from the cache) is the same either way.
 *
 * "Without" is the same day with the host's window set to 0 in the person's hosts.json (what a person does to turn
 * cache-aware waking off): every wait is the plain back-off.
 */
const ARRIVAL_MINUTES = Number(process.env.BENCH_ARRIVAL_MINUTES ?? 45);
const FLAKY_EVERY = 3;
const FAILURES = 4;
const TURN_MINUTES = 4;
const FIXED = 24_000;
const OWN = 6_000;
const LATER_CALLS = 8;
const LATER_READ = 34_000;
const LATER_WRITE = 3_000;
const OUTPUT = 4_000;
const MODEL = 'claude-sonnet-4';
const WINDOW_MS = ANTHROPIC_PROMPT_CACHE.windowSeconds * 1000;
const DAY = Date.parse('2026-12-07T00:00:00.000Z');
const human = { name: 'ada', kind: 'human', channel: 'vscode' } as const;

interface DayFigures {
  turns: number;
  failed: number;
  shipped: number;
  warmStarts: number;
  dollars: number;
  hitShare: number;
  meanShipMinutes: number;
}

function simulateDay(cacheAware: boolean): DayFigures {
  const config = mkdtempSync(join(tmpdir(), 'loopx-cache-day-config-'));
  const root = mkdtempSync(join(tmpdir(), 'loopx-cache-day-'));
  process.env.LOOPX_CONFIG_DIR = config; // the person's key and hosts.json: never the developer's own
  if (!cacheAware) writeFileSync(join(config, 'hosts.json'), JSON.stringify({ hosts: {}, promptCache: { claude: { windowMinutes: 0 } } }));
  let now = DAY;
  const { kernel } = Kernel.init(root, { actor: human, clock: () => now });
  try {
    kernel.db.exec('PRAGMA synchronous = OFF');
    const claude = kernel.as({ name: 'claude', kind: 'agent' });
    const goalId = createGoal(kernel, { title: 'A day of work', turnsPerWindow: 1000 }).id;
    const arrivals: number[] = [];
    for (let t = DAY + 8 * 3_600_000; t <= DAY + 20 * 3_600_000; t += ARRIVAL_MINUTES * 60_000) arrivals.push(t);
    const failuresLeft = new Map<string, number>();
    const addedAt = new Map<string, number>();
    const shipMinutes: number[] = [];
    let lastRequestAt = Number.NEGATIVE_INFINITY;
    let arrived = 0;
    let warmStarts = 0;
    let turns = 0;
    let failed = 0;
    while (now < DAY + 24 * 3_600_000) {
      while (arrived < arrivals.length && (arrivals[arrived] as number) <= now) {
        const todo = addTodo(kernel, { goalId, title: `Work item ${arrived + 1}` }).id;
        failuresLeft.set(todo, arrived % FLAKY_EVERY === FLAKY_EVERY - 1 ? FAILURES : 0);
        addedAt.set(todo, now);
        arrived++;
      }
      const plan = planTurn(kernel.db, getGoal(kernel.db, goalId), now);
      if (!plan.answer.run) {
        const wakes = [plan.answer.nextWakeAt ? Date.parse(plan.answer.nextWakeAt) : Infinity, arrivals[arrived] ?? Infinity];
        now = Math.min(DAY + 24 * 3_600_000, ...wakes);
        continue;
      }
      const turn = startTurn(kernel, { goalId, host: 'claude', agent: 'claude', loopxCommand: 'loopx' }).turn;
      const todo = turn.todoId as string;
      const warm = now - lastRequestAt <= WINDOW_MS;
      if (warm) warmStarts++;
      now += TURN_MINUTES * 60_000;
      lastRequestAt = now;
      turns++;
      const usage = {
        inputTokens: FIXED + OWN + LATER_CALLS * (LATER_READ + LATER_WRITE),
        cachedTokens: (warm ? FIXED : 0) + LATER_CALLS * LATER_READ,
        cacheWriteTokens: (warm ? 0 : FIXED) + OWN + LATER_CALLS * LATER_WRITE,
        outputTokens: OUTPUT,
        model: MODEL,
      };
      const left = failuresLeft.get(todo) ?? 0;
      if (left > 0) {
        failuresLeft.set(todo, left - 1);
        failed++;
        finishTurn(kernel, turn.id, 1, usage);
      } else {
        shipTodo(claude, todo, { evidence: 'tests pass' });
        finishTurn(kernel, turn.id, 0, usage);
        shipMinutes.push((now - (addedAt.get(todo) as number)) / 60_000);
      }
    }
    const dollars = Number(kernel.db.prepare('SELECT sum(cost_usd) AS d FROM turns WHERE goal_id = ?').get(goalId)?.d);
    const cache = cacheFigures(kernel.db, goalId, null);
    return {
      turns,
      failed,
      shipped: shipMinutes.length,
      warmStarts,
      dollars,
      hitShare: cache.hitShare ?? 0,
      meanShipMinutes: shipMinutes.reduce((a, b) => a + b, 0) / shipMinutes.length,
    };
  } finally {
    kernel.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(config, { recursive: true, force: true });
  }
}

const price = DEFAULT_PRICES[MODEL];
const without = simulateDay(false);
const withIt = simulateDay(true);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const row = (name: string, d: DayFigures) =>
  `| ${name} | ${d.turns} (${d.failed} failed) | ${d.shipped} | ${d.warmStarts} | ${pct(d.hitShare)} | $${d.dollars.toFixed(2)} | ${d.meanShipMinutes.toFixed(1)} min |`;
console.log(
  [
    `A simulated day on Claude Code (${MODEL}: $${price?.input} in, $${price?.cachedInput} cached, $${price?.cacheWrite} cache write, $${price?.output} out per million tokens; a 5-minute cache)`,
    `work every ${ARRIVAL_MINUTES} min from 08:00 to 20:00, every ${FLAKY_EVERY}rd todo failing ${FAILURES} turns first; ${TURN_MINUTES}-minute turns; a ${FIXED / 1000}k-token fixed prefix`,
    '',
    '| waking | turns | shipped | turns started warm | input read from the cache | cost | add → ship (mean) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    row('plain back-off', without),
    row('cache-aware', withIt),
    '',
    `cache-aware waking: ${pct(1 - withIt.dollars / without.dollars)} cheaper ($${(without.dollars - withIt.dollars).toFixed(2)} a day), ${(without.meanShipMinutes - withIt.meanShipMinutes).toFixed(1)} min sooner to ship on average`,
  ].join('\n'),
);
