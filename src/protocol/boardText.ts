import type { AttentionItem, ColumnId } from './boardProtocol';
import { oneLine, relativeTime } from './display';
import { countOf } from '../shared/countWords';
import { turnOutcomeWords } from '../shared/turnOutcomeWords';

/**
 * The board's words for people, in one place: what each logged event means as a sentence, what an empty column
 * says, what each attention button does (its accessible name) and how a time reads. Codes (event kinds, ISO times)
 * stay in tooltips. Shared by the host (which builds the card detail) and the webview: no Node, no kernel.
 */

/** One event of a todo's history as a person reads it: "shipped by ada", with what was said beside it. */
export interface EventSentence {
  /** "shipped by ada", "gate Q3 approved by ada". */
  text: string;
  /** What the actor wrote with it (a reason, a note, a question, a summary); empty when nothing. */
  note: string;
}

export interface EventFacts {
  kind: string;
  actor: string;
  actorKind?: string;
  data: unknown;
}

/** Evidence kinds that are the default ("note") or implied by the event ("ship": given when shipping). */
const PLAIN_EVIDENCE = new Set(['', 'note', 'ship']);

/** Field names of goal and todo edits, as words. */
const FIELD_WORDS: Record<string, string> = {
  turnsPerWindow: 'turns per window',
  windowHours: 'window',
  maxConcurrent: 'max concurrent',
  cooldownSeconds: 'cooldown',
  dependsOn: 'dependencies',
};

const GOAL_STATUS: Record<string, string> = { paused: 'paused', done: 'marked done', stopped: 'stopped' };

/** The sentence for one event, for every kind the kernel logs (src/kernel/events/eventTypes.ts). */
export function eventSentence(e: EventFacts): EventSentence {
  const d = (e.data && typeof e.data === 'object' ? e.data : {}) as Record<string, unknown>;
  const str = (key: string): string => (typeof d[key] === 'string' ? (d[key] as string) : '');
  const by = `by ${e.actorKind === 'kernel' || e.actor === 'kernel' ? 'loopx' : e.actor}`;
  const said = (text: string, note = ''): EventSentence => ({ text, note: oneLine(note, 300) });
  switch (e.kind) {
    case 'store.initialized':
      return said(`store set up ${by}`);
    case 'goal.created':
      return said(`goal ${str('id')} created ${by}`, str('title'));
    case 'goal.status': {
      const status = str('status');
      const verb = status === 'active' ? (str('from') === 'paused' ? 'resumed' : 'reopened') : (GOAL_STATUS[status] ?? 'changed');
      return said(`goal ${verb} ${by}`);
    }
    case 'todo.added':
      return said(`added ${by}`, str('title'));
    case 'goal.edited':
      return said(
        `goal changed ${by}`,
        Object.keys(d)
          .map((k) => FIELD_WORDS[k] ?? k)
          .join(', '),
      );
    case 'todo.edited':
      return said(
        `changed ${by}`,
        Object.keys(d)
          .map((k) => FIELD_WORDS[k] ?? k)
          .join(', '),
      );
    case 'goal.file_applied':
      return said(`goal file applied ${by}`, str('path'));
    case 'todo.claimed': {
      const previous = str('previousOwner');
      const owner = str('owner') || e.actor;
      if (previous && previous !== owner) return said(`taken over from ${previous} ${by}`);
      return said(owner === e.actor ? `claimed ${by}` : `claimed for ${owner} ${by}`);
    }
    case 'todo.renewed':
      return said(`lease renewed ${by}`);
    case 'todo.released': {
      const previous = str('previousOwner');
      return said(previous && previous !== e.actor ? `${previous}'s claim released ${by}` : `released ${by}`, str('note'));
    }
    case 'todo.shipped':
      return said(`shipped ${by}`);
    case 'todo.submitted':
      return said(`sent for review (round ${String(d.round ?? '?')}) ${by}`, str('validation'));
    case 'todo.review_claimed':
      return said(`review taken ${by}`);
    case 'todo.review_released': {
      const previous = str('previousOwner');
      return said(previous && previous !== e.actor ? `${previous}'s review given back ${by}` : `review given back ${by}`, str('note'));
    }
    case 'todo.approved':
      return said(`approved ${d.byPerson === true ? 'by a person instead of a reviewer' : 'in review'} ${by}`, str('summary'));
    case 'todo.changes_requested':
      return said(`sent back with changes asked ${by}`, str('summary'));
    case 'todo.review_unable':
      return said(d.escalated === true ? `review rounds ran out; a person decides ${by}` : `could not be reviewed ${by}`, str('reason'));
    case 'todo.blocked':
      return said(`blocked ${by}`, str('reason'));
    case 'todo.unblocked':
      return said(`unblocked ${by}`, str('note'));
    case 'todo.killed': {
      const cancelled = Array.isArray(d.cancelledGates) ? (d.cancelledGates as unknown[]).map(String) : [];
      const gates = cancelled.length ? ` (gate${cancelled.length === 1 ? '' : 's'} ${cancelled.join(', ')} cancelled)` : '';
      return said(`killed ${by}${gates}`, str('reason'));
    }
    case 'evidence': {
      // A kind says what sort of evidence ("test", "review"); the everyday ones add nothing to the sentence.
      const sort = PLAIN_EVIDENCE.has(str('kind')) ? '' : `${str('kind').replace(/[_-]+/g, ' ')} `;
      return said(`${sort}evidence added ${by}`, str('summary'));
    }
    case 'gate.asked':
      return said(`gate ${str('id')} asked ${by}`, str('question'));
    case 'gate.decided':
      return said(`gate ${str('id')} ${str('status') === 'approved' ? 'approved' : 'rejected'} ${by}`, str('note'));
    case 'quota.spent':
      return said(`a turn counted against the budget ${by}`);
    case 'handoff.offered':
      return said(`handoff ${str('id')} offered to ${str('to')} ${by}`, str('summary'));
    case 'handoff.accepted':
      return said(`handoff ${str('id')} from ${str('from')} accepted ${by}`);
    case 'turn.started':
      return said(`turn ${str('id')} started for ${str('agent') || 'an agent'}${str('host') ? ` on ${str('host')}` : ''} ${by}`);
    case 'turn.configured': {
      const files = Array.isArray(d.files) ? d.files.length : 0;
      return said(
        `turn ${str('id')}'s host started with its config recorded (${files} file${files === 1 ? '' : 's'}) ${by}`,
        str('command'),
      );
    }
    case 'goal.check_set':
    case 'todo.check_set':
      return said(d.check ? `acceptance check set ${by}` : `acceptance check removed ${by}`, str('check'));
    case 'monitor.added':
      return said(
        d.command === null || d.command === undefined ? `timer ${str('id')} set ${by}` : `monitor ${str('id')} added ${by}`,
        str('command') || str('note'),
      );
    case 'monitor.approved':
      return said(
        d.pattern ? `monitor ${str('id')}'s check allowed by the goal's pattern` : `monitor ${str('id')}'s check allowed ${by}`,
        str('command'),
      );
    case 'goal.checks_allowed':
      return said(
        Array.isArray(d.patterns) && d.patterns.length
          ? `checks agents may set allowed ${by}`
          : `no checks agents set run unasked any more (${by})`,
        Array.isArray(d.patterns) ? d.patterns.join(' · ') : '',
      );
    case 'monitor.run_claimed':
      return said(`monitor ${str('id')} run ${String(d.n ?? '')} taken ${by}`);
    case 'monitor.checked':
      return said(`monitor ${str('id')} checked ${by}: ${str('error') || `exit ${String(d.exitCode)}`}`);
    case 'monitor.fired':
      return said(`monitor ${str('id')} fired (seen ${by})`, str('result'));
    case 'monitor.expired':
      return said(`monitor ${str('id')} expired (seen ${by})`, str('result'));
    case 'monitor.cancelled':
      return said(`monitor ${str('id')} cancelled ${by}`, str('result'));
    case 'runner.started':
      return said(`a runner (loopx run, ${str('host') || 'a host'}) started ${by}`);
    case 'runner.stopped':
      return said(
        `a runner (loopx run, ${str('host') || 'a host'}) stopped ${by} after ${countOf(Number(d.turns ?? 0), 'turn')}`,
        str('reason'),
      );
    case 'hook.added':
      return said(`hook ${str('id')} added ${by}`, str('command'));
    case 'hook.removed':
      return said(`hook ${str('id')} removed ${by}`);
    case 'hook.run_claimed':
      return said(`hook ${str('id')} taken for event ${String(d.seq ?? '?')} ${by}`, str('by'));
    case 'hook.ran':
      return said(`hook ${str('id')} ran for event ${String(d.seq ?? '?')} ${by}: ${str('error') || `exit ${String(d.exitCode)}`}`);
    case 'goal.worktree_set':
      return said(
        d.base ? `turns set to work on their own branches from ${str('base')} ${by}` : `turns set to work in the main folder ${by}`,
      );
    case 'goal.review_set':
      return said(d.review ? `review of its changes set ${by}` : `review of its changes turned off ${by}`);
    case 'goal.host_set':
      return said(d.host ? `turns set to run on ${str('host')} ${by}` : `turns set to run on the agent chosen at each run ${by}`);
    case 'worktree.created':
      return said(`branch ${str('branch')} made for this todo ${by}`, str('path'));
    case 'worktree.landed':
      return said(
        str('how') === 'merged'
          ? `branch ${str('branch')} merged ${by}`
          : str('how') === 'pr'
            ? `branch ${str('branch')} opened as a pull request ${by}`
            : `branch ${str('branch')} discarded ${by}`,
        str('url'),
      );
    case 'worktree.removed':
      return said(`working folder removed ${by}`, str('path'));
    case 'team.pushed':
      return said(`this store moved into the team store ${by}`, teamWhere(d, `, ${String(d.events ?? '?')} events`));
    case 'team.joined':
      return said(`a workspace joined the team store ${by}`, teamWhere(d));
    case 'team.left':
      return said(`a workspace moved out of the team store ${by}`, teamWhere(d));
    case 'price.set':
      return said(
        `price of ${str('model')} set ${by}`,
        `$${String(d.input ?? '?')} in, $${String(d.cachedInput ?? '?')} cached, $${String(d.output ?? '?')} out per million tokens`,
      );
    case 'price.removed':
      return said(`price of ${str('model')} removed ${by}`);
    case 'log.accepted':
      return said(`the event log was accepted as it is ${by}, from event ${String(d.firstBadSeq ?? '?')} on`, str('problem'));
    case 'log.set_aside_handled':
      return said(`event ${String(d.seq ?? '?')}, which loopx set aside, was marked handled ${by}`, str('decision'));
    case 'turn.finished': {
      const result = turnOutcomeWords(str('resultKind'));
      return said(`turn ${str('id')} ${result}${d.spent === true ? ' (counted against the budget)' : ''}`);
    }
    default:
      // A kind newer than this build: still a sentence; the code is in the tooltip.
      return said(`recorded ${by}`);
  }
}

/** Where a team move happened, for the note: "db.example:5432/loopx from ada-laptop" (host names have dots: not in the text). */
function teamWhere(d: Record<string, unknown>, tail = ''): string {
  const database = typeof d.database === 'string' ? d.database : 'a team store';
  return `${database} from ${typeof d.host === 'string' ? d.host : 'a machine'}${tail}`;
}

/** What an empty column says: what belongs there, or how to put something there. */
export function emptyColumnText(column: ColumnId, filtered: boolean): string {
  if (filtered) return 'No cards match the filter';
  switch (column) {
    case 'ready':
      return 'Nothing ready to start';
    case 'waiting':
      return 'Nothing waiting';
    case 'claimed':
      return 'Drop a card here to claim it';
    case 'in_review':
      return 'No change waits for review';
    case 'blocked':
      return 'Nothing blocked';
    case 'shipped':
      return 'Nothing shipped yet';
    case 'killed':
      return 'Nothing killed';
  }
}

export type AttentionAction =
  | 'approve'
  | 'reject'
  | 'unblock'
  | 'release'
  | 'reassign'
  | 'cancelMonitor'
  | 'approveMonitor'
  | 'resume'
  | 'markDone'
  | 'showChanges'
  | 'mergeBranch'
  | 'open';

/**
 * The accessible name of an attention-strip button: the verb, what it acts on and enough of it to tell two apart
 * ("Approve gate Q3: Delete the legacy importer?").
 */
export function attentionActionLabel(action: AttentionAction, item: AttentionItem): string {
  switch (item.kind) {
    case 'gate': {
      const what = `gate ${item.gateId}${item.todoId ? ` on ${item.todoId}` : ` on goal ${item.goalId}`}: ${oneLine(item.question, 120)}`;
      return action === 'reject' ? `Reject ${what}` : action === 'open' ? `Open ${item.todoId ?? item.goalId}` : `Approve ${what}`;
    }
    case 'blocked':
      return action === 'unblock'
        ? `Unblock ${item.todoId}: ${oneLine(item.title, 120)}`
        : `Open ${item.todoId}: ${oneLine(item.title, 120)}`;
    case 'lapsed':
      if (action === 'release') return `Release ${item.todoId} (${item.owner}'s lease lapsed): ${oneLine(item.title, 120)}`;
      if (action === 'reassign')
        return `Reassign ${item.todoId} to another agent (${item.owner}'s lease lapsed): ${oneLine(item.title, 120)}`;
      return `Open ${item.todoId}: ${oneLine(item.title, 120)}`;
    case 'budget':
      return `Open ${item.goalId}`;
    case 'checkApproval':
      return action === 'approveMonitor'
        ? `Allow the check ${item.addedBy} set for ${item.todoId} (monitor ${item.monitorId}): ${oneLine(item.check, 120)}`
        : `Open ${item.todoId}: ${oneLine(item.title, 120)}`;
    case 'paused':
      return action === 'resume' ? `Start goal ${item.goalId}: ${oneLine(item.title, 120)}` : `Open ${item.goalId}`;
    case 'finished':
      return action === 'markDone' ? `Mark goal ${item.goalId} done: ${oneLine(item.title, 120)}` : `Open ${item.goalId}`;
    case 'monitor':
      return action === 'cancelMonitor'
        ? `Cancel monitor ${item.monitorId} on ${item.todoId}, whose check cannot run: ${oneLine(item.check, 120)}`
        : `Open ${item.todoId}: ${oneLine(item.title, 120)}`;
    case 'failing':
      return `Open ${item.todoId}, which keeps failing: ${oneLine(item.title, 120)}`;
    case 'land':
      if (action === 'mergeBranch') return `Merge ${item.branch} into ${item.base} (${item.todoId}): ${oneLine(item.title, 120)}`;
      if (action === 'showChanges') return `Show the changes of ${item.branch} (${item.todoId}): ${oneLine(item.title, 120)}`;
      return `Open ${item.todoId}: ${oneLine(item.title, 120)}`;
  }
}

/** The board's one time format: relative ("3h ago", "in 12m") in text; the exact time goes in the tooltip. */
export function boardTime(isoTime: string, nowMs: number): string {
  return relativeTime(isoTime, nowMs);
}

let localFormat: Intl.DateTimeFormat | undefined;

/** The tooltip for a time on the board: the viewer's local date and time, then the exact ISO time. */
export function boardTimeTitle(isoTime: string): string {
  const d = new Date(isoTime);
  if (Number.isNaN(d.getTime())) return isoTime;
  // One formatter for the board: toLocaleString() builds a new one per call, which a 2,000-card render feels.
  localFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  return `${localFormat.format(d)} (${isoTime})`;
}
