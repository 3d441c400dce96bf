import { type AttentionAction, attentionActionLabel } from '../../src/protocol/boardText';
import type { AttentionItem, GateAction, GoalAction, TodoAction } from '../../src/protocol/boardProtocol';
import { pausedWords } from '../../src/shared/pausedWords';
import { ACTS } from './pastMode';
import { h, icon, timeEl } from './dom';

export interface AttentionHandlers {
  gate(action: GateAction, gateId: string): void;
  todo(action: TodoAction, todoId: string): void;
  goal(action: GoalAction, goalId: string): void;
  open(todoId: string): void;
}

/** The strip on top: what needs a human now, each with its action. */
export function renderAttention(items: AttentionItem[], nowMs: number, on: AttentionHandlers): HTMLElement {
  const list = h('ul', { class: 'attention-list', role: 'list' });
  for (const item of items) list.append(h('li', { class: `attention-item attention-${item.kind}` }, ...itemContent(item, nowMs, on)));
  return h(
    'section',
    { class: 'attention', 'aria-label': 'Needs you' },
    h('h2', { class: 'attention-title' }, icon('bell'), ` Needs you `, h('span', { class: 'count', text: String(items.length) })),
    items.length ? list : h('p', { class: 'quiet', text: 'Nothing needs you right now.' }),
  );
}

/** A button whose visible label is short and whose accessible name says what it acts on. */
function button(
  item: AttentionItem,
  action: AttentionAction,
  label: string,
  iconName: string,
  onClick: () => void,
  primary = false,
): HTMLButtonElement {
  const name = attentionActionLabel(action, item);
  const b = h(
    'button',
    { type: 'button', class: primary ? 'button primary' : 'button', 'aria-label': name, title: name, ...ACTS },
    icon(iconName),
    ` ${label}`,
  );
  b.addEventListener('click', onClick);
  return b;
}

function link(item: AttentionItem, todoId: string, on: AttentionHandlers): HTMLElement {
  const a = h('button', { type: 'button', class: 'link', text: todoId, 'aria-label': attentionActionLabel('open', item) });
  a.addEventListener('click', () => on.open(todoId));
  return a;
}

function itemContent(item: AttentionItem, nowMs: number, on: AttentionHandlers): (HTMLElement | string)[] {
  switch (item.kind) {
    case 'gate':
      return [
        icon('question', 'gate'),
        h(
          'span',
          { class: 'what' },
          `${item.gateId} on `,
          item.todoId ? link(item, item.todoId, on) : `goal ${item.goalId}`,
          ` · ${item.askedBy} asked `,
          timeEl(item.askedAt, nowMs),
          ': ',
        ),
        h('q', { class: 'question', text: item.question }),
        h(
          'span',
          { class: 'actions' },
          button(item, 'approve', 'Approve', 'check', () => on.gate('approveGate', item.gateId), true),
          button(item, 'reject', 'Reject', 'close', () => on.gate('rejectGate', item.gateId)),
        ),
      ];
    case 'blocked':
      return [
        icon('error', 'blocked'),
        h('span', { class: 'what' }, link(item, item.todoId, on), ` ${item.title} · `, h('em', { text: item.reason })),
        h(
          'span',
          { class: 'actions' },
          button(item, 'unblock', 'Unblock', 'debug-restart', () => on.todo('unblock', item.todoId)),
        ),
      ];
    case 'lapsed':
      return [
        icon('warning', 'lease lapsed'),
        h(
          'span',
          { class: 'what' },
          link(item, item.todoId, on),
          ` ${item.title} · ${item.owner}'s lease lapsed `,
          timeEl(item.leaseExpiresAt, nowMs),
        ),
        h(
          'span',
          { class: 'actions' },
          button(item, 'release', 'Release', 'debug-step-back', () => on.todo('release', item.todoId)),
          button(item, 'reassign', 'Reassign', 'person-add', () => on.todo('reassign', item.todoId)),
        ),
      ];
    case 'monitor':
      return [
        icon('eye', 'monitor'),
        h(
          'span',
          { class: 'what' },
          link(item, item.todoId, on),
          ` ${item.title} · ${item.monitorId} cannot run `,
          h('code', { text: item.check }),
          ': ',
          h('em', { text: item.error }),
        ),
        h(
          'span',
          { class: 'actions' },
          button(item, 'cancelMonitor', 'Cancel monitor', 'close', () => on.todo('cancelMonitor', item.todoId)),
        ),
      ];
    case 'checkApproval':
      return [
        icon('shield', 'monitor'),
        h(
          'span',
          { class: 'what' },
          link(item, item.todoId, on),
          ` ${item.title} · ${item.addedBy} set a check that waits for you: `,
          h('code', { text: item.check }),
        ),
        h(
          'span',
          { class: 'actions' },
          button(item, 'approveMonitor', 'Allow check…', 'shield', () => on.todo('approveMonitor', item.todoId)),
          button(item, 'cancelMonitor', 'Cancel monitor', 'close', () => on.todo('cancelMonitor', item.todoId)),
        ),
      ];
    case 'paused':
      return [
        icon('debug-pause', 'paused goal'),
        h('span', { class: 'what' }, `${item.goalId} ${item.title} · ${pausedWords(item)}`),
        h(
          'span',
          { class: 'actions' },
          button(item, 'resume', 'Start', 'debug-start', () => on.goal('resumeGoal', item.goalId), true),
        ),
      ];
    case 'finished':
      return [
        icon('pass-filled', 'every todo shipped'),
        h('span', { class: 'what' }, `${item.goalId} ${item.title} · every todo has shipped (${item.shipped})`),
        h(
          'span',
          { class: 'actions' },
          button(item, 'markDone', 'Mark done', 'pass-filled', () => on.goal('markGoalDone', item.goalId), true),
        ),
      ];
    case 'land':
      return [
        icon('git-branch', 'branch to land'),
        h(
          'span',
          { class: 'what' },
          link(item, item.todoId, on),
          ` ${item.title} · ${item.branch} waits for you to land it (${item.size})`,
        ),
        h(
          'span',
          { class: 'actions' },
          button(item, 'showChanges', 'Changes', 'diff-multiple', () => on.todo('showChanges', item.todoId)),
          button(item, 'mergeBranch', 'Merge…', 'git-merge', () => on.todo('mergeBranch', item.todoId), true),
        ),
      ];
    case 'failing':
      return [
        icon('sync', 'keeps failing'),
        h(
          'span',
          { class: 'what' },
          link(item, item.todoId, on),
          ` ${item.title} · ${item.failures} turns in a row made no progress (the last: ${item.lastEnd}); next try `,
          timeEl(item.retryAt, nowMs),
        ),
      ];
    case 'budget':
      return [
        icon('dashboard', 'budget'),
        h(
          'span',
          { class: 'what' },
          `${item.goalId} ${item.title} · budget spent`,
          ...(item.nextWakeAt ? ['; next slot ', timeEl(item.nextWakeAt, nowMs)] : []),
        ),
      ];
  }
}
