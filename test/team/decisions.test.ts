import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { auditDecisions } from '../../src/kernel/decisions';
import { requireTurnMayStart } from '../../src/kernel/goals/goalStanding';
import { readHumanKey } from '../../src/kernel/humanKey';
import { install, machine, newTeamStore, teamSuite } from './teamKit';

// A team store's people sign with their own machines' keys, which no other machine holds: there a person's decision
// stands on the database's roles (the trigger refuses a person's kinds to agents' logins), not on one machine's key.
const suite = teamSuite('decisions');
const keyOf = process.env.LOOPX_CONFIG_DIR;
afterEach(() => {
  process.env.LOOPX_CONFIG_DIR = keyOf;
});

describe.skipIf(!install)("a team store: another person's decisions stand on every machine", () => {
  test("ada's goal, resumed on her machine with her key, lets bob's machine (another key) start a turn; nothing is unproven", async () => {
    const { ownerUrl } = await newTeamStore(suite.cluster);
    const ada = machine(ownerUrl, { name: 'ada', kind: 'human', channel: 'vscode' });
    suite.open.push(ada.kernel);
    const goal = createGoal(ada.kernel, { title: 'Ship it', turnsPerWindow: 5 });
    addTodo(ada.kernel, { goalId: goal.id, title: 'Parse' });
    setGoalStatus(ada.kernel, goal.id, 'active');
    const adaKey = readHumanKey();
    expect(adaKey.key).not.toBeNull(); // her decisions were proven with her key

    process.env.LOOPX_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'loopx-bob-key-')); // bob's machine: a key of its own
    const bob = machine(ownerUrl, { name: 'bob', kind: 'human', channel: 'tty' });
    suite.open.push(bob.kernel);
    createGoal(bob.kernel, { title: 'caught up' }); // a write: bob's replica catches up with ada's events
    const audit = bob.kernel.read((db) => auditDecisions(db, readHumanKey()));
    expect(audit.decisions).toBeGreaterThan(1);
    expect(audit.unproven).toEqual([]);
    expect(() => bob.kernel.read((db) => requireTurnMayStart(db, goal.id))).not.toThrow();
  });
});
