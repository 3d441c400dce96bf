import { columnOf } from '../../src/protocol/board';
import { COLUMN_TITLES, type Card, type ColumnId, type GateAction, type TodoAction } from '../../src/protocol/boardProtocol';
import { LANDING_LABELS, hasChanges, landingsFor } from '../../src/protocol/changeWords';
import { h, icon } from './dom';

export interface MenuChoice {
  label: string;
  icon: string;
  run(): void;
}

/** The keyboard route to every move: a menu of allowed targets and actions (arrow keys, Enter, Escape). */
export function openMenu(anchor: HTMLElement, choices: MenuChoice[], onClose: () => void): void {
  document.querySelector('.menu-popup')?.remove();
  const menu = h('div', { class: 'menu-popup', role: 'menu', 'aria-label': anchor.getAttribute('aria-label') ?? 'Actions' });
  const items = choices.map((choice) => {
    const item = h('button', { type: 'button', role: 'menuitem', class: 'menu-item', tabindex: -1 }, icon(choice.icon), ` ${choice.label}`);
    item.addEventListener('click', () => {
      close();
      choice.run();
    });
    menu.append(item);
    return item;
  });
  // Removing the focused menu fires focusout, which closes again: the flag makes closing happen once.
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    menu.remove();
    onClose();
  };
  menu.addEventListener('keydown', (event) => {
    const index = items.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = (index + (event.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
      items[next]?.focus();
    } else if (event.key === 'Escape' || event.key === 'Tab') {
      event.preventDefault();
      close();
    }
  });
  menu.addEventListener('focusout', (event) => {
    if (!menu.contains(event.relatedTarget as Node)) close();
  });
  const rect = anchor.getBoundingClientRect();
  menu.style.top = `${rect.bottom + window.scrollY}px`;
  menu.style.left = `${Math.min(rect.left + window.scrollX, window.innerWidth - 220)}px`;
  document.body.append(menu);
  items[0]?.focus();
}

const TARGET_ICONS: Record<ColumnId, string> = {
  ready: 'debug-step-back',
  waiting: 'clock',
  claimed: 'person-add',
  in_review: 'eye',
  blocked: 'error',
  shipped: 'rocket',
  killed: 'trash',
};

/** Choices for one card: the decisions that wait on it first, then the allowed moves, then the other actions. */
export function cardChoices(
  card: Card,
  move: (to: ColumnId) => void,
  act: (a: TodoAction) => void,
  decide: (a: GateAction, gateId: string) => void,
): MenuChoice[] {
  const decisions = card.gates.flatMap((gateId) => [
    { label: `Approve ${gateId}…`, icon: 'check', run: () => decide('approveGate', gateId) },
    { label: `Reject ${gateId}…`, icon: 'close', run: () => decide('rejectGate', gateId) },
  ]);
  // A change in review: the person's verdict, said as one (the kernel allows it as a move to Shipped or Ready).
  if (card.status === 'in_review' && card.moves.includes('shipped'))
    decisions.push(
      { label: 'Approve the change…', icon: 'check', run: () => act('approveReview') },
      { label: 'Send back with changes…', icon: 'comment-discussion', run: () => act('requestChanges') },
      { label: 'View the change', icon: 'diff', run: () => act('viewReviewChange') },
    );
  const verdictMoves = card.status === 'in_review' ? ['shipped', 'ready'] : [];
  // The targets the kernel allows (sent with the card, in the board's column order).
  const moves = card.moves
    .filter((to) => !verdictMoves.includes(to))
    .map((to) => ({
      label: `Move to ${COLUMN_TITLES[to]}`,
      icon: TARGET_ICONS[to],
      run: () => move(to),
    }));
  const extra: MenuChoice[] = [];
  if (card.status === 'open' && columnOf(card) === 'ready') extra.push({ label: 'Run a turn…', icon: 'play', run: () => act('runTurn') });
  if (card.status === 'in_review' && card.review?.reviewer === null && card.gates.length === 0)
    extra.push({ label: 'Run a review turn…', icon: 'eye', run: () => act('runTurn') });
  if (card.status !== 'killed') extra.push({ label: 'Add evidence…', icon: 'checklist', run: () => act('addEvidence') });
  if (card.status === 'open' || card.status === 'claimed' || card.status === 'blocked')
    extra.push({ label: 'Ask a gate…', icon: 'question', run: () => act('askGate') });
  if (card.monitor?.waitsForPerson)
    extra.push({ label: `Allow the check of ${card.monitor.id}…`, icon: 'shield', run: () => act('approveMonitor') });
  if (card.monitor) extra.push({ label: `Cancel monitor ${card.monitor.id}…`, icon: 'close', run: () => act('cancelMonitor') });
  return [...decisions, ...branchChoices(card, act), ...moves, ...extra];
}

const LANDING_ICONS = { mergeBranch: 'git-merge', openPullRequest: 'git-pull-request-create', discardBranch: 'git-branch-delete' };

/** The branch's diff and the landings a person may choose now (changeWords.ts decides which). */
export function branchChoices(card: Card, act: (a: TodoAction) => void): MenuChoice[] {
  const choices: MenuChoice[] = [];
  if (hasChanges(card.change)) choices.push({ label: LANDING_LABELS.showChanges, icon: 'diff-multiple', run: () => act('showChanges') });
  for (const landing of landingsFor(card))
    choices.push({ label: LANDING_LABELS[landing], icon: LANDING_ICONS[landing], run: () => act(landing) });
  return choices;
}
