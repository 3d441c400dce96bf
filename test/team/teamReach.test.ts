import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { listGoals } from '../../src/kernel/goals/goalQueries';
import { openTeamKernel } from '../../src/kernel/team/teamStore';
import { TeamReach } from '../../src/extension/store/teamReach';
import { readBoard } from '../../src/extension/board/boardRead';
import { addTodo } from '../../src/kernel/todos/todos';
import { describeError } from '../../src/runtime/describeError';
import { human } from '../support/testKit';
import { POSTGRES_MISSING } from '../support/postgres';
import { install, machine, newTeamStore, until, useCluster } from './teamKit';

// What a VS Code window does with a team store whose server stops answering (issue 25, item 6), at the store-model
// level: the read model's reads go through TeamReach, against a real server stopped and started again.

const work = mkdtempSync(join(tmpdir(), 'loopx-reach-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

if (!install) test.skip(POSTGRES_MISSING, () => {});

const fixture = useCluster();

describe.skipIf(!install)('a window whose team store cannot be reached', () => {
  test('says so with the store named, shows the last state only when asked, refuses a change in words, and recovers by itself', async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    const { kernel } = openTeamKernel(work, {
      replicaPath: join(work, '.loopx', 'loopx.db'),
      connection: { connectionString: ownerUrl },
      actor: human,
    });
    let changes = 0;
    const reach = new TeamReach(
      () => kernel,
      () => changes++,
      200,
    );
    const titles = () => reach.read((db) => listGoals(db).map((g) => g.title), ['(nothing shown)']);
    try {
      const goal = createGoal(kernel, { title: 'before the outage' });
      expect(titles()).toEqual(['before the outage']);
      expect(reach.unreachable).toBeUndefined();

      await fixture.cluster.crash();
      // A read finds the server gone: the views show the sentence (and Retry, Show the Last State), not stale rows.
      expect(titles()).toEqual(['(nothing shown)']);
      const where = `127.0.0.1:${fixture.cluster.port}/${name}`;
      expect(reach.unreachable).toMatchObject({ where, lastState: false });
      expect(reach.sentence()).toMatch(
        new RegExp(`^The team store at ${where.replace(/\./g, '\\.')} cannot be reached\\. Nothing is lost`),
      );
      expect(reach.sentence()).not.toMatch(/team_unreachable|ECONN/);
      expect(changes).toBe(1);
      expect(reach.retry()).toBe(false);

      // The person chooses to see the last state: the replica as it was, marked as possibly out of date.
      reach.showLastState();
      expect(titles()).toEqual(['before the outage']);
      expect(reach.sentence()).toMatch(/Showing the last state this window saw, which may be out of date; changes are refused/);

      // A change the person attempts meanwhile is refused, in words, with nothing recorded (not dropped silently).
      let refused: unknown;
      try {
        setGoalStatus(kernel, goal.id, 'paused');
      } catch (error) {
        refused = error;
      }
      const said = describeError(refused, 'person');
      expect(said.body.code).toBe('team_unreachable');
      expect(said.body.message).toBe(
        `The team store at ${where} cannot be reached. Nothing was changed and nothing is lost; try again once it is back.`,
      );
      reach.noteFailure(refused);
      expect(titles()).toEqual(['before the outage']);
      expect(kernel.engine.db.prepare('SELECT status FROM goals WHERE id = ?').get(goal.id)?.status).toBe('active');

      // The server comes back and someone else changes the store: the window recovers on its next tick, unasked.
      await fixture.cluster.restart();
      const away = machine(ownerUrl, human);
      try {
        createGoal(away.kernel, { title: 'while you were away' });
      } finally {
        away.kernel.close();
      }
      await until('the window to recover by itself', () => reach.unreachable === undefined, 20_000, 20);
      expect(titles()).toEqual(['before the outage', 'while you were away']);
      expect(setGoalStatus(kernel, goal.id, 'paused').status).toBe('paused');
    } finally {
      reach.dispose();
      kernel.close();
    }
  });
  test('a window opened while the server is down says so and shows the last state on request, from the replica it kept', async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    const folder = mkdtempSync(join(work, 'reopen-'));
    const open = () =>
      openTeamKernel(folder, {
        replicaPath: join(folder, '.loopx', 'loopx.db'),
        connection: { connectionString: ownerUrl },
        actor: human,
      }).kernel;
    const before = open();
    createGoal(before, { title: 'seen yesterday' });
    before.close();

    await fixture.cluster.crash();
    try {
      // Opening needs nothing of the server when the replica has history (it used to fail with team_unreachable).
      const kernel = open();
      const reach = new TeamReach(
        () => kernel,
        () => {},
        200,
      );
      try {
        const titles = () => reach.read((db) => listGoals(db).map((g) => g.title), ['(nothing shown)']);
        expect(titles()).toEqual(['(nothing shown)']);
        expect(reach.sentence()).toMatch(
          new RegExp(`^The team store at 127\\.0\\.0\\.1:${fixture.cluster.port}/${name} cannot be reached`),
        );
        reach.showLastState();
        expect(titles()).toEqual(['seen yesterday']);
        expect(() => createGoal(kernel, { title: 'refused' })).toThrow(expect.objectContaining({ code: 'team_unreachable' }));
      } finally {
        reach.dispose();
        kernel.close();
      }
    } finally {
      await fixture.cluster.restart();
    }
  });
  test("the board carries the views' sentence as its banner: no cards, then the last cards on request, then none once back", async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    const folder = mkdtempSync(join(work, 'board-'));
    const { kernel } = openTeamKernel(folder, {
      replicaPath: join(folder, '.loopx', 'loopx.db'),
      connection: { connectionString: ownerUrl },
      actor: human,
    });
    const reach = new TeamReach(
      () => kernel,
      () => {},
      60_000, // Retry by hand only: the test decides when the window asks again
    );
    const cards = () => readBoard(reach, 'ada').cards.map((c) => c.title);
    try {
      const goalId = createGoal(kernel, { title: 'the board' }).id;
      addTodo(kernel, { goalId, title: 'seen before the outage' });
      expect(readBoard(reach, 'ada')).not.toHaveProperty('notice');
      expect(cards()).toEqual(['seen before the outage']);

      await fixture.cluster.crash();
      const down = readBoard(reach, 'ada');
      expect(down.cards).toEqual([]);
      expect(down.goals).toEqual([]);
      expect(down.notice).toMatchObject({ actions: ['retry', 'showLastState'], lastState: false });
      expect(down.notice?.text).toBe(reach.sentence());
      expect(down.notice?.text).toMatch(new RegExp(`^The team store at 127\\.0\\.0\\.1:${fixture.cluster.port}/${name} cannot be reached`));

      reach.showLastState();
      const last = readBoard(reach, 'ada');
      expect(last.cards.map((c) => c.title)).toEqual(['seen before the outage']);
      expect(last.notice).toMatchObject({ actions: ['retry'], lastState: true });
      expect(last.notice?.text).toMatch(/may be out of date/);

      await fixture.cluster.restart();
      const away = machine(ownerUrl, human);
      try {
        addTodo(away.kernel, { goalId, title: 'written meanwhile' });
      } finally {
        away.kernel.close();
      }
      expect(reach.retry()).toBe(true);
      const back = readBoard(reach, 'ada');
      expect(back).not.toHaveProperty('notice');
      expect(back.cards.map((c) => c.title).sort()).toEqual(['seen before the outage', 'written meanwhile']);
    } finally {
      reach.dispose();
      kernel.close();
    }
  });
});
