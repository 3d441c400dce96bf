import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { agent, human, makeStore, propertyRuns, type TestStore } from '../../test/support/testKit';
import type { Actor } from './events/eventTypes';
import { LoopxError } from './errors';
import { createGoal, setGoalStatus } from './goals/goals';
import { addTodo, blockTodo, killTodo, unblockTodo, shipTodo } from './todos/todos';
import { claimNext, claimTodo, releaseTodo, renewTodo } from './todos/claims';
import { addEvidence } from './evidence/evidence';
import { askGate, decideGate } from './gates/gates';
import { spendQuota } from './goals/quota';
import { acceptHandoff, offerHandoff } from './handoffs/handoffs';
import { startTurn } from './turns/turns';
import { finishTurn } from './turns/turnFinish';
import { applyGoalSpec } from './goals/goalSpec/apply';
import { exportGoalSpec } from './goals/goalSpec/export';
import { verifyChain } from './events/verify';
import { checkReplay, replayLog } from './replay';
import { CLAIMABLE_WHERE, countTodos } from './todos/todoQueries';
import type { SqliteDb } from './db/sqliteDb';
import { GOAL_STATUSES } from './model';
import { setGoalCheck, setTodoCheck } from './checks/checks';
import { recordEvidenceRun } from './evidence/evidenceRun';
import { addMonitor, cancelMonitor } from './monitors/monitors';
import { claimDueRun, recordRun, settleDue } from './monitors/tickSteps';
import type { CommandResult } from './run/runCommand';
import { sha256 } from './nodeCrypto';
import { iso } from './time';

const ACTORS: Actor[] = [agent('codex'), agent('claude'), agent('worker-3'), human];

/** One random operation: which verb, who does it, and numbers that pick existing entities. */
const op = fc.record({
  verb: fc.constantFrom(
    'goal',
    'goalStatus',
    'todo',
    'todo',
    'claim',
    'claim',
    'claimNext',
    'claimNext',
    'renew',
    'release',
    'ship',
    'ship',
    'ship',
    'evidence',
    'evidence',
    'block',
    'unblock',
    'kill',
    'ask',
    'decide',
    'decide',
    'decide',
    'spend',
    'handoff',
    'handoff',
    'accept',
    'accept',
    'tick',
    'turnStart',
    'turnStart',
    'turnFinish',
    'turnFinish',
    'monitor',
    'monitor',
    'monitor',
    'monitorCancel',
    'monitorTick',
    'monitorTick',
    'monitorTick',
    'monitorTick',
    'checkSet',
    'evidenceRun',
    'evidenceRun',
    'goalFile',
    'goalFile',
  ),
  actor: fc.nat(ACTORS.length - 1),
  a: fc.nat(50),
  b: fc.nat(50),
  seconds: fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 120 }), weight: 4 },
    { arbitrary: fc.integer({ min: 120, max: 4000 }), weight: 1 },
  ),
});
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

function pick(s: TestStore, table: string, n: number): string {
  const rows = s.kernel.db.prepare(`SELECT id FROM ${table} ORDER BY num`).all();
  const prefix: Record<string, string> = { goals: 'G', todos: 'T', gates: 'Q', handoffs: 'H', monitors: 'M' };
  return rows.length === 0 ? `${prefix[table] ?? 'X'}1` : String(rows[n % rows.length]?.id);
}

function apply(s: TestStore, o: Op): void {
  // Holder verbs are usually done by the agent that holds a live claim, as real workers do; sometimes by anyone.
  const live = s.kernel.db
    .prepare(`SELECT id, owner FROM todos WHERE status = 'claimed' AND lease_expires_at > ? ORDER BY num`)
    .all(new Date(s.clock.ms).toISOString());
  const holderVerb = ['renew', 'release', 'ship', 'block', 'handoff', 'monitor'].includes(o.verb);
  const claim = holderVerb && live.length > 0 && o.b % 4 !== 0 ? live[o.a % live.length] : undefined;
  const k = claim ? s.kernel.as(agent(String(claim.owner))) : s.kernel.as(ACTORS[o.actor] as Actor);
  const goal = () => pick(s, 'goals', o.a);
  const todo = () => (claim ? String(claim.id) : pick(s, 'todos', o.a));
  switch (o.verb) {
    case 'goal':
      createGoal(k, { title: `goal ${o.a}`, turnsPerWindow: o.b % 4, windowHours: 1, maxConcurrent: 1 + (o.b % 2) });
      break;
    case 'goalStatus':
      setGoalStatus(k, goal(), GOAL_STATUSES[o.b % 5 === 0 ? o.b % 4 : 0] as (typeof GOAL_STATUSES)[number]);
      break;
    case 'todo': {
      // Some recur: on an interval, daily at a time, or on a cron schedule (each occurrence that ends adds the next).
      const recurrence = [
        undefined,
        undefined,
        { every: 600 + o.b * 60 },
        { every: 86400, at: `0${o.b % 10}:30`, tz: 'UTC' },
        { cron: `${o.b % 60} * * * *`, tz: 'UTC' },
      ][o.a % 5];
      addTodo(k, {
        goalId: goal(),
        title: `todo ${o.b}`,
        priority: o.b % 4,
        dependsOn: o.b % 3 === 0 ? [pick(s, 'todos', o.b)] : [],
        recurrence,
      });
      break;
    }
    case 'claim':
      claimTodo(k, todo(), { leaseSeconds: 60 + o.b * 10 });
      break;
    case 'claimNext':
      claimNext(k, { leaseSeconds: 60 + o.b * 10 });
      break;
    case 'renew':
      renewTodo(k, todo());
      break;
    case 'release':
      releaseTodo(k, todo(), { note: o.b % 2 ? `note ${o.b}` : undefined });
      break;
    case 'ship':
      shipTodo(k, todo(), o.b % 3 ? { evidence: `ev ${o.b}` } : {});
      break;
    case 'evidence':
      addEvidence(k, o.b % 3 ? { todoId: todo(), summary: `s${o.b}` } : { goalId: goal(), summary: `g${o.b}` });
      break;
    case 'block':
      blockTodo(k, todo(), `reason ${o.b}`);
      break;
    case 'unblock':
      unblockTodo(k, todo());
      break;
    case 'kill':
      killTodo(k, todo(), `kill ${o.b}`, { endSeries: o.b % 4 === 0 });
      break;
    case 'ask':
      askGate(k, o.b % 2 ? { todoId: todo(), question: `q${o.b}` } : { goalId: goal(), question: `gq${o.b}` });
      break;
    case 'decide':
      decideGate(o.b % 4 ? s.kernel.as(human) : k, pick(s, 'gates', o.a), o.b % 2 ? 'approved' : 'rejected');
      break;
    case 'spend':
      spendQuota(k, goal(), `turn-${o.b % 7}`);
      break;
    case 'handoff':
      offerHandoff(k, todo(), {
        to: (ACTORS.filter((x) => x.name !== k.actor.name)[o.b % 3] as Actor).name,
        summary: 'over to you',
        pending: 'rest',
      });
      break;
    case 'accept': {
      // Usually the named recipient accepts; sometimes someone else tries.
      const id = pick(s, 'handoffs', o.a);
      const to = s.kernel.db.prepare('SELECT to_agent FROM handoffs WHERE id = ?').get(id)?.to_agent;
      acceptHandoff(o.b % 4 && to ? s.kernel.as(agent(String(to))) : k, id);
      break;
    }
    case 'tick':
      s.clock.advance(o.seconds);
      break;
    case 'goalFile': {
      // A goal file: an exported goal edited (a title, a priority, a dependency, a new todo, one dropped) and applied.
      const spec = exportGoalSpec(s.kernel.db, goal());
      const [first, second] = spec.todos;
      if (first) Object.assign(first, { title: `${first.title}!`, priority: o.b % 4 });
      if (first && second && o.b % 2) second.after = [first.key];
      if (o.b % 3 === 0)
        spec.todos.push({ key: `new-${o.b}`, title: `new ${o.b}`, detail: '', priority: 2, after: first ? [first.key] : [] });
      if (o.b % 5 === 0) spec.todos.pop();
      spec.quota.turnsPerWindow = o.b % 4;
      applyGoalSpec(k, spec, { path: `loopx/g${o.a % 3}.goal.md`, prune: o.b % 7 === 0 });
      break;
    }
    case 'turnStart':
      startTurn(k, { goalId: goal(), host: ['codex', 'claude', 'custom'][o.b % 3] as string });
      break;
    case 'monitor':
      addMonitor(
        k,
        o.b % 3 === 0
          ? { todoId: todo(), afterSeconds: 30 + o.b * 60 }
          : {
              todoId: todo(),
              check: `check ${o.b}`,
              everySeconds: 10 + o.b * 10,
              until: ['exit0', 'change', 'match:ok'][o.b % 3],
              timeoutSeconds: 600 + o.b * 60,
              note: o.b % 2 ? `note ${o.b}` : undefined,
            },
      );
      break;
    case 'monitorCancel':
      cancelMonitor(o.b % 3 ? s.kernel.as(human) : k, pick(s, 'monitors', o.a));
      break;
    case 'monitorTick': {
      // The transactions of `monitor tick`, with a made-up run instead of a real process.
      settleDue(k);
      const ran = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const claim = claimDueRun(k, ran);
        if (!claim) break;
        if ('refused' in claim) throw claim.error; // every decision here is a person's real one: none is refused
        ran.add(claim.monitor.id);
        if ((o.b + i) % 5 !== 0) recordRun(k, claim, iso(s.clock.ms), fakeRun(o.b + i)); // sometimes a ticker dies mid-run
      }
      break;
    }
    case 'checkSet': {
      // Humans set and clear acceptance checks; agents are refused.
      const check = o.b % 3 === 0 ? null : `check ${o.b % 2}`;
      const by = o.b % 5 === 0 ? k : s.kernel.as(human);
      if (o.a % 2) setGoalCheck(by, goal(), check);
      else setTodoCheck(by, todo(), check);
      break;
    }
    case 'evidenceRun': {
      // A kernel run recorded as evidence: often the exact check, passing or not.
      const command = o.b % 4 === 3 ? 'npm test' : `check ${o.b % 2}`;
      recordEvidenceRun(k, o.a % 3 ? { todoId: todo() } : { goalId: goal() }, { command, shell: true, kind: 'test' }, fakeRun(o.b));
      break;
    }
    case 'turnFinish': {
      const open = s.kernel.db.prepare('SELECT id FROM turns WHERE ended_at IS NULL ORDER BY num').all();
      finishTurn(
        o.b % 3 ? s.kernel.as(human) : k,
        String(open[o.a % Math.max(1, open.length)]?.id ?? 'R1'),
        [0, 1, 137][o.b % 3] as number,
      );
      break;
    }
  }
}

function fakeRun(b: number): CommandResult {
  const output = ['ok', 'not yet', 'ok\n', 'failing'][b % 4] as string;
  const failed = b % 7 === 0;
  return {
    exitCode: failed ? null : b % 2,
    durationMs: b * 13,
    outputTail: output,
    outputSha256: sha256(output),
    timedOut: failed,
    error: failed ? 'killed at its time limit of 60 s' : null,
    matchText: output,
  };
}

/**
 * A ready list's count (countReady: the open todos without a hold kept by triggers, migration 0023) equals judging
 * every todo by CLAIMABLE_WHERE, for every goal and for all, now and later (leases lapse, due times come); and a
 * replay of the log keeps the same holds.
 */
function expectReadyCountsKept(s: TestStore): void {
  const db = s.kernel.db;
  const goals = db
    .prepare('SELECT id FROM goals')
    .all()
    .map((r) => String(r.id));
  for (const seconds of [0, 150, 7200, 90_000]) {
    const at = iso(s.clock.ms + seconds * 1000);
    for (const goalId of [undefined, ...goals]) {
      const scope = goalId ? 't.goal_id = ? AND ' : '';
      const walked = db
        .prepare(`SELECT count(*) AS n FROM todos t WHERE ${scope}${CLAIMABLE_WHERE}`)
        .get(...(goalId ? [goalId] : []), at, at);
      expect(countTodos(db, at, { goalId, ready: true }), `ready ${goalId ?? 'all'} at +${seconds} s`).toBe(Number(walked?.n));
    }
  }
  const kept = (d: SqliteDb) => [
    d.prepare('SELECT todo_id, n FROM todo_holds WHERE n <> 0 ORDER BY todo_id').all(),
    d.prepare('SELECT goal_id, n FROM open_unheld WHERE n <> 0 ORDER BY goal_id').all(),
  ];
  const replayed = replayLog(db);
  try {
    expect(kept(replayed)).toEqual(kept(db));
  } finally {
    replayed.close();
  }
}

const eventCount = (s: TestStore) => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);

describe('the log is the truth', () => {
  test('over random operation sequences, replay reproduces the state, the chain verifies, refusals change nothing', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 5, maxLength: 60 }), (ops) => {
        const s = makeStore();
        try {
          // A small board to work on, so that most random operations hit real entities.
          for (let g = 0; g < 2; g++) {
            const goalId = createGoal(s.kernel, { title: `seed ${g}`, turnsPerWindow: 3, windowHours: 1 }).id;
            for (let t = 0; t < 3; t++) addTodo(s.kernel, { goalId, title: `seed ${g}.${t}` });
          }
          for (const o of ops) {
            const before = eventCount(s);
            try {
              apply(s, o);
            } catch (error) {
              // Refusals and bad input are fine; anything else is a kernel bug.
              if (!(error instanceof LoopxError) || error.exitCode === 1) throw error;
              expect(eventCount(s)).toBe(before);
            }
          }
          expect(verifyChain(s.kernel.db).ok).toBe(true);
          const replay = checkReplay(s.kernel.db);
          expect(replay.differences).toEqual([]);
          expectReadyCountsKept(s);
          // No todo is ever held twice and a claim always has a live-or-lapsed lease.
          const claimed = s.kernel.db
            .prepare(`SELECT count(*) AS n FROM todos WHERE status = 'claimed' AND (owner IS NULL OR lease_expires_at IS NULL)`)
            .get();
          expect(Number(claimed?.n)).toBe(0);
        } finally {
          s.dispose();
        }
      }),
      { numRuns: propertyRuns(150) },
    );
    // 150 random histories take about 6 s alone; allow for a machine busy with other suites.
  }, 180_000);
});
