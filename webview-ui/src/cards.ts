import { columnOf, lastRunSummary, leaseLapsed, waitingReason } from '../../src/protocol/board';
import {
  LANDING_LABELS,
  changeDetails,
  changeSize,
  changeState,
  hasChanges,
  uncommittedWords,
  waitsToLand,
} from '../../src/protocol/changeWords';
import type { Card } from '../../src/protocol/boardProtocol';
import { boardTime, boardTimeTitle } from '../../src/protocol/boardText';
import { clockTime } from '../../src/protocol/display';
import { findingLine, reviewStateWords } from '../../src/protocol/reviewWords';
import { ACTS } from './pastMode';
import { h, icon } from './dom';

/** One card's element, rebuilt in place when the card changes (its node, focus and position survive). */
export function renderCard(card: Card, nowMs: number, existing?: HTMLElement): HTMLElement {
  const el =
    existing ??
    h('article', {
      class: 'card',
      tabindex: 0,
      draggable: 'true',
      role: 'listitem',
      'data-id': card.id,
      id: `card-${card.id}`,
      'aria-keyshortcuts': 'Enter M ArrowUp ArrowDown ArrowLeft ArrowRight',
    });
  const nowIso = new Date(nowMs).toISOString();
  const lapsed = leaseLapsed(card, nowIso);
  el.classList.toggle('lapsed', lapsed);
  el.classList.toggle('gated', card.gates.length > 0);
  el.classList.toggle('monitored', card.monitor !== null);
  el.classList.toggle('to-land', waitsToLand(card));
  el.dataset.priority = String(card.priority);
  const head = h(
    'div',
    { class: 'card-head' },
    h('span', { class: 'card-id', text: card.id }),
    // Shown when the board shows several goals ("All goals"): which goal the card belongs to.
    h('span', { class: 'card-goal', text: card.goalId, title: `goal ${card.goalId}` }),
    h('span', { class: `prio prio-${card.priority}`, text: `P${card.priority}`, title: `priority ${card.priority}` }),
    card.gates.length
      ? h(
          'span',
          { class: 'badge gate-badge', title: `gate ${card.gates.join(', ')} pending` },
          icon('question'),
          ` ${card.gates.join(', ')}`,
        )
      : null,
    h(
      'button',
      {
        class: 'card-menu icon-button',
        type: 'button',
        'aria-label': `Actions for ${card.id}`,
        'aria-haspopup': 'menu',
        title: 'Move or act (M)',
        // One Tab stop a card: the card itself, whose M key opens this menu.
        tabindex: -1,
        ...ACTS,
      },
      icon('kebab-vertical'),
    ),
  );
  const facts: (HTMLElement | null)[] = [
    card.owner ? h('span', { class: 'owner', title: 'holder' }, icon('person'), ` ${holderName(card)}`) : null,
    card.leaseExpiresAt && card.status === 'claimed'
      ? h(
          'span',
          { class: 'lease', 'data-exp': card.leaseExpiresAt, title: `lease ends ${boardTimeTitle(card.leaseExpiresAt)}` },
          icon(lapsed ? 'warning' : 'watch'),
          ` ${leaseText(card.leaseExpiresAt, nowMs)}`,
        )
      : null,
    card.dependsOn.length
      ? h(
          'span',
          { class: 'deps', title: `depends on ${card.dependsOn.join(', ')}` },
          icon('git-merge'),
          ` ${card.dependsOn.length - card.unmetDeps.length}/${card.dependsOn.length}`,
        )
      : null,
    card.evidenceCount
      ? h('span', { class: 'evidence', title: `${card.evidenceCount} evidence` }, icon('checklist'), ` ${card.evidenceCount}`)
      : null,
  ];
  const why = waitingReason(card);
  const parts: HTMLElement[] = [head, h('div', { class: 'card-title', text: card.title }), h('div', { class: 'card-facts' }, ...facts)];
  if (card.monitor) parts.push(monitorLine(card, nowMs));
  else if (why) parts.push(h('div', { class: 'card-why', text: why }));
  if (card.recurrence && !card.waitsUntil) parts.push(h('div', { class: 'card-why' }, icon('sync'), ` recurs ${card.recurrence}`));
  if (card.change) parts.push(branchLine(card));
  const review = card.review ? reviewStateWords(card.review, card.status, nowMs) : null;
  if (review && card.review) parts.push(reviewLine(card.review, review));
  el.replaceChildren(...parts);
  el.setAttribute('aria-label', describe(card, nowMs, lapsed, why));
  return el;
}

/** Where the card's review stands, its findings in the tooltip (reviewWords.ts). */
function reviewLine(r: NonNullable<Card['review']>, words: string): HTMLElement {
  const title = [r.summary ?? '', ...r.findings.map(findingLine)].filter(Boolean).join('\n');
  return h(
    'div',
    { class: `card-review review-${r.verdict ?? 'open'}`, title },
    icon('eye'),
    h('span', { class: 'review-words', text: words }),
  );
}

/** What a waiting card's monitor checks, when it checks next (a live countdown) and what it saw last. */
function monitorLine(card: Card, nowMs: number): HTMLElement {
  const m = card.monitor as NonNullable<Card['monitor']>;
  const last = lastRunSummary(m);
  const failing = m.lastRun?.error ? ' failing' : '';
  return h(
    'div',
    {
      class: `card-monitor${failing}`,
      title: `${waitingReason(card)}${m.expiresAt ? ` · expires ${clockTime(m.expiresAt, nowMs)}` : ''}`,
    },
    icon(m.kind === 'timer' ? 'watch' : 'eye'),
    h('span', { class: 'monitor-what', text: m.kind === 'timer' ? ` ${m.id} timer` : ` ${m.id} ${m.check ?? ''}` }),
    m.waitsForPerson
      ? h('span', { class: 'monitor-approval', text: ' · waits for you to allow its check' })
      : m.nextCheckAt
        ? h(
            'span',
            {
              class: 'countdown',
              'data-exp': m.nextCheckAt,
              title: `${m.kind === 'timer' ? 'fires' : 'next check'} ${boardTimeTitle(m.nextCheckAt)}`,
            },
            icon('clock'),
            ` ${dueText(m.nextCheckAt, nowMs)}`,
          )
        : null,
    last ? h('span', { class: 'monitor-last', text: `last: ${last}` }) : null,
  );
}

/**
 * The todo's branch: its name, what it holds and what is not committed (the host read it from git; the webview only
 * shows it). A shipped branch waiting for a person carries its two most likely actions right there.
 */
function branchLine(card: Card): HTMLElement {
  const c = card.change as NonNullable<Card['change']>;
  const loose = uncommittedWords(c);
  const button = (action: 'showChanges' | 'mergeBranch', iconName: string) =>
    h(
      'button',
      {
        type: 'button',
        class: 'link card-action',
        'data-action': action,
        ...ACTS,
        'aria-label': `${LANDING_LABELS[action].replace('…', '')} of ${card.id}: ${c.branch}`,
      },
      icon(iconName),
      ` ${action === 'showChanges' ? 'Changes' : 'Merge…'}`,
    );
  const waits = waitsToLand(card);
  return h(
    'div',
    { class: `card-branch branch-${c.state}`, title: changeDetails(c, card.status).join('\n') },
    icon(c.state === 'merged' ? 'git-merge' : c.state === 'pr' ? 'git-pull-request' : 'git-branch'),
    h('span', { class: 'branch-name', text: ` ${c.branch}` }),
    h('span', { class: 'branch-size', text: c.state === 'open' || c.state === 'pr' ? changeSize(c) : changeState(c, card.status) }),
    loose ? h('span', { class: 'branch-loose', text: loose }) : null,
    hasChanges(c) && waits ? button('showChanges', 'diff-multiple') : null,
    waits ? button('mergeBranch', 'git-merge') : null,
  );
}

/** The holder's name, and "(you)" when it is the person at this board: one name for them everywhere. */
function holderName(card: Card): string {
  return card.ownedByMe ? `${card.owner} (you)` : (card.owner ?? '');
}

function describe(card: Card, nowMs: number, lapsed: boolean, why: string | null): string {
  const bits = [`${card.id} ${card.title}`, `priority ${card.priority}`, columnOf(card) === 'claimed' ? 'in progress' : columnOf(card)];
  if (card.owner) bits.push(`held by ${holderName(card)}`);
  if (card.leaseExpiresAt && card.status === 'claimed')
    bits.push(lapsed ? `lease ${leaseText(card.leaseExpiresAt, nowMs)}` : `lease ends ${leaseText(card.leaseExpiresAt, nowMs)}`);
  if (card.gates.length) bits.push(`gate ${card.gates.join(', ')} pending`);
  if (why) bits.push(why);
  if (card.monitor?.nextCheckAt)
    bits.push(`${card.monitor.kind === 'timer' ? 'fires' : 'next check'} ${dueText(card.monitor.nextCheckAt, nowMs)}`);
  if (card.monitor?.lastRun) bits.push(`last run ${lastRunSummary(card.monitor)}`);
  if (card.evidenceCount) bits.push(`${card.evidenceCount} evidence`);
  if (card.change) bits.push(`branch ${card.change.branch}, ${changeSize(card.change)}, ${changeState(card.change, card.status)}`);
  const review = card.review ? reviewStateWords(card.review, card.status, nowMs) : null;
  if (review) bits.push(`review: ${review}`);
  return bits.join(', ');
}

/** "in 12m" while the lease runs, "lapsed 3m ago" after: the board's one time format. */
function leaseText(expiresAt: string, nowMs: number): string {
  return Date.parse(expiresAt) <= nowMs ? `lapsed ${boardTime(expiresAt, nowMs)}` : boardTime(expiresAt, nowMs);
}

/** "in 4m" until a check is due, "due" once its time came (the board's one time format). */
function dueText(at: string, nowMs: number): string {
  return Date.parse(at) <= nowMs ? 'due' : boardTime(at, nowMs);
}

/** Re-renders only the countdown texts (called every second; touches a few nodes). */
export function tickLeases(root: HTMLElement, nowMs: number): void {
  for (const el of root.querySelectorAll<HTMLElement>('.lease[data-exp], .countdown[data-exp]')) {
    const at = el.dataset.exp as string;
    const text = ` ${el.classList.contains('countdown') ? dueText(at, nowMs) : leaseText(at, nowMs)}`;
    const last = el.lastChild;
    if (last && last.textContent !== text) last.textContent = text;
  }
}
