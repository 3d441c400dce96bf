import { resolve } from 'node:path';
import { InvalidInputError } from '../src/kernel/errors';
import { type SoakReport, runSoak } from '../test/soak/soak';
import type { MemoryVerdict } from '../test/soak/memory';

/**
 * `npm run soak -- --minutes N [--seed S] [--keep] [--kill-every A-B|never] [--budget N] [--at-once N]`: leaves `loopx run` alone for N minutes with everything a real
 * night throws at it (see test/soak/soak.ts), then audits the store and prints what it found. Exit 0 when every
 * invariant held, 1 otherwise (the workspace is then kept for a look). `npm test` runs a 90-second version.
 */
function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

async function main(): Promise<void> {
  const minutes = Number(option('minutes') ?? 10);
  if (!Number.isFinite(minutes) || minutes < 1 || minutes > 7 * 24 * 60) throw new InvalidInputError('--minutes must be from 1 to 10080');
  const seconds = Math.round(minutes * 60);
  const long = seconds >= 600;
  const killEvery = killEveryOption(option('kill-every'), long);
  const report = await runSoak({
    repo: resolve(__dirname, '..', '..'),
    seconds,
    seed: Number(option('seed') ?? Date.now() % 100_000),
    // A night: a kill every few minutes, so each runner also lives long enough for its memory to tell.
    killEvery,
    secondRunner: [0.3, 0.45],
    turnLimitSeconds: long ? 60 : 12,
    personEverySeconds: long ? 30 : 3,
    smallBudget: long ? 60 : 8,
    features: { perHour: whole('budget', 1000, 1, 100_000), atOnce: whole('at-once', 2, 1, 8) },
    idleSeconds: long ? 60 : 15,
    keep: process.argv.includes('--keep'),
    log: (line) => console.log(line),
  });
  console.log(describe(report));
  process.exitCode = report.audit.ok ? 0 : 1;
}

/** A whole-number option from `min` to `max` (`budget`: the Features goal's turns an hour; `at-once`: its turns at once). */
function whole(name: string, fallback: number, min: number, max: number): number {
  const text = option(name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidInputError(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
}

/** `--kill-every A-B` (minutes between kill -9 of the runner) or `never` (one runner lives the whole run). */
function killEveryOption(text: string | undefined, long: boolean): [number, number] | null {
  if (text === undefined) return long ? [180, 480] : [20, 40];
  if (text === 'never') return null;
  const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(text);
  if (!m || Number(m[1]) <= 0 || Number(m[2]) < Number(m[1]))
    throw new InvalidInputError('--kill-every takes minutes as A-B (for example 3-8) or never');
  return [Number(m[1]) * 60, Number(m[2]) * 60];
}

function describe(r: SoakReport): string {
  const f = r.audit.figures as {
    turns: number;
    byResult: Record<string, number>;
    spanS: number;
    throughput: {
      goal: string;
      validated: number;
      theoreticalMax: number;
      boundBy: string;
      share: number;
      meanValidatedTurnS: number;
      slotOccupancy: number;
    }[];
    store: Record<string, number>;
  };
  const lines = [
    '',
    `soak ${r.audit.ok ? 'passed' : 'FAILED'}: ${Math.round(r.seconds / 60)} min, seed ${r.seed}, ${f.turns} turns, ${r.kills} kill -9 of the runner`,
    ...r.audit.invariants.map((i) => `  ${i.ok ? 'ok  ' : 'FAIL'} ${i.name}: ${i.detail}`),
    `  results: ${Object.entries(f.byResult)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    ...f.throughput.map(
      (t) =>
        `  ${t.goal}: ${t.validated} validated turns of a theoretical ${t.theoreticalMax} (${Math.round(t.share * 100)}%, bound by ${t.boundBy}; a validated turn took ${t.meanValidatedTurnS} s on average; its slots were busy ${Math.round(t.slotOccupancy * 100)}% of the time)`,
    ),
    `  store: ${f.store.bytesPerTurn} bytes and ${f.store.eventsPerTurn} events per turn in the database, ${f.store.turnFolderBytesPerTurn} bytes per turn folder`,
    ...lifeLines(r),
    `  idle runner: ${r.idle.cpuPercent.toFixed(3)}% of a core over ${r.idle.seconds} s`,
    `  workspace: ${r.root}${r.audit.ok && !process.argv.includes('--keep') ? ' (removed)' : ''}; report in soak-report.json there`,
  ];
  return lines.join('\n');
}

/** Each runner that lived long enough to judge: its memory's slope, what it projects for a night, its CPU per turn early and late. */
function lifeLines(r: SoakReport): string[] {
  const memory = (r.audit.figures as { memory?: MemoryVerdict[] }).memory ?? [];
  return memory
    .filter((m) => m.slopeMbPerHour !== null)
    .map(
      (m) =>
        `  runner ${m.runner}: ${Math.round(m.seconds / 60)} min, ${m.turns} turns; RSS ${m.firstMb} → ${m.lastMb} MB (max ${m.maxMb}), ` +
        `slope ${signed(m.slopeMbPerHour as number)} MB an hour (${signed(Math.round((m.slopeMbPerHour as number) * 8 * 10) / 10)} MB over 8 hours); ` +
        `CPU ${m.cpuMsPerTurnFirst ?? '?'} ms per turn in its first third, ${m.cpuMsPerTurnLast ?? '?'} ms in its last`,
    );
}

const signed = (n: number) => (n >= 0 ? `+${n}` : `${n}`);

main().catch((error: unknown) => {
  console.error(`soak: ${(error as Error).message}`);
  process.exitCode = 2;
});
