import {
  LANES,
  TIME_KIND_ORDER,
  TIME_LABELS,
  burndownChart,
  costChart,
  dayText,
  hoursText,
  itemSentence,
  throughputChart,
  timeChart,
  timeShareBar,
  timelineChart,
} from '../../../src/protocol/story/storyCharts';
import { durationWords } from '../../../src/shared/timeWords';
import { cacheTileWords } from '../../../src/shared/usageWords';
import type { Story, StoryItem, ToStoryHost, ToStoryWebview } from '../../../src/protocol/story/storyProtocol';
import { CHART_CSS } from '../../../src/protocol/story/chartStyles';
import { h, icon } from '../dom';

/** The story view: a goal's week at a glance. Charts are SVG from src/protocol (the same as the exported page). */
interface VsCodeApi {
  postMessage(message: ToStoryHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();
// The charts' colours, shared with the exported page: a constructed style sheet (CSSOM), which the CSP allows.
const sheet = new CSSStyleSheet();
sheet.replaceSync(CHART_CSS);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const RANGES = [
  { id: 'day', label: 'Last 24 hours', ms: 86_400_000 },
  { id: 'week', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { id: 'month', label: 'Last 30 days', ms: 30 * 86_400_000 },
  { id: 'all', label: 'All', ms: Infinity },
] as const;
type RangeId = (typeof RANGES)[number]['id'];

const saved = (vscode.getState() ?? {}) as { range?: RangeId };
let range: RangeId = RANGES.some((r) => r.id === saved.range) ? (saved.range as RangeId) : 'week';
let story: Story | null = null;
let goals: { id: string; title: string }[] = [];
let listShown = 100;

const app = document.getElementById('app') as HTMLElement;
const live = h('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite' });
const goalSelect = h('select', { id: 'story-goal', 'aria-label': 'Goal' });
const rangeSelect = h('select', { id: 'story-range', 'aria-label': 'Time range of the timeline' });
for (const r of RANGES) rangeSelect.append(h('option', { value: r.id, text: r.label, selected: r.id === range }));
const exportHtml = h(
  'button',
  { class: 'button', type: 'button', title: 'Save this story as a page anyone can open in a browser' },
  icon('file-code'),
  ' Export as HTML…',
);
const exportPdf = h('button', { class: 'button', type: 'button', title: 'Save this story as a PDF' }, icon('file-pdf'), ' Export as PDF…');
const body = h('main', { class: 'story-body', id: 'story-body' });

goalSelect.addEventListener('change', () => vscode.postMessage({ type: 'pickGoal', goalId: goalSelect.value }));
rangeSelect.addEventListener('change', () => {
  range = rangeSelect.value as RangeId;
  vscode.setState({ range });
  render();
});
exportHtml.addEventListener('click', () => vscode.postMessage({ type: 'export', format: 'html' }));
exportPdf.addEventListener('click', () => vscode.postMessage({ type: 'export', format: 'pdf' }));

/**
 * A slot for chart markup (built by src/protocol with every text escaped), drawn once the slot is laid out and again
 * when the panel is resized: each chart is drawn at the slot's own width, so its text stays the size of the UI's.
 */
const drawers = new Map<HTMLElement, (width: number) => string>();
function svg(draw: (width: number) => string): HTMLElement {
  const slot = h('div', { class: 'svg-slot' });
  drawers.set(slot, draw);
  return slot;
}

function drawCharts(): void {
  for (const [slot, draw] of drawers) {
    if (!slot.isConnected) {
      drawers.delete(slot);
      continue;
    }
    slot.innerHTML = draw(Math.max(320, Math.min(1600, Math.round(slot.clientWidth || 720))));
  }
}
let resizeTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(drawCharts, 150);
});

function tile(label: string, value: string, detail: string, kind = ''): HTMLElement {
  return h(
    'div',
    { class: `tile ${kind}`, role: 'group', 'aria-label': `${label}: ${value}${detail ? `, ${detail}` : ''}` },
    h('div', { class: 'tile-value', text: value }),
    h('div', { class: 'tile-label', text: label }),
    detail ? h('div', { class: 'tile-detail quiet', text: detail }) : null,
  );
}

function table(caption: string, head: string[], rows: (string | number)[][]): HTMLElement {
  return h(
    'details',
    { class: 'numbers' },
    h('summary', {}, `Numbers: ${caption}`),
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col', text: c })))),
      h(
        'tbody',
        {},
        ...rows.map((r) =>
          h('tr', {}, ...r.map((c, i) => (i === 0 ? h('th', { scope: 'row', text: String(c) }) : h('td', { text: String(c) })))),
        ),
      ),
    ),
  );
}

function card(id: string, title: string, ...children: (HTMLElement | null)[]): HTMLElement {
  return h('section', { class: 'chart-card', 'aria-labelledby': `${id}-h`, id }, h('h2', { id: `${id}-h`, text: title }), ...children);
}

function tiles(s: Story): HTMLElement {
  const t = s.totals;
  const total = TIME_KIND_ORDER.reduce((sum, k) => sum + t.time[k], 0) || 1;
  const pct = (ms: number) => `${Math.round((ms / total) * 100)}%`;
  return h(
    'section',
    { class: 'tiles', 'aria-label': 'At a glance' },
    tile('shipped', String(t.shipped), `of ${t.todos} ${t.todos === 1 ? 'todo' : 'todos'}; ${t.open} open`, 'tile-ship'),
    tile(
      t.turns === 1 ? 'turn' : 'turns',
      String(t.turns),
      t.turnsFailed ? `${t.turnsFailed} failed` : 'none failed',
      t.turnsFailed ? 'tile-fail' : '',
    ),
    tile(
      t.gatesAsked === 1 ? 'gate' : 'gates',
      String(t.gatesAsked),
      `${t.gatesPending ? `${t.gatesPending} waiting for you; ` : ''}${t.medianGateWaitMs === null ? 'none decided yet' : `median wait ${durationWords(t.medianGateWaitMs)}`}`,
      t.gatesPending ? 'tile-person' : '',
    ),
    tile('waiting on a person', pct(t.time.person), hoursText(t.time.person), 'tile-person'),
    tile('waiting on the world', pct(t.time.world), hoursText(t.time.world), 'tile-world'),
    tile('working', pct(t.time.working), hoursText(t.time.working), 'tile-working'),
    // The rest of the todo-time: the four shares add up to 100%.
    tile('ready, nobody on it', pct(t.time.queued), hoursText(t.time.queued), 'tile-queued'),
    tile('cost', t.cost === null ? '—' : `$${t.cost.toFixed(2)}`, t.cost === null ? 'no turn reported what it cost' : 'from turn usage'),
    ((c) => tile('prompt cache', c.value, c.detail, 'tile-cache'))(cacheTileWords(s.cache)),
  );
}

function timeline(s: Story): HTMLElement {
  const to = Date.parse(s.now);
  const span = RANGES.find((r) => r.id === range)?.ms ?? Infinity;
  const from = Math.max(Date.parse(s.range.from), span === Infinity ? -Infinity : to - span);
  const inView = (i: StoryItem) => Date.parse(i.kind === 'ship' ? i.at : (i.end ?? s.now)) >= from;
  const items = s.timeline.filter(inView).reverse();
  const list = h('ol', { class: 'events', 'aria-label': 'What happened, newest first' });
  const more = h('button', { class: 'button secondary', type: 'button' });
  const fill = () => {
    list.replaceChildren(
      ...items.slice(0, listShown).map((i) => {
        const open = i.todoId
          ? h(
              'button',
              { class: 'link', type: 'button', 'aria-label': `Open ${i.todoId} on the board`, title: 'Open on the board' },
              icon('link-external'),
            )
          : null;
        open?.addEventListener('click', () => vscode.postMessage({ type: 'openTodo', todoId: i.todoId as string }));
        return h(
          'li',
          { class: `event event-${i.kind}` },
          h('span', { class: `swatch c-${i.kind}`, 'aria-hidden': 'true' }),
          h('span', { class: 'event-text', text: itemSentence(i, s.titles, s.offsetMinutes, s.now) }),
          open,
        );
      }),
    );
    more.textContent = `Show ${Math.min(100, items.length - listShown)} more of ${items.length}`;
    more.hidden = items.length <= listShown;
  };
  more.addEventListener('click', () => {
    listShown += 100;
    fill();
  });
  fill();
  const legend = h(
    'div',
    { class: 'legend', 'aria-hidden': 'true' },
    ...LANES.map((l) => h('span', {}, h('span', { class: `swatch c-${l.kind}` }), ` ${l.label}`)),
    h('span', {}, h('span', { class: 'swatch c-fail' }), ' failed'),
    h('span', {}, h('span', { class: 'swatch c-open-sample' }), ' still open'),
  );
  return card(
    'story-timeline',
    'Timeline',
    legend,
    svg((w) => timelineChart(s, from, to, w)),
    s.timelineOmitted
      ? h('p', { class: 'quiet', text: `${s.timelineOmitted} older items are left out of the timeline (the daily charts count them).` })
      : null,
    h('details', { class: 'numbers', open: items.length <= 12 }, h('summary', {}, `What happened (${items.length})`), list, more),
  );
}

function render(): void {
  const s = story;
  if (!s) return;
  listShown = 100;
  const timeLegend = h(
    'div',
    { class: 'legend', 'aria-hidden': 'true' },
    ...TIME_KIND_ORDER.map((k) => h('span', {}, h('span', { class: `swatch c-${k}` }), ` ${TIME_LABELS[k]}`)),
  );
  const hasCost = costChart(s.days) !== null;
  body.replaceChildren(
    h(
      'p',
      { class: 'story-lede' },
      h('strong', { text: `${s.goal.id} ${s.goal.title}` }),
      ` · ${s.goal.status} · ${s.events.toLocaleString()} events since ${dayText(s.range.from.slice(0, 10))}${s.goal.objective ? ` · ${s.goal.objective}` : ''}`,
    ),
    tiles(s),
    timeline(s),
    h(
      'div',
      { class: 'chart-grid' },
      card(
        'story-burndown',
        'Burn-down of open work',
        svg((w) => burndownChart(s, w)),
        h('p', { class: 'quiet', text: 'Open todos (area) and todos shipped or killed (line).' }),
      ),
      card(
        'story-throughput',
        'Throughput per day',
        svg((w) => throughputChart(s.days, w)),
        table(
          'throughput per day',
          ['Day', 'Shipped', 'Turns', 'Failed', 'Added'],
          s.days.map((d) => [dayText(d.day), d.shipped, d.turns, d.turnsFailed, d.added]),
        ),
      ),
      card(
        'story-time',
        'Where the time went',
        timeLegend,
        svg((w) => timeShareBar(s.totals.time, w)),
        svg((w) => timeChart(s.days, w)),
        h('p', { class: 'quiet', text: 'Todo-hours: each open todo counts, so two todos waiting an hour are two hours.' }),
        table(
          'hours per day',
          ['Day', ...TIME_KIND_ORDER.map((k) => TIME_LABELS[k])],
          s.days.map((d) => [dayText(d.day), ...TIME_KIND_ORDER.map((k) => hoursText(d.time[k]))]),
        ),
      ),
      card(
        'story-cost',
        'Cost per day',
        hasCost ? svg((w) => costChart(s.days, w) ?? '') : h('p', { class: 'quiet empty-chart', text: s.cost.note }),
      ),
    ),
  );
  drawCharts();
}

window.addEventListener('message', (event: MessageEvent<ToStoryWebview>) => {
  const m = event.data;
  if (m.type === 'story') {
    performance.mark('loopx-story-start');
    story = m.story;
    goals = m.goals;
    goalSelect.replaceChildren(
      ...goals.map((g) => h('option', { value: g.id, text: `${g.id} ${g.title}`, selected: g.id === m.story.goal.id })),
    );
    render();
    app.removeAttribute('aria-busy');
    live.textContent = `Story of ${m.story.goal.id} shown`;
    performance.mark('loopx-story-end');
    performance.measure('loopx-story-render', 'loopx-story-start', 'loopx-story-end');
  } else if (m.type === 'empty') {
    story = null;
    body.replaceChildren(h('p', { class: 'empty-chart', text: m.message }));
    app.removeAttribute('aria-busy');
  } else if (m.type === 'busy') {
    live.textContent = m.message;
  }
});

app.replaceChildren(
  h(
    'header',
    { class: 'toolbar' },
    h('h1', {}, icon('graph'), ' Goal story'),
    h('label', { class: 'filter' }, icon('target'), goalSelect),
    h('label', { class: 'filter' }, icon('calendar'), rangeSelect),
    h('span', { class: 'spacer' }),
    exportHtml,
    exportPdf,
  ),
  body,
  live,
);
vscode.postMessage({ type: 'ready' });
