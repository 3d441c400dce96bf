import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../command';
import { Kernel, STORE_DIR } from '../../kernel/kernel';
import { EXIT, LoopxError } from '../../kernel/errors';
import { openDb } from '../../kernel/db/openDb';
import { verifyChain } from '../../kernel/events/verify';
import { locateRoot } from '../../runtime/locate';
import { TeamEngine } from '../../kernel/team/teamEngine';
import { recordTeamMove } from '../../kernel/team/teamEvents';
import { readTeamPointer, removeTeamPointer, teamReplicaPath } from '../../kernel/team/teamPointer';
import { TeamModeError, moveLocalStoreAside, person, shown, where } from './teamShared';

// `loopx team leave`: a person moves this workspace out of its team store (the team store is untouched).

export const teamLeave: Command = {
  name: ['team', 'leave'],
  summary: "move out of the team store: a backup of it becomes this workspace's own store again (a person only)",
  description:
    'Catches up, writes the team store as a SQLite file (the same a backup is) to .loopx/loopx.db, verifies it, and\n' +
    'removes .loopx/team.json and the replica. The team store itself is untouched; others go on using it. The leave\n' +
    'is recorded as the last event of the store this workspace gets (team.left).',
  humanOnly: true,
  examples: ['loopx team leave'],
  run(ctx) {
    const root = locateRoot(where(ctx));
    const pointer = readTeamPointer(root);
    if (!pointer) throw new TeamModeError('team_mode_off', 'this workspace does not point at a team store', 'nothing to leave');
    const kernel = Kernel.open(root, { actor: ctx.actor });
    const temp = join(root, STORE_DIR, `leaving-${process.pid}.db`);
    let events: number;
    let recorded: number;
    try {
      if (!(kernel.engine instanceof TeamEngine)) throw new Error('a workspace in team mode opened without the team engine');
      kernel.engine.backupTo(temp);
      const copy = openDb(temp);
      try {
        const chain = verifyChain(copy);
        if (!chain.ok)
          throw new LoopxError(
            'log_broken',
            `the team store's copy is broken at event ${chain.firstBadSeq}: ${chain.problem}`,
            EXIT.refused,
          );
        // The leave is recorded in the store this workspace gets, chained onto the copy before it is put in place:
        // that is the log this workspace goes on with, and the team store stays untouched (any role may leave, and
        // nothing of a machine that left is written for the others).
        const own = Kernel.fromDb(root, copy, { actor: person(ctx) });
        recorded = own.write(
          (tx) =>
            recordTeamMove(tx, 'team.left', {
              database: kernel.engine instanceof TeamEngine ? kernel.engine.where : '',
              events: chain.events,
            }).seq,
        );
        events = recorded;
      } finally {
        copy.close();
      }
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    } finally {
      kernel.close();
    }
    const aside = moveLocalStoreAside(root, 'before-leave');
    renameSync(temp, Kernel.storePath(root));
    removeTeamPointer(root);
    rmSync(teamReplicaPath(root), { force: true });
    for (const suffix of ['-wal', '-shm']) rmSync(`${teamReplicaPath(root)}${suffix}`, { force: true });
    const data = {
      database: pointer.database,
      store: Kernel.storePath(root),
      events,
      movedAside: aside,
      recorded: { kind: 'team.left', seq: recorded },
    };
    return {
      data,
      text: [
        `This workspace has its own store again: ${shown(Kernel.storePath(root))} (${events} events, the chain verified; the last, event ${recorded}, records this leave).`,
        `The team store at ${pointer.database} is untouched.`,
        aside ? `A store that was in the way was moved to ${shown(aside)}.` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    };
  },
};
