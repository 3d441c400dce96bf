import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, bareHuman, human, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { reviewPolicy, setGoalReview } from '../goals/goalReview';
import { getGoal } from '../goals/goalQueries';
import { addEvidence } from '../evidence/evidence';
import { getGate } from '../gates/gateQueries';
import { checkReplay } from '../replay';
import { auditDecisions } from '../decisions';
import { addTodo, killTodo, shipTodo } from './todos';
import { claimTodo } from './claims';
import { getTodo, getTodoCore, readiness } from './todoQueries';
import { claimReviewInTx } from './review';
import { recordVerdict } from './verdicts';
import { reviewRounds, reviewableIds } from './reviewQueries';

let s: TestStore;
const claude = () => s.as(agent('claude'));
const codex = () => s.as(agent('codex'));
const eventCount = () => Number(s.kernel.db.prepare('SELECT COUNT(*) AS n FROM events').get()?.n);
const todo = () => getTodo(s.kernel.db, 'T1');

/** The implementer's work: claim, record what it did, ship. */
function implement(summary = 'parser written; npm test passes'): void {
  claimTodo(claude(), 'T1');
  addEvidence(claude(), { todoId: 'T1', summary });
  shipTodo(claude(), 'T1', { validation: 'ran npm test: 12 passed' });
}

/** A review claim as a review turn takes it (turns.ts), for `name` on `host`. */
function takeReview(name: string, host: string | null): void {
  s.as(agent(name)).write((tx) => claimReviewInTx(tx, 'T1', agent(name), host, 600));
}

beforeEach(() => {
  s = makeStore();
  createGoal(s.kernel, { title: 'Ship the parser', turnsPerWindow: 20, maxConcurrent: 2 });
  addTodo(s.kernel, { goalId: 'G1', title: 'Parse headers' });
});
afterEach(() => s.dispose());

describe("a goal's review, a person's setting", () => {
  test('off by default: an agent ships straight to shipped as before', () => {
    expect(getGoal(s.kernel.db, 'G1').review).toBeNull();
    implement();
    expect(todo().status).toBe('shipped');
    expect(reviewRounds(s.kernel.db, 'T1')).toEqual([]);
  });

  test('a person sets, changes and turns it off; an agent, or a person without a channel, may do none of it', () => {
    const policy = reviewPolicy({ reviewerHost: 'codex', maxRounds: 2 });
    expect(policy).toEqual({ reviewerHost: 'codex', reviewerAgent: null, otherHost: true, maxRounds: 2, blocking: ['P0', 'P1', 'P2'] });
    expect(setGoalReview(s.kernel, 'G1', policy).review).toEqual(policy);
    const before = eventCount();
    for (const actor of [agent('claude'), bareHuman]) {
      expect(() => setGoalReview(s.as(actor), 'G1', null)).toThrow(
        expect.objectContaining({ code: expect.stringMatching(/human|not_allowed/) }),
      );
      expect(() => setGoalReview(s.as(actor), 'G1', { ...policy, maxRounds: 9 })).toThrow();
    }
    expect(eventCount()).toBe(before);
    expect(getGoal(s.kernel.db, 'G1').review).toEqual(policy);
    expect(setGoalReview(s.kernel, 'G1', null).review).toBeNull();
    expect(auditDecisions(s.kernel.db).unproven).toEqual([]);
  });

  test('an agent proposing a goal may ask for review in it, and may not turn it off afterwards', () => {
    const proposed = createGoal(s.as(agent('claude')), { title: 'Proposed', review: { reviewerHost: 'codex' } });
    expect(proposed).toMatchObject({ status: 'paused', review: { reviewerHost: 'codex', otherHost: true, maxRounds: 3 } });
    expect(() => setGoalReview(s.as(agent('claude')), proposed.id, null)).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/human|not_allowed/) }),
    );
    expect(getGoal(s.kernel.db, proposed.id).review).toMatchObject({ reviewerHost: 'codex' });
    expect(checkReplay(s.kernel.db).ok).toBe(true);
  });

  test('bad settings are refused in words', () => {
    expect(() => reviewPolicy({ maxRounds: 0 })).toThrow(/1 to 10/);
    expect(() => reviewPolicy({ maxRounds: 11 })).toThrow(/1 to 10/);
    expect(() => reviewPolicy({ blocking: ['P5'] })).toThrow(/not a severity/);
    expect(() => reviewPolicy({ reviewerHost: 'Codex CLI' })).toThrow(/host's name/);
    expect(reviewPolicy({}).otherHost).toBe(false);
  });
});

describe('a change under review', () => {
  beforeEach(() => setGoalReview(s.kernel, 'G1', reviewPolicy({ maxRounds: 2 })));

  test("the implementer's ship submits it: in review, round 1, the implementer and its claimed validation recorded", () => {
    implement();
    const t = todo();
    expect(t).toMatchObject({ status: 'in_review', owner: null, implementer: 'claude', reviewRound: 1 });
    expect(reviewRounds(s.kernel.db, 'T1')).toMatchObject([
      { round: 1, implementer: 'claude', validation: 'ran npm test: 12 passed', verdict: null },
    ]);
    expect(reviewableIds(s.kernel.db, 'G1', s.kernel.db ? new Date(s.clock.ms).toISOString() : '', 'codex')).toEqual(['T1']);
    expect(reviewableIds(s.kernel.db, 'G1', new Date(s.clock.ms).toISOString(), 'claude')).toEqual([]);
  });

  test('a todo in review is no todo to claim: readiness says why, a claim is refused, another agent may not kill it under review', () => {
    implement();
    const at = new Date(s.clock.ms).toISOString();
    expect(readiness(s.kernel.db, getTodoCore(s.kernel.db, 'T1'), at)).toMatchObject({ ready: false, why: 'in_review' });
    expect(() => claimTodo(codex(), 'T1')).toThrow(/its change is in review/);
    takeReview('codex', 'codex');
    expect(() => killTodo(s.as(agent('gemini')), 'T1', 'not needed')).toThrow(/claimed by codex|may not kill/);
    expect(todo().status).toBe('in_review');
  });

  test('the implementer may not claim, approve or judge its own change; nothing changes', () => {
    implement();
    const before = eventCount();
    expect(() => takeReview('claude', 'claude')).toThrow(/may not review its own change/);
    expect(() => recordVerdict(claude(), 'T1', { verdict: 'approve', summary: 'fine' })).toThrow(/may not judge its own change/);
    expect(eventCount()).toBe(before);
    expect(todo().status).toBe('in_review');
  });

  test('a verdict needs the live review claim: another agent that did not claim it is refused', () => {
    implement();
    expect(() => recordVerdict(codex(), 'T1', { verdict: 'approve', summary: 'fine' })).toThrow(/does not hold todo T1's review/);
    takeReview('codex', 'codex');
    expect(() => takeReview('gemini', 'gemini')).toThrow(/being reviewed by codex/);
    s.clock.advance(601);
    expect(() => recordVerdict(codex(), 'T1', { verdict: 'approve', summary: 'fine' })).toThrow(/does not hold/);
    takeReview('gemini', 'gemini'); // the lapsed review lease is anyone's (but the implementer's)
    expect(todo().owner).toBe('gemini');
  });

  test('changes asked: back to work with the comments as continuation; the next ship is round 2; approval ships it', () => {
    implement();
    takeReview('codex', 'codex');
    const findings = [
      { severity: 'P1', confidence: 0.9, file: 'src/parse.ts', line: 12, title: 'Headers are not folded', body: 'RFC 7230' },
    ];
    const asked = recordVerdict(codex(), 'T1', { verdict: 'request_changes', summary: 'one bug', findings });
    expect(asked.outcome).toBe('changes_requested');
    expect(todo()).toMatchObject({ status: 'open', owner: null, implementer: 'claude' });
    expect(todo().continuation).toMatch(
      /Review by codex asked for changes: one bug\n- P1 Headers are not folded \(src\/parse.ts:12\): RFC 7230/,
    );
    implement('folded headers');
    expect(todo()).toMatchObject({ status: 'in_review', reviewRound: 2 });
    takeReview('codex', 'codex');
    // An approval with a finding the goal blocks at is refused: ask for changes instead.
    expect(() => recordVerdict(codex(), 'T1', { verdict: 'approve', summary: 'ok', findings })).toThrow(/blocking finding/);
    const nit = [{ severity: 'P3', title: 'Name could be clearer' }];
    expect(recordVerdict(codex(), 'T1', { verdict: 'approve', summary: 'good now', findings: nit }).outcome).toBe('approved');
    expect(todo().status).toBe('shipped');
    expect(reviewRounds(s.kernel.db, 'T1')).toMatchObject([
      { round: 1, reviewer: 'codex', verdict: 'request_changes', findings: [{ severity: 'P1', line: 12 }] },
      { round: 2, reviewer: 'codex', verdict: 'approve', findings: [{ severity: 'P3', confidence: 1, file: null }] },
    ]);
    expect(checkReplay(s.kernel.db).ok).toBe(true);
  });

  test('could not review is never an approval: the todo stays in review for another look', () => {
    implement();
    takeReview('codex', 'codex');
    expect(recordVerdict(codex(), 'T1', { verdict: 'could_not_review', summary: 'the test suite would not start' }).outcome).toBe(
      'not_reviewed',
    );
    expect(todo()).toMatchObject({ status: 'in_review', owner: null });
    expect(reviewRounds(s.kernel.db, 'T1')[0]).toMatchObject({ verdict: 'could_not_review', summary: 'the test suite would not start' });
    takeReview('gemini', null);
    expect(todo().owner).toBe('gemini');
  });

  test('past the rounds, asking for changes becomes a gate with both sides; a person decides and the review ends', () => {
    for (let round = 1; round <= 2; round++) {
      implement(`attempt ${round}`);
      takeReview('codex', 'codex');
      const result = recordVerdict(codex(), 'T1', { verdict: 'request_changes', summary: `still wrong ${round}` });
      expect(result.outcome).toBe(round === 2 ? 'escalated' : 'changes_requested');
      if (round === 2) {
        expect(todo()).toMatchObject({ status: 'in_review', owner: null });
        const gate = getGate(s.kernel.db, result.gateId as string);
        expect(gate).toMatchObject({ status: 'pending', askedBy: 'kernel' });
        expect(gate.question).toMatch(
          /ran 2 round\(s\)[\s\S]*implementer \(claude\) says it checked: ran npm test[\s\S]*reviewer \(codex\) asks for changes: still wrong 2/,
        );
        // Nobody reviews it again while a person decides.
        expect(() => takeReview('gemini', 'gemini')).toThrow(/gate/);
        // A person's verdict decides it, recorded as theirs.
        const decided = recordVerdict(s.kernel, 'T1', { verdict: 'approve', summary: 'good enough; the rest is a follow-up' });
        expect(decided.outcome).toBe('approved');
        expect(getGate(s.kernel.db, gate.id)).toMatchObject({ status: 'approved', decidedBy: 'ada' });
      }
    }
    expect(todo().status).toBe('shipped');
    expect(reviewRounds(s.kernel.db, 'T1').at(-1)).toMatchObject({ verdict: 'approve', byPerson: true });
    expect(auditDecisions(s.kernel.db).unproven).toEqual([]);
    expect(checkReplay(s.kernel.db).ok).toBe(true);
  });

  test("a person's verdict needs a channel: a bare 'person' (an agent that unset its name) is refused", () => {
    implement();
    expect(() => recordVerdict(s.as(bareHuman), 'T1', { verdict: 'approve', summary: 'fine' })).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/human|not_allowed/) }),
    );
    expect(recordVerdict(s.as(human), 'T1', { verdict: 'request_changes', summary: 'rename it' }).outcome).toBe('changes_requested');
  });

  test('findings are checked one by one, and a bad one changes nothing', () => {
    implement();
    takeReview('codex', 'codex');
    const before = eventCount();
    const bad: [unknown, RegExp][] = [
      [{ severity: 'P9', title: 'x' }, /finding 1: severity/],
      [{ severity: 'P1', title: '' }, /title/],
      [{ severity: 'P1', title: 'x', confidence: 2 }, /confidence/],
      [{ severity: 'P1', title: 'x', line: 0 }, /line/],
      ['P1', /not an object/],
    ];
    for (const [finding, words] of bad)
      expect(() => recordVerdict(codex(), 'T1', { verdict: 'request_changes', summary: 's', findings: [finding] })).toThrow(words);
    expect(() => recordVerdict(codex(), 'T1', { verdict: 'looks_good' as never, summary: 's' })).toThrow(/one of approve/);
    expect(eventCount()).toBe(before);
  });
});

describe('a todo that asks for review itself', () => {
  test('its change is reviewed though its goal asks for none, by the defaults; its next occurrence asks too', () => {
    addTodo(s.kernel, { goalId: 'G1', title: 'Rotate the keys', review: true, recurrence: { every: 86_400 } });
    claimTodo(claude(), 'T2');
    addEvidence(claude(), { todoId: 'T2', summary: 'rotated' });
    expect(shipTodo(claude(), 'T2').status).toBe('in_review');
    s.as(agent('codex')).write((tx) => claimReviewInTx(tx, 'T2', agent('codex'), 'codex', 600));
    const blocking = [{ severity: 'P2', title: 'Old key still valid' }];
    expect(() => recordVerdict(codex(), 'T2', { verdict: 'approve', summary: 'ok', findings: blocking })).toThrow(/blocks at P0, P1, P2/);
    expect(recordVerdict(codex(), 'T2', { verdict: 'approve', summary: 'rotated and revoked' }).outcome).toBe('approved');
    expect(getTodo(s.kernel.db, 'T3')).toMatchObject({ review: true, previousId: 'T2' });
    // Its siblings without the flag ship as the goal says: at once.
    implement();
    expect(todo().status).toBe('shipped');
  });
});

describe('who reviews, by the goal', () => {
  test('a named host reviews; another host than the implementer when asked; a named agent only', () => {
    setGoalReview(s.kernel, 'G1', reviewPolicy({ reviewerHost: 'codex' }));
    implement();
    s.kernel.db.prepare(`UPDATE reviews SET implementer_host = 'claude'`).run(); // as a claude turn submits it
    expect(() => takeReview('gemini', 'gemini')).toThrow(/reviewed by an agent on codex, not gemini on gemini/);
    takeReview('codex-2', 'codex');
    expect(todo().owner).toBe('codex-2');
  });

  test('otherHost refuses a reviewer on the implementer host; reviewerAgent names the one reviewer', () => {
    setGoalReview(s.kernel, 'G1', reviewPolicy({ otherHost: true }));
    implement();
    s.kernel.db.prepare(`UPDATE reviews SET implementer_host = 'claude'`).run();
    expect(() => takeReview('claude-2', 'claude')).toThrow(/another host than the implementer's/);
    setGoalReview(s.kernel, 'G1', reviewPolicy({ reviewerAgent: 'lead-bot' }));
    expect(() => takeReview('codex', 'codex')).toThrow(/reviewed by agent lead-bot, not codex on codex/);
    takeReview('lead-bot', null);
    expect(todo().owner).toBe('lead-bot');
  });
});
