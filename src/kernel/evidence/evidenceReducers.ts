import { type ReducersOf } from '../events/reducerKit';

type EvidenceKind = 'evidence';

/** The state changes of evidence events, spread into the kernel's reducers (events/log.ts). */
export const evidenceReducers: ReducersOf<EvidenceKind> = {
  // Evidence does not change the todo's revision: it adds to the record, not to the todo's state.
  evidence: (db, e) => {
    if (e.todoId) db.prepare('UPDATE todos SET evidence_count = evidence_count + 1 WHERE id = ?').run(e.todoId);
  },
};
