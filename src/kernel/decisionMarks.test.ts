import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { human, makeStore, type TestStore } from '../../test/support/testKit';
import { forgeEvent } from '../../test/support/forgeKit';
import { createGoal } from './goals/goals';
import { addTodo } from './todos/todos';
import { auditDecisions, requireStandingDecision } from './decisions';
import { humanKeyDir, readHumanKey } from './humanKey';
import { iso } from './time';
import { acceptBrokenLog } from './logDecisions';

/**
 * An audit checks only the people's events after the store's mark (decisionMarks.ts). Each test tells a marked audit
 * from a whole one by an event below the mark edited in place, its hash left as it was: the whole audit names it, a
 * marked audit does not look at it. That is the one thing a mark skips, on purpose; everything else is the same.
 */
let s: TestStore;
let goalId: string;
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'Deploy', turnsPerWindow: 10 }).id;
  for (let i = 0; i < 5; i++) addTodo(s.kernel, { goalId, title: `step ${i}` });
});
afterEach(() => s.dispose());

const marksDir = () => join(humanKeyDir(), 'proven');
const markFiles = () => readdirSync(marksDir()).filter((f) => f.endsWith('.json'));
const audit = () => auditDecisions(s.kernel.db);
/** A person's decision edited in place, without rewriting its hash: what a mark does not look at again. */
function editInPlace(seq: number): void {
  s.kernel.db.prepare(`UPDATE events SET data = replace(data, 'step', 'STEP') WHERE seq = ?`).run(seq);
}
const firstTodoAdded = () => Number(s.kernel.db.prepare(`SELECT min(seq) AS n FROM events WHERE kind = 'todo.added'`).get()?.n);

describe('a mark of proven decisions', () => {
  test('an audit leaves a mark through the head, made with the key; the next audit counts the same decisions', () => {
    expect(audit()).toMatchObject({ unproven: [], decisions: 6 });
    const [file] = markFiles();
    const mark = JSON.parse(readFileSync(join(marksDir(), file as string), 'utf8')) as Record<string, unknown>;
    const head = s.kernel.db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get();
    expect(mark).toMatchObject({
      through: Number(head?.seq),
      hash: String(head?.hash),
      decisions: 6,
      mac: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    addTodo(s.kernel, { goalId, title: 'one more' });
    expect(audit()).toMatchObject({ unproven: [], decisions: 7 });
    expect(auditDecisions(s.kernel.db, readHumanKey(), { whole: true })).toMatchObject({ unproven: [], decisions: 7 });
  });

  test('a marked audit checks only what came after: a forged decision appended later is named', () => {
    audit();
    const forged = forgeEvent(
      s.kernel.db,
      { kind: 'goal.status', goalId, todoId: null, data: { status: 'active', from: 'paused' } },
      { at: iso(s.clock.ms) },
    );
    editInPlace(firstTodoAdded());
    expect(audit().unproven.map((d) => d.seq)).toEqual([forged]); // the edit below the mark is not looked at again
    expect(auditDecisions(s.kernel.db, readHumanKey(), { whole: true }).unproven.map((d) => d.seq)).toEqual([firstTodoAdded(), forged]);
  });

  test('where loopx acts on a decision below the mark, that decision is checked again, alone, and refused when edited', () => {
    audit();
    const seq = firstTodoAdded();
    editInPlace(seq);
    expect(audit().unproven).toEqual([]);
    expect(() => requireStandingDecision(s.kernel.db, seq, 'a check')).toThrow(/its proof does not verify/);
  });

  test('a mark whose MAC is not made with this key is not used: the whole log is audited', () => {
    audit();
    const path = join(marksDir(), markFiles()[0] as string);
    const mark = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    editInPlace(firstTodoAdded());
    writeFileSync(path, JSON.stringify({ ...mark, mac: '0'.repeat(64) }));
    expect(audit().unproven.map((d) => d.seq)).toEqual([firstTodoAdded()]);
    // Nor a mark moved higher than it was made for (an agent cannot compute the MAC for any other figures).
    writeFileSync(path, JSON.stringify({ ...mark, through: Number(mark.through) + 1 }));
    expect(audit().unproven.map((d) => d.seq)).toEqual([firstTodoAdded()]);
  });

  test('a log that is not the marked log (the event at the mark has another hash) is audited whole', () => {
    audit();
    const head = Number(s.kernel.db.prepare('SELECT max(seq) AS n FROM events').get()?.n);
    editInPlace(firstTodoAdded());
    s.kernel.db.prepare(`UPDATE events SET hash = ? WHERE seq = ?`).run('f'.repeat(64), head); // the chain rewritten
    expect(audit().unproven.map((d) => d.seq)).toEqual([firstTodoAdded()]);
  });

  test('the mark stops before the first decision that is not proven; a person accepting it works as in a whole audit', () => {
    const forged = forgeEvent(
      s.kernel.db,
      { kind: 'goal.status', goalId, todoId: null, data: { status: 'active', from: 'paused' } },
      { at: iso(s.clock.ms) },
    );
    expect(audit().unproven.map((d) => d.seq)).toEqual([forged]);
    const mark = JSON.parse(readFileSync(join(marksDir(), markFiles()[0] as string), 'utf8')) as { through: number; decisions: number };
    expect(mark).toMatchObject({ through: forged - 1, decisions: 6 });
    expect(audit().unproven.map((d) => d.seq)).toEqual([forged]); // asked again from the mark: still named
    acceptBrokenLog(s.as(human));
    expect(audit()).toMatchObject({ unproven: [], decisions: 8 }); // 6, the forged one, the acceptance
    expect(auditDecisions(s.kernel.db, readHumanKey(), { whole: true })).toMatchObject({ unproven: [], decisions: 8 });
  });
});
