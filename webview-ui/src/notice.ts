import type { BoardNotice, NoticeAction } from '../../src/protocol/boardProtocol';
import { h, icon } from './dom';

/**
 * The banner of a team store that cannot be reached: the views' sentence and their buttons (Retry, Show the Last
 * State), which the host runs as the same commands. Gone once the store answers; while the last state is shown the
 * cards are dimmed, since they may be out of date.
 */
export class NoticeBanner {
  readonly slot = h('div', { class: 'notice-slot' });
  private shown = '';

  constructor(private readonly on: { action(action: NoticeAction): void; announce(text: string): void }) {}

  render(notice: BoardNotice | undefined): void {
    const key = JSON.stringify(notice ?? null);
    if (key === this.shown) return;
    this.shown = key;
    document.body.classList.toggle('last-state', notice?.lastState === true);
    if (!notice) {
      this.slot.replaceChildren();
      return;
    }
    const labels = { retry: 'Retry', showLastState: 'Show the Last State' } as const;
    const buttons = notice.actions.map((action) => {
      const b = h('button', { type: 'button', class: 'button', 'data-action': action }, labels[action]);
      b.addEventListener('click', () => this.on.action(action));
      return b;
    });
    this.slot.replaceChildren(
      h(
        'div',
        { class: 'notice', role: 'alert', title: notice.detail },
        icon('warning'),
        h('span', { class: 'notice-text' }, ` ${notice.text}`),
        h('span', { class: 'notice-actions' }, ...buttons),
      ),
    );
    this.on.announce(notice.text);
  }
}
