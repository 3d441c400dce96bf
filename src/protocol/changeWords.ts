import type { Card, CardChange, CardStatus } from './boardProtocol';
import { countOf } from '../shared/countWords';

/**
 * A todo's branch in words, and which landing a person may choose now: one home for the board's card, its detail,
 * the Goals tree's row and tooltip, and the commands' prompts (the webview imports only src/protocol).
 */

/** "2 commits · 3 files +40 −2", "no commits yet". */
export function changeSize(c: CardChange): string {
  if (c.commits === 0) return c.files === 0 ? 'no commits yet' : `${countOf(c.files, 'file')} +${c.insertions} −${c.deletions}`;
  const size = c.files ? ` · ${countOf(c.files, 'file')} +${c.insertions} −${c.deletions}` : '';
  return `${countOf(c.commits, 'commit')}${c.commits >= 50 ? ' or more' : ''}${size}`;
}

/** "1 file not committed", or null when everything is committed (or the folder is gone). */
export function uncommittedWords(c: CardChange): string | null {
  return c.uncommittedCount > 0 ? `${countOf(c.uncommittedCount, 'file')} not committed` : null;
}

/** Where the branch stands, for a person: what happened to it, or what it waits for. */
export function changeState(c: CardChange, status: CardStatus): string {
  switch (c.state) {
    case 'merged':
      return `merged into ${c.base}`;
    case 'discarded':
      return 'discarded';
    case 'pr':
      return 'a pull request is open';
    case 'open':
      if (!c.exists) return 'the branch is gone';
      if (status === 'claimed') return 'an agent works on it';
      return status === 'shipped' ? 'waits for you to merge it, open a pull request or discard it' : 'not merged yet';
  }
}

/** A shipped todo whose branch nobody has landed yet: it waits for a person (the card is marked so). */
export function waitsToLand(card: Pick<Card, 'status' | 'change'>): boolean {
  return card.status === 'shipped' && card.change?.state === 'open' && card.change.exists;
}

export type Landing = 'mergeBranch' | 'openPullRequest' | 'discardBranch';

/**
 * The landings a person may choose now (the kernel's rule, landing.ts, has the last word): none while an agent holds
 * the todo or once the branch is merged, discarded or gone; a pull request only once.
 */
export function landingsFor(card: Pick<Card, 'status' | 'change'>): Landing[] {
  const c = card.change;
  // Not while an agent holds the todo, nor while its change waits in review (it lands once approved).
  if (!c || !c.exists || card.status === 'claimed' || card.status === 'in_review') return [];
  if (c.state === 'open') return ['mergeBranch', 'openPullRequest', 'discardBranch'];
  if (c.state === 'pr') return ['mergeBranch', 'discardBranch'];
  return [];
}

/** Show Changes has something to show: the branch exists and holds commits. */
export function hasChanges(c: CardChange | null): boolean {
  return c !== null && c.exists && c.commits > 0;
}

export const LANDING_LABELS: Record<Landing | 'showChanges', string> = {
  showChanges: 'Show Changes',
  mergeBranch: 'Merge…',
  openPullRequest: 'Open Pull Request…',
  discardBranch: 'Discard Branch…',
};

/** The branch in a few lines of plain text (tooltips): where it is, what it holds, what is not committed. */
export function changeDetails(c: CardChange, status: CardStatus): string[] {
  const lines = [`Branch ${c.branch} from ${c.base}: ${changeState(c, status)}`, changeSize(c)];
  for (const subject of c.subjects) lines.push(`  • ${subject}`);
  const loose = uncommittedWords(c);
  if (loose && c.uncommitted) {
    const more = c.uncommittedCount - c.uncommitted.length;
    lines.push(`${loose}: ${c.uncommitted.join(', ')}${more > 0 ? ` and ${more} more` : ''}`);
  }
  if (c.prUrl) lines.push(`Pull request: ${c.prUrl}`);
  return lines;
}
