import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../support/testKit';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { addTodo, blockTodo, killTodo, shipTodo } from '../../src/kernel/todos/todos';
import { claimTodo } from '../../src/kernel/todos/claims';
import { askGate, decideGate } from '../../src/kernel/gates/gates';
import { addEvidence } from '../../src/kernel/evidence/evidence';
import { addMonitor } from '../../src/kernel/monitors/monitors';
import { startTurn } from '../../src/kernel/turns/turns';
import { finishTurn } from '../../src/kernel/turns/turnFinish';
import { RESULT_KINDS } from '../../src/kernel/turns/turnQueries';
import { SHOULD_RUN_REASONS } from '../../src/kernel/goals/quotaQueries';
import { boardFacts, todoDetailFacts } from '../../src/kernel/readModels/cards';
import { reviewFacts } from '../../src/kernel/readModels/reviewFacts';
import { goalStory } from '../../src/kernel/readModels/story';
import { renderReviewPacket } from '../../src/kernel/readModels/reviewPacket';
import { buildDetail, buildSnapshot } from '../../src/extension/board/boardData';
import { attentionActionLabel, emptyColumnText } from '../../src/protocol/boardText';
import { COLUMNS } from '../../src/protocol/boardProtocol';
import { reviewPage } from '../../src/protocol/story/reviewPage';
import { shouldRunReason } from '../../src/protocol/shouldRunWords';
import { turnOutcomeWords } from '../../src/shared/turnOutcomeWords';

/**
 * Words for people (issue 46): no surface a person reads shows an ISO timestamp, an internal code, a Markdown backtick
 * or "1 gates". The surfaces are rendered from a store with a bit of everything in it (every todo status, gates asked
 * and decided, evidence, turns of each ending, a check waiting for a person), so a code that leaks at run time is
 * caught, not only one written in the source.
 */
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const CODES = new Set<string>([...RESULT_KINDS, ...SHOULD_RUN_REASONS]);
const ONE_PLURAL = /\b1 (gates|todos|turns|checks|goals|agents|monitors|claims|events|files|days|hours|minutes|tokens)\b/;

/** What is wrong with a text for people, or null. `markdown`: backticks are Markdown's code spans there. */
function problem(text: string, markdown = false): string | null {
  if (ISO.test(text)) return `an ISO timestamp (${ISO.exec(text)?.[0]})`;
  if (!markdown && text.includes('`')) return 'a backtick';
  const code = text.match(/\b[a-z]+(?:_[a-z]+)+\b/g)?.find((w) => CODES.has(w));
  if (code) return `the internal code ${code}`;
  if (ONE_PLURAL.test(text)) return `"${ONE_PLURAL.exec(text)?.[0]}"`;
  return null;
}

function expectForPeople(surface: string, texts: (string | null | undefined)[], markdown = false): void {
  const bad = texts.flatMap((t) =>
    t && problem(t, markdown) ? [`${surface}: ${problem(t, markdown)} in ${JSON.stringify(t.slice(0, 200))}`] : [],
  );
  expect(bad).toEqual([]);
}

let s: TestStore;
let goalId: string;
beforeAll(() => {
  s = makeStore();
  const codex = s.as(agent('codex'));
  goalId = createGoal(s.kernel, { title: 'Ship the CSV importer', turnsPerWindow: 10 }).id;
  const ids = [
    'Parse quoted fields',
    'Stream large files',
    'Detect the delimiter',
    'Drop the old parser',
    'Write the docs',
    'Watch CI',
  ].map((title) => addTodo(s.kernel, { goalId, title, detail: `Done when \`npm test\` passes for ${title}.` }).id);
  const [shipped, mine, blocked, killed, gated, watched] = ids as [string, string, string, string, string, string];
  // A validated turn that shipped; one that crashed; one that wrote nothing back.
  const ok = startTurn(s.kernel, { goalId, host: 'custom', agent: 'codex', todoId: shipped }).turn;
  addEvidence(codex, { todoId: shipped, summary: 'the 12 quoted cases pass', kind: 'test' });
  shipTodo(codex, shipped, { evidence: 'fixtures committed' });
  finishTurn(s.kernel, ok.id, 0);
  finishTurn(s.kernel, startTurn(s.kernel, { goalId, host: 'custom', agent: 'codex', todoId: blocked }).turn.id, 1);
  s.clock.advance(120);
  finishTurn(s.kernel, startTurn(s.kernel, { goalId, host: 'custom', agent: 'codex', todoId: gated }).turn.id, 0);
  claimTodo(s.kernel, mine, { leaseSeconds: 600 });
  claimTodo(codex, blocked);
  blockTodo(codex, blocked, 'needs a sample of bad rows');
  killTodo(s.kernel, killed, 'the old parser stays for now');
  const asked = askGate(codex, { todoId: gated, question: 'May I rename the `parse` export?' }).id;
  askGate(codex, { todoId: gated, question: 'Split the module?' });
  decideGate(s.kernel, asked, 'approved', 'yes, in one commit');
  claimTodo(codex, watched);
  addMonitor(codex, { todoId: watched, check: 'npm test', everySeconds: 60 });
  createGoal(s.kernel, { title: 'Document the importer' });
  setGoalStatus(s.kernel, goalId, 'active');
});
afterAll(() => s?.dispose());

describe('words for people, on every surface, from a store with a bit of everything', () => {
  test("the board: each card's detail (history, turns, evidence), the attention strip's buttons, the empty columns", () => {
    const texts = s.kernel.read((db, now) => {
      const snapshot = buildSnapshot(boardFacts(db, now), 'ada');
      const details = snapshot.cards.map((card) => buildDetail(todoDetailFacts(db, card.id), card, now));
      const actions = ['approve', 'reject', 'open', 'unblock', 'release', 'reassign', 'approveMonitor', 'resume', 'markDone'] as const;
      return [
        ...details.flatMap((d) => [
          d.detail,
          d.continuation,
          d.reason,
          ...d.history.flatMap((e) => [e.text, e.note]),
          ...d.turns.flatMap((t) => [t.result, t.used]),
          ...d.evidence.flatMap((e) => [e.text, e.summary]),
          ...d.gates.map((g) => g.question),
        ]),
        ...snapshot.attention.flatMap((item) => actions.map((a) => attentionActionLabel(a, item))),
        ...COLUMNS.flatMap((c) => [emptyColumnText(c, false), emptyColumnText(c, true)]),
      ];
    });
    expect(texts.length).toBeGreaterThan(40);
    expectForPeople('board', texts);
  });

  test('the review page (HTML and the PDF printed from it), as text', () => {
    const html = s.kernel.read((db, now) => {
      const facts = reviewFacts(db, now);
      return reviewPage({
        at: facts.at,
        workspace: 'work',
        goals: facts.goals.map((review) => ({ review, story: goalStory(db, review.goal.id, now, 0) })),
      });
    });
    const text = html
      .replace(/<style[\s\S]*?<\/style>/g, ' ')
      .replace(/<script[\s\S]*?<\/script>/g, ' ')
      .replace(/<[^>]+>/g, '\n')
      .replace(/&[a-z#0-9]+;/g, ' ');
    const lines = text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    expect(lines.some((l) => l.includes('Parse quoted fields'))).toBe(true);
    expectForPeople('review page', lines);
  });

  test('the review packet (Markdown: backticks are its code spans)', () => {
    const markdown = s.kernel.read((db, now) => renderReviewPacket(db, now));
    expect(markdown).toContain('Parse quoted fields');
    expectForPeople('review packet', markdown.split('\n'), true);
  });

  test('every should-run reason and every turn ending, in words', () => {
    const facts = {
      maxConcurrent: 1,
      liveClaims: 1,
      holders: ['codex'],
      spent: 10,
      turnsPerWindow: 10,
      windowHours: 24,
      counts: { open: 1 },
    };
    expectForPeople('should-run', [...SHOULD_RUN_REASONS.map((reason) => shouldRunReason({ run: false, reason, ...facts }))]);
    expectForPeople('turn endings', [...RESULT_KINDS.map((kind) => turnOutcomeWords(kind)), turnOutcomeWords(null)]);
  });

  test('no text written into the extension or the board for people holds a backtick (it would show as one)', () => {
    // Markdown documents (evidence opened as Markdown) use code fences; the check-pattern hint names the character.
    const allowed = [/^```$/, /stands for words, never for/];
    const found: string[] = [];
    for (const file of sources(['src/extension', 'webview-ui/src', 'src/protocol'])) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) {
          const text = node.text;
          if (text.includes('`') && !allowed.some((a) => a.test(text)))
            found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${JSON.stringify(text.slice(0, 100))}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(found).toEqual([]);
  });
});

function sources(dirs: string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts') && !path.endsWith('.test.ts')) files.push(path);
    }
  };
  for (const dir of dirs) walk(dir);
  return files;
}
