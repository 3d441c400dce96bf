import { CHART_CSS, PAGE_DARK } from './chartStyles';
import { dateTimeWords, durationWords, runTook } from '../../shared/timeWords';
import { quoteCodeSpans } from '../../shared/codeSpans';
import {
  TIME_KIND_ORDER,
  TIME_LABELS,
  burndownChart,
  costChart,
  dayText,
  esc,
  hoursText,
  itemSentence,
  momentText,
  throughputChart,
  timeChart,
  timeShareBar,
  timelineChart,
} from './storyCharts';
import type { Story } from './storyProtocol';
import { turnOutcomeWords } from '../../shared/turnOutcomeWords';
import { countOf } from '../../shared/countWords';
import { cacheTileWords } from '../../shared/usageWords';

/** Stored text (a question, a note, a summary, a reason) as people read it on the page: code spans in quotes. */
const said = (text: string): string => esc(quoteCodeSpans(text));

/**
 * The owner's review as one self-contained page: the goal's story (charts as inline SVG, no script, no external
 * file) and the review packet's sections, readable in any browser, light or dark, and printable to PDF. The facts
 * are the kernel's (reviewFacts.ts and story.ts), passed in as plain data; these are the fields the page reads.
 */
export interface ReviewPageGoal {
  goal: { id: string; title: string; status: string; objective: string; check: string | null };
  quota: { spent: number; turnsPerWindow: number; windowHours: number };
  decisions: {
    id: string;
    status: string;
    decidedBy: string | null;
    decidedAt: string | null;
    question: string;
    note: string | null;
    channel: string | null;
  }[];
  pending: { id: string; todoId: string | null; goalId: string; askedBy: string; askedAt: string; question: string }[];
  shipped: {
    todo: { id: string; title: string; check: string | null };
    evidence: {
      kind: string;
      actor: string;
      summary: string;
      artifacts: { path: string; sha256: string; bytes: number }[];
      /** Recorded after the todo shipped. */
      afterShip?: boolean;
      run?: {
        command: string;
        exitCode: number | null;
        durationMs: number;
        error: string | null;
        check: string | null;
        outputSha256: string;
      } | null;
    }[];
  }[];
  blocked: { id: string; title: string; reason: string | null }[];
  turns: {
    id: string;
    todoId: string | null;
    agent: string;
    host: string;
    startedAt: string;
    resultKind: string | null;
    exitCode: number | null;
    spent: boolean;
    evidence: { kernel: number; agent: number };
  }[];
}

const PAGE_CSS = `
:root { color-scheme: light dark; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--vscode-foreground, #1f1f1f); background: var(--vscode-editor-background, #ffffff); max-width: 1100px; }
h1 { font-size: 1.6em; margin: 0 0 4px; } h2 { font-size: 1.3em; margin: 32px 0 4px; border-bottom: 1px solid rgba(128,128,128,.4); padding-bottom: 4px; }
h3 { font-size: 1.05em; margin: 20px 0 6px; }
.quiet { color: var(--vscode-descriptionForeground, #616161); }
.tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px; margin: 12px 0; }
.tile { border: 1px solid rgba(128,128,128,.4); border-radius: 4px; padding: 8px 10px; }
.tile b { display: block; font-size: 1.5em; }
figure { margin: 8px 0 16px; break-inside: avoid; } figcaption { font-weight: 600; margin-bottom: 4px; }
table { border-collapse: collapse; width: 100%; font-size: .92em; } th, td { text-align: left; padding: 3px 8px 3px 0; border-bottom: 1px solid rgba(128,128,128,.3); vertical-align: top; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .92em; }
ul { padding-left: 20px; } li { margin: 2px 0; }
.legend { display: flex; flex-wrap: wrap; gap: 12px; font-size: .9em; }
@media print { body { padding: 0; } h2 { break-after: avoid; } }
`;

function list(items: string[], empty: string): string {
  return items.length ? `<ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul>` : `<p class="quiet">${esc(empty)}</p>`;
}

function via(channel: string | null): string {
  return channel === 'vscode' ? ' in VS Code' : channel === 'tty' ? ' in a terminal' : '';
}

function storySection(s: Story): string {
  const t = s.totals;
  const total = TIME_KIND_ORDER.reduce((sum, k) => sum + t.time[k], 0) || 1;
  const pct = (ms: number) => `${Math.round((ms / total) * 100)}%`;
  const tile = (value: string, label: string) => `<div class="tile"><b>${esc(value)}</b>${esc(label)}</div>`;
  const cost = costChart(s.days);
  const recent = s.timeline.slice(-60).reverse();
  return [
    `<div class="tiles">${[
      tile(String(t.shipped), `shipped of ${countOf(t.todos, 'todo')} (${t.open} open)`),
      tile(String(t.turns), `${t.turns === 1 ? 'turn' : 'turns'}${t.turnsFailed ? `, ${t.turnsFailed} failed` : ''}`),
      tile(
        String(t.gatesAsked),
        `${t.gatesAsked === 1 ? 'gate' : 'gates'}${t.medianGateWaitMs === null ? '' : `, median wait ${durationWords(t.medianGateWaitMs)}`}`,
      ),
      tile(pct(t.time.person), 'of the time waiting on a person'),
      tile(pct(t.time.world), 'waiting on the world'),
      tile(pct(t.time.working), 'working'),
      tile(pct(t.time.queued), 'ready, nobody on it'),
      tile(t.cost === null ? '—' : `$${t.cost.toFixed(2)}`, t.cost === null ? 'cost: no turn reported what it cost' : 'cost'),
      ((c) => tile(c.value, c.value === '—' ? `prompt cache: ${c.detail}` : c.detail))(cacheTileWords(s.cache)),
    ].join('')}</div>`,
    `<figure><figcaption>Timeline</figcaption>${timelineChart(s, Date.parse(s.range.from), Date.parse(s.now), 1000)}</figure>`,
    `<figure><figcaption>Burn-down of open work</figcaption>${burndownChart(s)}</figure>`,
    `<figure><figcaption>Throughput per day</figcaption>${throughputChart(s.days)}</figure>`,
    `<figure><figcaption>Where the time went (todo-hours)</figcaption><div class="legend">${TIME_KIND_ORDER.map((k) => `<span><span class="swatch c-${k}"></span> ${esc(TIME_LABELS[k])} ${esc(hoursText(t.time[k]))}</span>`).join('')}</div>${timeShareBar(t.time)}${timeChart(s.days)}</figure>`,
    `<figure><figcaption>Cost per day</figcaption>${cost ?? `<p class="quiet">${esc(s.cost.note)}</p>`}</figure>`,
    `<h3>What happened (latest ${recent.length}${s.timeline.length > recent.length ? ` of ${s.timeline.length}` : ''})</h3>`,
    list(
      recent.map((i) => esc(itemSentence(i, s.titles, s.offsetMinutes, s.now))),
      'Nothing yet.',
    ),
    `<h3>Per day</h3><table><thead><tr><th>Day</th><th>Shipped</th><th>Turns</th><th>Failed</th>${TIME_KIND_ORDER.map((k) => `<th>${esc(TIME_LABELS[k])}</th>`).join('')}</tr></thead><tbody>${s.days
      .slice(-31)
      .map(
        (d) =>
          `<tr><th>${esc(dayText(d.day))}</th><td>${d.shipped}</td><td>${d.turns}</td><td>${d.turnsFailed}</td>${TIME_KIND_ORDER.map((k) => `<td>${esc(hoursText(d.time[k]))}</td>`).join('')}</tr>`,
      )
      .join('')}</tbody></table>`,
  ].join('\n');
}

function packetSection(r: ReviewPageGoal, offsetMinutes: number): string {
  const when = (iso: string | null | undefined) => (iso ? momentText(iso, offsetMinutes) : '');
  const code = (c: string) => `<code>${esc(c)}</code>`;
  return [
    `<p>Quota: ${r.quota.spent} of ${r.quota.turnsPerWindow} turns spent in the last ${r.quota.windowHours} h.${r.goal.check ? ` Acceptance check ${code(r.goal.check)} (set by a person; todos ship only after loopx ran it, passing).` : ''}</p>`,
    '<h3>Waiting for you</h3>',
    list(
      r.pending.map(
        (g) =>
          `<b>${esc(g.id)}</b> on ${esc(g.todoId ?? g.goalId)}, asked by ${esc(g.askedBy)} (${esc(when(g.askedAt))}): ${said(g.question)}`,
      ),
      'Nothing.',
    ),
    '<h3>Decisions</h3>',
    list(
      r.decisions.map(
        (g) =>
          `<b>${esc(g.id)}</b> ${esc(g.status)} by ${esc(g.decidedBy ?? '?')}${via(g.channel)} (${esc(when(g.decidedAt))}): ${said(g.question)}${g.note ? ` — ${said(g.note)}` : ''}`,
      ),
      'None.',
    ),
    '<h3>Shipped</h3>',
    list(
      r.shipped.map(
        ({ todo, evidence }) =>
          `<b>${esc(todo.id)}</b> ${esc(todo.title)}${todo.check ? ` (acceptance check ${code(todo.check)})` : ''}${list(
            evidence.map((e) => {
              // As in the Markdown packet: evidence recorded after the ship is said to be so.
              const after = e.afterShip ? ' (added after it shipped)' : '';
              return e.run
                ? `<b>kernel-verified:</b> ran ${code(e.run.command)}: ${esc(e.run.error ?? `exit ${e.run.exitCode}`)} in ${esc(runTook(e.run.durationMs))} (asked by ${esc(e.actor)}; output sha256 ${esc(e.run.outputSha256.slice(0, 12))}…)${after}`
                : `${esc(e.kind)} by ${esc(e.actor)} (the agent's word)${after}: ${said(e.summary)}${e.artifacts.map((a) => ` · ${code(a.path)} (${a.bytes} bytes)`).join('')}`;
            }),
            'No evidence recorded.',
          )}`,
      ),
      'Nothing yet.',
    ),
    '<h3>Blocked</h3>',
    list(
      r.blocked.map((t) => `<b>${esc(t.id)}</b> ${esc(t.title)}: ${said(t.reason ?? '')}`),
      'Nothing.',
    ),
    '<h3>Turns</h3>',
    r.turns.length
      ? `<table><thead><tr><th>Turn</th><th>Todo</th><th>Agent</th><th>Host</th><th>Started</th><th>Result</th><th>Exit</th><th>Spent</th><th>Evidence</th></tr></thead><tbody>${r.turns
          .map(
            (t) =>
              `<tr><td>${esc(t.id)}</td><td>${esc(t.todoId ?? '')}</td><td>${esc(t.agent)}</td><td>${esc(t.host)}</td><td>${esc(when(t.startedAt))}</td><td>${esc(t.resultKind ? turnOutcomeWords(t.resultKind) : 'running')}</td><td>${t.exitCode ?? ''}</td><td>${t.spent ? 'yes' : 'no'}</td><td>${esc([t.evidence.kernel ? `${t.evidence.kernel} kernel-verified` : '', t.evidence.agent ? `${t.evidence.agent} claimed` : ''].filter(Boolean).join(', ') || 'none')}</td></tr>`,
          )
          .join('')}</tbody></table>`
      : '<p class="quiet">None.</p>',
  ].join('\n');
}

/** The whole page: one section per goal, its story first, then the packet's sections. */
export function reviewPage(input: { at: string; workspace: string; goals: { review: ReviewPageGoal; story: Story }[] }): string {
  const title = `LoopX review · ${input.workspace}`;
  const goals = input.goals
    .map(
      ({ review, story }) =>
        `<section aria-labelledby="goal-${esc(review.goal.id)}"><h2 id="goal-${esc(review.goal.id)}">${esc(review.goal.id)} ${esc(review.goal.title)} <span class="quiet">(${esc(review.goal.status)})</span></h2>${review.goal.objective ? `<p>${esc(review.goal.objective)}</p>` : ''}${storySection(story)}${packetSection(review, story.offsetMinutes)}</section>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${esc(title)}</title>
<style>${PAGE_CSS}${CHART_CSS}${PAGE_DARK}</style>
</head>
<body>
<h1>${esc(title)}</h1>
<p class="quiet">Generated ${esc(dateTimeWords(input.at, input.goals[0]?.story.offsetMinutes ?? 0))} by loopx from the store's hash-chained log. Hover a chart for its numbers.</p>
${goals || '<p>No goals.</p>'}
</body>
</html>
`;
}
