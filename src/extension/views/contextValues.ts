import type { Todo } from '../../kernel/model';

/**
 * Namespaced contextValues that package.json menus match with `viewItem` when clauses.
 * Keep in sync with contributes.menus; the manifest test checks every value used there exists here.
 */
export const CONTEXT = {
  goal: (status: string) => `loopx:goal:${status}`,
  group: 'loopx:group',
  more: 'loopx:more',
  todo: (todo: Todo, me: string) => `loopx:todo:${todo.status}${todo.owner === me ? ':mine' : ''}`,
  gate: (status: string) => `loopx:gate:${status}`,
  evidence: 'loopx:evidence',
  artifact: 'loopx:artifact',
  agent: 'loopx:agent',
  message: 'loopx:message',
  /** A waiting monitor whose check an agent set and a person has not allowed yet ends in `:approval`. */
  monitor: (status: string, pending = false) => `loopx:monitor:${status}${pending ? ':approval' : ''}`,
} as const;

export const ALL_CONTEXT_VALUES = [
  ...['active', 'paused', 'done', 'stopped'].map(CONTEXT.goal),
  CONTEXT.group,
  CONTEXT.more,
  ...['open', 'claimed', 'blocked', 'shipped', 'killed'].flatMap((s) => [`loopx:todo:${s}`, `loopx:todo:${s}:mine`]),
  ...['pending', 'approved', 'rejected', 'cancelled'].map(CONTEXT.gate),
  CONTEXT.evidence,
  CONTEXT.artifact,
  CONTEXT.agent,
  CONTEXT.message,
  ...['waiting', 'fired', 'expired', 'cancelled'].map((s) => CONTEXT.monitor(s)),
  CONTEXT.monitor('waiting', true),
];
