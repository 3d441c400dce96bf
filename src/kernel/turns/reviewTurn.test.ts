import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, human, makeStore, type TestStore } from '../../../test/support/testKit';
import { teamEngineUnderTest } from '../../../test/support/teamTestStore';
import { setGoalWorktree } from '../worktrees/worktreeSetting';
import { mergeWorktree } from '../worktrees/landing';
import { commitApproved } from '../worktrees/approvedCommit';
import type { AutoLanding } from '../autoLand';
import { giveVerdict } from '../approvals';
import { setGoalCheck, setTodoCheck } from '../checks/checks';
import { runEvidence } from '../evidence/evidenceRun';
import type { ReviewScope } from '../worktrees/changeScope';
import { createGoal } from '../goals/goals';
import { reviewPolicy, setGoalReview } from '../goals/goalReview';
import { addEvidence } from '../evidence/evidence';
import { addTodo, shipTodo } from '../todos/todos';
import { getTodo } from '../todos/todoQueries';
import { type CardReviewFacts, todoCardFor } from '../readModels/cards';
import { cardReview } from '../../extension/board/boardData';
import { reviewStateWords } from '../../protocol/reviewWords';
import { iso } from '../time';
import { claimNext, claimTodo, releaseTodo } from '../todos/claims';
import { recordVerdict } from '../todos/verdicts';
import { reviewRounds } from '../todos/reviewQueries';
import { startTurn } from './turns';
import { finishTurn } from './turnFinish';
import { getTurn } from './turnQueries';
import { renderReviewPacket } from '../readModels/reviewPacket';
import { roleFigures } from '../readModels/roleFigures';
import { goalStory } from '../readModels/story';

/** Review turns on a real git workspace: claude implements, codex reviews. */
let s: TestStore;
const git = (...args: string[]) => execFileSync('git', args, { cwd: s.root, encoding: 'utf8' });
const as = (name: string) => s.as(agent(name));

beforeEach(() => {
  s = makeStore();
  git('init', '-q');
  git('config', 'user.email', 'a@example.com');
  git('config', 'user.name', 'a');
  writeFileSync(join(s.root, 'parse.ts'), 'export const parse = (s: string) => s;\n');
  git('add', 'parse.ts');
  git('commit', '-qm', 'start');
  createGoal(s.kernel, { title: 'Ship the parser', turnsPerWindow: 20, maxConcurrent: 3 });
  addTodo(s.kernel, { goalId: 'G1', title: 'Parse headers', detail: 'headers split on the first colon' });
  setGoalReview(s.kernel, 'G1', reviewPolicy({ reviewerHost: 'codex', maxRounds: 2 }));
});
afterEach(() => s.dispose());

/** Gives back `agent`'s claim on T1 if its turn left one. */
function releaseIfClaimed(agentName: string): void {
  if (getTodo(s.kernel.db, 'T1').owner === agentName) releaseTodo(as(agentName), 'T1');
}

/** claude's turn: it edits parse.ts, records evidence and ships (a submission), then its turn ends. */
function implement(): void {
  const turn = startTurn(as('claude'), { goalId: 'G1', host: 'claude' }).turn;
  writeFileSync(join(s.root, 'parse.ts'), 'export const parse = (s: string) => s.split(/:(.*)/);\n');
  addEvidence(as('claude'), { todoId: 'T1', summary: 'split on the first colon' });
  shipTodo(as('claude'), 'T1', { validation: 'ran the header cases by hand' });
  expect(finishTurn(as('claude'), turn.id, 0).resultKind).toBe('validated_completion');
}

describe('a review turn', () => {
  test("its prompt carries the change's diff, its acceptance, the claimed validation and only the review verbs", () => {
    implement();
    const started = startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' });
    expect(started.turn).toMatchObject({ role: 'review', agent: 'codex', todoId: 'T1' });
    expect(started.env.LOOPX_ROLE).toBe('review');
    expect(getTodo(s.kernel.db, 'T1')).toMatchObject({ status: 'in_review', owner: 'codex' });
    const prompt = readFileSync(started.promptFile, 'utf8');
    expect(prompt).toMatch(/^# loopx: one bounded review turn/);
    expect(prompt).toContain('Acceptance: headers split on the first colon');
    expect(prompt).toContain('> ran the header cases by hand');
    expect(prompt).toContain('+export const parse = (s: string) => s.split(/:(.*)/);');
    expect(prompt).toContain('loopx_review_verdict');
    expect(prompt).not.toMatch(/todo ship|evidence add/);
    expect(started.allowedCommands.every((c) => / review (show|approve|request-changes|unable)$/.test(c))).toBe(true);
  });

  test('a named todo in review is reviewed without --review; the implementer and a second reviewer are refused', () => {
    implement();
    expect(() => startTurn(as('claude'), { goalId: 'G1', host: 'claude', role: 'review' })).toThrow(/no change to review/);
    expect(() => startTurn(as('claude'), { goalId: 'G1', host: 'codex', todoId: 'T1' })).toThrow(/may not review its own change/);
    const first = startTurn(as('codex'), { goalId: 'G1', host: 'codex', todoId: 'T1' });
    expect(first.turn.role).toBe('review');
    expect(() => startTurn(as('codex-2'), { goalId: 'G1', host: 'codex', todoId: 'T1' })).toThrow(/still open on it|being reviewed/);
    // An implement turn finds nothing to do: the only todo waits for its review.
    expect(() => startTurn(as('claude'), { goalId: 'G1', host: 'claude' })).toThrow(/should not run/);
  });

  test('a verdict completes the turn; changes asked send the todo back to its implementer for round 2', () => {
    implement();
    const review = startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' }).turn;
    recordVerdict(as('codex'), 'T1', {
      verdict: 'request_changes',
      summary: 'an empty value breaks it',
      findings: [{ severity: 'P1', title: 'Empty value', file: 'parse.ts', line: 1 }],
    });
    expect(finishTurn(as('codex'), review.id, 0).resultKind).toBe('validated_completion');
    expect(getTodo(s.kernel.db, 'T1').status).toBe('open');
    // It goes back to its implementer first: no other agent on another host takes it for a lease's length.
    expect(() => claimTodo(as('gemini'), 'T1')).toThrow(/waits for its implementer claude \(on claude\) until/);
    expect(() => startTurn(as('gemini'), { goalId: 'G1', host: 'gemini' })).toThrow(
      expect.objectContaining({
        code: 'should_not_run',
        data: expect.objectContaining({ reason: 'no_ready_work', nextWakeAt: expect.any(String) }),
      }),
    );
    implement();
    expect(getTodo(s.kernel.db, 'T1')).toMatchObject({ status: 'in_review', reviewRound: 2 });
    expect(reviewRounds(s.kernel.db, 'T1').map((r) => r.reviewerHost)).toEqual(['codex', null]);
  });

  test('a reviewer that edits the change gives no verdict: refused, recorded as the kernel finding, the turn not counted', () => {
    implement();
    const review = startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' }).turn;
    writeFileSync(join(s.root, 'parse.ts'), 'export const parse = () => [];\n');
    expect(() => recordVerdict(as('codex'), 'T1', { verdict: 'approve', summary: 'fixed it myself' })).toThrow(
      expect.objectContaining({ code: 'scope_changed' }),
    );
    expect(getTodo(s.kernel.db, 'T1')).toMatchObject({ status: 'in_review', owner: null });
    expect(reviewRounds(s.kernel.db, 'T1')[0]).toMatchObject({ verdict: 'could_not_review', reviewer: 'kernel' });
    expect(finishTurn(as('codex'), review.id, 0).resultKind).toBe('validation_failed');
    expect(getTurn(s.kernel.db, review.id).spent).toBe(false);
  });

  test('a review turn that ends without a verdict gives the review back for another look', () => {
    implement();
    const review = startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' }).turn;
    expect(finishTurn(as('codex'), review.id, 1).resultKind).toBe('host_failure');
    expect(getTodo(s.kernel.db, 'T1')).toMatchObject({ status: 'in_review', owner: null });
    expect(startTurn(as('codex-2'), { goalId: 'G1', host: 'codex', role: 'review' }).turn.agent).toBe('codex-2');
  });

  test('a reviewer on another host than the goal names is refused', () => {
    implement();
    expect(() => startTurn(as('gemini'), { goalId: 'G1', host: 'gemini', todoId: 'T1' })).toThrow(/reviewed by an agent on codex/);
  });

  test("the review packet shows each round's verdict and what each role's turns took; quota's figures split them", () => {
    implement();
    const first = startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' }).turn;
    recordVerdict(as('codex'), 'T1', {
      verdict: 'request_changes',
      summary: 'empty values',
      findings: [{ severity: 'P2', title: 'Empty value' }],
    });
    finishTurn(as('codex'), first.id, 0);
    implement();
    const second = startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' }).turn;
    recordVerdict(as('codex'), 'T1', { verdict: 'approve', summary: 'handled now' });
    finishTurn(as('codex'), second.id, 0);
    const packet = renderReviewPacket(s.kernel.db, s.clock.ms, 'G1', 0);
    expect(packet).toContain('### Peer review');
    expect(packet).toContain('an agent on codex reviews each change; 2 round(s) before a person decides.');
    expect(packet).toMatch(/round 1: claude sent it [^;]+; codex asked for changes \([^)]+\): empty values\n {4}- P2 Empty value/);
    expect(packet).toMatch(/round 2: claude sent it [^;]+; codex approved it/);
    expect(packet).toMatch(/Implementing: 2 turn\(s\), \d+ min, \$[\d.]+\. Reviewing: 2 turn\(s\)/);
    expect(packet).toMatch(/\| R2 \| T1 \| review \| codex \|/);
    expect(roleFigures(s.kernel.db, 'G1', null)).toMatchObject({ implement: { turns: 2, spent: 2 }, review: { turns: 2, spent: 2 } });
    // The story: each round from its submission to its verdict, and the approval is the todo's ship.
    const story = goalStory(s.kernel.db, 'G1', s.clock.ms);
    expect(story.timeline.filter((i) => i.kind === 'review')).toMatchObject([
      { todoId: 'T1', round: 1, by: 'claude', reviewer: 'codex', verdict: 'request_changes' },
      { todoId: 'T1', round: 2, by: 'claude', reviewer: 'codex', verdict: 'approve' },
    ]);
    expect(story.timeline.filter((i) => i.kind === 'ship')).toMatchObject([{ todoId: 'T1', by: 'codex' }]);
    expect(story.burndown.at(-1)).toMatchObject({ open: 0, done: 1 });
  });
});

describe("the implementer's prompt", () => {
  test('says its change is reviewed, by whom, which round, and to say what it checked when it ships', () => {
    const first = startTurn(as('claude'), { goalId: 'G1', host: 'claude' });
    const prompt = readFileSync(first.promptFile, 'utf8');
    expect(prompt).toContain('## Review');
    expect(prompt).toContain('Your change is reviewed by an agent on codex before it is done (round 1 of at most 2).');
    expect(prompt).toContain('`--validation "…"`');
    writeFileSync(join(s.root, 'parse.ts'), 'export const parse = (s: string) => s.split(/:(.*)/);\n');
    addEvidence(as('claude'), { todoId: 'T1', summary: 'split on the first colon' });
    shipTodo(as('claude'), 'T1', { validation: 'ran the header cases by hand' });
    finishTurn(as('claude'), first.turn.id, 0);
    const review = startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' }).turn;
    recordVerdict(as('codex'), 'T1', { verdict: 'request_changes', summary: 'an empty value breaks it' });
    finishTurn(as('codex'), review.id, 0);
    const second = readFileSync(startTurn(as('claude'), { goalId: 'G1', host: 'claude' }).promptFile, 'utf8');
    expect(second).toContain('(round 2 of at most 2)');
    expect(second).toContain('an empty value breaks it');
  });
});

describe('a change sent back with changes asked', () => {
  test('waits for its implementer, or an agent on its host, for a lease’s length; then anyone may take it', () => {
    implement();
    const review = startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' }).turn;
    recordVerdict(as('codex'), 'T1', { verdict: 'request_changes', summary: 'an empty value breaks it' });
    finishTurn(as('codex'), review.id, 0);
    // Another agent on the implementer's host may continue it.
    const sameHost = startTurn(as('claude-2'), { goalId: 'G1', host: 'claude' });
    expect(sameHost.turn).toMatchObject({ todoId: 'T1', agent: 'claude-2' });
    finishTurn(as('claude-2'), sameHost.turn.id, 1);
    releaseIfClaimed('claude-2');
    // The card says whose it is first, and for how long.
    const card = todoCardFor(s.kernel.db, 'T1', iso(s.clock.now()));
    expect(card?.review?.waitsUntil).toBe(iso(s.clock.now() + 30 * 60_000));
    const words = reviewStateWords(cardReview(card?.review as CardReviewFacts), 'open', s.clock.now());
    expect(words).toBe('codex asked for changes (round 1 of 2) · back to claude first, in 30m');
    // claim --next leaves the held todo out for another agent (nothing else is ready here).
    expect(() => claimNext(as('gemini'), { goalId: 'G1' })).toThrow(expect.objectContaining({ code: 'no_ready_work' }));
    s.clock.advance(31 * 60);
    expect(claimTodo(as('gemini'), 'T1').todo.owner).toBe('gemini');
  });

  test('a person’s claim is never held', () => {
    implement();
    startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' });
    recordVerdict(as('codex'), 'T1', { verdict: 'request_changes', summary: 'an empty value breaks it' });
    expect(claimTodo(s.as(human), 'T1').todo.owner).toBe('ada');
  });
});

describe('an approved change in a worktree', () => {
  test('is committed on its branch exactly as approved, authored for its implementer; a person merges it into the base', async () => {
    git('branch', '-M', 'main');
    setGoalWorktree(s.as(human), 'G1', 'main');
    const turn = startTurn(as('claude'), { goalId: 'G1', host: 'claude' });
    // The agent writes in its worktree and commits nothing (Claude Code under loopx's default command cannot).
    writeFileSync(join(turn.cwd, 'parse.ts'), 'export const parse = (s: string) => s.split(/:(.*)/);\n');
    writeFileSync(join(turn.cwd, 'headers.test.ts'), 'it splits once\n');
    addEvidence(as('claude'), { todoId: 'T1', summary: 'split on the first colon' });
    shipTodo(as('claude'), 'T1', { validation: 'ran the header cases' });
    finishTurn(as('claude'), turn.turn.id, 0);
    expect(getTodo(s.kernel.db, 'T1').status).toBe('in_review');
    startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' });
    const approved = await giveVerdict(as('codex'), 'T1', { verdict: 'approve', summary: 'splits once; the test covers it' });
    const branch = approved.committed?.branch ?? '';
    expect(approved.committed).toEqual({ commit: expect.stringMatching(/^[0-9a-f]{40}$/), branch: expect.stringMatching(/^loopx\/T1-/) });
    const inBranch = (...args: string[]) => execFileSync('git', args, { cwd: turn.cwd, encoding: 'utf8' });
    expect(inBranch('status', '--porcelain')).toBe('');
    expect(inBranch('log', '-1', '--format=%an|%s', branch).trim()).toBe('claude (via loopx)|T1: Parse headers');
    expect(inBranch('show', '--name-only', '--format=', branch).trim().split('\n').sort()).toEqual(['headers.test.ts', 'parse.ts']);
    // The person's merge takes the branch (it refused uncommitted files before); the workspace has the change.
    await mergeWorktree(s.as(human), 'T1', 'ff');
    expect(readFileSync(join(s.root, 'parse.ts'), 'utf8')).toContain('s.split(/:(.*)/)');
  });

  /** claude implements in its worktree with the goal's check run, codex reviews; returns the approval's landing. */
  async function approvedInWorktree(withCheck = true): Promise<AutoLanding | undefined> {
    const turn = startTurn(as('claude'), { goalId: 'G1', host: 'claude' });
    writeFileSync(join(turn.cwd, 'parse.ts'), 'export const parse = (s: string) => s.split(/:(.*)/);\n');
    if (withCheck) await runEvidence(as('claude'), { todoId: 'T1', check: true });
    else addEvidence(as('claude'), { todoId: 'T1', summary: 'split on the first colon' });
    shipTodo(as('claude'), 'T1', { validation: 'the check passes' });
    finishTurn(as('claude'), turn.turn.id, 0);
    startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' });
    return (await giveVerdict(as('codex'), 'T1', { verdict: 'approve', summary: 'splits once' })).landing;
  }

  test("lands on its own when a person let the goal's approved changes land and its check passed: the kernel's merge, naming that decision", async () => {
    git('branch', '-M', 'main');
    setGoalWorktree(s.as(human), 'G1', 'main');
    setGoalCheck(s.as(human), 'G1', 'test -f parse.ts');
    setGoalReview(s.as(human), 'G1', reviewPolicy({ reviewerHost: 'codex', autoLand: true }));
    const decision = Number(s.kernel.db.prepare(`SELECT max(seq) AS seq FROM events WHERE kind = 'goal.review_set'`).get()?.seq);
    if (teamEngineUnderTest()) {
      // A team store's database takes a landing from people's logins only: the change waits for a person there.
      expect(await approvedInWorktree()).toEqual({ landed: false, why: expect.stringContaining('in a team store a person lands') });
      return;
    }
    expect(await approvedInWorktree()).toEqual({ landed: true, commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(readFileSync(join(s.root, 'parse.ts'), 'utf8')).toContain('s.split(/:(.*)/)');
    const landed = s.kernel.db.prepare(`SELECT actor, actor_kind, data FROM events WHERE kind = 'worktree.landed'`).get();
    expect(landed).toMatchObject({ actor: 'kernel', actor_kind: 'kernel' });
    expect(JSON.parse(String(landed?.data))).toMatchObject({ how: 'merged', standing: decision });
  });

  test('waits for a person without a passing acceptance check, or when the setting is not a decision this key proves', async () => {
    git('branch', '-M', 'main');
    setGoalWorktree(s.as(human), 'G1', 'main');
    setGoalReview(s.as(human), 'G1', reviewPolicy({ reviewerHost: 'codex', autoLand: true }));
    const team = teamEngineUnderTest(); // a team store lands nothing on its own (the test above)
    expect(await approvedInWorktree(false)).toEqual({
      landed: false,
      why: expect.stringContaining(team ? 'team store' : 'no acceptance check'),
    });
    if (team) return;
    expect(execFileSync('git', ['log', '--format=%s', 'main'], { cwd: s.root, encoding: 'utf8' })).not.toContain('T1');
    // A second todo, its check set; the key that proved the setting is not this machine's any more.
    addTodo(s.kernel, { goalId: 'G1', title: 'Parse footers' });
    setTodoCheck(s.as(human), 'T2', 'true');
    const turn = startTurn(as('claude'), { goalId: 'G1', host: 'claude', todoId: 'T2' });
    writeFileSync(join(turn.cwd, 'footers.ts'), 'export const footers = 1;\n');
    await runEvidence(as('claude'), { todoId: 'T2', check: true });
    shipTodo(as('claude'), 'T2', { validation: 'checked' });
    finishTurn(as('claude'), turn.turn.id, 0);
    startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' });
    const keyDir = process.env.LOOPX_CONFIG_DIR;
    process.env.LOOPX_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'loopx-other-key-'));
    try {
      const result = await giveVerdict(as('codex'), 'T2', { verdict: 'approve', summary: 'fine' });
      expect(result.landing).toEqual({ landed: false, why: expect.stringContaining('loopx does not act on it') });
    } finally {
      process.env.LOOPX_CONFIG_DIR = keyDir;
    }
  });

  test('a change edited after its check passed does not land: loopx runs the check again on the approved commit', async () => {
    if (teamEngineUnderTest()) return; // a team store lands nothing on its own (above)
    git('branch', '-M', 'main');
    setGoalWorktree(s.as(human), 'G1', 'main');
    setGoalCheck(s.as(human), 'G1', 'grep -q split parse.ts');
    setGoalReview(s.as(human), 'G1', reviewPolicy({ reviewerHost: 'codex', autoLand: true }));
    const turn = startTurn(as('claude'), { goalId: 'G1', host: 'claude' });
    writeFileSync(join(turn.cwd, 'parse.ts'), 'export const parse = (s: string) => s.split(/:(.*)/);\n');
    await runEvidence(as('claude'), { todoId: 'T1', check: true });
    // Edited after the check passed, then shipped: the submission is this version, which the check would refuse.
    writeFileSync(join(turn.cwd, 'parse.ts'), 'export const parse = (s: string) => [s];\n');
    shipTodo(as('claude'), 'T1', { validation: 'the check passed' });
    finishTurn(as('claude'), turn.turn.id, 0);
    startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' });
    const { landing } = await giveVerdict(as('codex'), 'T1', { verdict: 'approve', summary: 'reads fine' });
    expect(landing).toEqual({ landed: false, why: expect.stringContaining('did not pass on the approved change') });
    expect(execFileSync('git', ['log', '--format=%s', 'main'], { cwd: s.root, encoding: 'utf8' }).trim()).toBe('start');
    const runs = s.kernel.db.prepare(`SELECT actor FROM events WHERE kind = 'evidence' AND todo_id = 'T1' ORDER BY seq`).all();
    expect(runs.map((r) => r.actor)).toEqual(['claude', 'kernel']);
  });

  test('an agent may ask for review of the goal it proposes, never for approved changes to land on their own', () => {
    expect(() => createGoal(as('claude'), { title: 'Mine', review: { reviewerHost: 'codex', autoLand: true } })).toThrow(
      expect.objectContaining({ code: 'not_allowed' }),
    );
    expect(createGoal(as('claude'), { title: 'Mine', review: { reviewerHost: 'codex' } }).review).toMatchObject({ reviewerHost: 'codex' });
  });

  test('a change that moved after its approval is not committed: the files wait for a person, who is told why', () => {
    git('branch', '-M', 'main');
    setGoalWorktree(s.as(human), 'G1', 'main');
    const turn = startTurn(as('claude'), { goalId: 'G1', host: 'claude' });
    writeFileSync(join(turn.cwd, 'parse.ts'), 'export const parse = (s: string) => s.trim();\n');
    addEvidence(as('claude'), { todoId: 'T1', summary: 'trims' });
    shipTodo(as('claude'), 'T1', { validation: 'by hand' });
    finishTurn(as('claude'), turn.turn.id, 0);
    startTurn(as('codex'), { goalId: 'G1', host: 'codex', role: 'review' });
    const scope = reviewRounds(s.kernel.db, 'T1')[0]?.scope;
    // The approval's scope is the submitted one; a write after it (simulated by committing against a moved scope).
    writeFileSync(join(turn.cwd, 'parse.ts'), 'export const parse = () => "moved";\n');
    const moved = commitApproved(s.kernel, 'T1', scope as ReviewScope, { title: 'Parse headers', implementer: 'claude', round: 1 });
    expect(moved).toMatchObject({ commit: null, why: expect.stringContaining('moved after it was approved') });
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: turn.cwd, encoding: 'utf8' })).toContain('parse.ts');
  });
});
