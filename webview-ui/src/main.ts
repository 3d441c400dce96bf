import type { Card, ColumnId, GateAction, GoalAction, TodoAction, ToWebview } from '../../src/protocol/boardProtocol';
import { renderAttention } from './attention';
import { BoardView, type MoveRefused } from './board';
import { tickLeases } from './cards';
import { renderDetail } from './detail';
import { h, icon, tickTimes } from './dom';
import { cardChoices, openMenu } from './menu';
import { BoardState } from './state';
import { BoardHistoryBar } from './history';
import { READ_ONLY_WORDS, showPast } from './pastMode';
import { goalChip, renderGoalHeader } from './goalHeader';
import { NoticeBanner } from './notice';
import { decisionActions, explain, refusedToast, showToast, toasts } from './toasts';

/** The board's entry point: wires the host channel to the header, attention strip, columns and detail pane. */
const state = new BoardState();
const app = document.getElementById('app') as HTMLElement;
const live = h('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
const attentionSlot = h('div', { class: 'attention-slot' });
const detailSlot = h('div', { class: 'detail-slot' });
/** The banner of a team store that cannot be reached; its buttons are the views' own commands, run by the host. */
const notice = new NoticeBanner({
  action: (action) => state.vscode.postMessage({ type: 'notice', action }),
  announce: (text) => (live.textContent = text),
});
const goalSelect = h('select', { 'aria-label': 'Goal', id: 'goal-filter' });
const agentSelect = h('select', { 'aria-label': 'Agent', id: 'agent-filter' });
const textFilter = h('input', { type: 'search', placeholder: 'Filter by id or title', 'aria-label': 'Filter cards', id: 'text-filter' });
const goalChips = h('div', { class: 'goal-chips', 'aria-label': 'Quota per goal' });
const goalBackground = h('div', { class: 'goal-background-slot' });
const goalUsage = h('div', { class: 'goal-usage-slot', role: 'status', 'aria-label': "The selected goal's usage" });

const board = new BoardView(state, {
  readOnly,
  refused: moveRefused,
  open: (id) => void openDetail(id),
  menu: (card, anchor) => showMenu(card, anchor),
  act: (card, action) => void todoAction(action, card.id),
});

/** The board at past moments; while it is open the board is read-only. */
const history = new BoardHistoryBar({
  request: async (to) => {
    const answer = await state.request('seq' in to ? { type: 'history', seq: to.seq } : { type: 'historyAt', at: to.at });
    return answer.type === 'history' ? answer.past : explain(answer.error);
  },
  show: (past) => {
    showPast(past !== null);
    if (past === null) {
      // Back to now: the host lets go of the replay and sends the board as it is; the changes are listed then.
      readOnlyToast?.remove();
      returning = true;
      state.vscode.postMessage({ type: 'historyEnd' });
      state.vscode.postMessage({ type: 'ready' });
      return;
    }
    state.applySnapshot(past.snapshot);
    renderHeader();
    renderAttentionStrip();
    board.renderAll();
    if (openId && state.cards.has(openId)) void openDetail(openId, 'refresh');
    else if (openId) closeDetail();
  },
  open: (id) => void openDetail(id),
  announce: (text) => (live.textContent = text),
});
let returning = false;

/** While looking back nothing can be changed: say so instead of acting. */
function readOnly(): boolean {
  if (!history.active) return false;
  // One at a time, and gone once the person is back to now (it would be untrue then).
  readOnlyToast?.remove();
  readOnlyToast = showToast(READ_ONLY_WORDS, 'info');
  return true;
}
let readOnlyToast: HTMLElement | undefined;
// A click on a button that acts, while the past is shown, says why and does nothing (before the button's own handler).
document.addEventListener(
  'click',
  (event) => {
    if (!history.active || !(event.target instanceof Element) || !event.target.closest('[data-acts]')) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    readOnly();
  },
  true,
);

/** A refused move: a toast that names the gates whose decision would let it through, and offers it again. */
function moveRefused(card: Card, to: ColumnId, answer: MoveRefused): void {
  if (answer.error.code === 'cancelled') return;
  const decide = decisionActions(answer.decide ?? [], (action, gateId) => void gateAction(action, gateId));
  refusedToast(answer.error, () => void board.move(card, to), decide);
  live.textContent = `Move refused: ${answer.error.message}`;
}

async function todoAction(action: TodoAction, todoId: string): Promise<void> {
  if (readOnly()) return;
  const result = await state.request({ type: 'todoAction', action, todoId });
  if (!result.ok && result.error.code !== 'cancelled') refusedToast(result.error, () => void todoAction(action, todoId));
}

async function goalAction(action: GoalAction, goalId: string): Promise<void> {
  if (readOnly()) return;
  const result = await state.request({ type: 'goalAction', action, goalId });
  if (!result.ok && result.error.code !== 'cancelled') refusedToast(result.error, () => void goalAction(action, goalId));
}

async function gateAction(action: GateAction, gateId: string): Promise<void> {
  if (readOnly()) return;
  const result = await state.request({ type: 'gateAction', action, gateId });
  if (!result.ok && result.error.code !== 'cancelled') refusedToast(result.error, () => void gateAction(action, gateId));
}

function showMenu(card: Card, anchor: HTMLElement): void {
  if (readOnly()) return;
  const choices = cardChoices(
    card,
    (to) => void board.move(card, to),
    (a) => void todoAction(a, card.id),
    (a, gateId) => void gateAction(a, gateId),
  );
  if (!choices.length) {
    showToast(`${card.id} is ${card.status}; nothing more can happen to it`, 'info');
    return;
  }
  openMenu(anchor, choices, () => board.focusCard(card.id));
}

/** The card whose detail is open; kept in the webview state so a reload or a hidden tab brings it back. */
let openId: string | null = null;

function closeDetail(): void {
  const id = openId;
  openId = null;
  state.openId = null;
  state.save();
  detailSlot.replaceChildren();
  board.select(null);
  if (id) board.focusCard(id);
}

/**
 * Shows a card's detail beside the columns. `refresh` re-renders it after a change without taking the focus or
 * scrolling; otherwise the pane takes the focus and the selected card scrolls into view next to it.
 */
async function openDetail(todoId: string, mode: 'open' | 'refresh' | 'restore' = 'open'): Promise<void> {
  openId = todoId;
  state.openId = todoId;
  state.save();
  const answer = await state.request({ type: 'detail', todoId });
  if (openId !== todoId) return;
  if (answer.type !== 'detail') {
    // Gone since (or no longer there after a restore): nothing to show.
    closeDetail();
    if (mode === 'open' && !answer.ok) showToast(explain(answer.error));
    return;
  }
  const hadFocus = detailSlot.contains(document.activeElement);
  const pane = renderDetail(answer.detail, state.now(), {
    close: closeDetail,
    openArtifact: (path) => state.vscode.postMessage({ type: 'openArtifact', path }),
    actions: (anchor) => {
      const card = state.cards.get(todoId);
      if (card) showMenu(card, anchor);
    },
    gate: (action, gateId) => void gateAction(action, gateId),
    todo: (action) => void todoAction(action, todoId),
    openTurnOutput: (turnId) => state.vscode.postMessage({ type: 'openTurnOutput', turnId }),
  });
  pane.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !document.querySelector('.menu-popup')) {
      event.preventDefault();
      closeDetail();
    }
  });
  const scrollTop = detailSlot.scrollTop;
  detailSlot.replaceChildren(pane);
  board.select(todoId, mode !== 'refresh');
  if (mode === 'refresh') {
    detailSlot.scrollTop = scrollTop;
    if (hadFocus) pane.focus({ preventScroll: true });
  } else if (mode === 'open') {
    pane.focus({ preventScroll: true });
  }
}

function renderHeader(): void {
  // A goal or agent remembered from before (a restored board) that is no longer there filters nothing.
  const goalId = state.goals.some((g) => g.id === state.filter.goalId) ? state.filter.goalId : null;
  const agent = state.filter.agent && state.agents.includes(state.filter.agent) ? state.filter.agent : null;
  if (goalId !== state.filter.goalId || agent !== state.filter.agent) {
    state.filter = { ...state.filter, goalId, agent };
    state.save();
    board.applyFilter();
  }
  const options = (select: HTMLSelectElement, all: string, values: [string, string][], selected: string | null) => {
    select.replaceChildren(
      h('option', { value: '', text: all }),
      ...values.map(([v, label]) => h('option', { value: v, text: label, selected: v === selected })),
    );
  };
  options(
    goalSelect,
    'All goals',
    state.goals.map((g) => [g.id, `${g.id} ${g.title}`]),
    state.filter.goalId,
  );
  // A multi-root workspace: this folder's goals under its name, then each other folder's (picking one switches).
  const here = state.folders.find((f) => f.current);
  if (here) {
    const own = h('optgroup', { label: here.name });
    own.append(...[...goalSelect.querySelectorAll('option')].slice(1));
    goalSelect.append(own);
    for (const folder of state.folders.filter((f) => !f.current)) {
      const group = h('optgroup', { label: folder.name });
      group.append(
        h('option', { value: `f${folder.index}:`, text: `All goals in ${folder.name}` }),
        ...folder.goals.map((g) => h('option', { value: `f${folder.index}:${g.id}`, text: `${g.id} ${g.title}` })),
      );
      goalSelect.append(group);
    }
  }
  options(
    agentSelect,
    'Any agent',
    state.agents.map((a) => [a, a]),
    state.filter.agent,
  );
  renderGoalHeader(
    { usage: goalUsage, background: goalBackground },
    state.goals.find((g) => g.id === goalId),
  );
  goalChips.replaceChildren(...state.goals.filter((g) => g.status === 'active').map((g) => goalChip(g, state.me)));
}

function renderAttentionStrip(): void {
  attentionSlot.replaceChildren(
    renderAttention(state.attention, state.now(), {
      gate: (action, id) => void gateAction(action, id),
      todo: (action, id) => void todoAction(action, id),
      goal: (action, id) => void goalAction(action, id),
      open: (id) => void openDetail(id),
    }),
  );
}

/** Open on Board: one goal's cards, or a card's detail (its goal's cards around it, whatever the filter hid). */
function reveal(goalId: string | null, todoId: string | null): void {
  const card = todoId ? state.cards.get(todoId) : undefined;
  const goal = goalId ?? card?.goalId ?? null;
  if (goal && state.filter.goalId !== goal) {
    state.filter = { ...state.filter, goalId: goal, text: '', agent: null };
    textFilter.value = '';
    state.save();
    renderHeader();
    board.applyFilter();
  }
  if (card) void openDetail(card.id);
}

function onFilterChange(): void {
  // Another folder's goal: the host switches the board to that folder's store, then the filter applies there.
  const other = /^f(\d+):(G\d+)?$/.exec(goalSelect.value);
  if (other) {
    state.filter = { ...state.filter, goalId: other[2] ?? null };
    state.save();
    state.vscode.postMessage({ type: 'switchFolder', folder: Number(other[1]) });
    return;
  }
  state.filter = { goalId: goalSelect.value || null, agent: agentSelect.value || null, text: textFilter.value };
  state.save();
  board.applyFilter();
  renderGoalHeader(
    { usage: goalUsage, background: goalBackground },
    state.goals.find((g) => g.id === state.filter.goalId),
  );
  if (openId) board.reveal(openId);
}
goalSelect.addEventListener('change', onFilterChange);
agentSelect.addEventListener('change', onFilterChange);
textFilter.addEventListener('input', onFilterChange);
textFilter.value = state.filter.text;

const storyButton = h(
  'button',
  { class: 'toolbar-button', type: 'button', title: "The goal's story: timeline, burn-down, throughput, where the time went" },
  icon('graph'),
  h('span', { class: 'toolbar-label' }, ' Story'),
);
storyButton.addEventListener('click', () => state.vscode.postMessage({ type: 'openStory', goalId: state.filter.goalId }));

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  if (message.type === 'snapshot') {
    performance.mark('loopx-render-start');
    state.applySnapshot(message.snapshot);
    notice.render(message.snapshot.notice);
    renderHeader();
    renderAttentionStrip();
    board.renderAll();
    app.removeAttribute('aria-busy');
    // After a reload (or the tab coming back) the pane the person had open comes back with the board.
    const restore = openId ?? state.openId;
    if (restore && state.cards.has(restore)) void openDetail(restore, openId ? 'refresh' : 'restore');
    else if (restore) closeDetail();
    if (returning) {
      returning = false;
      history.backToNow(message.snapshot.cards);
    }
    performance.mark('loopx-render-end');
    performance.measure('loopx-first-render', 'loopx-render-start', 'loopx-render-end');
  } else if (message.type === 'patch') {
    // Looking back: the board shows the past; the host sends the whole board again on the way back to now.
    if (history.active || returning) return;
    performance.mark('loopx-patch-start');
    notice.render(message.patch.notice);
    state.skewMs = Date.parse(message.patch.now) - Date.now();
    board.applyPatch(message.patch);
    // Header and attention strip are rebuilt only when what they show changed.
    const header = JSON.stringify([message.patch.goals, message.patch.agents, message.patch.folders ?? []]);
    if (header !== JSON.stringify([state.goals, state.agents, state.folders])) {
      state.goals = message.patch.goals;
      state.agents = message.patch.agents;
      state.folders = message.patch.folders ?? [];
      renderHeader();
    }
    if (JSON.stringify(message.patch.attention) !== JSON.stringify(state.attention)) {
      state.attention = message.patch.attention;
      renderAttentionStrip();
    }
    if (openId && message.patch.removed.includes(openId)) closeDetail();
    else if (openId && message.patch.upserts.some((c) => c.id === openId)) void openDetail(openId, 'refresh');
    performance.mark('loopx-patch-end');
    performance.measure('loopx-patch', 'loopx-patch-start', 'loopx-patch-end');
  } else if (message.type === 'reveal') {
    reveal(message.goalId, message.todoId);
  } else if ('requestId' in message) {
    state.settle(message);
  }
});

app.replaceChildren(
  h(
    'header',
    { class: 'toolbar' },
    h('h1', {}, icon('checklist'), ' LoopX Board'),
    h('label', { class: 'filter' }, icon('target'), goalSelect),
    h('label', { class: 'filter' }, icon('person'), agentSelect),
    h('label', { class: 'filter filter-text' }, icon('search'), textFilter),
    goalChips,
    h('span', { class: 'toolbar-spacer' }),
    history.toggle,
    storyButton,
  ),
  history.root,
  history.changes,
  notice.slot,
  goalUsage,
  goalBackground,
  attentionSlot,
  h('main', { class: 'board-body' }, board.root, detailSlot),
  toasts,
  live,
);
setInterval(() => {
  tickLeases(board.root, state.now());
  tickTimes(attentionSlot, state.now());
  tickTimes(detailSlot, state.now());
}, 1000);
state.vscode.postMessage({ type: 'ready' });
