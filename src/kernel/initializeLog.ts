import { SCHEMA_VERSION } from './db/migrate';
import type { UnitOfWork } from './unitOfWork';

/**
 * The one writer of `store.initialized`, the first event of every log: a new store's (kernel.ts) and a team log's
 * (team/teamKernel.ts), whichever engine runs it. Only into an empty log, so a second caller (a race, a store an older
 * loopx made without it) adds nothing. True when it wrote the event.
 */
export function initializeLogInTx(uow: UnitOfWork): boolean {
  if (uow.db.prepare('SELECT 1 FROM events LIMIT 1').get()) return false;
  uow.emit({ kind: 'store.initialized', goalId: null, todoId: null, data: { schema: SCHEMA_VERSION } });
  return true;
}
