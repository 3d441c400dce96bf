import type { SqliteDb } from '../db/sqliteDb';
import { NotAllowedError } from '../errors';
import type { Turn } from './turnQueries';

/**
 * Who launched a turn that is not its agent's own: `loopx run` or a VS Code window. Recorded on `turn.started` by the
 * launcher, in process (no flag sets it), so an agent cannot make a launched turn its own to finish.
 */
export const TURN_LAUNCHERS = ['runner', 'vscode'] as const;
export type TurnLauncher = (typeof TURN_LAUNCHERS)[number];

/**
 * The host of the sample agent a VS Code window runs (Run Turn → Sample agent): it shows the loop on a todo and does no
 * work, so its turn spends nothing (turnFinish.ts). Only when the window launched and finished it in process: an agent
 * cannot record a launcher, and `turn start --host sample` from a shell is an ordinary turn.
 */
export const SAMPLE_HOST = 'sample';

/** The window's own sample turn, finished by the window: the one turn that spends no budget. */
export function isSampleTurn(db: SqliteDb, turn: Pick<Turn, 'host' | 'startSeq'>, byLauncher: boolean): boolean {
  return byLauncher && turn.host === SAMPLE_HOST && turnLaunchedBy(db, turn) === 'vscode';
}

const LAUNCHER_WORDS: Record<TurnLauncher, string> = { runner: 'the runner', vscode: 'the VS Code window' };

/**
 * The launcher a turn's `turn.started` event names, or null for a turn its agent (or a person) started from a shell.
 * Read from the log itself: the event is hash-chained, and no table column can drift from it.
 */
export function turnLaunchedBy(db: SqliteDb, turn: Pick<Turn, 'startSeq'>): TurnLauncher | null {
  const launchedBy = startedData(db, turn).launchedBy;
  return TURN_LAUNCHERS.find((l) => l === launchedBy) ?? null;
}

/** What the launcher said of a turn's boundary on its `turn.started` event; null for a turn nobody launched. */
export function turnBoundarySaid(db: SqliteDb, turn: Pick<Turn, 'startSeq'>): 'enforced' | 'none' | null {
  const boundary = startedData(db, turn).boundary;
  return boundary === 'enforced' || boundary === 'none' ? boundary : null;
}

function startedData(db: SqliteDb, turn: Pick<Turn, 'startSeq'>): { launchedBy?: unknown; boundary?: unknown } {
  const row = db.prepare(`SELECT data FROM events WHERE seq = ? AND kind = 'turn.started'`).get(turn.startSeq);
  return row ? (JSON.parse(String(row.data)) as { launchedBy?: unknown; boundary?: unknown }) : {};
}

/**
 * An agent may not finish a turn a launcher started: the launcher does, when the host exits, from the host's own
 * report. Otherwise an agent that finished first could record a cheaper report than its host's (the launcher's finish
 * would then be refused as already done). A turn the agent started itself stays its own to finish.
 */
export function refuseAgentFinish(db: SqliteDb, turn: Turn): void {
  const launchedBy = turnLaunchedBy(db, turn);
  if (!launchedBy) return;
  throw new NotAllowedError(
    `turn ${turn.id} is finished by ${LAUNCHER_WORDS[launchedBy]} that started it, from the host's own report`,
    'end your work and exit: the turn is finished when the host exits (a custom host reports what it used with a loopx-usage: line)',
  );
}
