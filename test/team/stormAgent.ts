import { randomUUID } from 'node:crypto';
import { claimNext } from '../../src/kernel/todos/claims';
import { shipTodo } from '../../src/kernel/todos/todos';
import { openTeamKernel, teamConnection } from '../../src/kernel/team/teamStore';
import { LoopxError } from '../../src/kernel/errors';
import type { AgentReport, WriteRecord } from './agentProcess';

/**
 * One agent process of a storm (storm.test.ts and the fault tests bundle and spawn it): claims the next todo of the
 * goal and ships it, until nothing is ready. Its machine is its replica file (processes of one machine share it).
 * Prints one JSON line (AgentReport).
 *
 * STORM_RESILIENT=1 is an agent that meets faults (the server restarted, its connection killed, a partition): a write
 * that fails with `team_unreachable` or `team_outcome_unknown` is recorded with its operation id and the agent goes
 * on as a careful agent would: it first ships whatever the store says it holds (a claim whose outcome it did not
 * know may have landed), then claims again. It gives up at STORM_DEADLINE (epoch ms).
 */
const env = process.env;
const { STORM_REPLICA, STORM_AGENT, STORM_GOAL, STORM_ROOT, STORM_FAULT, STORM_START_AT, STORM_OWN_GOAL } = env;
if (!STORM_REPLICA || !STORM_AGENT || !STORM_GOAL || !STORM_ROOT)
  throw new Error('stormAgent needs STORM_REPLICA, STORM_AGENT, STORM_GOAL, STORM_ROOT');
const resilient = env.STORM_RESILIENT === '1';
const deadline = Number(env.STORM_DEADLINE ?? Date.now() + 120_000);
const ms = (name: string) => (env[name] ? Number(env[name]) : undefined);

const sleep = (millis: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, millis);
/** The team errors a fault causes: the agent waits and goes on. Any other error ends it (the test then fails). */
const FAULT_CODES = new Set(['team_unreachable', 'team_outcome_unknown']);

let lastOpId = '';
const open = () => {
  for (;;) {
    try {
      return openTeamKernel(STORM_ROOT, {
        replicaPath: STORM_REPLICA,
        connection: {
          ...teamConnection(),
          timeoutMs: ms('STORM_TIMEOUT_MS'),
          connectTimeoutMs: ms('STORM_CONNECT_TIMEOUT_MS'),
          idleInTransactionTimeoutMs: ms('STORM_IDLE_TX_MS'),
        },
        actor: { name: STORM_AGENT, kind: 'agent' },
      });
    } catch (error) {
      if (!resilient || !(error instanceof LoopxError && FAULT_CODES.has(error.code)) || Date.now() > deadline) throw error;
      sleep(100);
    }
  }
};
const { kernel, engine } = open();
// Every write's operation id, so the test can find it in the log (or not).
engine.newOperationId = () => (lastOpId = randomUUID());

// Every process starts claiming at the same instant, once all have started: the race is real.
const wait = Number(STORM_START_AT) - Date.now();
if (wait > 0) sleep(wait);
let faults = 0;
const shipped: string[] = [];
const refusals: string[] = [];
const writes: WriteRecord[] = [];
const started = performance.now();

/** Runs one write; records its outcome. Returns undefined when a fault made it fail (resilient agents only). */
function attempt<T>(op: WriteRecord['op'], todo: string | null, fn: () => T): T | undefined {
  try {
    const value = fn();
    writes.push({ op, todo, opId: lastOpId, outcome: 'ok' });
    return value;
  } catch (error) {
    if (!(error instanceof LoopxError)) throw error;
    if (resilient && FAULT_CODES.has(error.code)) {
      writes.push({
        op,
        todo,
        opId: lastOpId,
        outcome: error.code as WriteRecord['outcome'],
        reportedOpId: (error.data as { opId?: string } | undefined)?.opId,
      });
      if (Date.now() > deadline) throw new Error(`${STORM_AGENT}: still failing at the deadline: ${error.message}`, { cause: error });
      sleep(50);
      return undefined;
    }
    throw error;
  }
}

/** The todos the store says this agent holds (a claim whose outcome was unknown may have landed). */
function held(goalId: string): string[] | undefined {
  try {
    return kernel.read((db) =>
      db
        .prepare(`SELECT id FROM todos WHERE goal_id = ? AND status = 'claimed' AND owner = ? ORDER BY num`)
        .all(goalId, STORM_AGENT as string)
        .map((row) => String(row.id)),
    );
  } catch (error) {
    if (resilient && error instanceof LoopxError && FAULT_CODES.has(error.code)) {
      sleep(50);
      return undefined;
    }
    throw error;
  }
}

function ship(id: string): void {
  try {
    if (attempt('ship', id, () => shipTodo(kernel, id, { evidence: `shipped by ${STORM_AGENT}` }))) {
      shipped.push(id);
      // The work between two todos (STORM_PAUSE_MS): keeps a storm going long enough for a fault to meet it.
      if (env.STORM_PAUSE_MS) sleep(Number(env.STORM_PAUSE_MS));
    }
  } catch (error) {
    // A ship refused (its lease lost to someone else) would be a double claim: reported, and the test fails.
    refusals.push(`${id}: ${error instanceof LoopxError ? error.code : String(error)}`);
  }
}

try {
  // A faulty agent works its own goal first (nobody else claims there), so its first commit surely meets the fault,
  // while the others storm the shared goal; then it joins them.
  for (const goalId of [...(STORM_OWN_GOAL ? [STORM_OWN_GOAL] : []), STORM_GOAL])
    for (;;) {
      if (resilient) {
        const mine = held(goalId);
        if (!mine) continue;
        for (const id of mine) ship(id);
        if (mine.length > 0) continue;
      }
      // A faulty network: this agent loses its connection around every claim's COMMIT (before it ran, or after).
      if (STORM_FAULT === 'lose-before' || STORM_FAULT === 'lose-after')
        engine.pg.injectFault(STORM_FAULT, (statements) => {
          const commit = statements.length > 1 && statements.at(-1)?.text === 'COMMIT';
          if (commit) faults++;
          return commit;
        });
      let id: string | undefined;
      try {
        id = attempt('claim', null, () => claimNext(kernel, { goalId }).todo.id);
      } catch (error) {
        if (error instanceof LoopxError && error.code === 'no_ready_work') break;
        throw error;
      }
      const claim = writes.at(-1);
      if (id === undefined) continue;
      if (claim) claim.todo = id;
      if (!resilient) ship(id);
    }
} finally {
  const { batches, waitedMs } = engine.pg.stats;
  const report: AgentReport = {
    agent: STORM_AGENT,
    faults,
    shipped,
    refusals,
    writes,
    batches,
    waitedMs,
    ms: performance.now() - started,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  kernel.close();
}
