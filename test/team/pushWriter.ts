import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { SqliteEngine } from '../../src/kernel/db/sqliteEngine';
import { LoopxError } from '../../src/kernel/errors';
import { Kernel } from '../../src/kernel/kernel';
import { addTodo } from '../../src/kernel/todos/todos';

/**
 * An agent that keeps writing while a person runs `loopx team push` (pushRace.test.ts bundles and spawns it): it adds
 * todos titled "<agent> write <n>" until the stop file exists and it has written a few through the team store (or 5 s
 * after, when it never does).
 *
 * PW_MODE=kernel: one long-lived process (as an MCP server or `loopx run` is), its kernel opened once, before the
 * push; on `store_moved` it reopens the store, as the hint says. PW_MODE=cli: a new `loopx todo add` per write, as an
 * agent's tool calls are. Either way `busy` and `store_moved` are retried (nothing was written), and anything else
 * ends the writer (the test then fails). Prints one JSON line (PushWriterReport): every title it was told landed.
 */
const { PW_ROOT, PW_AGENT, PW_GOAL, PW_STOP, PW_MODE, PW_LOOPX } = process.env;
if (!PW_ROOT || !PW_AGENT || !PW_GOAL || !PW_STOP || !PW_LOOPX)
  throw new Error('pushWriter needs PW_ROOT, PW_AGENT, PW_GOAL, PW_STOP, PW_LOOPX');
const root = PW_ROOT;
const actor = { name: PW_AGENT, kind: 'agent' as const };
const RETRIED = new Set(['store_moved', 'busy']);
const deadline = Date.now() + 90_000;
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

const report = { agent: PW_AGENT, told: [] as string[], retried: { store_moved: 0, busy: 0 }, engines: { sqlite: 0, team: 0 } };
let kernel = PW_MODE === 'kernel' ? Kernel.open(root, { actor }) : null;

/** One write; the code it was refused with when that is one to retry, else null (landed). */
function write(title: string): string | null {
  if (kernel) {
    const engine = kernel.engine instanceof SqliteEngine ? 'sqlite' : 'team';
    try {
      addTodo(kernel, { goalId: PW_GOAL as string, title });
      report.engines[engine]++;
      return null;
    } catch (error) {
      if (error instanceof LoopxError && RETRIED.has(error.code)) {
        if (error.code === 'store_moved') {
          kernel.close();
          kernel = Kernel.open(root, { actor });
        }
        return error.code;
      }
      throw error;
    }
  }
  const team = existsSync(`${root}/.loopx/team.json`);
  const run = spawnSync(process.execPath, [PW_LOOPX as string, 'todo', 'add', '--goal', PW_GOAL as string, '--title', title, '--json'], {
    cwd: root,
    env: { ...process.env, LOOPX_AGENT: PW_AGENT },
    encoding: 'utf8',
  });
  const answer = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { ok?: boolean; error?: { code: string; message: string } };
  if (answer.ok) {
    // The pointer was there before the call began: the call surely used the team store.
    report.engines[team ? 'team' : 'sqlite']++;
    return null;
  }
  if (answer.error && RETRIED.has(answer.error.code)) return answer.error.code;
  throw new Error(`${PW_AGENT}: todo add exited ${run.status}: ${run.stdout}${run.stderr}`);
}

/** Stop once told to and a few writes went through the team store; a writer that never reaches it stops 5 s later. */
let stopSeen = 0;
const done = (): boolean => {
  if (!stopSeen && existsSync(PW_STOP)) stopSeen = Date.now();
  return stopSeen > 0 && (report.engines.team >= 3 || Date.now() - stopSeen > 5_000);
};
for (let n = 1; !done(); n++) {
  const title = `${PW_AGENT} write ${n}`;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`${PW_AGENT}: still writing at the deadline`);
    const refused = write(title);
    if (refused === null) break;
    report.retried[refused as 'store_moved' | 'busy']++;
  }
  report.told.push(title);
  if (kernel) sleep(5);
}
kernel?.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
