import type { SqliteDb } from '../db/sqliteDb';
import { iso } from '../time';
import type { Story, StoryDay, StoryItem, TimeKind } from '../../shared/storyTypes';
import { getGoal } from '../goals/goalQueries';
import { cacheFigures } from './cacheFigures';
import { STORY_KINDS, type TodoState, emptyTime, timeKind } from './storyState';

export const TIMELINE_LIMIT = 2000;
export const BURNDOWN_POINTS = 600;
/** At most two years of days: a longer goal's oldest days are left out of the daily charts (the totals keep them). */
const MAX_DAYS = 730;
const DAY_MS = 86_400_000;

/** A goal's story from its events, in one pass over them (see storyReader). */
export function goalStory(db: SqliteDb, goalId: string, nowMs: number, tzOffsetMinutes = 0): Story {
  const reader = storyReader(goalId, tzOffsetMinutes);
  reader.read(db);
  return reader.build(db, nowMs);
}

/** Reads a goal's story incrementally: `read` takes the events since the last read, `build` the story as of now. */
export interface StoryReader {
  /** Reads the goal's events after the last one read (all of them the first time); the number read. */
  read(db: SqliteDb): number;
  /** The story now: what was read, with open spans and waits running to `nowMs`. Reads nothing but titles. */
  build(db: SqliteDb, nowMs: number): Story;
  /** The last event read (a store whose log is now shorter was restored: read it again with a new reader). */
  readonly lastSeq: number;
}

/**
 * A goal's story from its events, one pass over them (kinds it does not draw are never read), kept so that the next
 * read takes only the events since: the story view refreshes without reading a long log again. `tzOffsetMinutes`
 * is the viewer's offset from UTC (minutes east), so days are the viewer's days.
 */
export function storyReader(goalId: string, tzOffsetMinutes = 0): StoryReader {
  const offset = tzOffsetMinutes * 60_000;
  // Days are kept by number (days since 1970 in the viewer's time): no date text is made until the story is built.
  const dayNumber = (ms: number) => Math.floor((ms + offset) / DAY_MS);
  const days = new Map<number, StoryDay>();
  const byNumber = (num: number): StoryDay => {
    let d = days.get(num);
    if (!d) {
      d = {
        day: iso(num * DAY_MS).slice(0, 10),
        added: 0,
        shipped: 0,
        killed: 0,
        turns: 0,
        turnsFailed: 0,
        spent: 0,
        time: emptyTime(),
        cost: null,
      };
      days.set(num, d);
    }
    return d;
  };
  const day = (ms: number): StoryDay => byNumber(dayNumber(ms));
  const total = emptyTime();
  const addTimeTo = (dayOf: (num: number) => StoryDay, sum: Record<TimeKind, number>, kind: TimeKind | null, from: number, to: number) => {
    if (kind === null || to <= from) return;
    sum[kind] += to - from;
    for (let num = dayNumber(from), t = from; t < to; num++) {
      const next = Math.min(to, (num + 1) * DAY_MS - offset);
      dayOf(num).time[kind] += next - t;
      t = next;
    }
  };
  const addTime = (kind: TimeKind | null, from: number, to: number) => addTimeTo(byNumber, total, kind, from, to);

  const todos = new Map<string, TodoState>();
  const gateTodo = new Map<string, string | null>();
  const move = (id: string | null, at: number, change: (t: TodoState) => void) => {
    const t = id ? todos.get(id) : undefined;
    if (!t) return;
    addTime(timeKind(t), t.since, at);
    change(t);
    t.since = at;
  };

  const timeline: StoryItem[] = [];
  const open = new Map<string, StoryItem>();
  const end = (key: string, at: string, patch: Partial<StoryItem> = {}) => {
    const item = open.get(key);
    if (!item) return;
    Object.assign(item, { end: at }, patch);
    open.delete(key);
  };
  const burndown: Story['burndown'] = [];
  let openCount = 0;
  let done = 0;
  const counted = (at: string) => burndown.push({ at, open: openCount, done });
  const gateWaits: number[] = [];
  let cost: number | null = null;
  let first: string | null = null;
  let lastSeq = 0;

  const read = (db: SqliteDb): number => {
    const rows = db
      .prepare(
        `SELECT seq, at, kind, actor, todo_id, CASE WHEN kind IN ('todo.claimed', 'todo.released', 'todo.shipped', 'todo.unblocked') THEN NULL ELSE data END AS data
        FROM events WHERE goal_id = ? AND seq > ? AND kind IN (${STORY_KINDS.map(() => '?').join(', ')}) ORDER BY seq`,
      )
      .all(goalId, lastSeq, ...STORY_KINDS);
    for (const row of rows) {
      lastSeq = Number(row.seq);
      const at = String(row.at);
      const ms = Date.parse(at);
      const kind = String(row.kind);
      const todoId = (row.todo_id as string | null) ?? null;
      const actor = String(row.actor);
      // Claims, releases, ships and unblocks need nothing from their data: it is not even read.
      const d = (row.data === null ? {} : JSON.parse(String(row.data))) as Record<string, unknown>;
      first ??= at;
      switch (kind) {
        case 'todo.added':
          todos.set(String(d.id), { status: 'open', gates: new Set(), monitor: false, since: ms });
          openCount++;
          day(ms).added++;
          counted(at);
          break;
        case 'todo.claimed':
          move(todoId, ms, (t) => (t.status = 'claimed'));
          break;
        case 'handoff.accepted':
          move(todoId, ms, (t) => (t.status = 'claimed'));
          end(`handoff:${String(d.id)}`, at);
          break;
        case 'todo.released':
        case 'todo.unblocked':
          move(todoId, ms, (t) => (t.status = 'open'));
          if (kind === 'todo.unblocked') end(`block:${todoId}`, at);
          break;
        case 'todo.blocked':
          move(todoId, ms, (t) => (t.status = 'blocked'));
          open.set(
            `block:${todoId}`,
            push(timeline, { kind: 'block', todoId: todoId ?? '', reason: String(d.reason ?? ''), by: actor, start: at, end: null }),
          );
          break;
        case 'todo.submitted':
          move(todoId, ms, (t) => (t.status = 'review'));
          open.set(
            `review:${todoId}`,
            push(timeline, {
              kind: 'review',
              todoId: todoId ?? '',
              round: Number(d.round ?? 1),
              by: actor,
              reviewer: null,
              verdict: null,
              start: at,
              end: null,
            }),
          );
          break;
        case 'todo.review_claimed':
          move(todoId, ms, (t) => (t.status = 'reviewing'));
          break;
        case 'todo.review_released':
        case 'todo.review_unable':
          move(todoId, ms, (t) => (t.status = 'review'));
          break;
        case 'todo.changes_requested':
          move(todoId, ms, (t) => (t.status = 'open'));
          end(`review:${todoId}`, at, { verdict: 'request_changes', reviewer: actor });
          break;
        case 'todo.approved':
        case 'todo.shipped':
        case 'todo.killed': {
          const shipped = kind !== 'todo.killed';
          if (kind === 'todo.approved') end(`review:${todoId}`, at, { verdict: 'approve', reviewer: actor });
          move(todoId, ms, (t) => (t.status = 'done'));
          openCount--;
          done++;
          if (shipped) {
            day(ms).shipped++;
            timeline.push({ kind: 'ship', todoId: todoId ?? '', at, by: actor });
          } else {
            day(ms).killed++;
            for (const gate of (d.cancelledGates as string[] | undefined) ?? []) {
              move(todoId, ms, (t) => t.gates.delete(gate));
              end(`gate:${gate}`, at, { status: 'cancelled', decidedBy: actor });
            }
          }
          end(`block:${todoId}`, at);
          counted(at);
          break;
        }
        case 'gate.asked': {
          const id = String(d.id);
          move(todoId, ms, (t) => t.gates.add(id));
          gateTodo.set(id, todoId);
          open.set(
            `gate:${id}`,
            push(timeline, {
              kind: 'gate',
              id,
              todoId,
              question: String(d.question ?? ''),
              askedBy: actor,
              start: at,
              end: null,
              status: 'pending',
              decidedBy: null,
            }),
          );
          break;
        }
        case 'gate.decided': {
          const id = String(d.id);
          move(gateTodo.get(id) ?? null, ms, (t) => t.gates.delete(id));
          const item = open.get(`gate:${id}`);
          if (item && item.kind === 'gate') gateWaits.push(ms - Date.parse(item.start));
          end(`gate:${id}`, at, { status: d.status as 'approved' | 'rejected', decidedBy: actor });
          break;
        }
        case 'monitor.added': {
          move(todoId, ms, (t) => (t.monitor = true));
          const what = d.kind === 'timer' ? `a timer (${String(d.note || 'no note')})` : String(d.command ?? '');
          open.set(
            `monitor:${String(d.id)}`,
            push(timeline, { kind: 'monitor', id: String(d.id), todoId: todoId ?? '', what, start: at, end: null, status: 'waiting' }),
          );
          break;
        }
        case 'monitor.fired':
        case 'monitor.expired':
        case 'monitor.cancelled':
          move(todoId, ms, (t) => (t.monitor = false));
          end(`monitor:${String(d.id)}`, at, { status: kind.slice('monitor.'.length) as 'fired' | 'expired' | 'cancelled' });
          break;
        case 'handoff.offered':
          open.set(
            `handoff:${String(d.id)}`,
            push(timeline, {
              kind: 'handoff',
              id: String(d.id),
              todoId: todoId ?? '',
              from: actor,
              to: String(d.to),
              start: at,
              end: null,
            }),
          );
          break;
        case 'turn.started':
          day(ms).turns++;
          open.set(
            `turn:${String(d.id)}`,
            push(timeline, {
              kind: 'turn',
              id: String(d.id),
              todoId,
              agent: String(d.agent),
              start: at,
              end: null,
              result: null,
              spent: false,
            }),
          );
          break;
        case 'turn.finished': {
          const result = String(d.resultKind);
          if (result === 'host_failure' || result === 'validation_failed') day(ms).turnsFailed++;
          if (d.spent === true) day(ms).spent++;
          // What the turn cost, when its host reported it or the price table priced it (usage/turnUsage.ts).
          const usage = d.usage as { costUsd?: unknown } | undefined;
          if (typeof usage?.costUsd === 'number') {
            const today = day(ms);
            today.cost = (today.cost ?? 0) + usage.costUsd;
            cost = (cost ?? 0) + usage.costUsd;
          }
          end(`turn:${String(d.id)}`, at, { result, spent: d.spent === true });
          break;
        }
      }
    }
    return rows.length;
  };

  const build = (db: SqliteDb, nowMs: number): Story => {
    const goal = getGoal(db, goalId);
    // Time up to now goes into copies: what was read stays as it was for the next read.
    const daysNow = new Map([...days].map(([num, d]) => [num, { ...d, time: { ...d.time } }]));
    const dayNow = (num: number): StoryDay => {
      let d = daysNow.get(num);
      if (!d) {
        d = { ...byNumber(num), time: emptyTime() };
        days.delete(num);
        daysNow.set(num, d);
      }
      return d;
    };
    const totalNow = { ...total };
    for (const t of todos.values()) addTimeTo(dayNow, totalNow, timeKind(t), t.since, Math.max(t.since, nowMs));
    const now = iso(nowMs);
    // Every day from the first event to today, empty ones included (a chart's days are evenly spaced).
    for (let num = Math.max(dayNumber(first ? Date.parse(first) : nowMs), dayNumber(nowMs) - MAX_DAYS + 1); num <= dayNumber(nowMs); num++)
      dayNow(num);
    const allDays = [...daysNow.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, d]) => d)
      .slice(-MAX_DAYS);
    const omitted = Math.max(0, timeline.length - TIMELINE_LIMIT);
    const shown = timeline.slice(omitted).map((i) => ({ ...i }));
    const states = [...todos.values()];
    return {
      goal: { id: goal.id, title: goal.title, status: goal.status, objective: goal.objective, createdAt: goal.createdAt },
      now,
      offsetMinutes: tzOffsetMinutes,
      range: { from: first ?? now, to: now },
      events: Number(db.prepare('SELECT count(*) AS n FROM events WHERE goal_id = ?').get(goalId)?.n ?? 0),
      totals: {
        todos: todos.size,
        open: states.filter((t) => t.status !== 'done').length,
        shipped: allDays.reduce((n, d) => n + d.shipped, 0),
        killed: allDays.reduce((n, d) => n + d.killed, 0),
        blocked: states.filter((t) => t.status === 'blocked').length,
        turns: timeline.filter((i) => i.kind === 'turn').length,
        turnsFailed: allDays.reduce((n, d) => n + d.turnsFailed, 0),
        gatesAsked: timeline.filter((i) => i.kind === 'gate').length,
        gatesPending: timeline.filter((i) => i.kind === 'gate' && i.status === 'pending').length,
        medianGateWaitMs: median(gateWaits),
        monitors: timeline.filter((i) => i.kind === 'monitor').length,
        handoffs: timeline.filter((i) => i.kind === 'handoff').length,
        time: totalNow,
        cost,
      },
      timeline: shown,
      timelineOmitted: omitted,
      titles: titlesOf(db, shown),
      burndown: downsample([...burndown, { at: now, open: openCount, done }], BURNDOWN_POINTS),
      days: allDays,
      cost: {
        available: cost !== null,
        note:
          cost !== null
            ? 'from the usage turns report'
            : 'No turn of this goal reported what it cost, so there is no cost to show. Codex reports tokens, not money: set a price for its model with LoopX: Set Model Price… (or loopx prices set in a terminal).',
      },
      cache: (({ hitShare, savedUsd }) => ({ hitShare, savedUsd }))(cacheFigures(db, goalId, null)),
    };
  };

  return {
    read,
    build,
    get lastSeq() {
      return lastSeq;
    },
  };
}

function push<T extends StoryItem>(list: StoryItem[], item: T): T {
  list.push(item);
  return item;
}

function median(values: number[]): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** At most about `limit` points, evenly over time, each the last state in its slice (the first and last points kept). */
function downsample(points: Story['burndown'], limit: number): Story['burndown'] {
  if (points.length <= limit) return points;
  const from = Date.parse(points[0]?.at ?? '');
  const span = Math.max(1, Date.parse(points[points.length - 1]?.at ?? '') - from);
  const slots = new Map<number, Story['burndown'][number]>();
  for (const p of points) slots.set(Math.floor(((Date.parse(p.at) - from) / span) * (limit - 2)), p);
  return [points[0] as Story['burndown'][number], ...slots.values()];
}

function titlesOf(db: SqliteDb, items: StoryItem[]): Record<string, string> {
  const ids = new Set<string>();
  for (const i of items) if (i.todoId) ids.add(i.todoId);
  const titles: Record<string, string> = {};
  const get = db.prepare('SELECT title FROM todos WHERE id = ?');
  for (const id of ids) titles[id] = String(get.get(id)?.title ?? '');
  return titles;
}
