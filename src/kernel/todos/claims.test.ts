import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, human, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal, setGoalStatus } from '../goals/goals';
import { addTodo, blockTodo, killTodo, unblockTodo, shipTodo } from './todos';
import { claimNext, claimTodo, releaseTodo, renewTodo } from './claims';
import { addEvidence } from '../evidence/evidence';
import { askGate, decideGate } from '../gates/gates';
import { nextClaimable, getTodo } from './todoQueries';
import { iso } from '../time';

let s: TestStore;
const codex = agent('codex');
const claude = agent('claude');
let goalId: string;

beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'Goal' }).id;
});
afterEach(() => s.dispose());

const eventCount = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
const add = (title: string, extra: { priority?: number; dependsOn?: string[] } = {}) => addTodo(s.kernel, { goalId, title, ...extra }).id;

describe('claiming', () => {
  test('claim --next takes the highest priority, then the oldest', () => {
    add('low', { priority: 3 });
    const urgent1 = add('urgent 1', { priority: 0 });
    add('urgent 2', { priority: 0 });
    const claim = claimNext(s.as(codex));
    expect(claim.todo.id).toBe(urgent1);
    expect(claim.todo).toMatchObject({ status: 'claimed', owner: 'codex', leaseExpiresAt: iso(s.clock.ms + 30 * 60_000) });
  });

  test('claim --next weighs a lapsed claim and the open todos alike: priority first, then the oldest', () => {
    const older = add('older, normal', { priority: 2 });
    const urgent = add('urgent', { priority: 0 });
    const newer = add('newer, normal', { priority: 2 });
    claimTodo(s.as(codex), older, { leaseSeconds: 60 });
    claimTodo(s.as(codex), urgent, { leaseSeconds: 60 });
    s.clock.advance(61); // both leases lapse: the urgent one comes before any open todo, the older before the newer
    const other = createGoal(s.kernel, { title: 'Other' }).id;
    addTodo(s.kernel, { goalId: other, title: 'elsewhere', priority: 0 });
    expect(nextClaimable(s.kernel.db, iso(s.clock.ms), goalId)?.id).toBe(urgent);
    expect(claimNext(s.as(claude), { goalId }).todo.id).toBe(urgent);
    expect(claimNext(s.as(claude), { goalId }).todo.id).toBe(older);
    expect(claimNext(s.as(claude), { goalId }).todo.id).toBe(newer);
    expect(nextClaimable(s.kernel.db, iso(s.clock.ms), goalId)).toBeNull();
    expect(nextClaimable(s.kernel.db, iso(s.clock.ms))?.title).toBe('elsewhere');
  });

  test('a todo claimed by another agent is refused until its lease lapses, then reclaimable', () => {
    const t = add('x');
    claimTodo(s.as(codex), t, { leaseSeconds: 60 });
    expect(() => claimTodo(s.as(claude), t)).toThrow(expect.objectContaining({ code: 'already_claimed', exitCode: 3 }));
    s.clock.advance(59);
    expect(() => claimTodo(s.as(claude), t)).toThrow(expect.objectContaining({ code: 'already_claimed' }));
    s.clock.advance(1);
    const claim = claimTodo(s.as(claude), t);
    expect(claim.todo.owner).toBe('claude');
    const last = s.kernel.db.prepare(`SELECT data FROM events ORDER BY seq DESC LIMIT 1`).get();
    expect(JSON.parse(String(last?.data)).previousOwner).toBe('codex');
  });

  test("the old holder's late writes are refused after its lease lapsed and was taken over", () => {
    const t = add('x');
    claimTodo(s.as(codex), t, { leaseSeconds: 60 });
    addEvidence(s.as(codex), { todoId: t, summary: 'half done' });
    s.clock.advance(61);
    claimTodo(s.as(claude), t);
    const before = eventCount();
    for (const write of [
      () => renewTodo(s.as(codex), t),
      () => releaseTodo(s.as(codex), t),
      () => shipTodo(s.as(codex), t, { evidence: 'done' }),
      () => blockTodo(s.as(codex), t, 'stuck'),
      () => addEvidence(s.as(codex), { todoId: t, summary: 'late' }),
    ]) {
      expect(write).toThrow(expect.objectContaining({ exitCode: 3 }));
    }
    expect(eventCount()).toBe(before);
    expect(getTodo(s.kernel.db, t).owner).toBe('claude');
  });

  test('a lapsed lease refuses its holder too, even when nobody took it', () => {
    const t = add('x');
    claimTodo(s.as(codex), t, { leaseSeconds: 10 });
    s.clock.advance(10);
    expect(() => shipTodo(s.as(codex), t, { evidence: 'done' })).toThrow(expect.objectContaining({ code: 'lease_lost' }));
    expect(() => renewTodo(s.as(codex), t)).toThrow(expect.objectContaining({ code: 'lease_lost' }));
  });

  test('claiming a todo you hold extends the lease instead of failing', () => {
    const t = add('x');
    claimTodo(s.as(codex), t, { leaseSeconds: 60 });
    s.clock.advance(30);
    const again = claimTodo(s.as(codex), t, { leaseSeconds: 60 });
    expect(again.renewed).toBe(true);
    expect(again.todo.leaseExpiresAt).toBe(iso(s.clock.ms + 60_000));
  });

  test('the lease token fences in-process writers', () => {
    const t = add('x');
    const first = claimTodo(s.as(codex), t, { leaseSeconds: 60 });
    s.clock.advance(61);
    claimTodo(s.as(codex), t, { leaseSeconds: 60 }); // a second claim by the same name gets a new token
    expect(() => renewTodo(s.as(codex), t, { leaseToken: first.leaseToken })).toThrow(expect.objectContaining({ code: 'lease_lost' }));
  });

  test('dependencies, pending gates, blocked status and inactive goals make a todo not ready', () => {
    const dep = add('first');
    const after = add('second', { dependsOn: [dep] });
    expect(() => claimTodo(s.as(codex), after)).toThrow(
      expect.objectContaining({ code: 'not_ready', message: expect.stringContaining(dep) }),
    );
    const gated = add('gated');
    const gate = askGate(s.as(codex), { todoId: gated, question: 'ok?' });
    expect(() => claimTodo(s.as(codex), gated)).toThrow(expect.objectContaining({ code: 'gate_pending' }));
    decideGate(s.kernel, gate.id, 'approved');
    expect(claimTodo(s.as(codex), gated).todo.status).toBe('claimed');
    setGoalStatus(s.kernel, goalId, 'paused');
    expect(() => claimTodo(s.as(claude), dep)).toThrow(
      expect.objectContaining({ code: 'not_ready', message: expect.stringContaining('paused') }),
    );
    expect(() => claimNext(s.as(claude))).toThrow(expect.objectContaining({ code: 'no_ready_work' }));
  });

  test('a todo becomes ready when its dependency ships', () => {
    const dep = add('first');
    const after = add('second', { dependsOn: [dep] });
    claimTodo(s.as(codex), dep);
    expect(nextClaimable(s.kernel.db, iso(s.clock.ms))).toBeNull();
    shipTodo(s.as(codex), dep, { evidence: 'done' });
    expect(nextClaimable(s.kernel.db, iso(s.clock.ms))?.id).toBe(after);
  });

  test('claiming requires an identity', () => {
    const t = add('x');
    expect(() => claimTodo(s.kernel.as({ name: 'kernel', kind: 'kernel' }), t)).toThrow(expect.objectContaining({ code: 'not_allowed' }));
  });

  test('lease lengths outside 10s..24h are invalid input', () => {
    const t = add('x');
    expect(() => claimTodo(s.as(codex), t, { leaseSeconds: 5 })).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => claimTodo(s.as(codex), t, { leaseSeconds: 25 * 3600 })).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('shipping', () => {
  test('is refused without evidence and allowed with evidence recorded earlier or given at ship', () => {
    const a = add('a');
    const b = add('b');
    claimTodo(s.as(codex), a);
    const before = eventCount();
    expect(() => shipTodo(s.as(codex), a)).toThrow(expect.objectContaining({ code: 'evidence_required', exitCode: 3 }));
    expect(eventCount()).toBe(before);
    addEvidence(s.as(codex), { todoId: a, summary: 'tests pass', kind: 'test' });
    expect(shipTodo(s.as(codex), a).status).toBe('shipped');
    claimTodo(s.as(codex), b);
    const shipped = shipTodo(s.as(codex), b, { evidence: 'reviewed' });
    expect(shipped).toMatchObject({ status: 'shipped', owner: null, leaseExpiresAt: null, evidenceCount: 1 });
  });

  test('is refused while a gate on the todo is pending, and ships after approval', () => {
    const t = add('x');
    claimTodo(s.as(codex), t);
    const gate = askGate(s.as(codex), { todoId: t, question: 'deploy?' });
    expect(() => shipTodo(s.as(codex), t, { evidence: 'done' })).toThrow(expect.objectContaining({ code: 'gate_pending' }));
    decideGate(s.kernel, gate.id, 'approved', 'go');
    expect(shipTodo(s.as(codex), t, { evidence: 'done' }).status).toBe('shipped');
  });

  test('shipped and killed are terminal', () => {
    const t = add('x');
    claimTodo(s.as(codex), t);
    shipTodo(s.as(codex), t, { evidence: 'done' });
    expect(() => claimTodo(s.as(codex), t)).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
    expect(() => killTodo(s.kernel, t, 'no')).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
    expect(() => blockTodo(s.kernel, t, 'no')).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
  });
});

describe('release, block, unblock, kill', () => {
  test('release reopens with the note as continuation; revision counts every change', () => {
    const t = add('x');
    claimTodo(s.as(codex), t);
    const released = releaseTodo(s.as(codex), t, { note: 'parser done; wire it next' });
    expect(released).toMatchObject({ status: 'open', owner: null, continuation: 'parser done; wire it next', revision: 3 });
  });

  test('an agent cannot release or kill a claim it does not hold; a human can override', () => {
    const t = add('x');
    claimTodo(s.as(codex), t);
    expect(() => releaseTodo(s.as(claude), t)).toThrow(expect.objectContaining({ code: 'lease_lost' }));
    expect(() => killTodo(s.as(claude), t, 'dup')).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    expect(releaseTodo(s.kernel, t).status).toBe('open');
    expect(s.kernel.actor).toEqual(human);
  });

  test('block needs the lease for agents and records the reason; unblock reopens', () => {
    const t = add('x');
    expect(() => blockTodo(s.as(codex), t, 'stuck')).toThrow(expect.objectContaining({ code: 'lease_lost' }));
    claimTodo(s.as(codex), t);
    const blocked = blockTodo(s.as(codex), t, 'needs API key');
    expect(blocked).toMatchObject({ status: 'blocked', reason: 'needs API key', owner: null });
    expect(() => claimTodo(s.as(claude), t)).toThrow(expect.objectContaining({ code: 'not_ready' }));
    expect(unblockTodo(s.kernel, t, 'key added')).toMatchObject({ status: 'open', reason: null, continuation: 'key added' });
    expect(() => unblockTodo(s.kernel, t)).toThrow(expect.objectContaining({ code: 'illegal_transition' }));
  });

  test('kill cancels pending gates on the todo', () => {
    const t = add('x');
    const gate = askGate(s.as(codex), { todoId: t, question: 'really?' });
    killTodo(s.kernel, t, 'duplicate of T9');
    const row = s.kernel.db.prepare('SELECT status, decided_by FROM gates WHERE id = ?').get(gate.id);
    expect(row).toEqual({ status: 'cancelled', decided_by: 'ada' });
  });
});

describe('input validation changes nothing', () => {
  test('bad titles, priorities, unknown dependencies and goals', () => {
    const before = eventCount();
    expect(() => addTodo(s.kernel, { goalId, title: '   ' })).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => addTodo(s.kernel, { goalId, title: 'a\u001b[31mred' })).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => addTodo(s.kernel, { goalId, title: 'line\nbreak' })).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => addTodo(s.kernel, { goalId, title: 'x'.repeat(201) })).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => addTodo(s.kernel, { goalId, title: 'ok', priority: 4 })).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => addTodo(s.kernel, { goalId, title: 'ok', dependsOn: ['T99'] })).toThrow(expect.objectContaining({ exitCode: 4 }));
    expect(() => addTodo(s.kernel, { goalId: 'G9', title: 'ok' })).toThrow(expect.objectContaining({ exitCode: 4 }));
    expect(eventCount()).toBe(before);
  });

  test('hostile but printable text is stored verbatim', () => {
    const title = `'; DROP TABLE todos; -- <script>alert(1)</script> $(rm -rf /) \`id\` 🚀`;
    const t = addTodo(s.kernel, { goalId, title });
    expect(getTodo(s.kernel.db, t.id).title).toBe(title);
  });
});
