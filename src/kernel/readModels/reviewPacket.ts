import type { WorktreeRow } from '../worktrees/worktreeRows';
import type { SqliteDb } from '../db/sqliteDb';
import type { KernelRun } from '../evidence/evidenceQueries';
import { revealHidden } from '../../shared/hiddenChars';
import { budgetWords, dollars, usageWords } from '../../shared/usageWords';
import { type GoalReview, reviewFacts } from './reviewFacts';
import type { RoleTotals } from './roleFigures';
import type { ReviewPolicy } from '../model';
import { VERDICT_WORDS, reviewerWords } from '../../shared/reviewWords';
import { dateTimeWords, runTook } from '../../shared/timeWords';
import { quoteCodeSpans } from '../../shared/codeSpans';
import { turnOutcomeWords } from '../../shared/turnOutcomeWords';

/**
 * Markdown-safe single line (the packet is read in a Markdown preview and pasted elsewhere); deceptive characters
 * shown as <U+…>, code spans in quotes (escaped, a backtick would show as one).
 */
function md(text: string | null | undefined): string {
  return quoteCodeSpans(revealHidden(text ?? ''))
    .replace(/\s+/g, ' ')
    .replace(/([\\`*_[\]<>|#])/g, '\\$1')
    .trim();
}

function via(channel: string | null): string {
  return channel === 'vscode' ? ' in VS Code' : channel === 'tty' ? ' in a terminal' : ' (no channel recorded)';
}

/** A command as an inline code span (a backtick inside would end it early). */
function code(text: string): string {
  return `\`${text.replace(/\s+/g, ' ').replace(/`/g, "'")}\``;
}

/** Evidence the kernel produced by running a command: what ran and how it ended, not what anyone says. */
function kernelLine(run: KernelRun, actor: string): string {
  const took = runTook(run.durationMs);
  const outcome = run.error ? md(run.error) : `exit ${run.exitCode}`;
  return `**kernel-verified:** ran ${code(run.command)}: ${outcome} in ${took} (${run.check ? 'acceptance check, ' : ''}asked by ${md(actor)}; output sha256 ${run.outputSha256.slice(0, 12)}…)`;
}

/**
 * The owner's review packet: decisions (gates and who decided), what shipped with its evidence and artifacts,
 * what is blocked and why, unresolved gates, quota spent, and the turns with their results.
 */
export function renderReviewPacket(
  db: SqliteDb,
  nowMs: number,
  goalId?: string,
  offsetMinutes = -new Date(nowMs).getTimezoneOffset(),
): string {
  const facts = reviewFacts(db, nowMs, goalId);
  // Moments in the reader's time, with their date: the packet is read later, and elsewhere.
  const when = (iso: string | null | undefined) => (iso ? dateTimeWords(iso, offsetMinutes) : '?');
  const out: string[] = [`# loopx review packet`, '', `Generated ${when(facts.at)}${goalId ? ` for goal ${goalId}` : ''}.`, ''];
  for (const { goal, quota: q, decisions, pending, shipped, blocked, turns, reviews, byRole } of facts.goals) {
    out.push(`## ${goal.id} ${md(goal.title)} (${goal.status})`, '');
    if (goal.objective) out.push(`Objective: ${md(goal.objective)}`, '');
    if (goal.check) out.push(`Acceptance check: ${code(goal.check)} (set by a human; todos ship only after loopx ran it, passing)`, '');
    out.push(`Quota: ${q.spent} of ${q.turnsPerWindow} turns spent in the last ${q.windowHours} h; used ${budgetWords(q.usage)}.`, '');
    out.push(
      '### Decisions',
      '',
      ...(decisions.length
        ? decisions.map(
            (g) =>
              `- ${g.id} ${g.status} by ${md(g.decidedBy)}${via(g.channel)} (${when(g.decidedAt)}): ${md(g.question)}${g.note ? ` — ${md(g.note)}` : ''}`,
          )
        : ['None.']),
      '',
    );
    out.push(
      '### Waiting for you',
      '',
      ...(pending.length
        ? pending.map((g) => `- ${g.id} on ${g.todoId ?? g.goalId}, asked by ${md(g.askedBy)} (${when(g.askedAt)}): ${md(g.question)}`)
        : ['Nothing.']),
      '',
    );
    out.push('### Shipped', '');
    if (!shipped.length) out.push('Nothing yet.');
    for (const { todo, evidence, worktree } of shipped) {
      out.push(`- **${todo.id}** ${md(todo.title)}${todo.check ? ` (acceptance check ${code(todo.check)})` : ''}`);
      if (worktree) out.push(`  - ${branchLine(worktree)}`);
      for (const e of evidence) {
        const after = e.afterShip ? ' (added after it shipped)' : '';
        out.push(
          e.run
            ? `  - ${kernelLine(e.run, e.actor)}${after}`
            : `  - ${md(e.kind)} by ${md(e.actor)} (the agent's word)${after}: ${md(e.summary)}`,
        );
        for (const a of e.artifacts) out.push(`    - \`${a.path.replace(/`/g, "'")}\` sha256 ${a.sha256.slice(0, 16)}… (${a.bytes} bytes)`);
      }
    }
    out.push('');
    if (goal.review || reviews.length) out.push(...peerReviewLines(goal.review, reviews, byRole, when));
    out.push('### Blocked', '', ...(blocked.length ? blocked.map((t) => `- ${t.id} ${md(t.title)}: ${md(t.reason)}`) : ['Nothing.']), '');
    out.push('### Turns', '');
    if (!turns.length) out.push('None.');
    else {
      out.push(
        '| turn | todo | role | agent | host | started | result | exit | spent | used | evidence |',
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      );
      for (const t of turns) {
        const evidence =
          [t.evidence.kernel ? `${t.evidence.kernel} kernel-verified` : '', t.evidence.agent ? `${t.evidence.agent} claimed` : '']
            .filter(Boolean)
            .join(', ') || 'none';
        out.push(
          `| ${t.id} | ${t.todoId ?? ''} | ${t.role} | ${md(t.agent)} | ${t.host} | ${when(t.startedAt)} | ${t.resultKind ? turnOutcomeWords(t.resultKind) : 'running'} | ${t.exitCode ?? ''} | ${t.spent ? 'yes' : 'no'} | ${t.usage ? usageWords(t.usage) : 'unknown'} | ${evidence} |`,
        );
      }
      // Quota is spent only on validated turns; money is spent on every turn: say what the others cost.
      const wasted = turns.filter((t) => t.endedAt && !t.spent && t.usage?.costUsd);
      if (wasted.length) {
        const cost = wasted.reduce((n, t) => n + (t.usage?.costUsd ?? 0), 0);
        out.push('', `Turns that spent no quota still cost money: ${wasted.length} of them, ${dollars(cost)} in all.`);
      }
    }
    out.push('');
  }
  if (!facts.goals.length) out.push('No goals.', '');
  return out.join('\n');
}

/** The peer review section: who reviews, each reviewed todo's rounds, and what the two roles took (time, money). */
function peerReviewLines(
  policy: ReviewPolicy | null,
  reviews: GoalReview['reviews'],
  byRole: GoalReview['byRole'],
  when: (iso: string | null) => string,
): string[] {
  const out = ['### Peer review', ''];
  out.push(
    policy
      ? `${reviewerWords(policy)} reviews each change; ${policy.maxRounds} round(s) before a person decides.${policy.autoLand ? ' An approved change whose acceptance check passed lands on its own (a person set it).' : ''}`
      : 'Review is off now.',
    '',
  );
  const role = (r: RoleTotals) => `${r.turns} turn(s), ${Math.round(r.seconds / 60)} min, ${dollars(r.costUsd)}`;
  out.push(`Implementing: ${role(byRole.implement)}. Reviewing: ${role(byRole.review)}.`, '');
  for (const { todoId, title, rounds } of reviews) {
    out.push(`- **${todoId}** ${md(title)}`);
    for (const r of rounds) {
      const verdict = r.verdict
        ? `${r.byPerson ? 'a person' : md(r.reviewer ?? '?')} ${VERDICT_WORDS[r.verdict]} (${when(r.decidedAt)})${r.summary ? `: ${md(r.summary)}` : ''}`
        : 'no verdict yet';
      out.push(`  - round ${r.round}: ${md(r.implementer)} sent it ${when(r.submittedAt)}; ${verdict}`);
      for (const f of r.findings)
        out.push(`    - ${f.severity} ${md(f.title)}${f.file ? ` (${md(f.file)}${f.line ? `:${f.line}` : ''})` : ''}`);
    }
  }
  out.push('');
  return out;
}

/** Where a shipped todo's change is: its branch, and whether a person landed it (see `loopx todo show` for its diff). */
function branchLine(w: WorktreeRow): string {
  const branch = code(w.branch);
  if (w.status === 'merged')
    return `branch ${branch} merged into ${code(w.base)} by ${md(w.landedBy ?? '?')} (now ${code((w.landedCommit ?? '').slice(0, 12))})`;
  if (w.status === 'pr') return `branch ${branch} opened as a pull request: ${md(w.prUrl ?? '')}`;
  if (w.status === 'discarded')
    return `branch ${branch} discarded by ${md(w.landedBy ?? '?')} (its last commit ${code((w.landedCommit ?? '').slice(0, 12))})`;
  return `branch ${branch} from ${code(w.base)} waits for you to land it: loopx todo show ${w.todoId} has its commits and diff`;
}
