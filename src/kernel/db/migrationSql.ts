/**
 * Every migration's SQL, kept out of the agent verbs' bundles (loaded by path on first use, esbuild.mjs): a store that
 * is up to date needs none of it, and it is a tenth of each bundle.
 */
import m0001 from '../migrations/0001_init.sql';
import m0002 from '../migrations/0002_turns.sql';
import m0003 from '../migrations/0003_id_high_water.sql';
import m0004 from '../migrations/0004_monitors.sql';
import m0005 from '../migrations/0005_goal_files.sql';
import m0006 from '../migrations/0006_todos_goal_order.sql';
import m0007 from '../migrations/0007_agent_checks.sql';
import m0008 from '../migrations/0008_unattended_turns.sql';
import m0009 from '../migrations/0009_hooks.sql';
import m0010 from '../migrations/0010_usage.sql';
import m0011 from '../migrations/0011_worktrees.sql';
import m0012 from '../migrations/0012_worktree_setup.sql';
import m0013 from '../migrations/0013_prices.sql';
import m0014 from '../migrations/0014_human_events.sql';
import m0015 from '../migrations/0015_set_aside.sql';
import m0016 from '../migrations/0016_todo_counts.sql';
import m0017 from '../migrations/0017_turn_partial_indexes.sql';
import m0018 from '../migrations/0018_store_meta.sql';
import m0019 from '../migrations/0019_cache_writes.sql';
import m0020 from '../migrations/0020_goal_host.sql';
import m0021 from '../migrations/0021_review.sql';
import m0022 from '../migrations/0022_fewer_walks.sql';
import m0023 from '../migrations/0023_ready_count.sql';

/** Numbered migrations; index i holds the SQL that takes the schema from version i to i + 1. */
export const MIGRATIONS: readonly string[] = [
  m0001,
  m0002,
  m0003,
  m0004,
  m0005,
  m0006,
  m0007,
  m0008,
  m0009,
  m0010,
  m0011,
  m0012,
  m0013,
  m0014,
  m0015,
  m0016,
  m0017,
  m0018,
  m0019,
  m0020,
  m0021,
  m0022,
  m0023,
];

/** The SQL that takes the schema from `version` to `version + 1`. */
export function migrationSql(version: number): string {
  const sql = MIGRATIONS[version];
  if (sql === undefined) throw new Error(`no migration from schema ${version}`);
  return sql;
}
