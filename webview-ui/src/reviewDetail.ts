import type { CardDetail, TodoAction } from '../../src/protocol/boardProtocol';
import { findingLine, reviewStateWords, roundWords } from '../../src/protocol/reviewWords';
import { VERDICT_WORDS } from '../../src/shared/reviewWords';
import { boardTime } from '../../src/protocol/boardText';
import { ACTS } from './pastMode';
import { h } from './dom';

/**
 * The detail's Review section: where the review stands, the person's verdict buttons while the change waits in review
 * (the kernel allows them as this person's moves), then every round: what was submitted and claimed checked, and the
 * verdict with its findings.
 */
export function reviewSection(d: CardDetail, nowMs: number, act: (action: TodoAction) => void): HTMLElement | null {
  const review = d.card.review;
  if (!review || d.reviews.length === 0) return null;
  const state = reviewStateWords(review, d.card.status, nowMs);
  const decides = d.card.status === 'in_review' && d.card.moves.includes('shipped');
  const buttons = decides
    ? h(
        'div',
        { class: 'detail-actions' },
        button('approveReview', 'Approve the Change…', 'button primary', act),
        button('requestChanges', 'Send Back with Changes…', 'button', act),
        button('viewReviewChange', 'View the Change', 'button', act),
      )
    : d.card.status === 'in_review'
      ? h('div', { class: 'detail-actions' }, button('viewReviewChange', 'View the Change', 'button', act))
      : null;
  const rounds = h(
    'ol',
    { class: 'detail-list review-rounds' },
    ...d.reviews.map((r) =>
      h(
        'li',
        { 'data-round': String(r.round) },
        h('p', {
          text: `Round ${r.round}: ${r.implementer} sent it ${boardTime(r.submittedAt, nowMs)} (${r.scope}). Says it checked: ${r.validation || 'nothing said'}`,
        }),
        r.verdict
          ? h('p', {
              class: `review-verdict verdict-${r.verdict}`,
              text: `${r.byPerson ? 'A person' : (r.reviewer ?? 'Its reviewer')} ${VERDICT_WORDS[r.verdict]}${r.summary ? `: ${r.summary}` : ''}`,
            })
          : null,
        r.findings.length
          ? h('ul', { class: 'review-findings' }, ...r.findings.map((f) => h('li', { title: f.body, text: findingLine(f) })))
          : null,
      ),
    ),
  );
  return h(
    'section',
    { class: 'detail-section review-section' },
    h('h3', { text: `Review (${roundWords(review)})` }),
    state ? h('p', { class: 'review-state', text: state }) : null,
    buttons,
    rounds,
  );
}

function button(action: TodoAction, label: string, cls: string, act: (action: TodoAction) => void): HTMLElement {
  const b = h('button', { type: 'button', class: cls, 'data-action': action, ...ACTS }, label);
  b.addEventListener('click', () => act(action));
  return b;
}
