import type { BoardFacts, CardReviewFacts, TodoCardFacts, TodoDetailFacts } from '../../kernel/readModels/cards';
import { scopeWords } from '../../kernel/worktrees/changeScope';
import type { Monitor } from '../../kernel/monitors/monitorQueries';
import type { Actor } from '../../kernel/events/eventTypes';
import { type MoveTodo, allowedTargets } from '../../kernel/todos/boardMoves';
import { type MovedTodo, columnOf } from '../../protocol/board';
import { eventSentence } from '../../protocol/boardText';
import { allShipped } from '../../protocol/shouldRunWords';
import { changeSize, waitsToLand } from '../../protocol/changeWords';
import { forPeople } from '../../protocol/display';
import { turnOutcomeWords, unproductiveEnd } from '../../shared/turnOutcomeWords';
import type {
  AttentionItem,
  BoardPatch,
  BoardSnapshot,
  Card,
  CardChange,
  CardDetail,
  CardMonitor,
  GoalSummary,
  CardReview,
} from '../../protocol/boardProtocol';
import { usageWords, windowUsageWords } from '../../shared/usageWords';

/**
 * The board from the kernel's facts (read in one transaction by `boardFacts`): a pure function, so what the board
 * shows is tested without a store or VS Code.
 */
export function buildSnapshot(facts: BoardFacts, me: string, changes: ReadonlyMap<string, CardChange> = new Map()): BoardSnapshot {
  const { report } = facts;
  const cards = facts.cards.map((f) => cardOf(f, report.at, me, changes.get(f.id) ?? null));
  const titles = new Map(cards.map((c) => [c.id, c.title]));
  const attention: AttentionItem[] = [
    ...report.pendingGates.map((g) => ({
      kind: 'gate' as const,
      gateId: g.id,
      goalId: g.goalId,
      todoId: g.todoId,
      question: g.question,
      askedBy: g.askedBy,
      askedAt: g.askedAt,
    })),
    ...report.blocked.map((t) => ({ kind: 'blocked' as const, todoId: t.id, title: t.title, reason: t.reason ?? '' })),
    // A shipped change waits for a person to land it (the agent never merges): shown until someone does.
    ...cards.flatMap((c) =>
      c.change && waitsToLand(c)
        ? [
            {
              kind: 'land' as const,
              todoId: c.id,
              title: c.title,
              branch: c.change.branch,
              base: c.change.base,
              size: changeSize(c.change),
            },
          ]
        : [],
    ),
    ...report.lapsedLeases.map((t) => ({
      kind: 'lapsed' as const,
      todoId: t.id,
      title: t.title,
      owner: t.owner ?? '?',
      leaseExpiresAt: t.leaseExpiresAt ?? report.at,
    })),
    ...report.goals.flatMap((g) =>
      g.waitsForPerson ? [{ kind: 'paused' as const, goalId: g.id, title: g.title, ...g.waitsForPerson }] : [],
    ),
    ...report.goals
      .filter((g) => g.status === 'active' && allShipped(g.counts))
      .map((g) => ({ kind: 'finished' as const, goalId: g.id, title: g.title, shipped: g.counts.shipped })),
    ...report.goals
      .filter((g) => g.status === 'active' && g.quota.remaining === 0)
      .map((g) => ({ kind: 'budget' as const, goalId: g.id, title: g.title, nextWakeAt: g.quota.nextSlotAt })),
    // Retried ever more slowly, never given up: a person sees why and may step in.
    ...report.failing.map((f) => ({
      kind: 'failing' as const,
      todoId: f.todoId,
      title: f.title,
      failures: f.failures,
      lastEnd: unproductiveEnd(f.result, f.exitCode),
      retryAt: f.retryAt,
    })),
    // A check that cannot run (not found, killed at its limit) will never fire by itself: a person looks at it.
    ...report.monitors
      .filter((m) => m.lastRun?.error)
      .map((m) => ({
        kind: 'monitor' as const,
        monitorId: m.id,
        todoId: m.todoId,
        title: titles.get(m.todoId) ?? '',
        check: m.check ?? '',
        error: m.lastRun?.error ?? '',
      })),
    // A check an agent set waits for a person before loopx runs it: the person sees the command and decides.
    ...report.monitors
      .filter((m) => m.approval === 'pending')
      .map((m) => ({
        kind: 'checkApproval' as const,
        monitorId: m.id,
        todoId: m.todoId,
        title: titles.get(m.todoId) ?? '',
        check: m.check ?? '',
        addedBy: m.addedBy,
      })),
  ];
  return {
    me,
    now: report.at,
    goals: report.goals.map((g) => ({
      id: g.id,
      title: g.title,
      status: g.status,
      spent: g.quota.spent,
      turnsPerWindow: g.quota.turnsPerWindow,
      windowHours: g.quota.windowHours,
      run: g.shouldRun.run,
      reason: g.shouldRun.reason,
      nextWakeAt: g.shouldRun.nextWakeAt,
      background: facts.backgrounds[g.id] ?? '',
      review: g.review !== undefined,
      counts: g.counts,
      liveClaims: g.quota.liveClaims,
      holders: g.quota.holders,
      windingDown: g.quota.windingDown,
      maxConcurrent: g.quota.maxConcurrent,
      ...(g.shouldRun.budget ? { budget: g.shouldRun.budget } : {}),
      usage: budgetFacts(g.quota.usage),
      usageLine: windowUsageWords(g.quota.usage, g.quota.windowHours),
    })),
    cards,
    attention,
    agents: facts.agents,
  };
}

/** The window's usage as the board needs it (the per-turn estimate without its count; no wake time). */
function budgetFacts(u: BoardFacts['report']['goals'][number]['quota']['usage']): GoalSummary['usage'] {
  const { tokens, dollars, tokensPerWindow, dollarsPerWindow, perTurn } = u;
  return { tokens, dollars, tokensPerWindow, dollarsPerWindow, perTurn: perTurn && { tokens: perTurn.tokens, dollars: perTurn.dollars } };
}

/**
 * One card from the kernel's facts about its todo; `at` decides whether a scheduled occurrence still waits; `me` is the
 * person at the board, whose allowed moves the card carries (the kernel's rule); `change` is its branch (read from git
 * apart from the store's transaction: StoreModel.changes).
 */
export function cardOf(f: TodoCardFacts, at: string, me: string, change: CardChange | null = null): Card {
  // Field by field, not a spread of movedTodo: spreading into a literal this size cost 50 to 100 µs a card (V8),
  // a 2,000-card snapshot 100 ms more.
  const card: Card = {
    id: f.id,
    goalId: f.goalId,
    title: f.title,
    priority: f.priority,
    status: f.status,
    owner: f.owner,
    ownedByMe: f.owner !== null && f.owner === me,
    leaseExpiresAt: f.leaseExpiresAt,
    dependsOn: f.dependsOn,
    unmetDeps: f.unmetDeps,
    evidenceCount: f.evidenceCount,
    gates: f.pendingGates,
    goalActive: f.goalActive,
    revision: f.revision,
    monitor: f.monitor ? cardMonitor(f.monitor) : null,
    recurrence: f.recurrence?.text ?? null,
    recurrenceZone: recurrenceZone(f.recurrence),
    waitsUntil: waitsUntil(f, at),
    change,
    review: f.review ? cardReview(f.review) : null,
    moves: [],
  };
  // The card's column by the board's copy of readiness (pinned to the kernel's by boardRules.test.ts).
  card.moves = allowedTargets(f, columnOf(card), boardActor(me), at);
  return card;
}

/** The person at the board, as the kernel's move rule sees them: UI actions are a human's. */
export function boardActor(me: string): Actor {
  return { name: me, kind: 'human' };
}

/** What a refused move's words name of a todo, from the kernel's facts (the card's own fields). */
export function movedTodo(f: MoveTodo, at: string): MovedTodo & { monitor: CardMonitor | null } {
  return {
    id: f.id,
    goalId: f.goalId,
    status: f.status,
    owner: f.owner,
    unmetDeps: f.unmetDeps,
    gates: f.pendingGates,
    goalActive: f.goalActive,
    monitor: f.monitor ? cardMonitor(f.monitor) : null,
    recurrence: f.recurrence?.text ?? null,
    recurrenceZone: recurrenceZone(f.recurrence),
    waitsUntil: waitsUntil(f, at),
  };
}

/** A scheduled occurrence waits until its time (only while open: a claimed one is in progress). */
function waitsUntil(f: Pick<MoveTodo, 'status' | 'readyAt'>, at: string): string | null {
  return f.status === 'open' && f.readyAt !== null && f.readyAt > at ? f.readyAt : null;
}

/** The zone a recurrence's clock times are in, when it names clock times (`at`, cron). */
function recurrenceZone(r: MoveTodo['recurrence']): string | null {
  return r && (r.at || r.cron) ? r.tz : null;
}

/** Only the cards that changed (or disappeared) travel to the webview; goals, attention and agents are small. */
export function diffSnapshots(previous: BoardSnapshot, next: BoardSnapshot): BoardPatch {
  const before = new Map(previous.cards.map((c) => [c.id, JSON.stringify(c)]));
  const upserts = next.cards.filter((c) => before.get(c.id) !== JSON.stringify(c));
  const present = new Set(next.cards.map((c) => c.id));
  const removed = previous.cards.filter((c) => !present.has(c.id)).map((c) => c.id);
  return {
    now: next.now,
    upserts,
    removed,
    goals: next.goals,
    attention: next.attention,
    agents: next.agents,
    ...(next.folders ? { folders: next.folders } : {}),
    ...(next.notice ? { notice: next.notice } : {}),
  };
}

/** A card's detail pane: acceptance, continuation, evidence with artifacts, monitors, history and handoffs. */
export function buildDetail(facts: TodoDetailFacts, card: Card, nowMs = Date.now()): CardDetail {
  const { todo } = facts;
  // Stored text (written for agents too) as people read it: local times, no Markdown backticks.
  const said = (text: string) => forPeople(text, nowMs);
  return {
    card,
    detail: said(todo.detail),
    continuation: said(todo.continuation),
    reason: todo.reason === null ? null : said(todo.reason),
    gates: facts.pendingGates.map((g) => ({ id: g.id, question: g.question, askedBy: g.askedBy, askedAt: g.askedAt })),
    turns: facts.turns.map((t) => ({
      id: t.id,
      agent: t.agent,
      host: t.host,
      startedAt: t.startedAt,
      endedAt: t.endedAt,
      result: turnOutcomeWords(t.resultKind),
      exitCode: t.exitCode,
      used: t.usage ? usageWords(t.usage) : null,
    })),
    evidence: facts.evidence.map((e) => ({
      seq: e.seq,
      at: e.at,
      actor: e.actor,
      kind: e.kind,
      text:
        eventSentence({ kind: 'evidence', actor: e.actor, actorKind: e.actorKind, data: { kind: e.kind } }).text +
        (e.afterShip ? ' after it shipped' : ''),
      summary: e.summary,
      artifacts: e.artifacts,
      ...(e.run
        ? {
            run: {
              command: e.run.command,
              exitCode: e.run.exitCode,
              durationMs: e.run.durationMs,
              error: e.run.error,
              check: e.run.check !== null,
            },
          }
        : {}),
    })),
    monitors: facts.monitors.map((m) => ({
      id: m.id,
      status: m.status,
      kind: m.kind,
      check: m.check,
      until: m.until,
      everySeconds: m.everySeconds,
      nextCheckAt: m.nextCheckAt,
      result: m.result === null ? null : said(m.result),
      runs: m.runs.map((r) => ({
        n: r.n,
        at: r.at,
        exitCode: r.exitCode,
        durationMs: r.durationMs,
        error: r.error,
        outputTail: r.outputTail,
      })),
    })),
    // A monitor's run claims are bookkeeping; its runs and how it ended are history.
    history: facts.history
      .filter((e) => e.kind !== 'monitor.run_claimed')
      .slice(0, 50)
      .map((e) => {
        const sentence = eventSentence(e);
        return { seq: e.seq, at: e.at, actor: e.actor, kind: e.kind, text: sentence.text, note: said(sentence.note) };
      }),
    reviews: facts.reviews.map((r) => ({
      round: r.round,
      implementer: r.implementer,
      submittedAt: r.submittedAt,
      validation: said(r.validation),
      scope: scopeWords(r.scope),
      reviewer: r.reviewer,
      verdict: r.verdict,
      byPerson: r.byPerson,
      summary: r.summary === null ? null : said(r.summary),
      decidedAt: r.decidedAt,
      findings: r.findings.map((f) => ({ ...f, title: said(f.title), body: said(f.body) })),
    })),
    handoffs: facts.handoffs.map((h) => ({
      id: h.id,
      from: h.from,
      to: h.to,
      status: h.status,
      summary: said(h.summary),
      pending: said(h.pending),
    })),
  };
}

/** A card's review, from the kernel's facts: this round, its reviewer now, and the round's verdict so far. */
export function cardReview(f: CardReviewFacts): CardReview {
  const r = f.round;
  return {
    round: r.round,
    maxRounds: f.maxRounds,
    implementer: r.implementer,
    reviewer: f.reviewer,
    verdict: r.verdict,
    verdictBy: r.byPerson ? 'a person' : r.reviewer,
    summary: r.summary,
    findings: r.findings.map((x) => ({ severity: x.severity, title: x.title, file: x.file, line: x.line })),
    waitsUntil: f.waitsUntil,
  };
}

export function cardMonitor(m: Monitor): CardMonitor {
  const run = m.lastRun;
  return {
    id: m.id,
    kind: m.kind,
    check: m.check,
    until: m.until,
    everySeconds: m.everySeconds,
    nextCheckAt: m.nextCheckAt,
    expiresAt: m.expiresAt,
    lastRun: run ? { n: run.n, at: run.at, exitCode: run.exitCode, durationMs: run.durationMs, error: run.error } : null,
    waitsForPerson: m.approval === 'pending',
  };
}
