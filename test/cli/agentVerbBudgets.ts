/**
 * What each agent verb may cost per call (test/cli/agentVerbCost.test.ts), set from the figures measured after
 * issue 39's diet plus a small margin: about 2% of a bundle's bytes, two modules, two SQL statements, and the events,
 * event bytes and fsyncs a call makes today. A feature that needs more raises the budget in the same change and says
 * why in its message; a call that grew by mistake fails there, naming the verb and the measure.
 *
 * Raised once since, by about 5.5 KB and one module a verb: the todo transition table every write and every applied
 * event asks (todos/todoTransitions.ts, issue 38), the person's-payload rules the appender asks (authority.ts
 * PERSONS_PAYLOADS), and the team client's early connect and timing line (team/syncPg.ts). The same merge had
 * pulled zod back in through a constant of teamSchema.ts; this test named it and it went (team/teamRoles.ts).
 *
 * Raised for peer review (issue 42): turn-start by 8 KB and three modules (a review turn's start, its prompt and the
 * change's scope read from git), todo-ship by one statement (whether the todo's goal asks for review: an agent's ship
 * then submits the change). The review verbs run through dist/cli.js, not bundles of their own: a few calls a review
 * turn, against the 660 KB four more bundles would add to the CLI package.
 * Then turn-start by one statement: the todos sent back from review that wait for their implementer (reviewHold.ts),
 * left out of another agent's plan.
 *
 * Then turn-finish by 1 KB (every bundle grew about that much): a team store's one-shot read catches up on its own
 * thread first (team/teamEngine.ts catchUpFirst), so that it starts no worker thread (issue 38).
 *
 * Then turn-start by 1 KB (no module: the margin held it): the PATH a turn's own loopx pins and the git it runs for a worktree are the person's, found
 * outside loopx workspaces (kernel/personsPath.ts): a `node` or `git` an agent planted in an activated .venv/bin ran as
 * the person.
 *
 * Then turn-start by 1 KB and one module (session 29): a ready list's count from the kept holds (todos/todoQueries.ts countReady), the
 * one home for a written LIMIT (db/limitSql.ts: a bound one is prepared again every run) and the connection's bounded
 * statement cache, and the terminal's PATH a Codex agent's shell gets (runtime/hostBoundary.ts).
 *
 * Then turn-finish by 0.5 KB (session 30): every git loopx runs runs no hooks (worktrees/git.ts NO_HOOKS), which an
 * agent writes in the workspace (husky, lefthook, a .githooks folder) and git ran as the person, outside its sandbox.
 *
 * Then every verb by 3.5 KB (turn-start 4 and one module; session 31): an agent's one-shot write on a team store commits after its command on the
 * connection its catch-up opened (team/laterCommit.ts), where it started a worker thread (claim 1.71x SQLite's, now
 * 1.41x; issue 38). Every bundle carries it because every bundle carries the team kernel (27 KB of team/ code in
 * todo-claim's, about a sixth): loading team mode by path only where a workspace is in team mode is the way to take
 * it back, once its errors keep their class across bundles (describeError).
 *
 * Module counts raised to what is measured (one to three a verb; status and goal-show 1 KB) when files split without new code: the
 * team client's worker in team/pgWorker.ts, the read models in kernel/readModels/, a monitor tick's steps in
 * monitors/tickSteps.ts and continuations.ts. More modules for the same code; the margin they ate is not given back.
 *
 * Then turn-finish by 0.5 KB (session 35; no module): a store's switch to WAL is tried again until the busy timeout
 * (db/openDb.ts switchToWal), which SQLite answers with SQLITE_BUSY at once while another process writes a new file.
 *
 * Then todo-ship, turn-start (and one module each) and turn-finish by 0.5 KB (session 42): the kernel writes its
 * times itself (time.ts iso, about 0.3 KB a bundle) instead of Date's toISOString, whose first call looks up the
 * machine's time zone (1 ms); node:os is fetched where it is used (kernel/nodeOs.ts), not loaded by every call (0.5 ms).
 * Lowered: status and goal-show by two statements a goal, their should-run taking the ready todo they read already
 * (quotaQueries.ts PlanKnown.firstReady) instead of walking the ready todos again.
 *
 * - bundleBytes: the verb's bundle (dist/agent/<verb>.js), all the JavaScript the call loads and compiles
 * - modules: the modules in that bundle, each evaluated at start-up
 * - sql: db.exec calls plus runs of prepared statements in one call (LOOPX_COUNT=1)
 * - events / eventBytes: what one call appends to the log (0 for a read)
 * - fsyncs: fsync and fdatasync calls the process makes (strace; a durable write's floor is one). A write makes two:
 *   its commit to the WAL and, once per connection, the store's folder (SQLite syncs the folder of a WAL it opens
 *   with create rights). Five until the CLI left its connection to the exit (Kernel.leaveForExit): the last close
 *   checkpointed the WAL into the database and deleted it, and the next call made it again.
 */
export interface CallBudget {
  bundleBytes: number;
  modules: number;
  sql: number;
  events: number;
  eventBytes: number;
  fsyncs: number;
}

export const AGENT_VERB_BUDGETS: Record<string, CallBudget> = {
  status: { bundleBytes: 166_500, modules: 123, sql: 34, events: 0, eventBytes: 0, fsyncs: 0 },
  'goal-list': { bundleBytes: 159_500, modules: 120, sql: 11, events: 0, eventBytes: 0, fsyncs: 0 },
  'goal-show': { bundleBytes: 165_500, modules: 125, sql: 24, events: 0, eventBytes: 0, fsyncs: 0 },
  'todo-add': { bundleBytes: 168_500, modules: 128, sql: 18, events: 1, eventBytes: 290, fsyncs: 2 },
  'todo-list': { bundleBytes: 163_500, modules: 122, sql: 11, events: 0, eventBytes: 0, fsyncs: 0 },
  'todo-next': { bundleBytes: 160_500, modules: 120, sql: 13, events: 0, eventBytes: 0, fsyncs: 0 },
  'todo-show': { bundleBytes: 171_500, modules: 129, sql: 23, events: 0, eventBytes: 0, fsyncs: 0 },
  'todo-claim': { bundleBytes: 166_500, modules: 121, sql: 24, events: 1, eventBytes: 340, fsyncs: 2 },
  'todo-renew': { bundleBytes: 162_500, modules: 121, sql: 17, events: 1, eventBytes: 250, fsyncs: 2 },
  'todo-release': { bundleBytes: 162_500, modules: 122, sql: 17, events: 1, eventBytes: 250, fsyncs: 2 },
  'todo-ship': { bundleBytes: 170_000, modules: 132, sql: 24, events: 2, eventBytes: 510, fsyncs: 2 },
  'todo-block': { bundleBytes: 163_500, modules: 127, sql: 17, events: 1, eventBytes: 260, fsyncs: 2 },
  'evidence-add': { bundleBytes: 165_500, modules: 124, sql: 16, events: 1, eventBytes: 280, fsyncs: 2 },
  'evidence-list': { bundleBytes: 161_500, modules: 121, sql: 12, events: 0, eventBytes: 0, fsyncs: 0 },
  'gate-ask': { bundleBytes: 162_500, modules: 121, sql: 18, events: 1, eventBytes: 260, fsyncs: 2 },
  'gate-list': { bundleBytes: 159_500, modules: 120, sql: 11, events: 0, eventBytes: 0, fsyncs: 0 },
  'quota-show': { bundleBytes: 163_500, modules: 123, sql: 27, events: 0, eventBytes: 0, fsyncs: 0 },
  'quota-should-run': { bundleBytes: 163_500, modules: 123, sql: 28, events: 0, eventBytes: 0, fsyncs: 0 },
  handoff: { bundleBytes: 162_500, modules: 120, sql: 19, events: 1, eventBytes: 340, fsyncs: 2 },
  'handoff-accept': { bundleBytes: 160_500, modules: 119, sql: 20, events: 1, eventBytes: 330, fsyncs: 2 },
  'turn-start': { bundleBytes: 207_500, modules: 151, sql: 47, events: 2, eventBytes: 630, fsyncs: 2 },
  'turn-finish': { bundleBytes: 194_000, modules: 142, sql: 32, events: 2, eventBytes: 620, fsyncs: 2 },
  'monitor-tick': { bundleBytes: 189_500, modules: 133, sql: 13, events: 0, eventBytes: 0, fsyncs: 0 },
};

/** The only packages an agent verb's bundle may hold: SQLite's driver and its loader, hashing, the team pointer's ini, TOML. */
export const PACKAGES_IN_AGENT_BUNDLES = ['better-sqlite3', 'bindings', 'file-uri-to-path', '@noble/hashes', 'ini', 'smol-toml'];
