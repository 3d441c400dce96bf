import type { GateAction } from '../../src/protocol/boardProtocol';
import type { ErrorBody } from '../../src/protocol/errors';
import { h, icon } from './dom';

/** The corner the board's messages appear in (main.ts places it in the page). */
export const toasts = h('div', { class: 'toasts', role: 'alert', 'aria-live': 'assertive' });

export interface ToastAction {
  label: string;
  name: string;
  run(): void;
}

/**
 * A message in the corner. A plain one goes away by itself; one with buttons (what the person can do about it)
 * stays until a button or its close button is pressed, so the way forward does not vanish while it is read.
 */
export function showToast(text: string, kind: 'error' | 'info' = 'error', actions: ToastAction[] = []): HTMLElement {
  const toast = h('div', { class: `toast toast-${kind}` }, icon(kind === 'error' ? 'error' : 'info'), ` ${text}`);
  if (actions.length) {
    const row = h('div', { class: 'toast-actions' });
    for (const action of actions) {
      const b = h('button', { type: 'button', class: 'button', 'aria-label': action.name }, action.label);
      b.addEventListener('click', () => {
        toast.remove();
        action.run();
      });
      row.append(b);
    }
    const close = h(
      'button',
      { type: 'button', class: 'icon-button toast-close', 'aria-label': 'Dismiss', title: 'Dismiss' },
      icon('close'),
    );
    close.addEventListener('click', () => toast.remove());
    toast.prepend(close);
    toast.append(row);
  }
  toasts.append(toast);
  if (!actions.length) setTimeout(() => toast.remove(), 6000);
  return toast;
}

/** Approve and Reject for each gate a refusal names: the decision, where the person met the refusal. */
export function decisionActions(gateIds: readonly string[], decide: (action: GateAction, gateId: string) => void): ToastAction[] {
  return gateIds.flatMap((id) => [
    { label: `Approve ${id}…`, name: `Approve gate ${id}`, run: () => decide('approveGate', id) },
    { label: `Reject ${id}…`, name: `Reject gate ${id}`, run: () => decide('rejectGate', id) },
  ]);
}

/**
 * A change the host refused: the sentence, with Retry doing the same thing again when the team store could not be
 * reached (or moved), and any other way forward the refusal offers (a gate's decision).
 */
export function refusedToast(error: ErrorBody, again: () => void, more: ToastAction[] = []): void {
  const retry = error.code === 'team_unreachable' || error.code === 'store_moved' ? [{ label: 'Retry', name: 'Retry', run: again }] : [];
  showToast(explain(error), 'error', [...retry, ...more]);
}

export function explain(error: ErrorBody): string {
  return `${error.message}${error.hint ? ` (${error.hint})` : ''}`;
}
