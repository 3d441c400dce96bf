import { columnOf, compareCards, matches } from '../../src/protocol/board';
import { emptyColumnText } from '../../src/protocol/boardText';
import {
  COLUMNS,
  COLUMN_TITLES,
  TODO_ACTIONS,
  type BoardPatch,
  type Card,
  type ColumnId,
  type TodoAction,
} from '../../src/protocol/boardProtocol';
import { renderCard } from './cards';
import { h } from './dom';
import type { BoardState } from './state';
import type { AnswerTo } from '../../src/protocol/boardSchemas';

export type MoveRefused = Extract<AnswerTo<'move'>, { ok: false }>;

export interface BoardHandlers {
  /** True when nothing may change now (the board shows the past); the handler says why. */
  readOnly(): boolean;
  /** The host refused a move (the card is back where the store has it): say why, offer a retry and the deciding gates. */
  refused(card: Card, to: ColumnId, answer: MoveRefused): void;
  open(todoId: string): void;
  menu(card: Card, anchor: HTMLElement): void;
  /** A button on the card itself (its branch's Changes and Merge…). */
  act(card: Card, action: TodoAction): void;
}

/**
 * The columns. Cards are keyed DOM nodes: a patch re-renders and re-places only the cards it names, a filter
 * only hides and shows; nothing rebuilds the whole board after the first render.
 */
export class BoardView {
  readonly root: HTMLElement;
  private readonly lists = new Map<ColumnId, HTMLElement>();
  private readonly counts = new Map<ColumnId, HTMLElement>();
  private readonly empties = new Map<ColumnId, HTMLElement>();
  private selected: string | null = null;
  private readonly nodes = new Map<string, HTMLElement>();
  private dragged: Card | undefined;

  constructor(
    private readonly state: BoardState,
    private readonly on: BoardHandlers,
  ) {
    this.root = h('div', { class: 'columns' });
    for (const column of COLUMNS) {
      const list = h('div', { class: 'cards', role: 'list', 'aria-labelledby': `title-${column}` });
      const count = h('span', { class: 'count', text: '0' });
      const title = h('h2', { class: 'column-title', id: `title-${column}` }, h('span', { text: COLUMN_TITLES[column] }), ' ', count);
      // Outside the list (a list holds only cards) and inert to the pointer: the column stays the drop target.
      const empty = h('p', { class: 'column-empty', text: emptyColumnText(column, false) });
      const section =
        column === 'killed'
          ? h('details', { class: 'column column-killed', 'data-column': column }, h('summary', {}, title), list, empty)
          : h(
              'section',
              { class: `column column-${column}`, 'data-column': column, 'aria-labelledby': `title-${column}` },
              title,
              list,
              empty,
            );
      this.wireDrop(section, column);
      this.lists.set(column, list);
      this.counts.set(column, count);
      this.empties.set(column, empty);
      this.root.append(section);
    }
  }

  /** First render, or after a reconnect: every card. */
  renderAll(): void {
    for (const list of this.lists.values()) list.replaceChildren();
    this.nodes.clear();
    const now = this.state.now();
    const byColumn = new Map<ColumnId, Card[]>(COLUMNS.map((c) => [c, []]));
    for (const card of this.state.cards.values()) byColumn.get(columnOf(card))?.push(card);
    for (const [column, cards] of byColumn) {
      cards.sort(compareCards);
      const fragment = document.createDocumentFragment();
      for (const card of cards) fragment.append(this.cardNode(card, now));
      this.lists.get(column)?.append(fragment);
    }
    if (this.selected) this.nodes.get(this.selected)?.classList.add('selected');
    this.applyFilter();
  }

  applyPatch(patch: BoardPatch): void {
    const now = this.state.now();
    for (const id of patch.removed) {
      this.nodes.get(id)?.remove();
      this.nodes.delete(id);
      this.state.cards.delete(id);
    }
    for (const card of patch.upserts) {
      this.state.cards.set(card.id, card);
      this.place(card, this.cardNode(card, now));
    }
    this.applyFilter(patch.upserts.map((c) => c.id));
  }

  /** Puts a card where its column and claim order say (after a patch or when a move snaps back). */
  place(card: Card, node = this.nodes.get(card.id)): void {
    if (!node) return;
    node.classList.remove('pending');
    const list = this.lists.get(columnOf(card)) as HTMLElement;
    const before = [...list.children].find((el) => {
      const other = this.state.cards.get((el as HTMLElement).dataset.id ?? '');
      return other !== undefined && other.id !== card.id && compareCards(card, other) < 0;
    });
    if (node.parentElement !== list || node.nextElementSibling !== (before ?? null)) list.insertBefore(node, before ?? null);
  }

  /**
   * Asks the host for a move, which asks the kernel once. A move the card allows (the kernel's answer, sent with it)
   * waits in its target column meanwhile and snaps back if refused.
   */
  async move(card: Card, to: ColumnId): Promise<void> {
    if (this.on.readOnly()) {
      this.place(card);
      return;
    }
    if (card.moves.includes(to)) this.moveOptimistically(card, to);
    const answer = await this.state.request({ type: 'move', todoId: card.id, to });
    if (answer.ok) return;
    const current = this.state.cards.get(card.id);
    if (current) this.place(current);
    this.applyFilter([card.id]);
    this.on.refused(current ?? card, to, answer);
  }

  /** Shows the card in its target column while the host works on the move. */
  private moveOptimistically(card: Card, to: ColumnId): void {
    const node = this.nodes.get(card.id);
    if (!node) return;
    node.classList.add('pending');
    this.lists.get(to)?.prepend(node);
    this.updateCounts();
  }

  /** Hides what the filter drops; with `only`, re-checks just those cards. */
  applyFilter(only?: string[]): void {
    // "All goals" with more than one goal: each card says which goal it is in.
    this.root.classList.toggle('multi-goal', this.state.filter.goalId === null && this.state.goals.length > 1);
    // In review only where reviews are in play (a goal asks for them, or a change waits in one): a board without
    // review keeps its width for the six columns it always had.
    const inReview = this.root.querySelector<HTMLElement>('.column-in_review');
    if (inReview)
      inReview.hidden = !this.state.goals.some((g) => g.review) && ![...this.state.cards.values()].some((c) => c.status === 'in_review');
    const ids = only ?? [...this.nodes.keys()];
    for (const id of ids) {
      const card = this.state.cards.get(id);
      const node = this.nodes.get(id);
      if (card && node) node.hidden = !matches(card, this.state.filter);
    }
    this.updateCounts();
  }

  focusCard(id: string): void {
    this.nodes.get(id)?.focus();
  }

  /** Marks the card whose detail is open (or none) and scrolls it into view beside the detail pane. */
  select(id: string | null, reveal = true): void {
    if (this.selected && this.selected !== id) this.nodes.get(this.selected)?.classList.remove('selected');
    this.selected = id;
    const node = id ? this.nodes.get(id) : undefined;
    if (!node) return;
    node.classList.add('selected');
    if (reveal) this.reveal(id as string);
  }

  /** Scrolls a card into view, horizontally in the board and vertically in its column; opens Killed if it is there. */
  reveal(id: string): void {
    const node = this.nodes.get(id);
    if (!node || node.hidden) return;
    const folded = node.closest('details');
    if (folded && !folded.open) folded.open = true;
    node.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  private updateCounts(): void {
    for (const [column, list] of this.lists) {
      let visible = 0;
      for (const el of list.children) if (!(el as HTMLElement).hidden) visible++;
      const count = this.counts.get(column);
      if (count && count.textContent !== String(visible)) count.textContent = String(visible);
      const empty = this.empties.get(column);
      if (empty) {
        empty.hidden = visible > 0;
        const text = emptyColumnText(column, list.children.length > 0);
        if (empty.textContent !== text) empty.textContent = text;
      }
    }
  }

  private cardNode(card: Card, now: number): HTMLElement {
    const existing = this.nodes.get(card.id);
    const node = renderCard(card, now, existing);
    if (!existing) {
      this.nodes.set(card.id, node);
      this.wireCard(node);
    }
    return node;
  }

  private wireCard(node: HTMLElement): void {
    const card = () => this.state.cards.get(node.dataset.id ?? '') as Card;
    node.addEventListener('dragstart', (event) => {
      this.dragged = card();
      event.dataTransfer?.setData('text/plain', node.dataset.id ?? '');
      if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
      node.classList.add('dragging');
    });
    node.addEventListener('dragend', () => {
      this.dragged = undefined;
      node.classList.remove('dragging');
      for (const el of this.root.querySelectorAll('.drop-ok, .drop-no')) el.classList.remove('drop-ok', 'drop-no');
    });
    node.addEventListener('click', (event) => {
      const target = event.target as HTMLElement;
      const action = target.closest<HTMLElement>('[data-action]')?.dataset.action as TodoAction | undefined;
      if (target.closest('.card-menu')) this.on.menu(card(), node.querySelector('.card-menu') as HTMLElement);
      else if (action && TODO_ACTIONS.includes(action)) this.on.act(card(), action);
      else this.on.open(card().id);
    });
    node.addEventListener('keydown', (event) => {
      if (event.target !== node) return;
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        this.on.open(card().id);
      } else if (event.key === 'm' || event.key === 'M' || (event.key === 'F10' && event.shiftKey) || event.key === 'ContextMenu') {
        event.preventDefault();
        this.on.menu(card(), node.querySelector('.card-menu') as HTMLElement);
      } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        let next = (event.key === 'ArrowDown' ? node.nextElementSibling : node.previousElementSibling) as HTMLElement | null;
        while (next?.hidden)
          next = (event.key === 'ArrowDown' ? next.nextElementSibling : next.previousElementSibling) as HTMLElement | null;
        next?.focus();
      } else if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
        event.preventDefault();
        this.focusBeside(node, event.key === 'ArrowRight' ? 1 : -1);
      }
    });
  }

  /**
   * ←/→ on a card: the card at the same height in the next column that shows any (empty columns are passed over),
   * else that column's last card. Nothing moves past the first or last column.
   */
  private focusBeside(node: HTMLElement, step: 1 | -1): void {
    const lists = [...this.lists.values()];
    const visible = (list: HTMLElement) => [...list.children].filter((el): el is HTMLElement => !(el as HTMLElement).hidden);
    const from = lists.indexOf(node.parentElement as HTMLElement);
    if (from < 0) return;
    const row = visible(lists[from] as HTMLElement).indexOf(node);
    for (let i = from + step; i >= 0 && i < lists.length; i += step) {
      const cards = visible(lists[i] as HTMLElement);
      if (cards.length) {
        (cards[Math.min(row, cards.length - 1)] as HTMLElement).focus();
        return;
      }
    }
  }

  private wireDrop(section: HTMLElement, column: ColumnId): void {
    section.addEventListener('dragover', (event) => {
      const card = this.dragged;
      if (!card) return;
      // The kernel's answer, sent with the card; the host asks the kernel again when the card is dropped.
      const allowed = card.moves.includes(column);
      // Refused targets still accept the drop, so the refusal can be explained instead of silently ignored.
      event.preventDefault();
      section.classList.toggle('drop-ok', allowed);
      section.classList.toggle('drop-no', !allowed && columnOf(card) !== column);
    });
    section.addEventListener('dragleave', (event) => {
      if (!section.contains(event.relatedTarget as Node)) section.classList.remove('drop-ok', 'drop-no');
    });
    section.addEventListener('drop', (event) => {
      event.preventDefault();
      section.classList.remove('drop-ok', 'drop-no');
      const id = event.dataTransfer?.getData('text/plain') ?? this.dragged?.id;
      const card = id ? this.state.cards.get(id) : undefined;
      if (card && columnOf(card) !== column) void this.move(card, column);
    });
  }
}
