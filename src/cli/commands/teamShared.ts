import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { CommandContext } from '../command';
import type { Actor } from '../../kernel/events/eventTypes';
import { Kernel, STORE_DIR } from '../../kernel/kernel';
import { EXIT, LoopxError } from '../../kernel/errors';
import { BACKUP_DIR } from '../../kernel/backup';
import { SyncPg } from '../../kernel/team/syncPg';
import { teamError } from '../../kernel/team/teamErrors';
import { type TeamStoreFacts } from '../../kernel/team/teamInspect';
import { type ResolvedConnection, checkTeamUrl } from '../../kernel/team/teamPointer';
import { iso } from '../../kernel/time';

// What the `loopx team …` verbs share (team.ts, teamLeave.ts, teamStatus.ts).

export const DATABASE_FLAG = {
  database: {
    type: 'string' as const,
    value: 'URL',
    description: 'the team store, postgresql://[user@]host[:port]/dbname (no password: use ~/.pgpass, a service file or PGPASSWORD)',
  },
};

/**
 * The person a team verb records: these verbs are humanOnly, so the CLI has already required a person at an
 * interactive terminal (main.ts, terminalActor) before `run`; the record names that channel.
 */
export const person = (ctx: CommandContext): Actor => ({ ...ctx.actor, channel: 'tty' });

export const where = (ctx: CommandContext) => ({ root: ctx.args.str('root'), envRoot: ctx.env.LOOPX_ROOT, cwd: ctx.cwd });
export const shown = (path: string) => {
  const r = relative(process.cwd(), path);
  return r && !r.startsWith('..') ? r : path;
};

export class TeamModeError extends LoopxError {
  constructor(code: 'team_mode_already' | 'team_mode_off' | 'team_not_installed' | 'team_url_required', message: string, hint: string) {
    super(code, message, code === 'team_url_required' ? EXIT.invalidInput : EXIT.refused, hint);
  }
}

/** A short-lived connection for one verb; PostgreSQL's errors become the kernel's (unreachable: exit 6). */
export function withPg<T>(connection: ResolvedConnection, fn: (pg: SyncPg) => T): T {
  const pg = new SyncPg({ ...connection.settings, timeoutMs: 15_000 });
  try {
    return fn(pg);
  } catch (error) {
    throw teamError(error);
  } finally {
    pg.close();
  }
}

/** The URL a verb writes into the pointer: --database, else LOOPX_DATABASE_URL (without a password either way). */
export function pointerUrl(ctx: CommandContext): string {
  const flag = ctx.args.str('database');
  if (flag !== undefined) return checkTeamUrl(flag, '--database');
  const fromEnv = ctx.env.LOOPX_DATABASE_URL?.trim();
  if (fromEnv) return checkTeamUrl(fromEnv, 'LOOPX_DATABASE_URL (written into .loopx/team.json)');
  throw new TeamModeError('team_url_required', 'name the team store', 'pass --database postgresql://host:port/dbname');
}

export function requireInstalled(facts: TeamStoreFacts, url: string | null): void {
  if (facts.headSeq === null)
    throw new TeamModeError(
      'team_not_installed',
      `${url ?? 'the database'} has no loopx team store (schema loopx) yet`,
      'its owner runs `loopx team init --database URL` first',
    );
}

/** Moves `.loopx/loopx.db` (and its -wal and -shm) into .loopx/backups/, renamed: nothing is deleted. */
export function moveLocalStoreAside(root: string, why: string): string | null {
  const store = Kernel.storePath(root);
  if (!existsSync(store)) return null;
  const folder = join(root, STORE_DIR, BACKUP_DIR);
  mkdirSync(folder, { recursive: true });
  const stamp = iso(Date.now()).replace(/[-:.]/g, '');
  const to = join(folder, `loopx-${stamp}-${why}.db`);
  renameSync(store, to);
  for (const suffix of ['-wal', '-shm']) if (existsSync(`${store}${suffix}`)) renameSync(`${store}${suffix}`, `${to}${suffix}`);
  return to;
}
