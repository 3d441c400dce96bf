import { claimNext } from '../../src/kernel/todos/claims';
import { shipTodo } from '../../src/kernel/todos/todos';
import { openTeamKernel, teamConnection } from '../../src/kernel/team/teamStore';
import { LoopxError } from '../../src/kernel/errors';

/**
 * One agent process of the storm (storm.test.ts bundles and spawns it): claims the next todo of the goal and ships it,
 * until nothing is ready. Its machine is its replica file (processes of one machine share it). Prints one JSON line.
 */
const { STORM_REPLICA, STORM_AGENT, STORM_GOAL, STORM_ROOT, STORM_FAULT, STORM_START_AT, STORM_OWN_GOAL } = process.env;
if (!STORM_REPLICA || !STORM_AGENT || !STORM_GOAL || !STORM_ROOT)
  throw new Error('stormAgent needs STORM_REPLICA, STORM_AGENT, STORM_GOAL, STORM_ROOT');

const { kernel, engine } = openTeamKernel(STORM_ROOT, {
  replicaPath: STORM_REPLICA,
  connection: teamConnection(),
  actor: { name: STORM_AGENT, kind: 'agent' },
});
// Every process starts claiming at the same instant, once all have started: the race is real.
const wait = Number(STORM_START_AT) - Date.now();
if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
let faults = 0;
const shipped: string[] = [];
const refusals: string[] = [];
const started = performance.now();
try {
  // A faulty agent works its own goal first (nobody else claims there), so its first commit surely meets the fault,
  // while the others storm the shared goal; then it joins them.
  for (const goalId of [...(STORM_OWN_GOAL ? [STORM_OWN_GOAL] : []), STORM_GOAL])
    for (;;) {
      let id: string;
      // A faulty network: this agent loses its connection around every claim's COMMIT (before it ran, or after).
      if (STORM_FAULT === 'lose-before' || STORM_FAULT === 'lose-after')
        engine.pg.injectFault(STORM_FAULT, (statements) => {
          const commit = statements.length > 1 && statements.at(-1)?.text === 'COMMIT';
          if (commit) faults++;
          return commit;
        });
      try {
        id = claimNext(kernel, { goalId }).todo.id;
      } catch (error) {
        if (error instanceof LoopxError && error.code === 'no_ready_work') break;
        throw error;
      }
      try {
        shipTodo(kernel, id, { evidence: `shipped by ${STORM_AGENT}` });
        shipped.push(id);
      } catch (error) {
        // A ship refused (its lease lost to someone else) would be a double claim: reported, and the test fails.
        refusals.push(`${id}: ${error instanceof LoopxError ? error.code : String(error)}`);
      }
    }
} finally {
  const { batches, waitedMs } = engine.pg.stats;
  process.stdout.write(
    `${JSON.stringify({ agent: STORM_AGENT, faults, shipped, refusals, batches, waitedMs, ms: performance.now() - started })}\n`,
  );
  kernel.close();
}
