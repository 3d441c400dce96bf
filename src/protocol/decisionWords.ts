import { clockTime } from './display';

/** A decision in a person's name as the kernel reports it (src/kernel/decisions.ts), as far as words need it. */
export interface DecisionFacts {
  seq: number;
  at: string;
  kind: string;
  actor: string;
  channel: string | null;
}

/** What each kind of person's decision is, in words a person reads (the kinds themselves are codes). */
const DECISION_WORDS: Record<string, string> = {
  'gate.decided': 'a gate decided',
  'todo.unblocked': 'a todo unblocked',
  'goal.check_set': "a goal's acceptance check set",
  'todo.check_set': "a todo's acceptance check set",
  'goal.checks_allowed': 'checks allowed for agents to set',
  'monitor.approved': "an agent's monitor check allowed to run",
  'monitor.added': 'a monitor check added',
  'log.accepted': 'the event log accepted as it is',
  'hook.added': 'a hook added',
  'hook.removed': 'a hook removed',
  'goal.worktree_set': "a goal's worktree set",
  'goal.host_set': "a goal's agent chosen",
  'worktree.landed': "a todo's branch landed",
  'goal.created': 'a goal created',
  'goal.status': "a goal's status changed",
};

const CHANNEL_WORDS: Record<string, string> = { vscode: 'in VS Code', tty: 'at a terminal' };

/** One decision as a person reads it: "an agent's monitor check allowed to run, by ada in VS Code at 10:42 (event 41)". */
export function decisionSentence(d: DecisionFacts, nowMs = Date.now()): string {
  const what = DECISION_WORDS[d.kind] ?? `a change (${d.kind})`;
  const how = d.channel ? ` ${CHANNEL_WORDS[d.channel] ?? `through ${d.channel}`}` : '';
  return `${what}, by ${d.actor}${how} at ${clockTime(d.at, nowMs)} (event ${d.seq})`;
}
