import type { ChangeSummary } from '../../kernel/worktrees/changeSummary';
import type { CardChange } from '../../protocol/boardProtocol';
import { clean } from '../../protocol/display';

/** How many commit subjects and loose file names travel with a card (tooltips and the detail show them). */
const SUBJECTS = 5;
const LOOSE = 10;

/** A todo's change (`todo show`'s data, one home) as the board and the tree show it; text from git is cleaned. */
export function cardChangeOf(s: ChangeSummary): CardChange {
  return {
    branch: clean(s.branch),
    base: clean(s.base),
    state: s.status,
    exists: s.exists,
    commits: s.commits.length,
    subjects: s.commits.slice(0, SUBJECTS).map((c) => clean(c.subject)),
    files: s.diffStat.files,
    insertions: s.diffStat.insertions,
    deletions: s.diffStat.deletions,
    uncommitted: s.uncommitted === null ? null : s.uncommitted.slice(0, LOOSE).map(clean),
    uncommittedCount: s.uncommitted?.length ?? 0,
    prUrl: s.prUrl,
  };
}
