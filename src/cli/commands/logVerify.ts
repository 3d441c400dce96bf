import type { Command } from '../command';
import { verifyChain } from '../../kernel/events/verify';
import { checkAnchor, formatAnchor, logHead, parseAnchor } from '../../kernel/events/anchor';
import { EXIT, InvalidInputError } from '../../kernel/errors';
import { markBroken } from '../../kernel/logHealth';
import { type UnprovenDecision, auditDecisions, decisionWords } from '../../kernel/decisions';
import { humanKeyPath } from '../../kernel/humanKey';
import type { SqliteDb } from '../../kernel/db/sqliteDb';
import { TeamEngine } from '../../kernel/team/teamEngine';
import { copyTeamLog } from '../../kernel/team/teamInspect';
import { setAsideEvents, setAsideWords } from '../../kernel/events/setAside';
import { teamError } from '../../kernel/team/teamErrors';
import { iso } from '../../kernel/time';

function onTeamLog<T>(team: TeamEngine, fn: (db: SqliteDb) => T): T {
  let copy: SqliteDb;
  try {
    copy = copyTeamLog(team.pg);
  } catch (error) {
    throw teamError(error);
  }
  try {
    return fn(copy);
  } finally {
    copy.close();
  }
}

export const logVerify: Command = {
  name: ['log', 'verify'],
  summary: "check the hash chain of the event log and the proof of each person's decision; exit 3 at a break or an unproven decision",
  readOnly: true,
  description:
    'The chain proves no event was changed in place. To prove none was cut from the end, keep the "anchor" this\n' +
    'command prints (SEQ:HASH of the newest event) somewhere outside .loopx/ and pass it back with --anchor later.',
  flags: {
    anchor: { type: 'string', value: 'SEQ:HASH', description: 'also check that this remembered event is still in the log, unchanged' },
  },
  examples: ['loopx log verify', 'loopx log verify --anchor 1207:5f2c…  (the full 64-digit hash)'],
  run(ctx) {
    const anchorText = ctx.args.str('anchor');
    const anchor = anchorText === undefined ? undefined : parseAnchor(anchorText);
    if (anchor === null)
      throw new InvalidInputError(
        '--anchor must be SEQ:HASH, an event number and its 64-digit hex hash',
        'copy it from the "anchor" of an earlier loopx log verify',
      );
    const check = (db: SqliteDb) => ({
      result: verifyChain(db),
      head: logHead(db),
      anchored: anchor ? checkAnchor(db, anchor) : undefined,
      audit: auditDecisions(db, undefined, { whole: true }),
    });
    const kernel = ctx.kernel();
    // A team store: the log in PostgreSQL (the source of truth) is verified, copied as it is into a scratch store.
    const team = kernel.engine instanceof TeamEngine ? kernel.engine : null;
    const { result, head, anchored, audit } = team ? onTeamLog(team, check) : kernel.read(check);
    // The events this machine's store could not apply and set aside (events/setAside.ts): the chain holds them intact,
    // and they are named, not passed over in silence. A team store's replica catches up first (its read).
    const setAside = kernel.read((db) => setAsideEvents(db).filter((e) => !e.handled));
    const data = {
      ok: result.ok && anchored?.ok !== false && audit.unproven.length === 0,
      events: result.events,
      firstBadSeq: result.firstBadSeq,
      head,
      log: team ? ('team' as const) : ('local' as const),
      decisions: { checked: audit.decisions, unproven: audit.unproven, acceptedThrough: audit.acceptedThrough, key: audit.key },
      setAside,
    };
    if (!result.ok) {
      // Known broken from now on: agents' writes are refused until a human decides.
      markBroken(ctx.kernel().storeDir, result, iso(Date.now()));
      return {
        data,
        text: `Log BROKEN at event ${result.firstBadSeq}: ${result.problem}`,
        failure: {
          code: 'log_broken',
          message: `the event log is broken at event ${result.firstBadSeq}: ${result.problem}`,
          hint: 'events from that one on were altered outside loopx; agents may not write until you decide: restore a good backup (loopx restore .loopx/backups/<file>) or accept the log as it is (loopx log accept)',
          exitCode: EXIT.refused,
        },
      };
    }
    if (anchored && !anchored.ok) {
      data.firstBadSeq = anchored.problem === 'missing' ? (head?.seq ?? 0) + 1 : anchored.anchor.seq;
      return {
        data,
        text: `Log CUT: ${anchored.message}.`,
        failure: {
          code: anchored.problem === 'missing' ? 'log_truncated' : 'log_rewritten',
          message: `the event log does not hold the anchored event: ${anchored.message}`,
          hint: 'restore a backup taken after that event: loopx restore .loopx/backups/<file>',
          exitCode: EXIT.refused,
        },
      };
    }
    if (audit.unproven.length) {
      const n = audit.unproven.length;
      return {
        data,
        text: [
          `Log chain intact, but ${n === 1 ? "1 person's decision stands" : `${n} people's decisions stand`} on nothing:`,
          ...audit.unproven.map((d) => `  ${decisionWords(d)}: ${d.why}`),
          ...(audit.key === 'present' ? [] : [`  (this process has no key to prove decisions with: ${humanKeyPath()} is ${audit.key})`]),
        ].join('\n'),
        failure: {
          code: 'unproven_decision',
          message: `${n === 1 ? 'a decision' : `${n} decisions`} in a person's name ${n === 1 ? 'carries' : 'carry'} no proof this machine's key verifies, the first ${decisionWords(audit.unproven[0] as UnprovenDecision)}; loopx runs no turn, check or hook on ${n === 1 ? 'it' : 'them'}`,
          hint: 'if you made them (before this loopx, or on another machine), accept them: loopx log accept at a terminal; if you did not, an agent wrote them: restore a backup (loopx restore .loopx/backups/<file>)',
          exitCode: EXIT.refused,
        },
      };
    }
    const lines = [
      `${team ? 'Team log' : 'Log'} intact: ${result.events} events, hash chain verified${anchor ? `, event ${anchor.seq} still as anchored` : ''}.`,
    ];
    for (const e of setAside)
      lines.push(
        `But ${setAsideWords(e)}; loopx serves everything else (after dealing with it: loopx log handled ${e.seq} --decision "…").`,
      );
    if (head) lines.push(`Anchor (keep it outside .loopx/ to check later that nothing was cut): ${formatAnchor(head)}`);
    return { data, text: lines.join('\n') };
  },
};
