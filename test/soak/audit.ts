import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Kernel } from '../../src/kernel/kernel';
import type { SqliteDb } from '../../src/kernel/db/sqliteDb';
import { CLAIMABLE_WHERE } from '../../src/kernel/todos/todoQueries';
import { iso } from '../../src/kernel/time';
import { du } from './du';
import { MEMORY_CAP_MB, MEMORY_GROWTH_MB, memoryVerdicts } from './memory';
import { agentLives, orphanProcesses } from './processes';

/** A turn is finished at most this long after its agent ended, even when its runner was killed (the next one, or the other, finishes it). */
export const RECOVERY_BOUND_S = 20;
/** Work ready, budget and a slot free, a runner up: a turn starts within this many seconds. */
export const STALL_BOUND_S = 10;

/** What the soak saw each second, for the stall check: per goal, whether it should have been running a turn. */
export interface Sample {
  at: number;
  runnerAlive: boolean;
  /** Goals that had fresh ready work (never tried, or last tried with progress), budget room, a free slot and no gate. */
  idleWithWork: string[];
}

export interface Invariant {
  name: string;
  ok: boolean;
  detail: string;
}

export interface AuditResult {
  ok: boolean;
  invariants: Invariant[];
  figures: Record<string, unknown>;
}

function readStore<T>(root: string, read: (db: SqliteDb, now: number) => T): T {
  const k = Kernel.open(root, { readOnly: true, actor: { name: 'soak-audit', kind: 'human' } });
  try {
    return k.read(read);
  } finally {
    k.close();
  }
}

/** Independent of should-run (what is under test): the goals that should be running a turn now. */
export function sample(root: string, at: number, runnerAlive: boolean): Sample {
  const idleWithWork = readStore(root, (db) => {
    const now = iso(at);
    return db
      .prepare(`SELECT id, turns_per_window, window_hours, max_concurrent FROM goals WHERE status = 'active'`)
      .all()
      .filter((g) => {
        const id = String(g.id);
        const fresh = db
          .prepare(
            `SELECT 1 FROM todos t WHERE t.goal_id = ? AND ${CLAIMABLE_WHERE}
               AND NOT EXISTS (SELECT 1 FROM turns o WHERE o.todo_id = t.id AND o.ended_at IS NULL)
               AND coalesce((SELECT u.result_kind FROM turns u WHERE u.todo_id = t.id ORDER BY u.num DESC LIMIT 1), 'validated_progress')
                   IN ('validated_progress', 'validated_completion') LIMIT 1`,
          )
          .get(id, now, now);
        const open = Number(db.prepare('SELECT count(*) AS n FROM turns WHERE goal_id = ? AND ended_at IS NULL').get(id)?.n);
        const since = iso(at - Number(g.window_hours) * 3600_000);
        const spent = Number(db.prepare('SELECT count(*) AS n FROM quota_spends WHERE goal_id = ? AND at > ?').get(id, since)?.n);
        const gate = db.prepare(`SELECT 1 FROM gates WHERE goal_id = ? AND todo_id IS NULL AND status = 'pending'`).get(id);
        return fresh && !gate && open < Number(g.max_concurrent) && spent + open < Number(g.turns_per_window);
      })
      .map((g) => String(g.id));
  });
  return { at, runnerAlive, idleWithWork };
}

interface TurnRow {
  id: string;
  num: number;
  goal: string;
  todo: string;
  started: number;
  ended: number | null;
  startSeq: number;
  endSeq: number | null;
  result: string | null;
  exitCode: number | null;
  spent: boolean;
}

export function audit(
  root: string,
  ctx: {
    samples: Sample[];
    kills: number[];
    memory: { at: number; runner: string; rssKb: number; turns: number }[];
    runnersStoppedCleanly: boolean;
    loopx: string;
    env: NodeJS.ProcessEnv;
  },
): AuditResult {
  const { turns, goals, spends, events } = readStore(root, (db) => ({
    turns: db
      .prepare('SELECT * FROM turns ORDER BY num')
      .all()
      .map((r): TurnRow => ({
        id: String(r.id),
        num: Number(r.num),
        goal: String(r.goal_id),
        todo: String(r.todo_id),
        started: Date.parse(String(r.started_at)),
        ended: r.ended_at ? Date.parse(String(r.ended_at)) : null,
        startSeq: Number(r.start_seq),
        endSeq: r.end_seq === null ? null : Number(r.end_seq),
        result: (r.result_kind as string | null) ?? null,
        exitCode: r.exit_code === null ? null : Number(r.exit_code),
        spent: Number(r.spent) === 1,
      })),
    goals: db.prepare('SELECT id, turns_per_window, window_hours, max_concurrent FROM goals ORDER BY num').all(),
    spends: db.prepare('SELECT goal_id, at FROM quota_spends ORDER BY at').all(),
    events: Number(db.prepare('SELECT count(*) AS n FROM events').get()?.n),
  }));
  const invariants: Invariant[] = [];
  const check = (name: string, problems: string[], ok: string) =>
    invariants.push({ name, ok: problems.length === 0, detail: problems.length ? problems.slice(0, 5).join('; ') : ok });

  // 1. One turn at a time on a todo.
  const byTodo = new Map<string, TurnRow[]>();
  for (const t of turns) byTodo.set(t.todo, [...(byTodo.get(t.todo) ?? []), t]);
  const doubles: string[] = [];
  for (const list of byTodo.values())
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1] as TurnRow;
      const next = list[i] as TurnRow;
      if (prev.endSeq === null || next.startSeq < prev.endSeq) doubles.push(`${next.id} started on ${next.todo} while ${prev.id} was open`);
    }
  check('no double turn on a todo', doubles, `${byTodo.size} todos, ${turns.length} turns, never two open on one todo`);

  // 2. Never more open turns, nor agents alive, on a goal than it allows at once.
  const max = new Map(goals.map((g) => [String(g.id), Number(g.max_concurrent)]));
  const overlaps: string[] = [];
  const marks = turns.flatMap((t) => [
    { seq: t.startSeq, goal: t.goal, d: 1, id: t.id },
    ...(t.endSeq === null ? [] : [{ seq: t.endSeq, goal: t.goal, d: -1, id: t.id }]),
  ]);
  marks.sort((a, b) => a.seq - b.seq);
  const openNow = new Map<string, number>();
  for (const m of marks) {
    const n = (openNow.get(m.goal) ?? 0) + m.d;
    openNow.set(m.goal, n);
    if (n > (max.get(m.goal) ?? 1)) overlaps.push(`${n} turns open on ${m.goal} at ${m.id}'s start`);
  }
  const agents = agentLives(root);
  const goalOf = new Map(turns.map((t) => [t.id, t.goal]));
  const alive = new Map<string, number>();
  const agentMarks = [...agents.entries()].flatMap(([turn, a]) => [
    { at: a.start, d: 1, goal: goalOf.get(turn) ?? '?', turn },
    { at: a.end ?? Number.MAX_SAFE_INTEGER, d: -1, goal: goalOf.get(turn) ?? '?', turn },
  ]);
  agentMarks.sort((a, b) => a.at - b.at || a.d - b.d);
  for (const m of agentMarks) {
    const n = (alive.get(m.goal) ?? 0) + m.d;
    alive.set(m.goal, n);
    if (n > (max.get(m.goal) ?? 1)) overlaps.push(`${n} agents alive on ${m.goal} when ${m.turn}'s started`);
  }
  check(
    'never more turns or agents at once than a goal allows',
    overlaps,
    `at most ${[...max].map(([g, n]) => `${n} on ${g}`).join(', ')}`,
  );

  // 3. Never over budget in any window.
  const overBudget: string[] = [];
  for (const g of goals) {
    const at = spends.filter((s) => s.goal_id === g.id).map((s) => Date.parse(String(s.at)));
    const window = Number(g.window_hours) * 3600_000;
    for (let i = 0, j = 0; i < at.length; i++) {
      while ((at[j] as number) <= (at[i] as number) - window) j++;
      if (i - j + 1 > Number(g.turns_per_window))
        overBudget.push(`${g.id}: ${i - j + 1} spends in the window ending ${iso(at[i] as number)}`);
    }
  }
  check(
    'never over budget in any window',
    overBudget,
    goals.map((g) => `${g.id} ${spends.filter((s) => s.goal_id === g.id).length}/${g.turns_per_window}`).join(', '),
  );

  // 4. Every turn finished, each within a bound of its agent's end (also when its runner was killed).
  const late: string[] = [];
  const latencies: number[] = [];
  for (const t of turns) {
    if (t.ended === null) {
      late.push(`${t.id} is still open`);
      continue;
    }
    const end = agents.get(t.id)?.end;
    if (end === undefined || end === null) continue; // a host that could not start, or killed without a word
    const lag = (t.ended - end) / 1000;
    latencies.push(lag);
    if (lag > RECOVERY_BOUND_S) late.push(`${t.id} finished ${lag.toFixed(1)} s after its agent ended`);
  }
  const atKill = turns.filter((t) => ctx.kills.some((k) => t.started <= k && (t.ended === null || t.ended > k)));
  latencies.sort((a, b) => a - b);
  check(
    'every turn finished within a bound of its agent ending, killed runners included',
    late,
    `${turns.length} turns; ${atKill.length} were running at one of ${ctx.kills.length} kills; the slowest finished ${(latencies.at(-1) ?? 0).toFixed(1)} s after its agent ended (bound ${RECOVERY_BOUND_S} s)`,
  );

  // 5. No stall while work is ready, budget remains and a runner is up.
  const stalls: string[] = [];
  let longest = 0;
  for (const g of goals.map((x) => String(x.id))) {
    const starts = turns.filter((t) => t.goal === g).map((t) => t.started);
    let since: number | null = null;
    for (const s of ctx.samples) {
      const idle = s.runnerAlive && s.idleWithWork.includes(g);
      if (!idle || (since !== null && starts.some((t) => t >= (since as number) && t <= s.at))) {
        since = idle ? s.at : null;
        continue;
      }
      since ??= s.at;
      const stretch = (s.at - since) / 1000;
      longest = Math.max(longest, stretch);
      if (stretch > STALL_BOUND_S) {
        stalls.push(`${g} idle with ready work for ${stretch.toFixed(0)} s from ${iso(since)}`);
        since = null;
      }
    }
  }
  check(
    'no stall while work is ready and budget remains',
    stalls,
    `longest wait with work ready and room: ${longest.toFixed(0)} s (bound ${STALL_BOUND_S} s)`,
  );

  // 6. No process of the soak left behind.
  const orphans = orphanProcesses(root);
  check('no orphan process', orphans, 'no process with this workspace in its environment is left');
  check(
    'runners stopped on SIGTERM',
    ctx.runnersStoppedCleanly ? [] : ['a runner did not stop within its turn limit'],
    'every runner stopped',
  );

  // 7. Memory flat over time (a runner that lived long enough to tell).
  const memory = memoryVerdicts(ctx.memory);
  check(
    'runner memory flat over time',
    [
      ...memory.filter((m) => m.growthMb !== null && m.growthMb > MEMORY_GROWTH_MB).map((m) => `${m.runner} grew ${m.growthMb} MB`),
      ...memory.filter((m) => m.maxMb > MEMORY_CAP_MB).map((m) => `${m.runner} reached ${m.maxMb} MB`),
    ],
    memory.length
      ? memory.map((m) => `${m.runner}: ${m.firstMb}→${m.lastMb} MB over ${m.turns} turns`).join('; ')
      : 'no runner lived long enough to tell',
  );

  // 8. The store: hash chain and replay (doctor), as a person would check it.
  const doctor = JSON.parse(runLoopx(ctx.loopx, ['doctor', '--json'], root, ctx.env)) as {
    data: { checks: { name: string; level: string; detail: string }[] };
  };
  check(
    'doctor: store, hash chain, replay',
    doctor.data.checks.filter((c) => c.level === 'fail').map((c) => `${c.name}: ${c.detail}`),
    doctor.data.checks.map((c) => `${c.name} ${c.level}`).join(', '),
  );

  const figures = storeFigures(root, turns, events, goals, spends);
  return { ok: invariants.every((i) => i.ok), invariants, figures: { ...figures, memory, recoveryLatencyS: latencies } };
}

function storeFigures(
  root: string,
  turns: TurnRow[],
  events: number,
  goals: Record<string, unknown>[],
  spends: Record<string, unknown>[],
): Record<string, unknown> {
  const store = join(root, '.loopx');
  const size = (f: string) => {
    try {
      return statSync(join(store, f)).size;
    } catch {
      return 0;
    }
  };
  const n = Math.max(1, turns.length);
  const byResult: Record<string, number> = {};
  for (const t of turns) byResult[t.result ?? 'open'] = (byResult[t.result ?? 'open'] ?? 0) + 1;
  const span = turns.length ? ((turns.at(-1)?.ended ?? Date.now()) - (turns[0] as TurnRow).started) / 1000 : 0;
  const throughput = goals.map((g) => {
    const mine = turns.filter((t) => t.goal === g.id);
    const validated = mine.filter((t) => t.result === 'validated_completion' || t.result === 'validated_progress');
    const mean = validated.length ? validated.reduce((a, t) => a + ((t.ended as number) - t.started), 0) / validated.length / 1000 : 0;
    const byBudget = Number(g.turns_per_window) * Math.max(1, span / (Number(g.window_hours) * 3600));
    const byTime = mean ? (Number(g.max_concurrent) * span) / mean : 0;
    const most = Math.floor(Math.min(byBudget, byTime || byBudget));
    // How busy the loop kept the goal's slots, whatever the turns' results (a hung agent holds its slot too).
    const busy = mine.reduce((a, t) => a + ((t.ended ?? t.started) - t.started), 0) / 1000;
    return {
      goal: g.id,
      turns: mine.length,
      slotOccupancy: span ? Math.round((busy / (Number(g.max_concurrent) * span)) * 100) / 100 : 0,
      validated: validated.length,
      spent: spends.filter((s) => s.goal_id === g.id).length,
      meanValidatedTurnS: Math.round(mean * 10) / 10,
      theoreticalMax: most,
      boundBy: byBudget <= byTime || !byTime ? 'budget' : 'concurrency',
      share: most ? Math.round((validated.length / most) * 100) / 100 : 0,
    };
  });
  return {
    turns: turns.length,
    byResult,
    spanS: Math.round(span),
    throughput,
    store: {
      dbBytes: size('loopx.db') + size('loopx.db-wal'),
      events,
      bytesPerTurn: Math.round((size('loopx.db') + size('loopx.db-wal')) / n),
      eventsPerTurn: Math.round((events / n) * 10) / 10,
      turnFolderBytesPerTurn: Math.round(du(join(store, 'turns')) / n),
    },
  };
}

function runLoopx(loopx: string, args: string[], root: string, env: NodeJS.ProcessEnv): string {
  try {
    return execFileSync(process.execPath, [loopx, ...args], { cwd: root, env, encoding: 'utf8' });
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? '{}');
  }
}
