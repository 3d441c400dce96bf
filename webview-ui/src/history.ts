import {
  MOMENT_HINT,
  changesHeadline,
  changesSince,
  columnTitle,
  momentFieldText,
  parseMomentField,
  type BoardChanges,
} from '../../src/protocol/boardHistory';
import { clockTime } from '../../src/protocol/display';
import type { Card, PastBoard } from '../../src/protocol/boardProtocol';
import { boardTimeTitle } from '../../src/protocol/boardText';
import { h, icon } from './dom';

/**
 * The board at any past moment: a slider over the log's events (arrow keys step one event, Page Up/Down more), the
 * moment in words, and "Back to now", which lists what changed since. While it is on the board is read-only. The
 * host replays the log (the kernel's reducers) to the chosen event; requests go one at a time, the latest wins.
 */
export interface HistoryHost {
  /** Ask the host for the board after event `seq`, or at a time. */
  request(to: { seq: number } | { at: string }): Promise<PastBoard | string>;
  /** Show a past board (read-only) or, with null, leave history and ask for the board as it is now. */
  show(past: PastBoard | null): void;
  /** Open a card's detail. */
  open(todoId: string): void;
  announce(text: string): void;
}

export class BoardHistoryBar {
  readonly root = h('section', { class: 'history-bar', 'aria-label': 'The board at a past moment', hidden: true });
  readonly toggle = h(
    'button',
    { class: 'toolbar-button', type: 'button', 'aria-pressed': 'false', title: 'See the board as it was at any past moment' },
    icon('history'),
    h('span', { class: 'toolbar-label' }, ' History'),
  );
  readonly changes = h('div', { class: 'changes-slot' });
  private readonly slider = h('input', {
    type: 'range',
    min: '0',
    max: '1',
    value: '1',
    step: '1',
    id: 'history-slider',
    'aria-label': 'Event in the log',
  });
  // A text field in one form, 24-hour (boardHistory.ts parseMomentField): a datetime-local field follows the
  // browser's language, which in VS Code is its display language (12-hour, month first for every English reader).
  private readonly when = h('input', {
    type: 'text',
    'aria-label': 'Go to a time (year-month-day hours:minutes)',
    id: 'history-time',
    class: 'history-time',
    placeholder: '2026-12-03 14:30',
    title: MOMENT_HINT,
    spellcheck: 'false',
    autocomplete: 'off',
  });
  private readonly label = h('div', { class: 'history-label', role: 'status', 'aria-live': 'polite' });
  private readonly back = h('button', { class: 'button', type: 'button' }, icon('debug-step-over'), ' Back to now');
  private readonly prev = h(
    'button',
    { class: 'icon-button', type: 'button', 'aria-label': 'One event earlier', title: 'One event earlier' },
    icon('chevron-left'),
  );
  private readonly next = h(
    'button',
    { class: 'icon-button', type: 'button', 'aria-label': 'One event later', title: 'One event later' },
    icon('chevron-right'),
  );
  private inFlight = false;
  private wanted: { seq: number } | { at: string } | null = null;
  private shown: PastBoard | null = null;
  /** The cards of the last moment looked at: "what changed since" compares the board now with them. */
  private lastLook: { past: PastBoard; cards: Card[] } | null = null;

  constructor(private readonly host: HistoryHost) {
    this.root.append(
      h(
        'div',
        { class: 'history-row' },
        icon('history'),
        h('strong', {}, 'Looking back'),
        h('span', { class: 'quiet' }, ' · read-only'),
        this.prev,
        this.slider,
        this.next,
        h('label', { class: 'filter' }, icon('calendar'), this.when),
        this.back,
      ),
      this.label,
    );
    this.toggle.addEventListener('click', () => (this.active ? this.leave() : this.enter()));
    this.slider.addEventListener('input', () => this.go({ seq: Number(this.slider.value) }));
    this.prev.addEventListener('click', () => this.go({ seq: Math.max(0, Number(this.slider.value) - 1) }));
    this.next.addEventListener('click', () => this.go({ seq: Number(this.slider.value) + 1 }));
    this.when.addEventListener('change', () => {
      if (!this.when.value.trim()) return;
      const at = parseMomentField(this.when.value, Date.now());
      this.when.setAttribute('aria-invalid', String(at === null));
      if (at) this.go({ at });
      else this.label.textContent = `${MOMENT_HINT}.`;
    });
    this.back.addEventListener('click', () => this.leave());
  }

  get active(): boolean {
    return !this.root.hidden;
  }

  /** Opens the bar at the newest event, then the person scrubs back. */
  enter(): void {
    this.root.hidden = false;
    this.toggle.setAttribute('aria-pressed', 'true');
    this.changes.replaceChildren();
    this.go({ seq: Number.MAX_SAFE_INTEGER });
    this.slider.focus();
  }

  /** Back to now: the host lets go of the replay, the board shows now, and the changes since the moment are listed. */
  leave(): void {
    if (!this.active) return;
    this.root.hidden = true;
    this.toggle.setAttribute('aria-pressed', 'false');
    if (this.shown) this.lastLook = { past: this.shown, cards: this.shown.snapshot.cards };
    this.shown = null;
    this.wanted = null;
    this.host.show(null);
  }

  /** Called with the board as it is now, after leaving: lists what changed since the moment last looked at. */
  backToNow(now: Card[]): void {
    const look = this.lastLook;
    this.lastLook = null;
    if (!look || look.past.seq >= look.past.head) return;
    const changes = changesSince(look.cards, now);
    this.changes.replaceChildren(this.renderChanges(look.past, changes));
    this.host.announce(`Back to now. ${changesHeadline(changes)}.`);
  }

  private go(to: { seq: number } | { at: string }): void {
    this.wanted = to;
    if (!this.inFlight) void this.pump();
  }

  private async pump(): Promise<void> {
    while (this.wanted && this.active) {
      const to = this.wanted;
      this.wanted = null;
      this.inFlight = true;
      const answer = await this.host.request(to);
      this.inFlight = false;
      if (!this.active) return;
      if (typeof answer === 'string') {
        this.label.textContent = answer;
        continue;
      }
      if (this.wanted) continue; // the person moved on meanwhile: skip drawing this one
      this.shown = answer;
      this.slider.max = String(answer.head);
      this.slider.value = String(answer.seq);
      this.slider.setAttribute('aria-valuetext', `event ${answer.seq} of ${answer.head}: ${answer.sentence}`);
      this.when.value = momentFieldText(answer.at);
      this.when.removeAttribute('aria-invalid');
      this.label.textContent = '';
      this.label.append(
        h('time', { datetime: answer.at, title: boardTimeTitle(answer.at), text: clockTime(answer.at, Date.now()) }),
        ` · event ${answer.seq.toLocaleString()} of ${answer.head.toLocaleString()} · `,
        h('span', { title: answer.kind, text: answer.sentence }),
      );
      this.host.show(answer);
    }
  }

  private renderChanges(past: PastBoard, c: BoardChanges): HTMLElement {
    const item = (id: string, text: string) => {
      const open = h('button', { class: 'link', type: 'button', text: id, 'aria-label': `Open ${id}` });
      open.addEventListener('click', () => this.host.open(id));
      return h('li', {}, open, ` ${text}`);
    };
    const close = h('button', { class: 'icon-button', type: 'button', 'aria-label': 'Close what changed', title: 'Close' }, icon('close'));
    const panel = h(
      'section',
      { class: 'changes', 'aria-label': 'What changed since the moment you looked at' },
      h(
        'div',
        { class: 'changes-head' },
        icon('diff'),
        h('strong', { text: changesHeadline(c) }),
        h('span', { class: 'quiet', text: ` (since ${clockTime(past.at, Date.now())}, event ${past.seq})` }),
        close,
      ),
      h(
        'ul',
        {},
        ...c.moved.slice(0, 40).map((m) => item(m.id, `${m.title}: ${columnTitle(m.from)} → ${columnTitle(m.to)}`)),
        ...c.added.slice(0, 20).map((m) => item(m.id, `${m.title}: new, in ${columnTitle(m.to)}`)),
        ...c.removed.slice(0, 20).map((m) => item(m.id, `${m.title}: no longer on the board`)),
      ),
    );
    close.addEventListener('click', () => panel.remove());
    return panel;
  }
}
