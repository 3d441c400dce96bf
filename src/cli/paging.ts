import type { Args, FlagSpec } from './args';
import { InvalidInputError } from '../kernel/errors';

/** What a list of todos shows unless asked for more: enough for an agent to read, bounded at any store size. */
export const DEFAULT_LIMIT = 100;

/** --limit, --offset and --all for a list of `noun` (todos, turns). */
export function pageFlags(noun: string): Record<string, FlagSpec> {
  return {
    limit: {
      type: 'int',
      value: 'N',
      min: 1,
      max: 100_000,
      description: `at most N ${noun} (default ${DEFAULT_LIMIT}); the rest is counted as "N more"`,
    },
    offset: { type: 'int', value: 'N', min: 0, max: 10_000_000, description: 'skip the first N (the next page: --offset 100)' },
    all: { type: 'boolean', description: `every matching one of the ${noun}, without a limit` },
  };
}

export const PAGE_FLAGS = pageFlags('todos');

export interface Page {
  /** Undefined with --all. */
  limit?: number;
  offset: number;
}

export function pageOf(args: Args): Page {
  const limit = args.num('limit');
  const offset = args.num('offset') ?? 0;
  if (args.bool('all') && limit !== undefined) throw new InvalidInputError('--all and --limit contradict each other', 'pass one of them');
  return { limit: args.bool('all') ? undefined : (limit ?? DEFAULT_LIMIT), offset };
}

/** The line under a cut list: how many more, and how to see them. */
export function moreLine(more: number, page: Page, command: string): string {
  const next = `${command} --offset ${page.offset + (page.limit ?? 0)}`;
  return `… ${more} more (next page: ${next}; every one: ${command} --all)`;
}
