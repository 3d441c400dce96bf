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
}

/** Per runner process: RSS in its first and last third (medians, after its first 10 s), and the growth between. */
export function memoryVerdicts(samples: { at: number; runner: string; rssKb: number; turns: number }[]): MemoryVerdict[] {
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
    };
  });
}
