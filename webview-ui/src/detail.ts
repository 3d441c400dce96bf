import { columnOf } from '../../src/protocol/board';
import { COLUMN_TITLES, type CardDetail } from '../../src/protocol/kanban';
import { h, icon } from './dom';

/** The selected card's detail: acceptance, continuation, evidence with artifacts, history, handoffs. */
export function renderDetail(d: CardDetail, on: { close(): void; openArtifact(path: string): void; actions(anchor: HTMLElement): void }): HTMLElement {
  const close = h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close details' }, icon('close'));
  close.addEventListener('click', on.close);
  const actions = h('button', { type: 'button', class: 'button', 'aria-haspopup': 'menu' }, icon('kebab-vertical'), ' Actions');
  actions.addEventListener('click', () => on.actions(actions));
  const section = (title: string, ...content: (HTMLElement | null)[]) => h('section', { class: 'detail-section' }, h('h3', { text: title }), ...content);
  const text = (value: string, empty: string) => h('p', { class: value ? 'detail-text' : 'quiet', text: value || empty });
  const evidence = d.evidence.length
    ? h('ul', { class: 'detail-list' }, ...d.evidence.map((e) => h('li', {},
        h('div', {}, h('strong', { text: e.kind }), ` ${e.summary}`),
        h('div', { class: 'quiet', text: `#${e.seq} · ${e.actor} · ${new Date(e.at).toLocaleString()}` }),
        ...e.artifacts.map((a) => {
          const b = h('button', { type: 'button', class: 'link artifact', title: `sha256 ${a.sha256}` }, icon('file'), ` ${a.path}`);
          b.addEventListener('click', () => on.openArtifact(a.path));
          return b;
        }))))
    : text('', 'No evidence yet.');
  return h('aside', { class: 'detail', 'aria-label': `${d.card.id} details`, tabindex: -1 },
    h('header', { class: 'detail-head' }, h('h2', { text: `${d.card.id} ${d.card.title}` }), actions, close),
    h('p', { class: 'quiet', text: `${COLUMN_TITLES[columnOf(d.card)]} · priority ${d.card.priority}${d.card.owner ? ` · held by ${d.card.owner}` : ''} · revision ${d.card.revision}` }),
    section('Acceptance', text(d.detail, 'No acceptance text.')),
    section('Continuation', text(d.continuation, 'None yet.')),
    d.reason ? section('Reason', text(d.reason, '')) : null,
    section(`Evidence (${d.evidence.length})`, evidence),
    d.handoffs.length ? section('Handoffs', h('ul', { class: 'detail-list' }, ...d.handoffs.map((x) => h('li', { text: `${x.id} ${x.from} → ${x.to} (${x.status}): ${x.summary}${x.pending ? ` · left: ${x.pending}` : ''}` })))) : null,
    section('History', h('ol', { class: 'detail-list history' }, ...d.history.map((e) => h('li', {}, h('span', { class: 'quiet', text: `${new Date(e.at).toLocaleString()} ` }), h('strong', { text: e.kind }), ` ${e.actor}${e.summary ? `: ${e.summary}` : ''}`)))),
  );
}
