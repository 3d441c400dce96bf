import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

/**
 * The kernel's nouns (todos/, goals/, turns/, …) are rooms with stairs between them, not doors both ways (issue 40).
 *
 * - Reads are the floor every noun stands on: a noun's queries (`*Queries.ts`, and the reads in READS) import only the
 *   store (db/, events/), the model, time, errors, the row reader, other queries and their own noun's types. Any
 *   operation may read any noun's queries: that is a stair down, never a crossing.
 * - What joins nouns for a screen (cards, a todo's view, status, the review packet, the story) is the floor above the
 *   nouns, src/kernel/readModels/; no noun imports it, and outside the kernel only the adapters do.
 * - An operation calls another noun's `*InTx` only through CROSSINGS below, each with why.
 * - No two nouns import each other's operations or rules both ways, nor each other's queries both ways.
 *
 * Type imports count: a reader follows them as far as a runtime import.
 */
const ROOT = resolve(__dirname, '..', '..');
const KERNEL = join(ROOT, 'src', 'kernel');
/** The kernel's spine and the helpers below every noun: not nouns. */
const NOT_NOUNS = new Set(['db', 'events', 'migrations', 'team', 'run', 'readModels']);
/**
 * The spine's files a query may import besides db/ and events/: rows, time, errors, reading a row, and how long each
 * host's prompt cache lasts (a retry's time depends on it as on the clock: a published figure, or the person's own).
 */
const QUERY_SPINE = new Set(['model.ts', 'time.ts', 'errors.ts', 'rowReader.ts', 'promptCache.ts']);
/** Reads named before the `*Queries.ts` convention: each only reads the store. */
const READS: Record<string, string> = {
  'turns/backoff.ts': "which todos wait after failed turns, read from the turns' rows",
  'turns/turnSlots.ts': 'the open turns of a goal, read from the turns table',
};
/** The layers outside the kernel that may import the read models: the adapters and what they share. */
const READ_MODEL_READERS = new Set(['cli', 'extension', 'languageServer', 'protocol', 'runtime']);

/**
 * Every call of another noun's `*InTx` (`from -> to: name`), with why it crosses: a list that may only shrink. A
 * crossing not here fails the test; an entry no longer imported fails it too, so the list stays true.
 */
const CROSSINGS: Record<string, string> = {
  'todos/todos.ts -> monitors/monitors.ts: cancelWaitingMonitorInTx': 'killing a todo cancels the monitor it waits on',
  'monitors/monitors.ts -> todos/claims.ts: releaseInTx': "a monitor an agent sets to wait on gives the todo's claim back",
  'turns/turns.ts -> todos/claims.ts: claimInTx': 'turn start claims through the one write path of a claim',
  'turns/turnFinish.ts -> todos/claims.ts: releaseInTx': 'turn finish releases the claim through the one write path',
  'turns/turnFinish.ts -> goals/quota.ts: spendInTx': "turn finish spends the goal's quota through the one write path",
  'goals/goals.ts -> worktrees/worktreeSetting.ts: setWorktreeInTx': "goal create records the goal's worktree setting",
  'goals/goalSpec/apply.ts -> todos/todos.ts: addTodoInTx': 'goal files add todos',
  'goals/goalSpec/apply.ts -> todos/todos.ts: killInTx': 'goal files kill the todos they dropped',
  'goals/goalSpec/apply.ts -> checks/checks.ts: setGoalCheckInTx': "goal files set the goal's acceptance check",
  'goals/goalSpec/apply.ts -> checks/checks.ts: setTodoCheckInTx': "goal files set a todo's check",
  'goals/goalSpec/apply.ts -> monitors/monitors.ts: allowChecksInTx': 'goal files allow the monitor checks a person wrote there',
  'goals/goalSpec/apply.ts -> worktrees/worktreeSetting.ts: setWorktreeInTx': "goal files set the goal's worktree",
  'turns/reviewTurn.ts -> todos/review.ts: claimReviewInTx': 'a review turn claims the review through its one write path',
  'turns/turnFinish.ts -> todos/review.ts: releaseReviewInTx': "turn finish ends a review turn's claim through its one write path",
  'todos/verdicts.ts -> gates/gates.ts: askGateInTx': 'a review whose rounds ran out asks a person through a gate',
  'todos/verdicts.ts -> gates/gates.ts: decideGateInTx': "a person's verdict decides the gate its review raised",
};

const IMPORT = /^\s*(?:import|export)\s+(type\s+)?([^'"]*?)\s*from\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

interface Import {
  /** Paths relative to src/kernel for kernel files, to src/ otherwise. */
  from: string;
  to: string;
  names: string[];
  /** `import type …`, or every name marked `type`. */
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The names an import clause brings in: `{ a, type B, c as d }` is a, B, c; `* as x` and a default are themselves. */
function namesOf(clause: string): string[] {
  return clause
    .replace(/[{}]/g, ' ')
    .split(',')
    .map((name) =>
      name
        .trim()
        .replace(/^type\s+/, '')
        .replace(/\s+as\s+\w+$/, ''),
    )
    .filter(Boolean);
}

function importsOf(path: string, text: string): Omit<Import, 'from'>[] {
  return [...text.matchAll(IMPORT)].flatMap((m) => {
    const base = resolve(dirname(path), m[3] as string);
    const to = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
    const clause = (m[2] as string).replace(/[{}]/g, ' ');
    const typeOnly = Boolean(m[1]) || clause.split(',').every((name) => /^\s*type\s/.test(name) || !name.trim());
    return to ? [{ to, names: namesOf(m[2] as string), typeOnly }] : [];
  });
}

function kernelImports(): Import[] {
  return sourceFiles(KERNEL).flatMap((path) =>
    importsOf(path, readFileSync(path, 'utf8'))
      .filter(({ to }) => to.startsWith(KERNEL))
      .map(({ to, names, typeOnly }) => ({ from: slash(relative(KERNEL, path)), to: slash(relative(KERNEL, to)), names, typeOnly })),
  );
}

const slash = (path: string) => path.split('\\').join('/');
/** A kernel file's noun (its top folder), or null for the spine and the floors that are not nouns. */
const nounOf = (file: string) => {
  const [top, ...rest] = file.split('/');
  return rest.length > 0 && top && !NOT_NOUNS.has(top) ? top : null;
};
const isQuery = (file: string) => /Queries\.ts$/.test(file) || file in READS;

/** Pairs of nouns with an edge each way in `edges` (`a -> b`), as `a <-> b`. */
function twoWay(edges: Iterable<[string, string]>): string[] {
  const set = new Set([...edges].map(([a, b]) => `${a} -> ${b}`));
  return [...set]
    .map((edge) => edge.split(' -> ') as [string, string])
    .filter(([a, b]) => a < b && set.has(`${b} -> ${a}`))
    .map(([a, b]) => `${a} <-> ${b}`)
    .sort();
}

test('the detectors read imports, nouns and queries in the shapes this code base has', () => {
  expect(namesOf('{ type A, b, c as d }')).toEqual(['A', 'b', 'c']);
  expect(namesOf('{\n  claimInTx,\n  type TodoCore,\n}')).toEqual(['claimInTx', 'TodoCore']);
  const text = "import { a } from './a';\nimport type {\n  B,\n} from '../b';";
  expect([...text.matchAll(IMPORT)].map((m) => [m[1] ?? '', namesOf(m[2] as string), m[3]])).toEqual([
    ['', ['a'], './a'],
    ['type ', ['B'], '../b'],
  ]);
  expect([nounOf('todos/claims.ts'), nounOf('kernel.ts'), nounOf('db/sqliteDb.ts'), nounOf('readModels/cards.ts')]).toEqual([
    'todos',
    null,
    null,
    null,
  ]);
  expect([isQuery('todos/todoQueries.ts'), isQuery('turns/backoff.ts'), isQuery('todos/claims.ts')]).toEqual([true, true, false]);
  expect(
    twoWay([
      ['a', 'b'],
      ['b', 'a'],
      ['a', 'c'],
    ]),
  ).toEqual(['a <-> b']);
});

test("a noun's queries import only the store, the model, time and other queries (and their own noun's types)", () => {
  const imports = kernelImports();
  const queries = imports.filter(({ from }) => nounOf(from) && isQuery(from));
  expect(queries.length).toBeGreaterThan(5);
  for (const file of Object.keys(READS)) expect(existsSync(join(KERNEL, file)), file).toBe(true);
  const wrong = queries
    .filter(({ from, to, typeOnly }) => {
      if (/^(db|events)\//.test(to) || QUERY_SPINE.has(to) || (nounOf(to) && isQuery(to))) return false;
      // A query returns its noun's shapes (a turn's usage), which may be declared beside the noun's rules.
      return !(typeOnly && nounOf(to) === nounOf(from));
    })
    .map(({ from, to }) => `${from} -> ${to}`);
  expect(wrong).toEqual([]);
});

test("an operation calls another noun's *InTx only through the known crossings, each with why", () => {
  const crossings = kernelImports().flatMap(({ from, to, names }) => {
    const [a, b] = [nounOf(from), nounOf(to)];
    return a && b && a !== b ? names.filter((name) => /InTx$/.test(name)).map((name) => `${from} -> ${to}: ${name}`) : [];
  });
  expect([...new Set(crossings)].sort()).toEqual(Object.keys(CROSSINGS).sort());
  for (const why of Object.values(CROSSINGS)) expect(why.length).toBeGreaterThan(10);
});

test('no two nouns import each other both ways: operations and rules, or queries', () => {
  const operations: [string, string][] = [];
  const reads: [string, string][] = [];
  for (const { from, to, names } of kernelImports()) {
    const [a, b] = [nounOf(from), nounOf(to)];
    if (!a || !b || a === b) continue;
    if (isQuery(to)) {
      // Reading another noun's queries is a stair down from an operation; between queries, reads must not loop.
      if (isQuery(from)) reads.push([a, b]);
      continue;
    }
    const uncounted = names.filter((name) => !(`${from} -> ${to}: ${name}` in CROSSINGS));
    if (uncounted.length > 0) operations.push([a, b]);
  }
  expect(operations.length).toBeGreaterThan(10);
  expect(twoWay(operations)).toEqual([]);
  expect(twoWay(reads)).toEqual([]);
});

test('the read models are the floor above the nouns: no noun imports them, and outside the kernel only the adapters', () => {
  const readModels = join(KERNEL, 'readModels');
  expect(readdirSync(readModels).length).toBeGreaterThan(5);
  const readers = sourceFiles(join(ROOT, 'src')).flatMap((path) =>
    path.startsWith(readModels) || !importsOf(path, readFileSync(path, 'utf8')).some(({ to }) => to.startsWith(readModels))
      ? []
      : [slash(relative(join(ROOT, 'src'), path))],
  );
  expect(readers.length).toBeGreaterThan(10);
  expect(readers.filter((file) => !READ_MODEL_READERS.has(file.split('/')[0] as string))).toEqual([]);
});

/** Source files only tests import, each with why it is not a test kit. */
const TESTS_ALONE_IMPORT: Record<string, string> = {
  'src/cli/agentCommands.ts': 'the agent verbs typed for the test that holds their bundles together; esbuild.mjs reads the same JSON',
  'src/kernel/team/pgScramCrypto.ts': "the bundled pg's SCRAM steps: esbuild.mjs puts it in place of pg's lib/crypto/utils.js",
};

test('the test kits live in test/support/: no source file imports one, nor is one that only tests import', () => {
  const scanned = ['src', 'webview-ui/src', 'test', 'bench', 'scripts'].flatMap((dir) =>
    existsSync(join(ROOT, dir)) ? sourceFiles(join(ROOT, dir)).concat(testFiles(join(ROOT, dir))) : [],
  );
  const isTest = (path: string) => /\.test\.ts$/.test(path) || path.startsWith(join(ROOT, 'test'));
  const importers = new Map<string, string[]>();
  const wrong: string[] = [];
  for (const path of scanned) {
    const text = readFileSync(path, 'utf8');
    const imports = importsOf(path, text);
    for (const { to } of imports) importers.set(to, [...(importers.get(to) ?? []), path]);
    // What a bundle can reach: src/ and the webview (benches and scripts may use the kits).
    if (isTest(path) || !/^(src|webview-ui)\//.test(slash(relative(ROOT, path)))) continue;
    if (imports.some(({ to }) => to.startsWith(join(ROOT, 'test'))) || /from\s+['"]vitest['"]/.test(text))
      wrong.push(`${slash(relative(ROOT, path))} imports a test kit or vitest`);
  }
  for (const path of sourceFiles(join(ROOT, 'src'))) {
    const by = importers.get(path) ?? [];
    const file = slash(relative(ROOT, path));
    if (by.length > 0 && by.every(isTest) && !(file in TESTS_ALONE_IMPORT)) wrong.push(`${file} is imported by tests alone`);
  }
  expect(wrong).toEqual([]);
});

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.test\.ts$/.test(entry.name) && !entry.parentPath.includes('node_modules'))
    .map((entry) => join(entry.parentPath, entry.name));
}
