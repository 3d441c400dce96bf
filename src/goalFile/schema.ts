import * as z from 'zod/mini';
import { lazy } from '../kernel/lazy';

/** Front-matter keys, in the order export writes them; completion offers them. */
export const GOAL_KEYS = ['goal', 'title', 'objective', 'scope', 'quota', 'check', 'todos'] as const;
export const QUOTA_KEYS = ['turns', 'window', 'maxConcurrent', 'cooldown'] as const;
export const TODO_KEYS = ['key', 'id', 'title', 'detail', 'priority', 'after', 'every', 'cron', 'check'] as const;
/** Fields of the contract this store does not run yet (monitors and acceptance checks land separately). */
export const NOT_YET_SUPPORTED = new Set(['every', 'cron', 'check']);

export const KEY_DOCS: Record<string, string> = {
  goal: 'The store id of the goal this file describes (written by export). Without it, the goal is the one this file was applied to, or a new one.',
  title: 'Short title, one line.',
  objective: 'What done looks like; agents read it every turn.',
  scope: 'Workspace-relative paths or globs the work may touch.',
  quota: 'Turn budget: `turns` per `window` (e.g. 24h), `maxConcurrent`, `cooldown` (e.g. 10m).',
  check: 'Acceptance check (not supported by this store yet).',
  todos: 'The work, each with a stable `key`.',
  turns: 'Turns allowed per window.',
  window: 'Length of the quota window, e.g. 24h.',
  maxConcurrent: 'Turns that may run at once.',
  cooldown: 'Pause after each spent turn, e.g. 10m.',
  key: 'Stable slug (a-z, 0-9, -) the file names this todo by; keep it when you rename the title.',
  id: 'The store id of this todo (written by export).',
  detail: 'What done means for this todo (acceptance).',
  priority: '0 (highest) to 3; default 2.',
  after: 'Keys of todos (or store ids like T12) that must ship first.',
  every: 'Recurring interval (not supported by this store yet).',
  cron: 'Recurring schedule (not supported by this store yet).',
};

const text = () => z.string();
const duration = () => z.union([z.string(), z.number()]);

/** The front matter's shape. Unknown keys are errors (with did-you-mean); semantic checks come after (lint.ts). */
export const frontMatterSchema = lazy(() =>
  z.strictObject({
    goal: z.optional(z.string().check(z.regex(/^G[1-9][0-9]{0,9}$/))),
    title: text(),
    objective: z.optional(text()),
    scope: z.optional(z.union([z.string(), z.array(z.string())])),
    quota: z.optional(
      z.strictObject({
        turns: z.optional(z.int().check(z.minimum(0), z.maximum(100_000))),
        window: z.optional(duration()),
        maxConcurrent: z.optional(z.int().check(z.minimum(1), z.maximum(1000))),
        cooldown: z.optional(duration()),
      }),
    ),
    check: z.optional(z.unknown()),
    todos: z.optional(
      z.array(
        z.strictObject({
          key: z.string().check(z.regex(/^[a-z0-9][a-z0-9-]{0,63}$/)),
          id: z.optional(z.string().check(z.regex(/^T[1-9][0-9]{0,9}$/))),
          title: text(),
          detail: z.optional(text()),
          priority: z.optional(z.int().check(z.minimum(0), z.maximum(3))),
          after: z.optional(z.array(z.string())),
          every: z.optional(z.unknown()),
          cron: z.optional(z.unknown()),
          check: z.optional(z.unknown()),
        }),
      ),
    ),
  }),
);
export type FrontMatter = z.infer<ReturnType<typeof frontMatterSchema>>;
