import { existsSync } from 'node:fs';
import type { Command } from '../command';
import { Kernel } from '../../kernel/kernel';
import { EXIT, LoopxError } from '../../kernel/errors';
import { openDb } from '../../kernel/db/openDb';
import { logHead } from '../../kernel/events/anchor';
import { locateRoot } from '../../runtime/locate';
import { type TeamStoreFacts, teamStoreFacts } from '../../kernel/team/teamInspect';
import { readTeamPointer, resolveTeamConnection, teamReplicaPath } from '../../kernel/team/teamPointer';
import { shown, where, withPg } from './teamShared';

// `loopx team status`: where this workspace points, asked of the server (any identity may ask).

export const teamStatus: Command = {
  name: ['team', 'status'],
  summary: 'where this workspace points: the team store, reachable or not, your role, the log head and the replica lag',
  readOnly: true,
  examples: ['loopx team status', 'loopx team status --json'],
  run(ctx) {
    const root = locateRoot(where(ctx));
    const pointer = readTeamPointer(root);
    if (!pointer)
      return {
        data: { team: false, root },
        text: `This workspace uses its own store (${shown(Kernel.storePath(root))}); it is not in team mode.`,
      };
    const connection = resolveTeamConnection(pointer.database, ctx.env);
    const replica = replicaHead(teamReplicaPath(root));
    const base = {
      team: true,
      root,
      pointer: pointer.database,
      database: connection.shown,
      source: connection.source,
      replica: { path: teamReplicaPath(root), seq: replica },
    };
    let facts: TeamStoreFacts;
    try {
      facts = withPg(connection, teamStoreFacts);
    } catch (error) {
      const problem = error instanceof LoopxError ? error : new LoopxError('team_unreachable', String(error), EXIT.storeUnusable);
      return {
        data: { ...base, reachable: false, problem: { code: problem.code, message: problem.message } },
        text: `Team store: ${connection.shown ?? 'libpq environment'} (from ${connection.source}), NOT reachable: ${problem.message}\nReplica: event ${replica ?? 'none yet'}.`,
        failure: { code: problem.code, message: problem.message, hint: problem.hint, exitCode: problem.exitCode },
      };
    }
    const lag = facts.headSeq === null || replica === null ? null : Math.max(0, facts.headSeq - replica);
    const data = {
      ...base,
      reachable: true,
      role: facts.role,
      human: facts.human,
      agent: facts.agent,
      head: facts.headSeq,
      lag,
      synchronousCommit: facts.synchronousCommit,
      serverVersion: facts.serverVersion,
    };
    const who = facts.human
      ? "a person's role (loopx_humans)"
      : facts.agent
        ? "an agent's role (loopx_agents)"
        : 'neither loopx_humans nor loopx_agents';
    return {
      data,
      text: [
        `Team store: ${connection.shown ?? 'libpq environment'} (from ${connection.source}), reachable, PostgreSQL ${facts.serverVersion}.`,
        `Logged in as ${facts.role}: ${who}.`,
        facts.headSeq === null
          ? 'The database has no loopx schema: its owner runs `loopx team init`.'
          : `Log head: event ${facts.headSeq}.`,
        `Replica: ${replica === null ? 'not built yet (the next command builds it)' : `event ${replica}${lag ? `, ${lag} behind (caught up on the next command)` : ', caught up'}`}.`,
      ].join('\n'),
    };
  },
};

/** The replica's newest event, read without catching up (null when there is no replica yet). */
function replicaHead(path: string): number | null {
  if (!existsSync(path)) return null;
  try {
    const db = openDb(path, undefined, { readOnly: true });
    try {
      return logHead(db)?.seq ?? 0;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}
