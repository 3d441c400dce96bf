import type { Kernel } from '../../kernel/kernel';
import type { SqliteDb } from '../../kernel/db/sqliteDb';
import { PastStore } from '../../kernel/readModels/pastStore';
import { boardFacts, todoDetailFacts } from '../../kernel/readModels/cards';
import { eventSentence } from '../../protocol/boardText';
import type { PastBoard } from '../../protocol/boardProtocol';
import type { CardDetail } from '../../protocol/boardProtocol';
import { buildDetail, buildSnapshot } from './boardData';

/**
 * The board at past moments for one panel: a replay of the store's log kept while the person scrubs (each move
 * applies only the events in between, or restores a checkpoint), released when they go back to now.
 */
export class BoardHistory {
  private past: PastStore | undefined;
  private shown: PastBoard | undefined;

  constructor(private readonly me: string) {}

  /** The board right after event `seq` (clamped to the log). */
  at(kernel: Kernel, seq: number): PastBoard {
    const past = (this.past ??= new PastStore(kernel.storeFile, kernel.db.driver));
    const head = past.head();
    const db = past.moveTo(Math.min(seq, head));
    const event = past.event(past.at);
    const first = past.event(1);
    const at = event?.at ?? first?.at ?? new Date(kernel.clock()).toISOString();
    const sentence = event ? eventSentence(event).text : 'before the first event';
    this.shown = {
      seq: past.at,
      head,
      at,
      firstAt: first?.at ?? at,
      sentence,
      kind: event?.kind ?? '',
      snapshot: buildSnapshot(boardFacts(db, Date.parse(at)), this.me),
    };
    return this.shown;
  }

  /** The last event at or before a time. */
  seqAt(kernel: Kernel, isoTime: string): number {
    const past = (this.past ??= new PastStore(kernel.storeFile, kernel.db.driver));
    return past.seqAt(isoTime);
  }

  /** A card's detail as it was at the moment shown, or null when no moment is shown or the card was not there. */
  detail(todoId: string): CardDetail | null {
    const card = this.shown?.snapshot.cards.find((c) => c.id === todoId);
    if (!this.past || !card) return null;
    const db: SqliteDb = this.past.moveTo(this.shown?.seq ?? 0);
    return buildDetail(todoDetailFacts(db, todoId), card);
  }

  get active(): boolean {
    return this.shown !== undefined;
  }

  end(): void {
    this.past?.close();
    this.past = undefined;
    this.shown = undefined;
  }
}
