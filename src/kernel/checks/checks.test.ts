import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo, shipTodo } from '../todos/todos';
import { claimTodo, releaseTodo } from '../todos/claims';
import { addEvidence } from '../evidence/evidence';
import { quoteArgv, runEvidence } from '../evidence/evidenceRun';
import { setGoalCheck, setTodoCheck } from './checks';
import { startTurn } from '../turns/turns';
import { finishTurn } from '../turns/turnFinish';
import { listEvidence, turnEvidence } from '../evidence/evidenceQueries';
import { renderReviewPacket } from '../readModels/reviewPacket';
import { verifyChain } from '../events/verify';
import { checkReplay } from '../replay';
import { sha256 } from '../nodeCrypto';
import { getGoal } from '../goals/goalQueries';
import { getTodo } from '../todos/todoQueries';

let s: TestStore;
const codex = agent('codex');
let goalId: string;
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'Parser', check: 'test -f tests-pass' }).id;
});
afterEach(() => s.dispose());

const eventCount = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
const pass = () => writeFileSync(join(s.root, 'tests-pass'), '');
const run = (todoId: string, extra: Partial<Parameters<typeof runEvidence>[1]> = {}) =>
  runEvidence(s.as(codex), { todoId, check: true, ...extra });

describe("acceptance checks are a human's", () => {
  test('a human sets them on goals and todos and changes them later; an agent may not, and nothing changes', () => {
    expect(getGoal(s.kernel.db, goalId).check).toBe('test -f tests-pass');
    const t = addTodo(s.kernel, { goalId, title: 'headers', check: 'npm test -- headers' });
    expect(t.check).toBe('npm test -- headers');
    const before = eventCount();
    expect(() => createGoal(s.as(codex), { title: 'mine', check: 'true' })).toThrow(
      expect.objectContaining({ code: 'not_allowed', exitCode: 3 }),
    );
    expect(() => addTodo(s.as(codex), { goalId, title: 'mine', check: 'true' })).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    expect(() => setGoalCheck(s.as(codex), goalId, 'true')).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    expect(() => setTodoCheck(s.as(codex), t.id, null)).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    expect(() => setTodoCheck(s.kernel, t.id, '  ')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(eventCount()).toBe(before);
    // An agent may still add todos, without a check: the goal's applies.
    expect(addTodo(s.as(codex), { goalId, title: 'agent todo' }).check).toBeNull();
    expect(setTodoCheck(s.kernel, t.id, 'npm test').check).toBe('npm test');
    expect(setGoalCheck(s.kernel, goalId, null).check).toBeNull();
    expect(
      s.kernel.db
        .prepare(`SELECT kind FROM events WHERE kind LIKE '%.check_set' ORDER BY seq`)
        .all()
        .map((r) => r.kind),
    ).toEqual(['todo.check_set', 'goal.check_set']);
  });
});

describe('todo ship with an acceptance check', () => {
  test('is refused with check_required until the kernel ran the check, passing, after the last claim', async () => {
    const t = addTodo(s.kernel, { goalId, title: 'headers' }).id;
    claimTodo(s.as(codex), t);
    addEvidence(s.as(codex), { todoId: t, summary: 'all tests pass, trust me', kind: 'test' });
    const before = eventCount();
    expect(() => shipTodo(s.as(codex), t)).toThrow(
      expect.objectContaining({
        code: 'check_required',
        exitCode: 3,
        hint: expect.stringContaining(`loopx evidence run --todo ${t} --check`),
      }),
    );
    expect(eventCount()).toBe(before);
    // A failing run: check_failed, with the end of the output in the hint.
    const failed = await run(t);
    expect(failed.result.exitCode).toBe(1);
    expect(failed.evidence).toMatchObject({
      source: 'kernel',
      kind: 'test',
      actor: 'codex',
      run: { command: 'test -f tests-pass', shell: true, check: 'test -f tests-pass', exitCode: 1 },
    });
    expect(() => shipTodo(s.as(codex), t)).toThrow(
      expect.objectContaining({ code: 'check_failed', message: expect.stringContaining('exit 1') }),
    );
    // Something else the kernel ran is evidence, but not the check.
    await runEvidence(s.as(codex), { todoId: t, argv: ['true'] });
    expect(() => shipTodo(s.as(codex), t)).toThrow(expect.objectContaining({ code: 'check_failed' }));
    pass();
    await run(t);
    expect(shipTodo(s.as(codex), t).status).toBe('shipped');
  });

  test('a passing run before the current claim does not count', async () => {
    pass();
    const t = addTodo(s.kernel, { goalId, title: 'body' }).id;
    claimTodo(s.as(codex), t);
    await run(t);
    releaseTodo(s.as(codex), t, { note: 'later' });
    claimTodo(s.as(codex), t);
    expect(() => shipTodo(s.as(codex), t, { evidence: 'done' })).toThrow(expect.objectContaining({ code: 'check_required' }));
    await run(t);
    expect(shipTodo(s.as(codex), t).status).toBe('shipped');
  });

  test("the todo's own check wins over the goal's; the command must be that check to the letter", async () => {
    const t = addTodo(s.kernel, { goalId, title: 'own', check: 'echo "fine"' }).id;
    claimTodo(s.as(codex), t);
    await runEvidence(s.as(codex), { todoId: t, argv: ['echo', 'fine'] }); // `echo fine` is not `echo "fine"`
    expect(() => shipTodo(s.as(codex), t)).toThrow(
      expect.objectContaining({ code: 'check_required', message: expect.stringContaining('set on the todo') }),
    );
    await runEvidence(s.as(codex), { todoId: t, argv: ['echo "fine"'], shell: true });
    expect(shipTodo(s.as(codex), t).status).toBe('shipped');
    // Without any check, shipping needs evidence as before.
    setGoalCheck(s.kernel, goalId, null);
    const u = addTodo(s.kernel, { goalId, title: 'free' }).id;
    claimTodo(s.as(codex), u);
    expect(() => shipTodo(s.as(codex), u)).toThrow(expect.objectContaining({ code: 'evidence_required' }));
    expect(shipTodo(s.as(codex), u, { evidence: 'looked at it' }).status).toBe('shipped');
  });
});

describe('evidence run', () => {
  test("runs argv without a shell, from the workspace root, and records exit code, duration, tail and hash as the kernel's", async () => {
    const t = addTodo(s.kernel, { goalId, title: 't' }).id;
    const { evidence, result } = await runEvidence(s.as(codex), {
      todoId: t,
      argv: ['sh', '-c', 'pwd; echo "$LOOPX_TODO $LOOPX_GOAL"; echo a; exit 3'],
      kind: 'build',
    });
    expect(result.exitCode).toBe(3);
    expect(evidence).toMatchObject({ source: 'kernel', kind: 'build', todoId: t, summary: expect.stringContaining('exit 3') });
    expect(evidence.run?.outputTail).toBe(`${s.root}\n${t} ${goalId}\na\n`);
    expect(evidence.run?.outputSha256).toBe(sha256(`${s.root}\n${t} ${goalId}\na\n`));
    expect(evidence.run?.command).toBe(quoteArgv(['sh', '-c', 'pwd; echo "$LOOPX_TODO $LOOPX_GOAL"; echo a; exit 3']));
    // No shell: a semicolon is an argument, not a second command.
    const plain = await runEvidence(s.as(codex), { goalId, argv: ['echo', 'a;', 'touch', 'pwned'] });
    expect(plain.evidence.run?.outputTail).toBe('a; touch pwned\n');
    expect(plain.evidence.todoId).toBeNull();
    // Evidence an agent writes stays the agent's.
    expect(addEvidence(s.as(codex), { todoId: t, summary: 'I checked' }).source).toBe('agent');
    expect(listEvidence(s.kernel.db, { todoId: t }).map((e) => e.source)).toEqual(['agent', 'kernel']);
  });

  test('a command that is missing or runs past its limit is recorded as such', async () => {
    const missing = await runEvidence(s.as(codex), { goalId, argv: ['no-such-program-loopx'] });
    expect(missing.evidence.run).toMatchObject({ exitCode: null, error: 'command not found: no-such-program-loopx' });
    const slow = await runEvidence(s.as(codex), { goalId, argv: ['sleep', '30'], runLimitSeconds: 1 });
    expect(slow.evidence.run).toMatchObject({ exitCode: null, timedOut: true, error: expect.stringContaining('time limit') });
  });

  test('bad input is refused before anything runs', async () => {
    const before = eventCount();
    const t = addTodo(s.kernel, { goalId, title: 'x' }).id;
    const after = eventCount();
    expect(after).toBe(before + 1);
    for (const input of [
      { argv: ['true'] },
      { todoId: t, goalId, argv: ['true'] },
      { todoId: t, argv: [] },
      { todoId: t, argv: ['true'], kind: 'Not A Kind' },
      { todoId: t, check: true, argv: ['true'] },
      { todoId: t, argv: ['touch', 'ran'], runLimitSeconds: 0 },
    ]) {
      await expect(runEvidence(s.as(codex), input)).rejects.toMatchObject({ code: 'invalid_input' });
    }
    setGoalCheck(s.kernel, goalId, null);
    await expect(run(t)).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringContaining('no acceptance check') });
    await expect(runEvidence(s.as(codex), { todoId: 'T99', argv: ['touch', 'ran'] })).rejects.toMatchObject({ code: 'not_found' });
    claimTodo(s.as(agent('claude')), t);
    await expect(runEvidence(s.as(codex), { todoId: t, argv: ['touch', 'ran'] })).rejects.toMatchObject({ code: 'not_allowed' });
    expect(eventCount()).toBe(after + 2);
  });

  test('turn finish and the review packet tell kernel-verified evidence from claims', async () => {
    pass();
    addTodo(s.kernel, { goalId, title: 'headers' });
    const { turn } = startTurn(s.kernel, { goalId, host: 'codex' });
    addEvidence(s.as(codex), { todoId: 'T1', summary: 'wrote the parser', kind: 'note' });
    await run('T1');
    shipTodo(s.as(codex), 'T1');
    const finished = finishTurn(s.kernel, turn.id, 0);
    expect(finished.resultKind).toBe('validated_completion');
    expect(turnEvidence(s.kernel.db, finished)).toMatchObject({
      agent: 1,
      kernel: [{ command: 'test -f tests-pass', exitCode: 0, check: 'test -f tests-pass' }],
    });
    const packet = renderReviewPacket(s.kernel.db, s.clock.ms);
    expect(packet).toContain('Acceptance check: `test -f tests-pass`');
    expect(packet).toMatch(
      /\*\*kernel-verified:\*\* ran `test -f tests-pass`: exit 0 in [\d.]+ s \(acceptance check, asked by codex; output sha256 [0-9a-f]{12}…\)/,
    );
    expect(packet).toMatch(/note by codex \(the agent's word\): wrote the parser/);
    expect(packet).toMatch(
      /\| R1 \| T1 \| implement \| codex \| codex \| .* \| shipped its todo \| 0 \| yes \| unknown \| 1 kernel-verified, 1 claimed \|/,
    );
    expect(verifyChain(s.kernel.db).ok).toBe(true);
    expect(checkReplay(s.kernel.db).differences).toEqual([]);
    expect(getTodo(s.kernel.db, 'T1').status).toBe('shipped');
  });
});
