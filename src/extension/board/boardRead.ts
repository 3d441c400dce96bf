import { boardFacts } from '../../kernel/readModels/cards';
import type { BoardSnapshot, CardChange } from '../../protocol/boardProtocol';
import type { TeamReach } from '../store/teamReach';
import { buildSnapshot } from './boardData';

/**
 * The board as the views read the store: through the window's TeamReach (vscode-free, tested against a real server).
 * While a team store cannot be reached the board carries the views' sentence as its banner, and shows no cards until
 * the person asks for the last state; then the replica's cards, which the banner says may be out of date.
 */
export function readBoard(
  reach: Pick<TeamReach, 'read' | 'notice'>,
  me: string,
  changes: ReadonlyMap<string, CardChange> = new Map(),
  nowMs = Date.now(),
): BoardSnapshot {
  const built = reach.read((db, now) => buildSnapshot(boardFacts(db, now), me, changes), undefined);
  const notice = reach.notice();
  const board = built ?? { me, now: new Date(nowMs).toISOString(), goals: [], cards: [], attention: [], agents: [] };
  return notice ? { ...board, notice } : board;
}
