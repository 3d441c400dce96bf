import { quoteCodeSpans } from '../../shared/codeSpans';
import { revealHidden } from '../../shared/hiddenChars';
import { turnOutcomeWords } from '../../shared/turnOutcomeWords';
import { MONTHS, durationWords, momentWords } from '../../shared/timeWords';
import type { Story, StoryDay, StoryItem, StoryItemKind, TimeKind } from './storyProtocol';
import { countOf } from '../../shared/countWords';

/**
 * The story's charts as SVG text: pure functions of the story, so the webview, the exported page and the PDF draw
 * the very same pictures, with no script and no inline style (colours come from classes; the webview's CSS maps
 * them to VS Code's theme variables, the page's to light and dark defaults). Every mark carries a <title>: the
 * number is one hover away, and a screen reader reads the chart's summary from its own <title> and <desc>.
 */
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
export const TIME_KIND_ORDER: readonly TimeKind[] = ['working', 'person', 'world', 'queued'];
export const TIME_LABELS: Record<TimeKind, string> = {
  working: 'working',
  person: 'waiting on a person',
  world: 'waiting on the world',
  queued: 'ready, nobody on it',
};
/** Each lane's label, and its noun for one ("1 gate") in the chart's summary. */
export const LANES: readonly { kind: StoryItemKind; label: string; one: string }[] = [
  { kind: 'turn', label: 'Turns', one: 'turn' },
  { kind: 'ship', label: 'Shipped', one: 'shipped' },
  { kind: 'gate', label: 'Gates', one: 'gate' },
  { kind: 'block', label: 'Blocks', one: 'block' },
  { kind: 'monitor', label: 'Monitors', one: 'monitor' },
  { kind: 'handoff', label: 'Handoffs', one: 'handoff' },
];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export function esc(text: string): string {
  return revealHidden(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function hoursText(ms: number): string {
  const h = ms / HOUR_MS;
  return h >= 10 ? `${Math.round(h)} h` : h >= 0.05 ? `${h.toFixed(1)} h` : `${Math.round(ms / 60_000)} min`;
}

/** "Sat 3 Jan" for a YYYY-MM-DD day. */
export function dayText(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  return `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
}

/** "3 Jan 14:05" in the viewer's time (the story's offset). */
export function momentText(iso: string, offsetMinutes: number): string {
  return momentWords(iso, offsetMinutes);
}

const n = (v: number) => Number(v.toFixed(1));

function frame(id: string, width: number, height: number, title: string, desc: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="${id}-t ${id}-d"><title id="${id}-t">${esc(title)}</title><desc id="${id}-d">${esc(desc)}</desc>${body}</svg>`;
}

const PAD = { left: 44, right: 12, top: 12, bottom: 26 };

function yAxis(max: number, height: number, width: number, unit = ''): string {
  const top = PAD.top;
  const bottom = height - PAD.bottom;
  return [0, 0.5, 1]
    .map((f) => {
      const y = n(bottom - f * (bottom - top));
      const value = max * f;
      const label = max >= 10 || f === 0 || f === 1 ? String(Math.round(value)) : value.toFixed(1);
      return `<line class="grid" x1="${PAD.left}" x2="${width - PAD.right}" y1="${y}" y2="${y}"/><text class="axis" x="${PAD.left - 6}" y="${n(y + 4)}" text-anchor="end">${label}${unit}</text>`;
    })
    .join('');
}

/** Labels under day columns: at most about eight, evenly skipped. */
function dayLabels(days: StoryDay[], x: (i: number) => number, height: number): string {
  const step = Math.max(1, Math.ceil(days.length / 8));
  return days
    .map((d, i) =>
      i % step === 0
        ? `<text class="axis" x="${n(x(i))}" y="${height - 8}" text-anchor="middle">${esc(dayText(d.day).slice(4))}</text>`
        : '',
    )
    .join('');
}

function dayColumns(days: StoryDay[], width: number): { x: (i: number) => number; band: number } {
  const inner = width - PAD.left - PAD.right;
  const band = inner / Math.max(1, days.length);
  return { x: (i) => PAD.left + band * (i + 0.5), band };
}

/** Shipped per day as bars, turns per day as a line (failed turns marked), each day's numbers in its tooltip. */
export function throughputChart(days: StoryDay[], width = 720, height = 200): string {
  const max = Math.max(1, ...days.map((d) => Math.max(d.shipped, d.turns)));
  const { x, band } = dayColumns(days, width);
  const y = (v: number) => n(height - PAD.bottom - (v / max) * (height - PAD.bottom - PAD.top));
  const bar = Math.max(1, band * 0.6);
  const bars = days
    .map((d, i) =>
      d.shipped
        ? `<rect class="c-ship" x="${n(x(i) - bar / 2)}" y="${y(d.shipped)}" width="${n(bar)}" height="${n(height - PAD.bottom - y(d.shipped))}"/>`
        : '',
    )
    .join('');
  const line = days.some((d) => d.turns)
    ? `<polyline class="c-turn-line" points="${days.map((d, i) => `${n(x(i))},${y(d.turns)}`).join(' ')}"/>`
    : '';
  const failed = days.map((d, i) => (d.turnsFailed ? `<circle class="c-fail" cx="${n(x(i))}" cy="${y(d.turns)}" r="3.5"/>` : '')).join('');
  const hits = days
    .map(
      (d, i) =>
        `<rect class="hit" x="${n(x(i) - band / 2)}" y="${PAD.top}" width="${n(band)}" height="${height - PAD.top - PAD.bottom}"><title>${esc(
          `${dayText(d.day)}: ${d.shipped} shipped · ${d.turns} turn${d.turns === 1 ? '' : 's'}${d.turnsFailed ? ` (${d.turnsFailed} failed)` : ''} · ${d.added} added`,
        )}</title></rect>`,
    )
    .join('');
  const shipped = days.reduce((s, d) => s + d.shipped, 0);
  const best = days.reduce((b, d) => (d.shipped > b.shipped ? d : b), days[0] ?? { shipped: 0, day: '' });
  const desc = `${shipped} shipped over ${days.length} day${days.length === 1 ? '' : 's'}${best.shipped ? `; most on ${dayText(best.day)} (${best.shipped})` : ''}.`;
  return frame(
    'throughput',
    width,
    height,
    'Throughput per day: todos shipped (bars) and turns run (line)',
    desc,
    `${yAxis(max, height, width)}${bars}${line}${failed}${dayLabels(days, x, height)}${hits}`,
  );
}

/** Todo-hours per day in each state, stacked: working, waiting on a person, on the world, ready with nobody on it. */
export function timeChart(days: StoryDay[], width = 720, height = 200): string {
  const totalOf = (d: StoryDay) => TIME_KIND_ORDER.reduce((s, k) => s + d.time[k], 0);
  const max = Math.max(HOUR_MS, ...days.map(totalOf)) / HOUR_MS;
  const { x, band } = dayColumns(days, width);
  const scale = (h: number) => (h / max) * (height - PAD.bottom - PAD.top);
  const bar = Math.max(1, band * 0.7);
  const stacks = days
    .map((d, i) => {
      let top = height - PAD.bottom;
      const parts = TIME_KIND_ORDER.map((k) => {
        const h = scale(d.time[k] / HOUR_MS);
        top -= h;
        return h > 0 ? `<rect class="c-${k}" x="${n(x(i) - bar / 2)}" y="${n(top)}" width="${n(bar)}" height="${n(h)}"/>` : '';
      }).join('');
      const words = TIME_KIND_ORDER.map((k) => `${TIME_LABELS[k]} ${hoursText(d.time[k])}`).join(' · ');
      return `${parts}<rect class="hit" x="${n(x(i) - band / 2)}" y="${PAD.top}" width="${n(band)}" height="${height - PAD.top - PAD.bottom}"><title>${esc(`${dayText(d.day)}: ${words}`)}</title></rect>`;
    })
    .join('');
  const sums = TIME_KIND_ORDER.map((k) => [k, days.reduce((s, d) => s + d.time[k], 0)] as const);
  const desc = sums.map(([k, v]) => `${TIME_LABELS[k]} ${hoursText(v)}`).join(', ');
  return frame(
    'time',
    width,
    height,
    'Where the time went, per day (todo-hours)',
    `${desc}.`,
    `${yAxis(max, height, width, ' h')}${stacks}${dayLabels(days, x, height)}`,
  );
}

/** The whole goal's time in one bar, with each share's percentage. */
export function timeShareBar(time: Record<TimeKind, number>, width = 720, height = 44): string {
  const total = TIME_KIND_ORDER.reduce((s, k) => s + time[k], 0);
  let x = 0;
  const parts = TIME_KIND_ORDER.map((k) => {
    const w = total ? (time[k] / total) * width : 0;
    const share = total ? Math.round((time[k] / total) * 100) : 0;
    const rect =
      w > 0
        ? `<rect class="c-${k}" x="${n(x)}" y="4" width="${n(w)}" height="22"><title>${esc(`${TIME_LABELS[k]}: ${hoursText(time[k])} (${share}%)`)}</title></rect>`
        : '';
    const label = w > 70 ? `<text class="bar-label" x="${n(x + 6)}" y="19">${share}%</text>` : '';
    x += w;
    return rect + label;
  }).join('');
  const desc = total
    ? TIME_KIND_ORDER.map((k) => `${TIME_LABELS[k]} ${Math.round((time[k] / total) * 100)}%`).join(', ')
    : 'No todo time yet.';
  return frame('share', width, height, 'Share of the time', desc, parts);
}

/** Open work over time (area) and the work done (line), each point's numbers in its tooltip. */
export function burndownChart(story: Pick<Story, 'burndown' | 'range' | 'offsetMinutes'>, width = 720, height = 200): string {
  const points = story.burndown;
  const from = Date.parse(story.range.from);
  const to = Math.max(from + 1, Date.parse(story.range.to));
  const max = Math.max(1, ...points.map((p) => Math.max(p.open, p.done)));
  const x = (t: string) => n(PAD.left + ((Date.parse(t) - from) / (to - from)) * (width - PAD.left - PAD.right));
  const y = (v: number) => n(height - PAD.bottom - (v / max) * (height - PAD.bottom - PAD.top));
  const step = (key: 'open' | 'done') =>
    points
      .map((p, i) => `${i ? `${x(p.at)},${y((points[i - 1] as (typeof points)[number])[key])} ` : ''}${x(p.at)},${y(p[key])}`)
      .join(' ');
  const base = y(0);
  const area = points.length
    ? `<polygon class="c-open-area" points="${x(points[0]?.at ?? story.range.from)},${base} ${step('open')} ${x(points[points.length - 1]?.at ?? story.range.to)},${base}"/>`
    : '';
  const lines = points.length
    ? `<polyline class="c-open-line" points="${step('open')}"/><polyline class="c-done-line" points="${step('done')}"/>`
    : '';
  const hits = points
    .map((p, i) => {
      const next = points[i + 1]?.at ?? story.range.to;
      const w = Math.max(1, x(next) - x(p.at));
      return `<rect class="hit" x="${x(p.at)}" y="${PAD.top}" width="${n(w)}" height="${height - PAD.top - PAD.bottom}"><title>${esc(`${momentText(p.at, story.offsetMinutes)}: ${p.open} open, ${p.done} done`)}</title></rect>`;
    })
    .join('');
  const last = points[points.length - 1];
  const peak = points.reduce((m, p) => Math.max(m, p.open), 0);
  const desc = last ? `${last.open} open and ${last.done} done now; at most ${peak} open at once.` : 'No work yet.';
  return frame(
    'burndown',
    width,
    height,
    'Burn-down: open work (area) and work done (line)',
    desc,
    `${yAxis(max, height, width)}${timeTicks(from, to, story.offsetMinutes, width, height)}${area}${lines}${hits}`,
  );
}

/** Day boundaries (in the viewer's time) along a time axis, at most about eight labelled. */
function timeTicks(from: number, to: number, offsetMinutes: number, width: number, height: number): string {
  const off = offsetMinutes * 60_000;
  const inner = width - PAD.left - PAD.right;
  const span = to - from;
  const dayStep = Math.max(1, Math.ceil(span / DAY_MS / 8));
  const out: string[] = [];
  for (let t = Math.ceil((from + off) / DAY_MS) * DAY_MS - off, i = 0; t <= to; t += DAY_MS, i++) {
    if (i % dayStep) continue;
    const x = n(PAD.left + ((t - from) / span) * inner);
    out.push(
      `<line class="tick" x1="${x}" x2="${x}" y1="${PAD.top}" y2="${height - PAD.bottom}"/><text class="axis" x="${x}" y="${height - 8}" text-anchor="middle">${esc(dayText(new Date(t + off).toISOString().slice(0, 10)).slice(4))}</text>`,
    );
  }
  return out.join('');
}

function itemStart(i: StoryItem): string {
  return i.kind === 'ship' ? i.at : i.start;
}

function itemEnd(i: StoryItem, now: string): string {
  return i.kind === 'ship' ? i.at : (i.end ?? now);
}

/** What one timeline item says in words (its tooltip, and its line in the list under the chart). */
export function itemSentence(i: StoryItem, titles: Record<string, string>, offsetMinutes: number, now: string): string {
  const todo = (id: string | null) => (id ? `${id}${titles[id] ? ` ${titles[id]}` : ''}` : 'the goal');
  const when = momentText(itemStart(i), offsetMinutes);
  const took = (start: string, end: string | null) =>
    end
      ? `after ${durationWords(Date.parse(end) - Date.parse(start))}`
      : `for ${durationWords(Date.parse(now) - Date.parse(start))} so far`;
  switch (i.kind) {
    case 'turn':
      return `${when} · turn ${i.id} by ${i.agent} on ${todo(i.todoId)}: ${i.result ? `${turnOutcomeWords(i.result)} ${took(i.start, i.end)}` : `running ${took(i.start, null)}`}`;
    case 'ship':
      return `${when} · ${todo(i.todoId)} shipped by ${i.by}`;
    case 'gate':
      return `${when} · gate ${i.id} on ${todo(i.todoId)} asked by ${i.askedBy}: "${quoteCodeSpans(i.question)}" — ${i.end ? `${i.status} by ${i.decidedBy ?? 'someone'} ${took(i.start, i.end)}` : `waiting for you ${took(i.start, null)}`}`;
    case 'block':
      return `${when} · ${todo(i.todoId)} blocked by ${i.by}: ${quoteCodeSpans(i.reason)} — ${i.end ? `unblocked ${took(i.start, i.end)}` : `still blocked ${took(i.start, null)}`}`;
    case 'monitor':
      return `${when} · monitor ${i.id} on ${todo(i.todoId)} watching ${i.what} — ${i.end ? `${i.status} ${took(i.start, i.end)}` : `waiting ${took(i.start, null)}`}`;
    case 'handoff':
      return `${when} · ${todo(i.todoId)} handed from ${i.from} to ${i.to} — ${i.end ? `accepted ${took(i.start, i.end)}` : 'not accepted yet'}`;
    case 'review':
      return `${when} · ${todo(i.todoId)} sent for review by ${i.by} (round ${i.round}) — ${i.end ? `${i.reviewer ?? 'its reviewer'} ${i.verdict === 'approve' ? 'approved it' : 'asked for changes'} ${took(i.start, i.end)}` : `in review ${took(i.start, null)}`}`;
  }
}

function itemClass(i: StoryItem): string {
  if (i.kind === 'turn')
    return i.result === 'host_failure' || i.result === 'validation_failed' ? 'c-fail' : i.end ? 'c-turn' : 'c-turn c-open';
  if (i.kind === 'gate') return i.end ? 'c-gate' : 'c-gate c-open';
  if (i.kind === 'block') return i.end ? 'c-block' : 'c-block c-open';
  if (i.kind === 'monitor') return i.end ? 'c-monitor' : 'c-monitor c-open';
  if (i.kind === 'handoff') return 'c-handoff';
  if (i.kind === 'review') return i.end ? 'c-review' : 'c-review c-open';
  return 'c-ship';
}

/** At most this many marks per lane in view; past it a lane shows how many fell in each slice of time. */
const LANE_MARKS = 400;

/**
 * The timeline between `from` and `to`: a lane per kind (turns, ships, gates, blocks, monitors, handoffs), a span
 * from start to end (an open one runs to now, dashed), a ship a tick. Dense lanes are drawn as counts per slice.
 */
export function timelineChart(
  story: Pick<Story, 'timeline' | 'titles' | 'offsetMinutes' | 'now'>,
  from: number,
  to: number,
  width = 720,
): string {
  const laneH = 26;
  const height = PAD.top + LANES.length * laneH + PAD.bottom;
  const left = 78;
  const inner = width - left - PAD.right;
  const span = Math.max(1, to - from);
  const x = (t: number) => n(left + ((Math.min(Math.max(t, from), to) - from) / span) * inner);
  const parts: string[] = [];
  LANES.forEach((lane, li) => {
    const top = PAD.top + li * laneH;
    parts.push(
      `<text class="lane-label" x="4" y="${top + 17}">${lane.label}</text><line class="grid" x1="${left}" x2="${width - PAD.right}" y1="${top + laneH}" y2="${top + laneH}"/>`,
    );
    const items = story.timeline.filter(
      (i) => i.kind === lane.kind && Date.parse(itemEnd(i, story.now)) >= from && Date.parse(itemStart(i)) <= to,
    );
    if (items.length > LANE_MARKS) {
      const slices = 120;
      const counts = new Array<number>(slices).fill(0);
      for (const i of items) {
        const s = Math.min(slices - 1, Math.max(0, Math.floor(((Date.parse(itemStart(i)) - from) / span) * slices)));
        counts[s] = (counts[s] ?? 0) + 1;
      }
      const most = Math.max(...counts);
      counts.forEach((c, s) => {
        if (!c) return;
        const h = Math.max(2, (c / most) * (laneH - 6));
        const t0 = from + (s / slices) * span;
        parts.push(
          `<rect class="c-${lane.kind} c-dense" x="${x(t0)}" y="${n(top + laneH - 3 - h)}" width="${n(Math.max(1, inner / slices - 1))}" height="${n(h)}"><title>${esc(`${c} ${lane.label.toLowerCase()} from ${momentText(new Date(t0).toISOString(), story.offsetMinutes)} to ${momentText(new Date(t0 + span / slices).toISOString(), story.offsetMinutes)}`)}</title></rect>`,
        );
      });
      return;
    }
    for (const i of items) {
      const title = `<title>${esc(itemSentence(i, story.titles, story.offsetMinutes, story.now))}</title>`;
      const s = x(Date.parse(itemStart(i)));
      if (i.kind === 'ship') {
        parts.push(`<path class="c-ship" d="M${s} ${top + 5} l5 8 l-5 8 l-5 -8 z">${title}</path>`);
        continue;
      }
      const w = Math.max(3, x(Date.parse(itemEnd(i, story.now))) - s);
      parts.push(`<rect class="${itemClass(i)}" x="${s}" y="${top + 6}" width="${n(w)}" height="${laneH - 12}" rx="2">${title}</rect>`);
    }
  });
  const counts = LANES.map((l) => countOf(story.timeline.filter((i) => i.kind === l.kind).length, l.one, l.label.toLowerCase())).join(', ');
  return frame(
    'timeline',
    width,
    height,
    'Timeline',
    `${counts}.`,
    `${timeTicks(from, to, story.offsetMinutes, width, height)}${parts.join('')}`,
  );
}

/** Dollars per day once turns carry usage; null while none does (the view says so instead). */
export function costChart(days: StoryDay[], width = 720, height = 160): string | null {
  if (!days.some((d) => d.cost !== null)) return null;
  const max = Math.max(0.01, ...days.map((d) => d.cost ?? 0));
  const { x, band } = dayColumns(days, width);
  const y = (v: number) => n(height - PAD.bottom - (v / max) * (height - PAD.bottom - PAD.top));
  const bars = days
    .map((d, i) =>
      d.cost
        ? `<rect class="c-cost" x="${n(x(i) - band * 0.3)}" y="${y(d.cost)}" width="${n(band * 0.6)}" height="${n(height - PAD.bottom - y(d.cost))}"><title>${esc(`${dayText(d.day)}: $${d.cost.toFixed(2)}`)}</title></rect>`
        : '',
    )
    .join('');
  const total = days.reduce((s, d) => s + (d.cost ?? 0), 0);
  return frame(
    'cost',
    width,
    height,
    'Cost per day',
    `$${total.toFixed(2)} in all.`,
    `${yAxis(max, height, width)}${bars}${dayLabels(days, x, height)}`,
  );
}
