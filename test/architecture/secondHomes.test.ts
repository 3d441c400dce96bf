import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

/**
 * Rules that once had a second home (issue 24): each is asked of its one home by name, and a copy spelled again
 * elsewhere fails here with the file and line. The README's rule table names the same homes.
 */
const ROOT = resolve(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const FILES = ['src', 'webview-ui/src'].flatMap((dir) => sourceFiles(join(ROOT, dir))).map((p) => relative(ROOT, p));

/** Lines matching `pattern` in every source file but the home(s). */
function copies(pattern: RegExp, homes: string[]): string[] {
  return FILES.filter((file) => !homes.includes(file)).flatMap((file) =>
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

/** How many files besides the home (which must exist) ask it by name. */
function uses(pattern: RegExp, home: string): number {
  expect(FILES).toContain(home);
  return FILES.filter((file) => file !== home && pattern.test(readFileSync(join(ROOT, file), 'utf8'))).length;
}

test('the source tree is where the test looks', () => {
  expect(FILES.length).toBeGreaterThan(100);
});

test('what an error is called: describeError is the one route from a thrown error to its words', () => {
  const home = 'src/runtime/describeError.ts';
  // errorBody(...) is called only by describeError (the protocol's own file defines it; the webview never calls it).
  expect(copies(/\berrorBody\(/, [home, 'src/protocol/errors.ts'])).toEqual([]);
  expect(uses(/\bdescribeError\(/, home)).toBeGreaterThanOrEqual(5);
});

test("text limits: TEXT_LIMITS is the one table the kernel's checks and the MCP server's schemas read", () => {
  const home = 'src/shared/textLimits.ts';
  // A number spelled as a text's limit: requireText/optionalText's `max:` in the kernel, zod's `.max(…)` in MCP.
  expect(copies(/(requireText|optionalText)\(.*\bmax: \d/, [home])).toEqual([]);
  expect(copies(/\.max\(\d/, [home]).filter((line) => line.startsWith('src/cli/mcp/'))).toEqual([]);
  expect(uses(/\bTEXT_LIMITS\.\w+/, home)).toBeGreaterThanOrEqual(10);
});

test("should-run's sentences: src/protocol/shouldRunWords.ts is the one place a reason code becomes words", () => {
  const home = 'src/protocol/shouldRunWords.ts';
  // A table keyed by the reason codes, or one of its sentences spelled again.
  expect(copies(/Record<ShouldRunReason, string>|cooling down after|no_ready_work: '|concurrency_limit: '/, [home])).toEqual([]);
  expect(uses(/\bshouldRunReason\(|\bshouldRunSentence\(/, home)).toBeGreaterThanOrEqual(5);
});

test("the human-channel check: requireHumanChannel (src/kernel/authority.ts) is the one place an agent or a channel-less 'human' is refused", () => {
  const home = 'src/kernel/authority.ts';
  expect(copies(/new HumanChannelRequiredError\(|is a human decision;|\bif \(\S*actor\.kind !== 'human'\)/, [home])).toEqual([]);
  // The CLI's human-only commands and its terminal confirmation ask the kernel's rule too.
  for (const file of ['src/cli/main.ts', 'src/cli/humanChannel.ts'])
    expect(readFileSync(join(ROOT, file), 'utf8')).toMatch(/requireHumanChannel\(/);
  expect(uses(/\brequireHumanChannel\(/, home)).toBeGreaterThanOrEqual(10);
});

test("a flag's range: min/max in its spec (src/cli/args.ts), never a command's own check of a number it parsed", () => {
  // `a.num('x')` followed by a comparison, or a helper that range-checks a flag's value by hand.
  const byHand = /\bnum\('[\w-]+'\)\s*[<>]|if \(\w+ [<>]=? \d+\) throw new InvalidInputError\('--/;
  expect(copies(byHand, ['src/cli/args.ts']).filter((line) => line.startsWith('src/cli/'))).toEqual([]);
  expect(copies(/must be (from|between|at least|at most) .*\d/, ['src/cli/args.ts']).filter((line) => line.startsWith('src/cli/'))).toEqual(
    [],
  );
});

test('times in words: relativeTime and the run-duration sentence live in src/shared/timeWords.ts, once', () => {
  const home = 'src/shared/timeWords.ts';
  // "3 h ago" / "in 12 min" spelled a second way, or "1.2 s" worked out again beside a run.
  expect(copies(/`\$\{\w+\} ago`|} ago`|durationMs < 10_000|toFixed\(1\)\} s`/, [home])).toEqual([]);
  expect(uses(/\brelativeTime\(/, home)).toBeGreaterThanOrEqual(10);
  expect(uses(/\b(runTook|ranSentence)\(/, home)).toBeGreaterThanOrEqual(4);
});

test('a clock time: clockTime (src/protocol/display.ts) is the one rule; the board no longer keeps its own', () => {
  // boardHistory.ts builds the History time field's value ("2026-12-03 14:30", the one form the field reads back), not
  // words; dateTimeWords (shared/timeWords.ts) a document's moment at a given offset, with getUTCHours.
  expect(copies(/toLocaleTimeString|getHours\(\)/, ['src/protocol/display.ts', 'src/protocol/boardHistory.ts'])).toEqual([]);
});

test("a turn's outcome in words: TURN_OUTCOME_WORDS (src/shared/turnOutcomeWords.ts) is the one table every surface reads", () => {
  const home = 'src/shared/turnOutcomeWords.ts';
  // Issue 40: four tables said user_action_required four ways. A table keyed by a result kind, or a kind made into
  // words by replacing its underscores, is a second home.
  const kinds = 'validated_progress|validated_completion|user_action_required|host_failure|validation_failed';
  expect(copies(new RegExp(`\\b(${kinds}):\\s*['"\`]|resultKind\\b.*\\.replace\\(/_/g`), [home])).toEqual([]);
  // The board, its history and drawer, the story, loopx run, VS Code's toast and turn output, status, STATUS.md.
  expect(uses(/\bturnOutcomeWords\(|\bunproductiveEnd\(/, home)).toBeGreaterThanOrEqual(8);
});

test('durations: one parser (durationSeconds, src/kernel/time.ts) and one spaced form in sentences ("in 24 h", durationWords)', () => {
  // The unit table or the `90s/30m/2h/1d` pattern spelled again: goal files once parsed durations on their own.
  expect(copies(/\{\s*s: 1, m: 60|\[smhd\]/, ['src/kernel/time.ts'])).toEqual([]);
  expect(uses(/\bdurationSeconds\(|\bparseDuration\(/, 'src/kernel/time.ts')).toBeGreaterThanOrEqual(4);
  // A number glued to its hours in a sentence ("in 24h" beside "in 24 h"). The compact form is the contract's, written
  // only where a flag or goal file's value is echoed: formatDuration, a goal file's window, the lease flag's range and help;
  // relativeTime keeps its own compact "in 29m" (its row in the rule table).
  const compact = [
    'src/kernel/time.ts',
    'src/goalFile/format.ts',
    'src/kernel/todos/claims.ts',
    'src/cli/commands/todoClaim.ts',
    'src/shared/timeWords.ts',
  ];
  expect(copies(/\}h[ `;,)]/, compact)).toEqual([]);
  // How long something took, in minutes or seconds worked out by hand beside a sentence (the story's chart axis keeps
  // its tick labels).
  expect(copies(/\/ 60_000\)\} min`|\/ 1000\)\} s`\} and/, ['src/shared/timeWords.ts', 'src/protocol/story/storyCharts.ts'])).toEqual([]);
  expect(uses(/\bdurationWords\(/, 'src/shared/timeWords.ts')).toBeGreaterThanOrEqual(4);
});

test("should-run's classification: SHOULD_RUN_CLASSES (src/kernel/goals/quotaQueries.ts) says which answers pass soon and which wait for a person", () => {
  const home = 'src/kernel/goals/quotaQueries.ts';
  // Issue 40: turn start's route, loopx run's idleness and quota should-run's help each listed reasons of their own.
  const classifying =
    /reason === '(ok|goal_inactive|gate_pending|no_change|setup_backoff|cooldown)'|\['ok', '|goal_inactive, no_ready_work/;
  expect(copies(classifying, [home])).toEqual([]);
  expect(uses(/\bSHOULD_RUN_CLASSES\b|\brunsSoon\(/, home)).toBeGreaterThanOrEqual(3);
});

test('a terminal todo status: isTerminalStatus (src/kernel/model.ts) is the one spelling of "shipped or killed"', () => {
  const home = 'src/kernel/model.ts';
  // Issue 40: six files spelled it. The board's webview keeps its own copy of the column rules (it cannot import the
  // kernel), held to the kernel's by src/extension/board/boardRules.test.ts.
  const spelled = /=== 'shipped' \|\| \S+ === 'killed'|!== 'shipped' && \S+ !== 'killed'|\['shipped', 'killed'\]\)/;
  expect(copies(spelled, [home, 'src/protocol/board.ts'])).toEqual([]);
  expect(uses(/\bisTerminalStatus\(/, home)).toBeGreaterThanOrEqual(7);
});

test('a validated turn: isValidatedResult / VALIDATED_RESULTS (src/kernel/turns/turnQueries.ts) is the one spelling', () => {
  const home = 'src/kernel/turns/turnQueries.ts';
  // Issue 40: four files said "progress or completion" each their own way (one of them in SQL).
  expect(copies(/'validated_progress'.*'validated_completion'|'validated_completion'.*'validated_progress'/, [home])).toEqual([]);
  expect(uses(/\bisValidatedResult\(|\bVALIDATED_RESULTS(_SQL)?\b/, home)).toBeGreaterThanOrEqual(3);
});

test("LoopX's settings: loopxSetting (src/extension/loopxSettings.ts) is the one reader, so none comes from a workspace file agents write", () => {
  const home = 'src/extension/loopxSettings.ts';
  // Session 30: the host commands and Auto Run were read from a repository's own .code-workspace file.
  expect(copies(/getConfiguration\(/, [home])).toEqual([]);
  expect(uses(/\bloopxSetting</, home)).toBeGreaterThanOrEqual(10);
});

test("the board's move rule: boardMoves.ts (the kernel) decides which transition a column means; no copy decides one", () => {
  // The rule once ran three times (the webview, protocol/board.ts, the board's host after rebuilding a card).
  expect(copies(/\btransition: '(claim|release|ship|block|unblock|kill)'/, ['src/kernel/todos/boardMoves.ts'])).toEqual([]);
  expect(copies(/\bfunction (moveFor|moveRule)\b/, ['src/kernel/todos/boardMoves.ts'])).toEqual([]);
  // Asked by name: the board's host for a drag (boardMove) and for each card's allowed targets (allowedTargets).
  expect(uses(/\bboardMove\(/, 'src/kernel/todos/boardMoves.ts')).toBeGreaterThan(0);
  expect(uses(/\ballowedTargets\(/, 'src/kernel/todos/boardMoves.ts')).toBeGreaterThan(0);
});

test("a team store's client: one fetch of the events a replica lacks, one rule for a lost connection, one set of client settings", () => {
  // The catch-up's SQL (the worker's lock batch, a read's catch-up, the listener's pull): EVENTS_AFTER in teamLog.ts.
  expect(copies(/FROM loopx\.events WHERE seq > \$1/, ['src/kernel/team/teamLog.ts'])).toEqual([]);
  // Which errors mean the connection is gone: LOST_CODES and LOST_WORDS in pgWorker.ts (its worker source interpolates them).
  expect(copies(/'57P01'|Connection terminated\|/, ['src/kernel/team/pgWorker.ts'])).toEqual([]);
  // What a pg client connects with: pgClientConfig (keepalive, the limits) for the worker, the listener and the catch-up.
  expect(copies(/keepAliveInitialDelayMillis|connectionTimeoutMillis/, ['src/kernel/team/syncPg.ts'])).toEqual([]);
  expect(uses(/\bpgClientConfig\(/, 'src/kernel/team/syncPg.ts')).toBeGreaterThanOrEqual(2);
});
