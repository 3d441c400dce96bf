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
    ? h('ul', { class: 'detail-list' }, ...d.evidence.map((e) => h('li', { class: e.run ? 'kernel-verified' : undefined },
        e.run
          ? h('div', { title: 'loopx ran this command itself: this is what it saw, not what anyone says' },
              icon('shield', 'kernel-verified'), ' ', h('strong', { text: e.kind }), ` ran `, h('code', { text: e.run.command }), `: ${e.run.error ?? `exit ${e.run.exitCode}`} in ${seconds(e.run.durationMs)}${e.run.check ? ' (acceptance check)' : ''}`)
          : h('div', {}, h('strong', { text: e.kind }), ` ${e.summary}`),
        h('div', { class: 'quiet', text: `#${e.seq} · ${e.run ? `kernel-verified, asked by ${e.actor}` : `${e.actor}'s word`} · ${new Date(e.at).toLocaleString()}` }),
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
    d.monitors.length ? section(`Monitors (${d.monitors.length})`, h('ul', { class: 'detail-list' }, ...d.monitors.map(monitorItem))) : null,
    section(`Evidence (${d.evidence.length})`, evidence),
    d.handoffs.length ? section('Handoffs', h('ul', { class: 'detail-list' }, ...d.handoffs.map((x) => h('li', { text: `${x.id} ${x.from} → ${x.to} (${x.status}): ${x.summary}${x.pending ? ` · left: ${x.pending}` : ''}` })))) : null,
    section('History', h('ol', { class: 'detail-list history' }, ...d.history.map((e) => h('li', {}, h('span', { class: 'quiet', text: `${new Date(e.at).toLocaleString()} ` }), h('strong', { text: e.kind }), ` ${e.actor}${e.summary ? `: ${e.summary}` : ''}`)))),
  );
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** A monitor the todo waited on: what it checked, how it ended, and its recent runs with the end of their output. */
function monitorItem(m: CardDetail['monitors'][number]): HTMLElement {
  const what = m.kind === 'timer' ? 'a timer' : `${m.check ?? ''} · until ${m.until}`;
  const state = m.status === 'waiting' ? `waiting${m.nextCheckAt ? ` · next ${new Date(m.nextCheckAt).toLocaleString()}` : ''}` : `${m.status}${m.result ? `: ${m.result}` : ''}`;
  return h('li', { class: `monitor monitor-${m.status}` },
    h('div', {}, icon(m.kind === 'timer' ? 'watch' : 'eye'), ' ', h('strong', { text: m.id }), ' ', h('code', { text: what })),
    h('div', { class: 'quiet', text: state }),
    m.runs.length
      ? h('ol', { class: 'runs', reversed: true }, ...m.runs.map((r) => h('li', { title: r.outputTail ? r.outputTail.slice(-1000) : 'no output' },
          `run ${r.n} · ${new Date(r.at).toLocaleTimeString()} · ${r.error ?? `exit ${r.exitCode}`} in ${seconds(r.durationMs)}`,
          r.outputTail.trim() ? h('pre', { class: 'run-tail', text: r.outputTail.trimEnd().split('\n').slice(-3).join('\n') }) : null)))
      : null);
}
