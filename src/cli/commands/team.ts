import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { registerQuietly } from '../../kernel/projects/projectRegistry';
import { readStoreId } from '../../kernel/projects/storeIdentity';
import type { Command, CommandContext } from '../command';
import { Kernel, STORE_DIR } from '../../kernel/kernel';
import { EXIT, LoopxError, NotAllowedError } from '../../kernel/errors';
import { logHead } from '../../kernel/events/anchor';
import { locateRoot } from '../../runtime/locate';
import { ensureGitignore } from '../../runtime/gitignore';
import { moveStoreIn } from '../../kernel/team/moveIn';
import { TeamNotDurableError, teamWhere } from '../../kernel/team/teamErrors';
import { recordTeamMove } from '../../kernel/team/teamEvents';
import { teamStoreFacts } from '../../kernel/team/teamInspect';
import {
  checkTeamUrl,
  readTeamPointer,
  removeTeamPointer,
  resolveTeamConnection,
  teamPointerPath,
  teamReplicaPath,
  writeTeamPointer,
} from '../../kernel/team/teamPointer';
import { AGENTS_ROLE, HUMANS_ROLE } from '../../kernel/team/teamSchema';
import { type OwnerMembership, grantOwnerHumans, installTeamSchema } from '../../kernel/team/teamStore';
import {
  DATABASE_FLAG,
  TeamModeError,
  moveLocalStoreAside,
  person,
  pointerUrl,
  requireInstalled,
  shown,
  where,
  withPg,
} from './teamShared';
import { teamLeave } from './teamLeave';
import { teamStatus } from './teamStatus';

// `loopx team …`: a person points a workspace at a team store (PostgreSQL) and back. Every verb but `status` is a
// person's decision (humanOnly: refused to an agent identity and without an interactive terminal), and changes
// nothing on bad input: URLs and the server are checked before any file is written.

/** Opens the workspace's team store (building or catching up its replica) and reports the replica's head. */
function buildReplica(root: string, ctx: CommandContext): { events: number; replica: string } {
  const kernel = Kernel.open(root, { actor: ctx.actor });
  try {
    const head = kernel.read((db) => logHead(db));
    return { events: head?.seq ?? 0, replica: teamReplicaPath(root) };
  } finally {
    kernel.close();
  }
}

/** Whether a verb's record landed: its seq, or why the team store refused it. */
interface Recorded {
  seq: number | null;
  why?: string;
}

/**
 * Writes `team.joined` through the kernel, as the person. A login granted only loopx_agents (an agent's or CI
 * machine's) may not write a person's event: the database refuses it, the join stands, and the answer says so.
 */
function recordJoin(root: string, ctx: CommandContext, facts: { database: string; events: number }): Recorded {
  const kernel = Kernel.open(root, { actor: person(ctx) });
  try {
    return { seq: kernel.write((tx) => recordTeamMove(tx, 'team.joined', facts).seq) };
  } catch (error) {
    if (error instanceof NotAllowedError) return { seq: null, why: error.message };
    throw error;
  } finally {
    kernel.close();
  }
}

export const teamInit: Command = {
  name: ['team', 'init'],
  summary: "install loopx's schema and roles in a PostgreSQL database, as its owner (a person only)",
  description:
    'Creates (or brings up to date) schema loopx and the roles loopx_humans and loopx_agents in the database. Run it\n' +
    "as the database's owner; then grant each person's login loopx_humans and each agent's login loopx_agents.",
  flags: DATABASE_FLAG,
  humanOnly: true,
  examples: ['loopx team init --database postgresql://db.example:5432/loopx'],
  run(ctx) {
    const flag = ctx.args.str('database');
    const url = flag === undefined ? undefined : checkTeamUrl(flag, '--database');
    const connection = resolveTeamConnection(url ?? readPointerQuietly(ctx)?.database, ctx.env);
    try {
      installTeamSchema({ ...connection.settings, timeoutMs: 60_000 });
    } catch (error) {
      if (error instanceof NotAllowedError)
        throw new LoopxError(
          'not_allowed',
          `the database refused to install loopx's schema: ${error.message}`,
          EXIT.refused,
          "run `loopx team init` as the database's owner (or a role that may create schemas and roles)",
        );
      throw error;
    }
    // The owner pushes its store's history (a person's decisions among it) and decides gates: a member of loopx_humans.
    const owner = grantOwnerHumans({ ...connection.settings, timeoutMs: 60_000 });
    const facts = withPg(connection, teamStoreFacts);
    const data = {
      database: connection.shown,
      source: connection.source,
      role: facts.role,
      owner: { humans: owner.humans, ...(owner.humans === 'grant_needed' ? { grant: owner.grant } : {}) },
      roles: { humans: HUMANS_ROLE, agents: AGENTS_ROLE },
      head: facts.headSeq,
      synchronousCommit: facts.synchronousCommit,
    };
    const lines = [
      `Team store ready in ${connection.shown ?? 'the database libpq points at'} (schema loopx, ${facts.headSeq} events), installed as ${facts.role}.`,
      ownerSentence(owner),
      'Grant the roles to logins (as the owner, in psql):',
      `  a person, who decides gates:   CREATE ROLE ada LOGIN;  GRANT ${HUMANS_ROLE} TO ada;`,
      `  an agent or CI machine:        CREATE ROLE ci_agents LOGIN;  GRANT ${AGENTS_ROLE} TO ci_agents;`,
      "Passwords go into each machine's ~/.pgpass or a libpq service file, never into the workspace.",
      "Next: `loopx team push --database URL` moves this workspace's store in, or `loopx team join URL` points a workspace at it.",
    ];
    if (facts.synchronousCommit === 'off')
      lines.push('Warning: synchronous_commit is off on this server; loopx refuses to open the store until it is on.');
    return { data, text: lines.join('\n') };
  },
};

/** What `team init` did about the owner's own membership of loopx_humans, in words. */
function ownerSentence(owner: OwnerMembership): string {
  if (owner.humans === 'member') return `${owner.role} is a member of ${HUMANS_ROLE}: it may push a store and decide gates.`;
  if (owner.humans === 'granted')
    return `${owner.role} is now a member of ${HUMANS_ROLE} (granted just now), so it may push a store and decide gates.`;
  return (
    `${owner.role} may not grant itself ${HUMANS_ROLE}, so it cannot push a store or decide gates yet. ` +
    `A superuser runs, in psql on this database's server:  ${owner.grant}`
  );
}

/** The pointer, when the command runs in a workspace in team mode (init may use its URL); never an error here. */
function readPointerQuietly(ctx: CommandContext): { database: string } | null {
  try {
    return readTeamPointer(locateRoot(where(ctx)));
  } catch {
    return null;
  }
}

export const teamPush: Command = {
  name: ['team', 'push'],
  summary: "move this workspace's store into an empty team store and point the workspace at it (a person only)",
  description:
    'Every event is sent as it is (same seqs, times, hashes) in one transaction, the chain verified before and on\n' +
    'arrival. Then .loopx/team.json points at the team store, the old .loopx/loopx.db is moved into .loopx/backups/\n' +
    "(nothing is deleted) and this machine's replica is built. The push is recorded (team.pushed, the last event moved).\n" +
    'Agents may go on writing: a write waits for the push, and one that meets the moved store is refused (store_moved:\n' +
    'run it again, it uses the team store).',
  flags: DATABASE_FLAG,
  humanOnly: true,
  examples: ['loopx team push --database postgresql://db.example:5432/loopx'],
  run(ctx) {
    const root = locateRoot(where(ctx));
    const pointer = readTeamPointer(root);
    if (pointer)
      throw new TeamModeError(
        'team_mode_already',
        `this workspace already points at a team store (${pointer.database})`,
        'nothing to push; `loopx team status` shows it',
      );
    const url = pointerUrl(ctx);
    const connection = resolveTeamConnection(url, ctx.env);
    const facts = withPg(connection, teamStoreFacts);
    requireInstalled(facts, connection.shown);
    // A server that may forget confirmed writes is refused before anything moves (opening it would be, after).
    if (facts.synchronousCommit === 'off') throw new TeamNotDurableError();
    const database = teamWhere(connection.settings, ctx.env);
    const local = Kernel.open(root, { actor: person(ctx) });
    let moved: { events: number; head: { seq: number; hash: string }; recorded: number };
    try {
      // The whole push is one write of the local store, so its write lock is held from the first read to the pointer:
      // a writer of this machine (an agent's CLI call, an MCP server, `loopx run`) either landed before, and its
      // events move with the rest, or waits on the lock; when it gets it, the store's newest event is `team.pushed`
      // and the pointer exists, so its write is refused (`store_moved`, SqliteEngine) and its retry opens the team
      // store. The record goes in the local log, as the last event of what moves: the move and its record are one
      // PostgreSQL transaction (chained, verified on arrival), and the file left behind says where it went.
      moved = local.write((tx) => {
        const pushed = recordTeamMove(tx, 'team.pushed', { database, events: logHead(tx.db)?.seq ?? 0 });
        const result = moveStoreIn(tx.db, connection.settings);
        // A replica left by an earlier team store would not continue this one's log; removed before any process can
        // open it through the pointer.
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${teamReplicaPath(root)}${suffix}`, { force: true });
        writeTeamPointer(root, url);
        return { ...result, recorded: pushed.seq };
      });
    } finally {
      local.close();
    }
    const aside = moveLocalStoreAside(root, 'before-team');
    const built = buildReplica(root, ctx);
    const data = {
      database: connection.shown,
      pointer: teamPointerPath(root),
      events: moved.events,
      head: moved.head,
      movedAside: aside,
      replica: built.replica,
      recorded: { kind: 'team.pushed', seq: moved.recorded },
    };
    return {
      data,
      text: [
        `Moved ${moved.events} events into the team store at ${connection.shown}, the chain verified on arrival (the last, event ${moved.recorded}, records this push).`,
        `This workspace now points at it (${shown(teamPointerPath(root))}); this machine's replica: ${shown(built.replica)}.`,
        aside ? `The old store is kept at ${shown(aside)} (nothing was deleted).` : '',
        'On other machines: `loopx team join URL`.',
      ]
        .filter(Boolean)
        .join('\n'),
    };
  },
};

export const teamJoin: Command = {
  name: ['team', 'join'],
  summary: 'point this workspace at an existing team store; its replica is built from the log (a person only)',
  description:
    'Writes .loopx/team.json (the URL, never a password). A store this workspace had of its own is moved into\n' +
    '.loopx/backups/ first (nothing is deleted). The server is asked before anything is written. The join is recorded\n' +
    "in the team log (team.joined) when your login is a person's (loopx_humans).",
  positionals: [{ name: 'URL', description: 'postgresql://[user@]host[:port]/dbname', required: true }],
  humanOnly: true,
  examples: ['loopx team join postgresql://db.example:5432/loopx'],
  run(ctx) {
    const url = checkTeamUrl(ctx.args.positionals[0] as string, 'URL');
    const root = ctx.initRoot();
    const pointer = readTeamPointer(root);
    if (pointer)
      throw new TeamModeError(
        'team_mode_already',
        `this workspace already points at a team store (${pointer.database})`,
        'run `loopx team leave` first to point it elsewhere',
      );
    const connection = resolveTeamConnection(url, ctx.env);
    const facts = withPg(connection, teamStoreFacts);
    requireInstalled(facts, connection.shown);
    if (facts.synchronousCommit === 'off') throw new TeamNotDurableError();
    mkdirSync(join(root, STORE_DIR), { recursive: true });
    const aside = moveLocalStoreAside(root, 'before-join');
    writeTeamPointer(root, url);
    // A replica left by an earlier team store would not continue this one's log.
    rmSync(teamReplicaPath(root), { force: true });
    let built: { events: number; replica: string };
    let recorded: Recorded;
    try {
      built = buildReplica(root, ctx);
      // The join is recorded in the team log, the one log this workspace now has: every machine sees who joined it.
      recorded = recordJoin(root, ctx, { database: teamWhere(connection.settings, ctx.env), events: built.events });
    } catch (error) {
      // Nothing joined: the workspace goes back to how it was (its own store, if it had one).
      removeTeamPointer(root);
      rmSync(teamReplicaPath(root), { force: true });
      if (aside) {
        renameSync(aside, Kernel.storePath(root));
        for (const suffix of ['-wal', '-shm'])
          if (existsSync(`${aside}${suffix}`)) renameSync(`${aside}${suffix}`, `${Kernel.storePath(root)}${suffix}`);
      }
      throw error;
    }
    const gitignore = ensureGitignore(root);
    // Listed among the person's projects (loopx projects), by the team log's first event: every machine's same store.
    const notListed = registerQuietly(root, 'team join', readStoreId(root), { env: ctx.env });
    const data = {
      database: connection.shown,
      pointer: teamPointerPath(root),
      role: facts.role,
      human: facts.human,
      events: built.events,
      movedAside: aside,
      replica: built.replica,
      gitignore,
      recorded: recorded.seq === null ? null : { kind: 'team.joined', seq: recorded.seq },
      ...(recorded.why ? { notRecorded: recorded.why } : {}),
      listed: notListed === null,
      ...(notListed === null ? {} : { notListed }),
    };
    return {
      data,
      text: [
        `This workspace now points at the team store ${connection.shown} (${built.events} events; you are ${facts.role}${facts.human ? ", a person's role" : ''}).`,
        `Replica: ${shown(built.replica)}.`,
        recorded.seq === null ? `The join is not in the team log: ${recorded.why}` : `Recorded in the team log as event ${recorded.seq}.`,
        aside ? `This workspace's own store was moved to ${shown(aside)} (nothing was deleted).` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    };
  },
};

export const TEAM_COMMANDS: readonly Command[] = [teamStatus, teamInit, teamPush, teamJoin, teamLeave];
