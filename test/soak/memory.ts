/**
 * Memory over time, from outside: RSS follows the heap V8 reserves, which grows in steps to what the busiest moment
 * needed and stays there (a full GC finds the runner's live heap flat: npm run bench:memory). So a runner that lived
 * this long may grow at most MEMORY_GROWTH_MB from its first to its last third, and no runner ever passes the cap.
 */
const MEMORY_JUDGED_AFTER_S = 300;
export const MEMORY_GROWTH_MB = 25;
export const MEMORY_CAP_MB = 150;

export interface MemoryVerdict {
  runner: string;
  seconds: number;
  turns: number;
  firstMb: number;
  lastMb: number;
  maxMb: number;
  /** Null when the runner did not live long enough to judge. */
  growthMb: number | null;
  /** RSS's least-squares slope over the runner's life after its first 10 s, in MB an hour (null: under 5 minutes). */
  slopeMbPerHour: number | null;
  /** The runner's own CPU (user + system) per turn it started, in its first and its last third (null: no turns). */
  cpuMsPerTurnFirst: number | null;
  cpuMsPerTurnLast: number | null;
}

export interface RunnerSample {
  at: number;
  runner: string;
  rssKb: number;
  turns: number;
  /** The runner's CPU so far (user + system), in ms. */
  cpuMs?: number;
}

/**
 * Per runner process: RSS in its first and last third (medians, after its first 10 s) and the growth between, RSS's
 * slope over its life (what a night would add), and its CPU per turn early and late (a runner whose work per turn
 * grows with the store or with time shows it here).
 */
export function memoryVerdicts(samples: RunnerSample[]): MemoryVerdict[] {
  const byRunner = new Map<string, typeof samples>();
  for (const s of samples) byRunner.set(s.runner, [...(byRunner.get(s.runner) ?? []), s]);
  const mb = (kb: number) => Math.round(kb / 102.4) / 10;
  const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  return [...byRunner].map(([runner, list]) => {
    const start = (list[0] as { at: number }).at;
    const warm = list.filter((s) => s.at - start >= 10_000);
    const seconds = ((list.at(-1)?.at ?? start) - start) / 1000;
    const third = Math.max(1, Math.floor(warm.length / 3));
    const first = median(warm.slice(0, third).map((s) => s.rssKb));
    const last = median(warm.slice(-third).map((s) => s.rssKb));
    return {
      runner,
      seconds: Math.round(seconds),
      turns: list.at(-1)?.turns ?? 0,
      firstMb: mb(first),
      lastMb: mb(last),
      maxMb: mb(Math.max(...list.map((s) => s.rssKb))),
      growthMb: seconds >= MEMORY_JUDGED_AFTER_S && warm.length >= 6 ? mb(last - first) : null,
      slopeMbPerHour: seconds >= MEMORY_JUDGED_AFTER_S && warm.length >= 6 ? round1((slope(warm) * 3600) / 1024) : null,
      cpuMsPerTurnFirst: cpuPerTurn(warm.slice(0, third + 1)),
      cpuMsPerTurnLast: cpuPerTurn(warm.slice(-third - 1)),
    };
  });
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Least-squares slope of RSS (kB) over time (s). */
function slope(list: RunnerSample[]): number {
  const xs = list.map((s) => s.at / 1000);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(xs);
  const my = mean(list.map((s) => s.rssKb));
  let num = 0;
  let den = 0;
  list.forEach((s, i) => {
    num += ((xs[i] as number) - mx) * (s.rssKb - my);
    den += ((xs[i] as number) - mx) ** 2;
  });
  return den ? num / den : 0;
}

/** CPU ms per turn started between a stretch's first and last sample (null without CPU figures or turns). */
function cpuPerTurn(list: RunnerSample[]): number | null {
  const a = list[0];
  const b = list.at(-1);
  if (a?.cpuMs === undefined || b?.cpuMs === undefined || b.turns <= a.turns) return null;
  return round1((b.cpuMs - a.cpuMs) / (b.turns - a.turns));
}
