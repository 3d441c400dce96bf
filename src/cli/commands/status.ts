import type { Command } from '../command';
import type { Kernel } from '../../kernel/kernel';
import { type StatusReport, statusReport } from '../../kernel/readModels/status';
import { statusMdStale, writeStatusMd } from '../../runtime/projections/statusMd';
import { InvalidInputError } from '../../kernel/errors';
import { pausedWords } from '../../shared/pausedWords';
import { shouldRunReason } from '../../protocol/shouldRunWords';
import { clean, gateLine, monitorLine, Painter, relativeTime, todoLine } from '../format';
import { unproductiveEnd } from '../../shared/turnOutcomeWords';
import { budgetWords, type BudgetFacts } from '../../shared/usageWords';
import { type SetAsideEvent, setAsideEvents, setAsideWords } from '../../kernel/events/setAside';

/** ", used $3.20 · 410k tokens" once the goal's turns used anything or it has a cap; nothing before. */
function usedWords(usage: BudgetFacts): string {
  return usage.tokens > 0 || usage.dollarsPerWindow !== null || usage.tokensPerWindow !== null ? `, used ${budgetWords(usage)}` : '';
}

/** Each list in the answer (gates, blocked, lapsed leases, monitors) shows this many unless asked for more. */
export const STATUS_LIMIT = 20;

/** Agents' writes only mark STATUS.md out of date; a person reading the status brings it up to date (where it may write). */
function refreshStale(kernel: Kernel, report: StatusReport): void {
  try {
    if (statusMdStale(kernel.storeDir)) writeStatusMd(kernel, report);
  } catch {
    /* another user's store or a read-only mount: STATUS.md stays as it is */
  }
}

export const status: Command = {
  name: ['status'],
  summary: "the attention queue: pending gates, blocked todos, lapsed leases, and each goal's next todo and quota",
  description: `Each list shows at most ${STATUS_LIMIT} items (--limit, --all); with --json, data.more counts what each cut list left out, e.g. "more":{"blocked":12}.`,
  readOnly: true,
  flags: {
    limit: { type: 'int', value: 'N', min: 1, max: 100_000, description: `at most N items in each list (default ${STATUS_LIMIT})` },
    all: { type: 'boolean', description: 'every item of every list' },
  },
  run(ctx) {
    const limit = ctx.args.num('limit');
    if (limit !== undefined && ctx.args.bool('all'))
      throw new InvalidInputError('--all and --limit contradict each other', 'pass one of them');
    const options = ctx.args.bool('all') ? {} : { limit: limit ?? STATUS_LIMIT };
    // Events the store set aside and no person has marked handled yet (events/setAside.ts).
    const report = ctx.kernel().read((db, now) => ({
      ...statusReport(db, now, options),
      setAside: setAsideEvents(db).filter((e) => !e.handled),
    }));
    if (ctx.actor.kind === 'human') refreshStale(ctx.kernel(), report); // agents call status often; a person reads STATUS.md
    return { data: report, text: () => statusText(report, ctx.color) };
  },
};

/** What a person reads: the attention queue, then each goal's line, quota and next todo, then the monitors. */
function statusText(report: StatusReport & { setAside: SetAsideEvent[] }, color: boolean): string {
  const now = Date.parse(report.at);
  const p = new Painter(color);
  const lines: string[] = [p.paint('bold', 'Needs a human')];
  const attention = [
    ...report.setAside.map(
      (e) => `  ${p.paint('red', setAsideWords(e))}; after dealing with it: loopx log handled ${e.seq} --decision "…"`,
    ),
    ...report.pendingGates.map((g) => `  ${gateLine(p, g, now)}`),
    ...report.blocked.map((t) => `  ${todoLine(p, t, now)}`),
    ...report.lapsedLeases.map((t) => `  ${todoLine(p, t, now)}  ${p.paint('red', 'lease lapsed')}`),
    ...report.monitors.filter((m) => m.lastRun?.error).map((m) => `  ${monitorLine(p, m, now)}  ${p.paint('red', 'its check cannot run')}`),
    ...report.heldOpen.map(
      (t) =>
        `  ${p.paint('bold', t.id)} ${t.agent} on ${t.todoId ?? t.goalId}, started ${relativeTime(t.startedAt, now)}  ${p.paint('yellow', 'still open')}: no other turn takes ${t.todoId ?? 'its todo'} and it keeps a unit of ${t.goalId}'s budget until it is finished (loopx turn finish ${t.id} --exit-code N)`,
    ),
    ...report.failing.map(
      (f) =>
        `  ${p.paint('bold', f.todoId)} ${clean(f.title)}  ${p.paint('red', 'keeps failing')}: ${f.failures} turns in a row made no progress (the last: ${unproductiveEnd(f.result, f.exitCode)}); next try ${relativeTime(f.retryAt, now)}`,
    ),
    ...report.goals
      .filter((g) => g.waitsForPerson)
      .map((g) => `  ${p.paint('bold', g.id)} ${clean(g.title)}  ${pausedWords(g.waitsForPerson)} (start it: loopx goal resume ${g.id})`),
  ];
  const more = report.more ?? {};
  if (more.pendingGates) attention.push(`  … ${more.pendingGates} more pending gates (loopx gate list --pending)`);
  if (more.blocked) attention.push(`  … ${more.blocked} more blocked todos (loopx todo list --status blocked)`);
  if (more.lapsedLeases) attention.push(`  … ${more.lapsedLeases} more lapsed leases (loopx status --all)`);
  lines.push(...(attention.length ? attention : ['  nothing']), '', p.paint('bold', 'Goals'));
  if (report.goals.length === 0) lines.push('  none yet: loopx goal create --title "…"');
  for (const g of report.goals) {
    const c = g.counts;
    const answer = g.shouldRun.run
      ? p.paint('green', 'yes')
      : // Words for the person reading (the reason's code is in --json): "no (codex holds a todo of this goal; …)".
        `no (${p.paint('yellow', shouldRunReason({ ...g.shouldRun, goalStatus: g.status, ...g.quota, counts: g.counts }))})` +
        (g.shouldRun.nextWakeAt ? ` (can run again ${relativeTime(g.shouldRun.nextWakeAt, now)})` : '');
    lines.push(
      `  ${p.paint('bold', g.id)} ${clean(g.title)} [${g.status}]  ${c.open} open, ${c.claimed} claimed, ${c.in_review ? `${c.in_review} in review, ` : ''}${c.blocked} blocked, ${c.shipped} shipped`,
      `     quota ${g.quota.spent}/${g.quota.turnsPerWindow} in ${g.quota.windowHours} h${usedWords(g.quota.usage)}; should run: ${answer}`,
      `     next: ${g.nextTodo ? `${g.nextTodo.id} ${clean(g.nextTodo.title)}` : 'nothing ready'}`,
    );
  }
  if (report.monitors.length) {
    lines.push(
      '',
      p.paint('bold', 'Monitors (run unattended by loopx monitor tick)'),
      ...report.monitors.map((m) => `  ${monitorLine(p, m, now)}`),
    );
    if (more.monitors) lines.push(`  … ${more.monitors} more waiting monitors (loopx monitor list --status waiting)`);
  }
  return lines.join('\n');
}
