import type { CardReview, CardStatus } from './boardProtocol';
import { boardTime } from './boardText';

/**
 * A todo's review in words for people: the card's line, the Goals view's description, the detail's rounds. One home,
 * so the board and the tree never say a review's state two ways.
 */

/** "round 2 of 3" (or "round 2" once the goal's review was turned off). */
export function roundWords(r: Pick<CardReview, 'round' | 'maxRounds'>): string {
  return r.maxRounds === null ? `round ${r.round}` : `round ${r.round} of ${r.maxRounds}`;
}

/**
 * Where the review stands, for the card and the tree: "codex reviewing · round 1 of 3", "waits for a reviewer ·
 * round 2 of 3", "codex asked for changes (round 1)", "approved by codex". Null when there is nothing to say.
 */
export function reviewStateWords(r: CardReview, status: CardStatus, nowMs: number): string | null {
  const by = r.verdictBy ?? 'its reviewer';
  if (status === 'in_review') {
    if (r.reviewer) return `${r.reviewer} reviewing · ${roundWords(r)}`;
    if (r.verdict === 'could_not_review') return `${by} could not review it · waits for another look · ${roundWords(r)}`;
    return `waits for a reviewer · ${roundWords(r)}`;
  }
  if (r.verdict === 'approve') return `approved by ${by}`;
  if (r.verdict === 'request_changes') {
    const first = r.waitsUntil ? ` · back to ${r.implementer} first, ${boardTime(r.waitsUntil, nowMs)}` : '';
    return `${by} asked for changes (${roundWords(r)})${first}`;
  }
  return null;
}

/** A finding in one line: "P1 Headers are not folded (src/parse.ts:12)". */
export function findingLine(f: { severity: string; title: string; file: string | null; line: number | null }): string {
  const place = f.file ? ` (${f.file}${f.line !== null ? `:${f.line}` : ''})` : '';
  return `${f.severity} ${f.title}${place}`;
}
