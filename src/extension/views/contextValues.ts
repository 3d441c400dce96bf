import type { Todo } from '../../kernel/model';
import type { CardChange } from '../../protocol/boardProtocol';
import { hasChanges, landingsFor } from '../../protocol/changeWords';
import { PROJECT_STATES } from '../../kernel/readModels/projectSummary';

/** What a todo's branch offers, as contextValue suffixes the branch menus match (changeWords.ts decides which). */
const LANDING_SUFFIX = { mergeBranch: ':merge', openPullRequest: ':pr', discardBranch: ':discard' } as const;
function branchSuffix(todo: Todo, change: CardChange | undefined): string {
  if (!change) return '';
  const landings = landingsFor({ status: todo.status, change });
  return (hasChanges(change) ? ':changes' : '') + landings.map((l) => LANDING_SUFFIX[l]).join('');
}

/**
 * Namespaced contextValues that package.json menus match with `viewItem` when clauses.
 * Keep in sync with contributes.menus; the manifest test checks every value used there exists here.
 */
export const CONTEXT = {
  goal: (status: string) => `loopx:goal:${status}`,
  group: 'loopx:group',
  more: 'loopx:more',
  todo: (todo: Todo, me: string, change?: CardChange) =>
    `loopx:todo:${todo.status}${todo.owner === me ? ':mine' : ''}${branchSuffix(todo, change)}`,
  gate: (status: string) => `loopx:gate:${status}`,
  evidence: 'loopx:evidence',
  artifact: 'loopx:artifact',
  agent: 'loopx:agent',
  message: 'loopx:message',
  /** A waiting monitor whose check an agent set and a person has not allowed yet ends in `:approval`. */
  monitor: (status: string, pending = false) => `loopx:monitor:${status}${pending ? ':approval' : ''}`,
  /** One of the person's projects in the Projects view, by what its folder and store are (ok, missing, …). */
  project: (state: string) => `loopx:project:${state}`,
} as const;

export const ALL_CONTEXT_VALUES = [
  ...['active', 'paused', 'done', 'stopped'].map(CONTEXT.goal),
  CONTEXT.group,
  CONTEXT.more,
  ...['open', 'claimed', 'blocked', 'shipped', 'killed'].flatMap((s) => [`loopx:todo:${s}`, `loopx:todo:${s}:mine`]),
  // A todo with a branch: its changes to show, and the landings a person may choose.
  ...['open', 'blocked', 'shipped', 'killed'].flatMap((s) => [
    `loopx:todo:${s}:changes:merge:pr:discard`,
    `loopx:todo:${s}:changes:merge:discard`,
    `loopx:todo:${s}:merge:pr:discard`,
  ]),
  'loopx:todo:claimed:changes',
  // A change in review: the person's verdict buttons (and its branch's diff, which is not landed while in review).
  'loopx:todo:in_review',
  'loopx:todo:in_review:changes',
  ...['pending', 'approved', 'rejected', 'cancelled'].map(CONTEXT.gate),
  CONTEXT.evidence,
  CONTEXT.artifact,
  CONTEXT.agent,
  CONTEXT.message,
  ...['waiting', 'fired', 'expired', 'cancelled'].map((s) => CONTEXT.monitor(s)),
  CONTEXT.monitor('waiting', true),
  ...PROJECT_STATES.map(CONTEXT.project),
];
