import * as z from 'zod/mini';
import { lazy } from '../kernel/lazy';

/** Front-matter keys, in the order export writes them; completion offers them. */
export const GOAL_KEYS = [
  'goal',
  'title',
  'objective',
  'scope',
  'quota',
  'check',
  'allowedChecks',
  'worktree',
  'worktreeSetup',
  'review',
  'todos',
] as const;
export const REVIEW_KEYS = ['reviewerHost', 'reviewerAgent', 'otherHost', 'maxRounds', 'blocking'] as const;
export const QUOTA_KEYS = ['turns', 'window', 'maxConcurrent', 'cooldown', 'tokens', 'dollars'] as const;
export const TODO_KEYS = ['key', 'id', 'title', 'detail', 'priority', 'after', 'every', 'at', 'cron', 'tz', 'check', 'review'] as const;

export const KEY_DOCS: Record<string, string> = {
  goal: 'The store id of the goal this file describes (written by export). Without it, the goal is the one this file was applied to, or a new one.',
  title: 'Short title, one line.',
  objective: 'What done looks like; agents read it every turn.',
  scope: 'Workspace-relative paths or globs the work may touch.',
  quota:
    'Budget per `window` (e.g. 24h): `turns`, and optional caps on what the turns use, `tokens` and `dollars`; `maxConcurrent`, `cooldown` (e.g. 10m). A key left out is not managed by the file.',
  check:
    'Acceptance check: a shell command run from the workspace root; a todo ships only after loopx ran it, passing. A person sets it (VS Code, or a terminal that confirms); `null` clears it; left out, the file leaves it as the store has it.',
  allowedChecks:
    'Patterns of monitor checks agents may set for this goal that run without asking a person, e.g. "gh run view *" (`*` never matches ; & | < > $ ` \\ ( ) { } or a new line). A person sets them (VS Code, or a terminal that confirms); left out, the file leaves them as the store has them.',
  todos: 'The work, each with a stable `key`.',
  turns: 'Turns allowed per window.',
  worktree:
    "Each todo's turns work in their own git worktree, on a branch `loopx/<todo>-<title>` made from this base (a branch, e.g. main). `null` (or empty) turns worktrees off; left out, the file leaves the setting as the store has it. Changing it for an existing goal is a person's decision (VS Code, or a terminal that confirms).",
  worktreeSetup:
    'A shell command run in each new worktree before its agent starts, e.g. `npm ci` (a fresh worktree has no installed dependencies); 10 minutes at most, output kept in .loopx/worktree-setup/. A person sets it; `null` removes it; left out, the file leaves it as the store has it.',
  review:
    "Another agent reviews each change the goal's agents ship before it is done: `reviewerHost` (e.g. codex), `reviewerAgent`, `otherHost`, `maxRounds` (1–10, default 3), `blocking` (default [P0, P1, P2]); `{}` for any agent but the implementer, `null` for no review; left out, the file leaves it as the store has it. An agent's file may ask for it on a new goal; changing it for an existing goal is a person's decision. On a todo, `review: true` has its change reviewed whatever the goal says (asked for when the todo is added).",
  reviewerHost: 'Agents on this host review (e.g. codex); left out: any host.',
  reviewerAgent: 'Only this agent reviews.',
  otherHost: "The reviewer runs on another host than the implementer's (on with reviewerHost).",
  maxRounds: 'Rounds of changes asked before a person decides (1–10, default 3).',
  blocking: 'Severities a finding blocks approval at (default [P0, P1, P2]).',
  window: 'Length of the quota window, e.g. 24h.',
  maxConcurrent: 'Turns that may run at once.',
  cooldown: 'Pause after each spent turn, e.g. 10m.',
  tokens:
    'Cap on the tokens (in and out) the turns of a window use, a whole number, e.g. 2000000; should-run stops a turn that would likely pass it. `null` removes the cap; left out, the file leaves the cap as the store has it.',
  dollars:
    'Cap on what the turns of a window cost, in US dollars, e.g. 10 or 2.50; should-run stops a turn that would likely pass it. `null` removes the cap; left out, the file leaves the cap as the store has it.',
  key: 'Stable slug (a-z, 0-9, -) the file names this todo by; keep it when you rename the title.',
  id: 'The store id of this todo (written by export).',
  detail: 'What done means for this todo (acceptance).',
  priority: '0 (highest) to 3; default 2.',
  after: 'Keys of todos (or store ids like T12) that must ship first.',
  every: 'Recurring: when one occurrence ships or is killed, the next is due this long after it (1m to 366d), e.g. 1d.',
  at: 'With `every` of whole days: the time of day each occurrence is due, HH:MM.',
  cron: 'Recurring on a cron schedule instead of `every`: 5 fields ("0 9 * * 1-5") or @daily, @weekly…',
  tz: 'Time zone for `at` and `cron` (IANA, e.g. Europe/Berlin); default: the time zone of the machine that applies it.',
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
        // Their ranges are the kernel's (checkQuota), reported by lint.ts in its words.
        turns: z.optional(z.int()),
        window: z.optional(duration()),
        maxConcurrent: z.optional(z.int()),
        cooldown: z.optional(duration()),
        // Usage caps: a number sets one, null removes it (ranges: usageCaps, reported by lint.ts).
        tokens: z.optional(z.nullable(z.int())),
        dollars: z.optional(z.nullable(z.number())),
      }),
    ),
    check: z.optional(z.nullable(text())),
    allowedChecks: z.optional(z.array(text())),
    // A branch or null/empty (off); a shell command or null (none). Both a person's (plan.ts), checked by lint.ts.
    worktree: z.optional(z.nullable(text())),
    worktreeSetup: z.optional(z.nullable(text())),
    // Who reviews (goals/goalReview.ts); null: no review. Ranges are the kernel's (lint.ts reports them).
    review: z.optional(
      z.nullable(
        z.strictObject({
          reviewerHost: z.optional(z.nullable(text())),
          reviewerAgent: z.optional(z.nullable(text())),
          otherHost: z.optional(z.boolean()),
          maxRounds: z.optional(z.int()),
          blocking: z.optional(z.array(text())),
          autoLand: z.optional(z.boolean()),
        }),
      ),
    ),
    todos: z.optional(
      z.array(
        z.strictObject({
          key: z.string().check(z.regex(/^[a-z0-9][a-z0-9-]{0,63}$/)),
          id: z.optional(z.string().check(z.regex(/^T[1-9][0-9]{0,9}$/))),
          title: text(),
          detail: z.optional(text()),
          priority: z.optional(z.int().check(z.minimum(0), z.maximum(3))),
          after: z.optional(z.array(z.string())),
          every: z.optional(duration()),
          at: z.optional(text()),
          cron: z.optional(text()),
          tz: z.optional(text()),
          check: z.optional(z.nullable(text())),
          review: z.optional(z.boolean()),
        }),
      ),
    ),
  }),
);
export type FrontMatter = z.infer<ReturnType<typeof frontMatterSchema>>;

type TodoEntry = NonNullable<FrontMatter['todos']>[number];

/**
 * The front matter with the parts that failed a check left out (a todo that is not a mapping, a value of the wrong
 * type, an entry a YAML error damaged): what the checks past the shape (lint.ts) still read, so that a file with an
 * unknown key is checked for everything else too. A todo left out whole stays as a hole, to keep the others' places.
 */
export type LooseFrontMatter = Partial<Omit<FrontMatter, 'quota' | 'todos'>> & {
  quota?: NonNullable<FrontMatter['quota']>;
  todos?: (Partial<TodoEntry> | undefined)[];
};
