import type { Gate, Goal, Todo } from '../kernel/model';
import type { Evidence } from '../kernel/queries/evidence';

/** Human output helpers. Everything printed from the store passes through `clean` (no terminal escapes). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function clean(text: string | null | undefined): string {
  return (text ?? '').replace(CONTROL, '?');
}

export function oneLine(text: string | null | undefined, max = 100): string {
  const flat = clean(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const CODES = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36 } as const;
export type Style = keyof typeof CODES;

export class Painter {
  constructor(readonly enabled: boolean) {}
  paint(style: Style, text: string): string {
    return this.enabled ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;
  }
}

export function relativeTime(isoTime: string | null, nowMs: number): string {
  if (!isoTime) return '—';
  const delta = Math.round((Date.parse(isoTime) - nowMs) / 1000);
  const span = Math.abs(delta);
  if (span < 2) return 'just now';
  const text =
    span < 90 ? `${span}s` : span < 5400 ? `${Math.round(span / 60)}m` : span < 172_800 ? `${Math.round(span / 3600)}h` : `${Math.round(span / 86400)}d`;
  return delta >= 0 ? `in ${text}` : `${text} ago`;
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
  return `${bits.join('  ')}${extra.length ? p.paint('dim', `  (${extra.join('; ')})`) : ''}`;
}

export function goalLine(p: Painter, g: Goal): string {
  const policy = `${g.policy.turnsPerWindow} turns/${g.policy.windowHours}h, max ${g.policy.maxConcurrent} concurrent`;
  return `${p.paint('bold', g.id.padEnd(4))} ${statusTag(p, g.status)}  ${oneLine(g.title, 70)}  ${p.paint('dim', `(${policy})`)}`;
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
  const head = `#${e.seq} ${e.todoId ?? e.goalId} [${clean(e.kind)}] ${oneLine(e.summary, 90)}`;
  const meta = p.paint('dim', `(${clean(e.actor)}, ${relativeTime(e.at, nowMs)})`);
  const files = e.artifacts.map((a) => `\n    ${clean(a.path)}  sha256:${a.sha256.slice(0, 12)}…  ${a.bytes} B`).join('');
  return `${head}  ${meta}${files}`;
}
