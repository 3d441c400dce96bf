/**
 * Starter goals a person picks instead of writing a plan from nothing (`loopx preset list | show | apply`, New Goal in
 * VS Code; issue 44). Each is a goal file loopx writes into the repository, for review, and applies as any goal file:
 * the goal starts paused until a person resumes it. Safe by construction: the work is read-only or a draft, anything
 * outward-facing (a comment, a push, a release) waits on a gate a person answers, every goal has a turn, token and
 * dollar budget, and the checks it needs run only where a pattern allows them (`allowedChecks`).
 */
export interface Preset {
  /** The name `loopx preset apply` takes, and the goal file's name (loopx/<name>.goal.md). */
  name: string;
  title: string;
  /** One sentence for a picker and `preset list`. */
  summary: string;
  /** Programs its work needs on the machine that runs the turns and checks (each said when missing). */
  needs: readonly NeededTool[];
  /** The goal file's text. */
  text: string;
}

export interface NeededTool {
  /** The program, found on PATH. */
  program: string;
  /** Arguments that exit 0 when it is ready to use (signed in), or undefined when being installed is enough. */
  ready?: readonly string[];
  /** What it is for and where to get it, for the sentence said when it is missing. */
  why: string;
}

const GH: NeededTool = {
  program: 'gh',
  ready: ['auth', 'status'],
  why: "GitHub's CLI reads issues, pull requests and checks (https://cli.github.com; then gh auth login)",
};

const GATE_RULE =
  'Anything another person would see (a comment, a label, a push, a release) waits for a person: ask with loopx gate ask, and do it only after the gate is approved.';

export const PRESETS: readonly Preset[] = [
  {
    name: 'daily-triage',
    title: 'Daily triage of new issues',
    summary:
      'Every morning, a suggested label, priority and next step for each issue opened since the last triage: read-only, recorded as evidence for you.',
    needs: [GH],
    text: `---
title: Daily triage of new issues
objective: Every issue opened since the last triage has a suggested label, priority and next step, recorded for a person
quota:
  turns: 2          # per window: the morning's triage, and one retry
  window: 24h
  maxConcurrent: 1
  tokens: 400000    # a cap on a day's tokens in and out
  dollars: 2        # and on what they cost
allowedChecks:      # checks agents may set that loopx runs without asking you
  - gh issue list *
  - gh issue view *
todos:
  - key: triage
    title: Triage the issues opened since the last triage
    detail: "Read the issues opened since the previous occurrence of this todo (gh issue list, gh issue view). For each, add one evidence entry: suggested labels, a priority P0 to P3 and a one-line next step. Read-only: never comment, label, assign or close. ${GATE_RULE}"
    every: 1d
    at: "09:00"
---

Triage that reads and suggests; a person decides. Change the time above, or the labels you use, before you resume the
goal.
`,
  },
  {
    name: 'changelog-draft',
    title: 'Changelog draft since the last tag',
    summary:
      'A draft of the next release notes from the commits since the last tag, written to a file for you to edit: nothing is tagged or published.',
    needs: [],
    text: `---
title: Changelog draft since the last tag
objective: CHANGELOG.draft.md says, for people, what changed since the last tag
quota:
  turns: 3
  window: 24h
  maxConcurrent: 1
  tokens: 300000
  dollars: 1.5
todos:
  - key: draft
    title: Draft the release notes since the last tag
    detail: "Read the commits since the last tag (git describe --tags --abbrev=0, then git log from it) and write CHANGELOG.draft.md: one line per change a user would notice, grouped as Added, Changed, Fixed. Only that file: never edit CHANGELOG.md, tag, push or publish. Record the draft's path as evidence. ${GATE_RULE}"
---

A draft, not a release: you edit CHANGELOG.draft.md and move what you keep into CHANGELOG.md yourself.
`,
  },
  {
    name: 'pr-watch',
    title: "Watch a pull request's checks and review",
    summary:
      "Waits on a pull request's checks and reviews (gh, run by loopx) and says what failed or what reviewers asked: no pushes, no comments without a gate.",
    needs: [GH],
    text: `---
title: Watch a pull request's checks and review
objective: A person knows as soon as the pull request's checks fail or a reviewer asks for changes, and why
quota:
  turns: 6
  window: 24h
  maxConcurrent: 1
  tokens: 300000
  dollars: 2
allowedChecks:
  - gh pr checks *
  - gh pr view *
todos:
  - key: watch
    title: Watch the pull request named in the goal's background
    detail: "Wait on it without polling: loopx monitor add --todo with --check 'gh pr checks NUMBER' (until exit0 or a change) and another on 'gh pr view NUMBER --json reviewDecision,reviews'. When a check fails or changes are requested, record evidence: which check, the failing step's first error, or what the reviewer asked. Never push or comment. ${GATE_RULE}"
---

The pull request to watch: write its number here (for example "#123") before you resume the goal.
`,
  },
  {
    name: 'keep-tests-green',
    title: 'Keep the tests green, nightly',
    summary:
      'Each night, runs the tests and, when one fails, proposes a fix on a branch of its own for you to review: nothing is merged or pushed without you.',
    needs: [],
    text: `---
title: Keep the tests green, nightly
objective: The test suite passes on the default branch every morning, or a proposed fix waits for a person
quota:
  turns: 4
  window: 24h
  maxConcurrent: 1
  tokens: 800000
  dollars: 5
check: npm test     # the acceptance check: change it to your project's test command
worktree: main      # each fix on a branch of its own from main: change it to your default branch
todos:
  - key: nightly
    title: Run the tests and propose a fix for what fails
    detail: "Run the acceptance check (loopx evidence run --check). If it passes, record that and stop. If it fails, find the cause and fix it in this todo's worktree, with the check passing as evidence. Never merge, push or open a pull request: ship the todo and a person lands the branch. ${GATE_RULE}"
    every: 1d
    at: "02:00"
---

A loop that proposes, never lands: each fix waits on its branch for you (the Worktrees view, or loopx worktree).
`,
  },
];

/** The preset named `name`, or undefined. */
export function presetNamed(name: string): Preset | undefined {
  return PRESETS.find((preset) => preset.name === name);
}

/** Where a preset's goal file goes by convention. */
export function presetPath(preset: Preset): string {
  return `loopx/${preset.name}.goal.md`;
}
