import type { Command } from '../command';
import { statusReport } from '../../kernel/queries/status';
import { clean, gateLine, monitorLine, Painter, relativeTime, todoLine } from '../format';

export const status: Command = {
  name: ['status'],
  summary: 'the attention queue: pending gates, blocked todos, lapsed leases, and each goal\'s next todo and quota',
  readOnly: true,
  run(ctx) {
    const report = ctx.kernel().read((db, now) => statusReport(db, now));
    const now = Date.parse(report.at);
    const p = new Painter(ctx.color);
    const lines: string[] = [p.paint('bold', 'Needs a human')];
    const attention = [
      ...report.pendingGates.map((g) => `  ${gateLine(p, g, now)}`),
      ...report.blocked.map((t) => `  ${todoLine(p, t, now)}`),
      ...report.lapsedLeases.map((t) => `  ${todoLine(p, t, now)}  ${p.paint('red', 'lease lapsed')}`),
      ...report.monitors.filter((m) => m.lastRun?.error).map((m) => `  ${monitorLine(p, m, now)}  ${p.paint('red', 'its check cannot run')}`),
    ];
    lines.push(...(attention.length ? attention : ['  nothing']), '', p.paint('bold', 'Goals'));
    if (report.goals.length === 0) lines.push('  none yet: loopx goal create --title "…"');
    for (const g of report.goals) {
      const c = g.counts;
      const answer = g.shouldRun.run ? p.paint('green', 'yes') : `no (${p.paint('yellow', g.shouldRun.reason)})` +
        (g.shouldRun.nextWakeAt ? ` (wake ${relativeTime(g.shouldRun.nextWakeAt, now)})` : '');
      lines.push(
        `  ${p.paint('bold', g.id)} ${clean(g.title)} [${g.status}]  ${c.open} open, ${c.claimed} claimed, ${c.blocked} blocked, ${c.shipped} shipped`,
        `     quota ${g.quota.spent}/${g.quota.turnsPerWindow} in ${g.quota.windowHours}h; should run: ${answer}`,
        `     next: ${g.nextTodo ? `${g.nextTodo.id} ${clean(g.nextTodo.title)}` : 'nothing ready'}`,
      );
    }
    if (report.monitors.length) {
      lines.push('', p.paint('bold', 'Monitors (run unattended by loopx monitor tick)'), ...report.monitors.map((m) => `  ${monitorLine(p, m, now)}`));
    }
    return { data: report, text: lines.join('\n') };
  },
};
