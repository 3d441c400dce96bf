import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where a verb's time goes: the verb runs under V8's sampling profiler (`--cpu-prof`, a sample every 50 µs) several
 * times, and each sample is put in one bucket by the nearest loopx function on its stack, found through the
 * bundle's source map. Samples with no loopx function on the stack are Node's own start-up and exit, the work a
 * bare `node -e 0` does too. The profiler slows everything a little; the shares are what count.
 */
export const BUCKETS = [
  'Node start-up and exit (as bare node)',
  'loading loopx (read, code cache, evaluate)',
  'opening and closing the store',
  'SQLite (statements)',
  'hashing the event',
  'the command (queries, rules, output)',
] as const;
export type Bucket = (typeof BUCKETS)[number];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** bin/loopx wraps the bundle in a function on the bundle's first line (see bin/loopx's `wrapped`). */
const WRAPPER = '(function (exports, require, module, __filename, __dirname) { ';
/** Opening and closing: the driver's set-up, the store's checks and migrations, finding the root, the kernel's own. */
const OPEN_FILES = /src\/kernel\/(db\/(openDb|migrate)\.ts|storeFile\.ts|kernel\.ts|locate\.ts)$/;
const DRIVER_FILES = /(src\/kernel\/db\/(nodeSqliteDriver|betterSqliteDriver)\.ts|node_modules\/better-sqlite3\/.*)$/;

function bucketOf(stack: ProfileNode[], sourceOf: (frame: ProfileNode['callFrame']) => string | null): Bucket {
  // stack[0] is the sampled function, then its callers.
  for (let i = 0; i < stack.length; i++) {
    const frame = (stack[i] as ProfileNode).callFrame;
    if (frame.url.endsWith('/bin/loopx')) return 'loading loopx (read, code cache, evaluate)';
    const source = sourceOf(frame);
    if (source === null) continue;
    if (source === '') return 'loading loopx (read, code cache, evaluate)'; // the bundle's top level
    if (source.endsWith('src/kernel/sha256.ts')) return 'hashing the event';
    if (DRIVER_FILES.test(source)) {
      // SQLite's native work shows as the driver's own time: it belongs to whoever called the driver.
      for (const caller of stack.slice(i + 1)) {
        const from = sourceOf(caller.callFrame);
        if (from === null || DRIVER_FILES.test(from)) continue;
        return OPEN_FILES.test(from) ? 'opening and closing the store' : 'SQLite (statements)';
      }
      return 'SQLite (statements)';
    }
    return OPEN_FILES.test(source) ? 'opening and closing the store' : 'the command (queries, rules, output)';
  }
  return 'Node start-up and exit (as bare node)';
}

/** Maps a profiled function in one of loopx's bundles to its source file ('' for the bundle's top level). */
function sourceLookup(): (frame: ProfileNode['callFrame']) => string | null {
  const maps = new Map<string, SourceMap | null>();
  const mapFor = (url: string): SourceMap | null => {
    if (!maps.has(url)) {
      try {
        maps.set(url, new SourceMap(JSON.parse(readFileSync(`${url.replace(/^file:\/\//, '')}.map`, 'utf8'))));
      } catch {
        maps.set(url, null);
      }
    }
    return maps.get(url) ?? null;
  };
  return (frame) => {
    if (!/\/dist\/(cli|agent\/[a-z-]+)\.js$/.test(frame.url)) return null;
    if (frame.lineNumber === 0 && frame.columnNumber <= WRAPPER.length) return '';
    const map = mapFor(frame.url);
    const column = frame.lineNumber === 0 ? frame.columnNumber - WRAPPER.length : frame.columnNumber;
    const entry = map?.findEntry(frame.lineNumber, column) as { originalSource?: string } | undefined;
    return entry?.originalSource ?? 'unmapped';
  };
}

/** Runs `node bin/loopx …args` `runs` times under the profiler; mean milliseconds per call in each bucket. */
export function whereTimeGoes(
  loopx: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; runs: number },
): Record<Bucket, number> {
  const dir = mkdtempSync(join(tmpdir(), 'loopx-prof-'));
  const totals = Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>;
  try {
    for (let i = 0; i < options.runs; i++) {
      const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-interval', '50', '--cpu-prof-dir', dir, loopx, ...args], {
        cwd: options.cwd,
        env: options.env,
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stdout} ${r.stderr}`);
    }
    const sourceOf = sourceLookup();
    const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    for (const file of files) {
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
      const byId = new Map(profile.nodes.map((n) => [n.id, n]));
      const parent = new Map<number, number>();
      for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
      const bucketById = new Map<number, Bucket>();
      profile.samples.forEach((id, k) => {
        let bucket = bucketById.get(id);
        if (bucket === undefined) {
          const stack: ProfileNode[] = [];
          for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at) as ProfileNode);
          bucket = bucketOf(stack, sourceOf);
          bucketById.set(id, bucket);
        }
        totals[bucket] += (profile.timeDeltas[k] ?? 0) / 1000;
      });
    }
    for (const b of BUCKETS) totals[b] /= files.length;
    return totals;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One verb's call, split: Node's start-up, loading loopx, then the command's time split as its profile splits it. */
export interface Breakdown {
  verb: string;
  bareMs: number;
  startUpMs: number;
  loadMs: number;
  commandMs: number;
  /** The command's time by bucket (the profile's shares of it, scaled to commandMs). */
  command: Partial<Record<Bucket, number>>;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;

/**
 * Times `runs` calls with bin/loopx's own marks (LOOPX_TIMING=1: no profiler, so no distortion), each next to a
 * bare `node -e 0`, and splits the command's part by the profile (`whereTimeGoes`).
 */
export function breakdown(
  loopx: string,
  verb: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; runs: number },
): Breakdown {
  const bare: number[] = [];
  const marks: { startUpMs: number; loadMs: number; commandMs: number }[] = [];
  for (let i = 0; i < options.runs; i++) {
    const t0 = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0'], { cwd: options.cwd, env: options.env });
    bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const r = spawnSync(process.execPath, [loopx, ...args], {
      cwd: options.cwd,
      env: { ...options.env, LOOPX_TIMING: '1' },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stdout} ${r.stderr}`);
    marks.push(JSON.parse(r.stderr.trim().split('\n').pop() as string));
  }
  const commandMs = median(marks.map((m) => m.commandMs));
  const profile = whereTimeGoes(loopx, args, { ...options, runs: Math.max(3, options.runs >> 1) });
  const inCommand = BUCKETS.slice(2);
  const profiled = inCommand.reduce((sum, b) => sum + profile[b], 0) || 1;
  return {
    verb,
    bareMs: median(bare),
    startUpMs: median(marks.map((m) => m.startUpMs)),
    loadMs: median(marks.map((m) => m.loadMs)),
    commandMs,
    command: Object.fromEntries(inCommand.map((b) => [b, (commandMs * profile[b]) / profiled])),
  };
}

/** The breakdowns as a Markdown table (milliseconds). */
export function breakdownTable(rows: Breakdown[]): string {
  const inCommand = BUCKETS.slice(2);
  const head = `| verb | bare \`node -e 0\` | Node start-up until bin/loopx runs | loading loopx | ${inCommand.join(' | ')} | loopx's share |`;
  const lines = rows.map((r) => {
    const ours = r.loadMs + r.commandMs;
    const cells = inCommand.map((b) => (r.command[b] ?? 0).toFixed(1));
    return `| \`loopx ${r.verb}\` | ${r.bareMs.toFixed(1)} | ${r.startUpMs.toFixed(1)} | ${r.loadMs.toFixed(1)} | ${cells.join(' | ')} | ${ours.toFixed(1)} ms |`;
  });
  return [head, `| --- | --- | --- | --- | ${inCommand.map(() => '---').join(' | ')} | --- |`, ...lines].join('\n');
}
