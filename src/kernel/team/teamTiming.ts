/**
 * LOOPX_TIMING=1 (bin/loopx, bench/teamCliBench.ts): where a team call's time went, as one more JSON line on stderr at
 * exit, `{"team": {...}}`, milliseconds summed per part: the pg module's load and the worker's start, connect and
 * authentication, each batch (the calling thread's wait and the queries' own time in the worker), the replica's work.
 * Nothing is recorded, and nothing printed, without the variable.
 */
const enabled = process.env.LOOPX_TIMING === '1';
let parts: Record<string, number> | null = null;

export function teamTimingOn(): boolean {
  return enabled;
}

/** Adds `ms` to a part (a count when the part is one, such as `batches`). */
export function addTeamTiming(part: string, ms: number): void {
  if (!enabled) return;
  if (!parts) {
    parts = {};
    const line = parts;
    process.once('exit', () => process.stderr.write(`${JSON.stringify({ team: line })}\n`));
  }
  parts[part] = (parts[part] ?? 0) + ms;
}

/** Times `fn` as `part`. */
export function timeTeam<T>(part: string, fn: () => T): T {
  if (!enabled) return fn();
  const started = performance.now();
  try {
    return fn();
  } finally {
    addTeamTiming(part, performance.now() - started);
  }
}
