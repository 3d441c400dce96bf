import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

const REPO = resolve(__dirname, '..', '..');

/**
 * Bundles an agent script of test/team (stormAgent.ts unless named) for Node into `dir` (pg and the SQLite driver stay
 * outside, found through NODE_PATH).
 */
export function bundleAgent(dir: string, script = 'stormAgent'): string {
  const outfile = join(dir, `${script}.js`);
  buildSync({
    entryPoints: [join(__dirname, `${script}.ts`)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    external: ['pg', 'better-sqlite3'],
    loader: { '.sql': 'text' },
    logLevel: 'error',
  });
  return outfile;
}

/** One write an agent made, as it saw it: `ok`, or the code a fault made it fail with. */
export interface WriteRecord {
  op: 'claim' | 'ship';
  /** The todo (a claim that failed does not know which it was). */
  todo: string | null;
  /** The operation id the engine sent with it. */
  opId: string;
  outcome: 'ok' | 'team_unreachable' | 'team_outcome_unknown';
  /** The operation id the error named (team_outcome_unknown). */
  reportedOpId?: string;
}

export interface AgentReport {
  agent: string;
  shipped: string[];
  refusals: string[];
  writes: WriteRecord[];
  faults: number;
  batches: number;
  waitedMs: number;
  ms: number;
}

/** Runs one agent process to its end; its one line of JSON is the report. */
export function runAgent(script: string, env: Record<string, string>): Promise<AgentReport> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, ...env, NODE_PATH: join(REPO, 'node_modules') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // A hung agent is a finding, not a hung suite: it is killed and the test fails naming it.
    const limit = setTimeout(() => child.kill('SIGKILL'), Number(env.STORM_KILL_AFTER_MS ?? 150_000));
    child.on('close', (code) => {
      clearTimeout(limit);
      if (code !== 0) return fail(new Error(`${env.STORM_AGENT} exited ${code}:\n${stderr}\n${stdout}`));
      done(JSON.parse(stdout.trim()) as AgentReport);
    });
  });
}
