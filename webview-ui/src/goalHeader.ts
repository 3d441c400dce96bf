import { shouldRunSentence } from '../../src/protocol/shouldRunWords';
import type { GoalSummary } from '../../src/protocol/boardProtocol';
import { meterMoney } from '../../src/shared/usageWords';
import { h, icon } from './dom';

/** Exhausted is about any budget: the turns, or a cap on tokens or money the next turn would likely pass. */
function exhausted(g: GoalSummary): boolean {
  return g.spent >= g.turnsPerWindow || g.budget === 'tokens' || g.budget === 'dollars';
}

/**
 * A goal's chip in the toolbar: "G1 3/20 · $3.20/$10" (money once there is any, against its cap when it has one, as
 * on the status bar); the tooltip says whether it runs and what its window used and has left.
 */
export function goalChip(g: GoalSummary, me: string): HTMLElement {
  const money = meterMoney(g.usage);
  const used = g.usageLine ? `\nUsed ${g.usageLine}` : '';
  const warn = exhausted(g);
  return h(
    'span',
    { class: `chip${warn ? ' chip-warning' : ''}`, title: `${g.id}: ${shouldRunSentence({ ...g, me })}${used}` },
    icon(warn ? 'warning' : 'pulse'),
    ` ${g.id} ${g.spent}/${g.turnsPerWindow}${money}`,
  );
}

/**
 * The selected goal's header: what its window used against its caps and what is left ("G1 used $3.20 of $10 · 410k
 * tokens in the last 24 h; $6.80 left"), then its background (a goal file's Markdown body). Both as plain text, set
 * through textContent, so no HTML from the store is ever parsed (the webview's CSP forbids inline script anyway).
 * Each part is rebuilt only when its text changed, so the background stays open or closed across renders.
 */
export function renderGoalHeader(slots: { usage: HTMLElement; background: HTMLElement }, goal: GoalSummary | undefined): void {
  const usageText = goal?.usageLine ? `${goal.id} used ${goal.usageLine}` : '';
  const spent = goal?.budget === 'tokens' || goal?.budget === 'dollars';
  const shown = slots.usage.querySelector<HTMLElement>('.goal-usage');
  if (!usageText) slots.usage.replaceChildren();
  else if (shown?.textContent !== ` ${usageText}` || shown.classList.contains('goal-usage-warning') !== spent) {
    slots.usage.replaceChildren(
      h(
        'div',
        { class: `goal-usage${spent ? ' goal-usage-warning' : ''}` },
        icon(spent ? 'warning' : 'credit-card'),
        ' ',
        h('span', { class: 'goal-usage-text', text: usageText }),
      ),
    );
  }
  if (!goal?.background) return slots.background.replaceChildren();
  const existing = slots.background.querySelector('details');
  const text = slots.background.querySelector('.goal-background-text');
  if (existing?.dataset.goal === goal.id && text?.textContent === goal.background) return;
  slots.background.replaceChildren(
    h(
      'details',
      { class: 'goal-background', 'data-goal': goal.id, open: existing?.open ?? true },
      h('summary', {}, icon('book'), ` ${goal.id} background`),
      h('div', { class: 'goal-background-text', text: goal.background }),
    ),
  );
}
