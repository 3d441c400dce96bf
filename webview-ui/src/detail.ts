import { columnOf } from '../../src/protocol/board';
import { COLUMN_TITLES, type CardDetail, type GateAction, type TodoAction } from '../../src/protocol/boardProtocol';
import { LANDING_LABELS, changeSize, changeState, hasChanges, landingsFor, uncommittedWords } from '../../src/protocol/changeWords';
import { boardTime } from '../../src/protocol/boardText';
import { untilWords } from '../../src/protocol/display';
import { runTook } from '../../src/shared/timeWords';
import { ACTS } from './pastMode';
import { reviewSection } from './reviewDetail';
import { h, icon, timeEl } from './dom';

export interface DetailHandlers {
  close(): void;
  openArtifact(path: string): void;
  actions(anchor: HTMLElement): void;
  gate(action: GateAction, gateId: string): void;
  todo(action: TodoAction): void;
  openTurnOutput(turnId: string): void;
}

/**
 * The selected card's detail: first what waits for the person (its gates, with Approve and Reject), then acceptance,
 * continuation, monitors, evidence with artifacts, the turns that worked on it (with their output), history, handoffs.
 */
export function renderDetail(d: CardDetail, nowMs: number, on: DetailHandlers): HTMLElement {
  const id = d.card.id;
  const close = h(
    'button',
    { type: 'button', class: 'icon-button', 'aria-label': `Close the details of ${id}`, title: 'Close (Escape)' },
    icon('close'),
  );
  close.addEventListener('click', on.close);
  const actions = h(
    'button',
    { type: 'button', class: 'button', 'aria-haspopup': 'menu', 'aria-label': `Actions for ${id}`, ...ACTS },
    icon('kebab-vertical'),
    ' Actions',
  );
  actions.addEventListener('click', () => on.actions(actions));
  const section = (title: string, ...content: (HTMLElement | null)[]) =>
    h('section', { class: 'detail-section' }, h('h3', { text: title }), ...content);
  const text = (value: string, empty: string) => h('p', { class: value ? 'detail-text' : 'quiet', text: value || empty });
  const evidence = d.evidence.length
    ? h(
        'ul',
        { class: 'detail-list evidence-list' },
        ...d.evidence.map((e) =>
          h(
            'li',
            { class: e.run ? 'kernel-verified' : undefined },
            e.run
              ? h(
                  'div',
                  { title: 'loopx ran this command itself: this is what it saw, not what anyone says' },
                  icon('shield', 'kernel-verified'),
                  ` ran `,
                  h('code', { text: e.run.command }),
                  `: ${e.run.error ?? `exit ${e.run.exitCode}`} in ${runTook(e.run.durationMs)}${e.run.check ? ' (acceptance check)' : ''}`,
                )
              : h('div', { text: e.summary }),
            h(
              'div',
              { class: 'quiet', title: `evidence #${e.seq}, kind ${e.kind}` },
              `${e.run ? `kernel-verified, asked by ${e.actor}` : e.text} · `,
              timeEl(e.at, nowMs),
            ),
            ...e.artifacts.map((a) => {
              const b = h(
                'button',
                { type: 'button', class: 'link artifact', title: `sha256 ${a.sha256}`, 'aria-label': `Open artifact ${a.path}` },
                icon('file'),
                ` ${a.path}`,
              );
              b.addEventListener('click', () => on.openArtifact(a.path));
              return b;
            }),
          ),
        ),
      )
    : text('', 'No evidence yet.');
  const column = COLUMN_TITLES[columnOf(d.card)];
  const history = h(
    'ol',
    { class: 'detail-list history' },
    ...d.history.map((e) =>
      h(
        'li',
        { title: `${e.kind} · event #${e.seq}` },
        h('span', { class: 'history-text', text: e.text }),
        e.note ? h('span', { class: 'history-note', text: `: ${e.note}` }) : null,
        h('span', { class: 'quiet' }, ' · ', timeEl(e.at, nowMs)),
      ),
    ),
  );
  return h(
    'aside',
    { class: 'detail', 'aria-label': `${id} details`, tabindex: -1, 'data-id': id },
    h('header', { class: 'detail-head' }, h('h2', { text: `${id} ${d.card.title}` }), actions, close),
    h(
      'p',
      { class: 'quiet detail-facts', title: `status ${d.card.status} · revision ${d.card.revision}` },
      `${column} · priority ${d.card.priority}${d.card.owner ? ` · held by ${d.card.owner}` : ''}`,
    ),
    d.gates.length ? section(`Waiting for your decision (${d.gates.length})`, gateList(d, nowMs, on)) : null,
    reviewSection(d, nowMs, (action) => on.todo(action)),
    d.card.change ? section('Branch', branchSection(d, on)) : null,
    section('Acceptance', text(d.detail, 'No acceptance text.')),
    section('Continuation', text(d.continuation, 'None yet.')),
    d.reason ? section('Reason', text(d.reason, '')) : null,
    d.monitors.length
      ? section(`Monitors (${d.monitors.length})`, h('ul', { class: 'detail-list' }, ...d.monitors.map((m) => monitorItem(m, nowMs))))
      : null,
    section(`Evidence (${d.evidence.length})`, evidence),
    d.turns.length ? section(`Agent turns (${d.turns.length})`, turnList(d, nowMs, on)) : null,
    d.handoffs.length
      ? section(
          'Handoffs',
          h(
            'ul',
            { class: 'detail-list' },
            ...d.handoffs.map((x) =>
              h(
                'li',
                { title: `handoff ${x.id}, ${x.status}` },
                `${x.from} → ${x.to}, ${x.status}: ${x.summary}${x.pending ? ` · left: ${x.pending}` : ''}`,
              ),
            ),
          ),
        )
      : null,
    section('History', history),
  );
}

/** A monitor the todo waited on: what it checked, how it ended, and its recent runs with the end of their output. */
function monitorItem(m: CardDetail['monitors'][number], nowMs: number): HTMLElement {
  const what = m.kind === 'timer' ? 'a timer' : `${m.check ?? ''} · until ${untilWords(m.until)}`;
  const state =
    m.status === 'waiting'
      ? `waiting${m.nextCheckAt ? ` · next ${boardTime(m.nextCheckAt, nowMs)}` : ''}`
      : `${m.status}${m.result ? `: ${m.result}` : ''}`;
  return h(
    'li',
    { class: `monitor monitor-${m.status}` },
    h('div', {}, icon(m.kind === 'timer' ? 'watch' : 'eye'), ' ', h('strong', { text: m.id }), ' ', h('code', { text: what })),
    h('div', { class: 'quiet', text: state }),
    m.runs.length
      ? h(
          'ol',
          { class: 'runs', reversed: true },
          ...m.runs.map((r) =>
            h(
              'li',
              { title: r.outputTail ? r.outputTail.slice(-1000) : 'no output' },
              `run ${r.n} · ${boardTime(r.at, nowMs)} · ${r.error ?? `exit ${r.exitCode}`} in ${runTook(r.durationMs)}`,
              r.outputTail.trim() ? h('pre', { class: 'run-tail', text: r.outputTail.trimEnd().split('\n').slice(-3).join('\n') }) : null,
            ),
          ),
        )
      : null,
  );
}

/** The todo's branch: where it stands, its newest commits, what is not committed, and the person's choices. */
function branchSection(d: CardDetail, on: DetailHandlers): HTMLElement {
  const c = d.card.change as NonNullable<CardDetail['card']['change']>;
  const choices: TodoAction[] = [...(hasChanges(c) ? (['showChanges'] as const) : []), ...landingsFor(d.card)];
  const buttons = choices.map((action) => {
    const b = h(
      'button',
      { type: 'button', class: action === 'mergeBranch' ? 'button primary' : 'button', 'data-action': action, ...ACTS },
      LANDING_LABELS[action as keyof typeof LANDING_LABELS],
    );
    b.addEventListener('click', () => on.todo(action));
    return b;
  });
  const loose = uncommittedWords(c);
  return h(
    'div',
    { class: 'branch' },
    h('p', {}, icon('git-branch'), ' ', h('code', { text: c.branch }), ` from ${c.base}: ${changeState(c, d.card.status)}`),
    h('p', { class: 'quiet', text: changeSize(c) }),
    c.subjects.length ? h('ul', { class: 'detail-list commits' }, ...c.subjects.map((s) => h('li', { text: s }))) : null,
    loose && c.uncommitted ? h('p', { class: 'branch-loose', text: `${loose}: ${c.uncommitted.join(', ')}` }) : null,
    c.prUrl ? h('p', {}, 'Pull request: ', h('a', { href: c.prUrl, text: c.prUrl })) : null,
    buttons.length ? h('div', { class: 'actions' }, ...buttons) : null,
  );
}

/** The gates on this todo, each with the question and the two decisions (each opens VS Code's modal). */
function gateList(d: CardDetail, nowMs: number, on: DetailHandlers): HTMLElement {
  return h(
    'ul',
    { class: 'detail-list gate-list' },
    ...d.gates.map((g) => {
      const decide = (action: GateAction, label: string, iconName: string, primary: boolean) => {
        const b = h(
          'button',
          {
            type: 'button',
            class: primary ? 'button primary' : 'button',
            'aria-label': `${label} gate ${g.id} on ${d.card.id}: ${g.question}`,
            ...ACTS,
          },
          icon(iconName),
          ` ${label}…`,
        );
        b.addEventListener('click', () => on.gate(action, g.id));
        return b;
      };
      return h(
        'li',
        { class: 'gate', 'data-gate': g.id },
        h('q', { class: 'question', text: g.question }),
        h('div', { class: 'quiet' }, `${g.id} · asked by ${g.askedBy} `, timeEl(g.askedAt, nowMs)),
        h('div', { class: 'actions' }, decide('approveGate', 'Approve', 'check', true), decide('rejectGate', 'Reject', 'close', false)),
      );
    }),
  );
}

/** Who worked on the todo, how each turn ended, and a button to its output (the host's terminal log). */
function turnList(d: CardDetail, nowMs: number, on: DetailHandlers): HTMLElement {
  return h(
    'ol',
    { class: 'detail-list turn-list' },
    ...d.turns.map((t) => {
      const output = h(
        'button',
        { type: 'button', class: 'link', 'aria-label': `Open the output of turn ${t.id}` },
        icon('terminal'),
        ' Output',
      );
      output.addEventListener('click', () => on.openTurnOutput(t.id));
      return h(
        'li',
        { class: 'turn', 'data-turn': t.id, title: `turn ${t.id}` },
        h('div', {}, `${t.agent} on ${t.host}: ${t.result}${t.exitCode !== null && t.exitCode !== 0 ? ` (exit code ${t.exitCode})` : ''}`),
        h('div', { class: 'quiet' }, `${t.id} · started `, timeEl(t.startedAt, nowMs), t.used ? ` · ${t.used}` : '', ' · ', output),
      );
    }),
  );
}
