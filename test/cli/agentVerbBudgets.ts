/**
 * What each agent verb may cost per call (test/cli/agentVerbCost.test.ts), set from the figures measured after
 * issue 39's diet plus a small margin: about 2% of a bundle's bytes, two modules, two SQL statements, and the events,
 * event bytes and fsyncs a call makes today. A feature that needs more raises the budget in the same change and says
 * why in its message; a call that grew by mistake fails there, naming the verb and the measure.
 *
 * - bundleBytes: the verb's bundle (dist/agent/<verb>.js), all the JavaScript the call loads and compiles
 * - modules: the modules in that bundle, each evaluated at start-up
 * - sql: db.exec calls plus runs of prepared statements in one call (LOOPX_COUNT=1)
 * - events / eventBytes: what one call appends to the log (0 for a read)
 * - fsyncs: fsync and fdatasync calls the process makes (strace; a durable write's floor is one)
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
  status: { bundleBytes: 153_000, modules: 117, sql: 36, events: 0, eventBytes: 0, fsyncs: 0 },
  'goal-list': { bundleBytes: 147_000, modules: 116, sql: 11, events: 0, eventBytes: 0, fsyncs: 0 },
  'goal-show': { bundleBytes: 152_000, modules: 119, sql: 26, events: 0, eventBytes: 0, fsyncs: 0 },
  'todo-add': { bundleBytes: 156_000, modules: 125, sql: 18, events: 1, eventBytes: 290, fsyncs: 5 },
  'todo-list': { bundleBytes: 150_000, modules: 118, sql: 11, events: 0, eventBytes: 0, fsyncs: 0 },
  'todo-next': { bundleBytes: 148_000, modules: 116, sql: 13, events: 0, eventBytes: 0, fsyncs: 0 },
  'todo-show': { bundleBytes: 159_000, modules: 125, sql: 23, events: 0, eventBytes: 0, fsyncs: 0 },
  'todo-claim': { bundleBytes: 153_000, modules: 117, sql: 24, events: 1, eventBytes: 340, fsyncs: 5 },
  'todo-renew': { bundleBytes: 149_000, modules: 117, sql: 17, events: 1, eventBytes: 250, fsyncs: 5 },
  'todo-release': { bundleBytes: 150_000, modules: 118, sql: 17, events: 1, eventBytes: 250, fsyncs: 5 },
  'todo-ship': { bundleBytes: 157_000, modules: 128, sql: 22, events: 2, eventBytes: 510, fsyncs: 5 },
  'todo-block': { bundleBytes: 151_000, modules: 124, sql: 17, events: 1, eventBytes: 260, fsyncs: 5 },
  'evidence-add': { bundleBytes: 153_000, modules: 120, sql: 16, events: 1, eventBytes: 280, fsyncs: 5 },
  'evidence-list': { bundleBytes: 148_000, modules: 117, sql: 12, events: 0, eventBytes: 0, fsyncs: 0 },
  'gate-ask': { bundleBytes: 150_000, modules: 117, sql: 18, events: 1, eventBytes: 260, fsyncs: 5 },
  'gate-list': { bundleBytes: 147_000, modules: 116, sql: 11, events: 0, eventBytes: 0, fsyncs: 0 },
  'quota-show': { bundleBytes: 151_000, modules: 119, sql: 27, events: 0, eventBytes: 0, fsyncs: 0 },
  'quota-should-run': { bundleBytes: 151_000, modules: 119, sql: 28, events: 0, eventBytes: 0, fsyncs: 0 },
  handoff: { bundleBytes: 150_000, modules: 116, sql: 19, events: 1, eventBytes: 340, fsyncs: 5 },
  'handoff-accept': { bundleBytes: 148_000, modules: 115, sql: 20, events: 1, eventBytes: 330, fsyncs: 5 },
  'turn-start': { bundleBytes: 180_000, modules: 140, sql: 46, events: 2, eventBytes: 630, fsyncs: 5 },
  'turn-finish': { bundleBytes: 179_000, modules: 139, sql: 32, events: 2, eventBytes: 620, fsyncs: 5 },
  'monitor-tick': { bundleBytes: 177_000, modules: 127, sql: 13, events: 0, eventBytes: 0, fsyncs: 0 },
};

/** The only packages an agent verb's bundle may hold: SQLite's driver and its loader, hashing, the team pointer's ini, TOML. */
export const PACKAGES_IN_AGENT_BUNDLES = ['better-sqlite3', 'bindings', 'file-uri-to-path', '@noble/hashes', 'ini', 'smol-toml'];
