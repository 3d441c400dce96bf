import type { Gate, Goal, Todo } from '../kernel/model';
import type { Evidence } from '../kernel/evidence/evidenceQueries';
import type { Monitor, MonitorRun } from '../kernel/monitors/monitorQueries';
import { formatDuration } from '../kernel/time';

/** Human output for the terminal. Everything printed from the store passes through `clean` (no terminal escapes). */
import { clean, oneLine, relativeTime } from '../protocol/display';
import { dollars, tokenWords } from '../shared/usageWords';
import { runTook } from '../shared/timeWords';

export { clean, oneLine, relativeTime };

const CODES = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36 } as const;
export type Style = keyof typeof CODES;

export class Painter {
  constructor(readonly enabled: boolean) {}
  paint(style: Style, text: string): string {
    return this.enabled ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;
  }
}

const STATUS_STYLE: Record<string, Style> = {
  open: 'cyan',
  claimed: 'yellow',
  blocked: 'red',
  shipped: 'green',
  killed: 'dim',
  active: 'green',
  paused: 'yellow',
  done: 'blue',
  stopped: 'dim',
  pending: 'magenta',
  approved: 'green',
  rejected: 'red',
  cancelled: 'dim',
  waiting: 'magenta',
  fired: 'green',
  expired: 'yellow',
};

export function statusTag(p: Painter, status: string): string {
  return p.paint(STATUS_STYLE[status] ?? 'bold', status.padEnd(7));
}

export function todoLine(p: Painter, t: Todo, nowMs: number): string {
  const bits = [p.paint('bold', t.id.padEnd(5)), statusTag(p, t.status), `P${t.priority}`, oneLine(t.title, 70)];
  const extra: string[] = [];
  if (t.owner) extra.push(`${clean(t.owner)}, lease ${relativeTime(t.leaseExpiresAt, nowMs)}`);
  if (t.dependsOn.length) extra.push(`after ${t.dependsOn.join(', ')}`);
  if (t.evidenceCount) extra.push(`${t.evidenceCount} evidence`);
  if (t.reason && (t.status === 'blocked' || t.status === 'killed')) extra.push(oneLine(t.reason, 60));
  if (t.recurrence) extra.push(`recurs ${clean(t.recurrence.text)}`);
  if (t.readyAt && t.status === 'open' && Date.parse(t.readyAt) > nowMs) extra.push(`due ${relativeTime(t.readyAt, nowMs)}`);
  if (t.previousId) extra.push(`follows ${t.previousId}`);
  return `${bits.join('  ')}${extra.length ? p.paint('dim', `  (${extra.join('; ')})`) : ''}`;
}

/** "20 turns/24 h, max 1 concurrent, at most $10 and 2M tokens": a goal's budget in one phrase. */
export function policyWords(policy: Goal['policy']): string {
  const caps = [
    policy.dollarsPerWindow !== null ? dollars(policy.dollarsPerWindow) : '',
    policy.tokensPerWindow !== null ? tokenWords(policy.tokensPerWindow) : '',
  ].filter(Boolean);
  return `${policy.turnsPerWindow} turns/${policy.windowHours} h, max ${policy.maxConcurrent} concurrent${caps.length ? `, at most ${caps.join(' and ')}` : ''}`;
}

export function goalLine(p: Painter, g: Goal): string {
  return `${p.paint('bold', g.id.padEnd(4))} ${statusTag(p, g.status)}  ${oneLine(g.title, 70)}  ${p.paint('dim', `(${policyWords(g.policy)})`)}`;
}

export function gateLine(p: Painter, g: Gate, nowMs: number): string {
  const on = g.todoId ? `todo ${g.todoId}` : `goal ${g.goalId}`;
  const who = g.decidedBy ? `${g.status} by ${clean(g.decidedBy)}` : `asked by ${clean(g.askedBy)} ${relativeTime(g.askedAt, nowMs)}`;
  return `${p.paint('bold', g.id.padEnd(4))} ${statusTag(p, g.status)}  ${on}: ${oneLine(g.question, 80)}  ${p.paint('dim', `(${who})`)}`;
}

export function todoDetail(p: Painter, t: Todo, nowMs: number): string {
  const lines = [todoLine(p, t, nowMs), `  goal: ${t.goalId}   revision ${t.revision}   updated ${relativeTime(t.updatedAt, nowMs)}`];
  if (t.detail) lines.push(`  acceptance: ${clean(t.detail)}`);
  if (t.continuation) lines.push(`  continuation: ${clean(t.continuation)}`);
  return lines.join('\n');
}

export function list<T>(items: T[], render: (item: T) => string, empty: string): string {
  return items.length ? items.map(render).join('\n') : empty;
}

export function evidenceLine(p: Painter, e: Evidence, nowMs: number): string {
  const source = e.source === 'kernel' ? p.paint(e.run?.exitCode === 0 ? 'green' : 'red', 'kernel-verified ') : '';
  const head = `#${e.seq} ${e.todoId ?? e.goalId} [${clean(e.kind)}] ${source}${oneLine(e.summary, 90)}`;
  const after = e.afterShip ? ', after it shipped' : '';
  const meta = p.paint(
    'dim',
    `(${e.source === 'kernel' ? `asked by ${clean(e.actor)}` : clean(e.actor)}, ${relativeTime(e.at, nowMs)}${after})`,
  );
  const files = e.artifacts.map((a) => `\n    ${clean(a.path)}  sha256:${a.sha256.slice(0, 12)}…  ${a.bytes} B`).join('');
  return `${head}  ${meta}${files}`;
}

/** What a run did, in a few words: "exit 0 in 1.2 s", "killed at its time limit of 60 s". */
export function runOutcome(run: Pick<MonitorRun, 'exitCode' | 'durationMs' | 'error'>): string {
  const took = runTook(run.durationMs);
  return run.error ? `${clean(run.error)} after ${took}` : `exit ${run.exitCode} in ${took}`;
}

export function monitorLine(p: Painter, m: Monitor, nowMs: number): string {
  const what =
    m.kind === 'timer' ? 'timer' : `\`${oneLine(m.check ?? '', 60)}\` every ${formatDuration(m.everySeconds ?? 0)} until ${clean(m.until)}`;
  const when =
    m.status === 'waiting'
      ? m.kind === 'timer'
        ? `fires ${relativeTime(m.nextCheckAt, nowMs)}`
        : m.approval === 'pending'
          ? `waits for a person to allow its check (loopx monitor approve ${m.id})${m.expiresAt ? `, expires ${relativeTime(m.expiresAt, nowMs)}` : ''}`
          : `next check ${relativeTime(m.nextCheckAt, nowMs)}${m.expiresAt ? `, expires ${relativeTime(m.expiresAt, nowMs)}` : ''}`
      : `ended ${relativeTime(m.endedAt, nowMs)}`;
  const last = m.lastRun ? `; run ${m.lastRun.n}: ${runOutcome(m.lastRun)}` : '';
  return `${p.paint('bold', m.id.padEnd(4))} ${statusTag(p, m.status)}  ${m.todoId}: ${what}  ${p.paint('dim', `(${when}${last})`)}`;
}
