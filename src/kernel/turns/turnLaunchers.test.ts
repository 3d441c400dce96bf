import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo, shipTodo } from '../todos/todos';
import { startTurn } from './turns';
import { turnDir } from './turnRecord';
import { finishTurn } from './turnFinish';
import { getTurn } from './turnQueries';
import { checkReplay } from '../replay';
import type { TurnLauncher } from './turnLaunchers';

let s: TestStore;
let goalId: string;
const bot = agent('bot');
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'Ship the parser', turnsPerWindow: 5 }).id;
  addTodo(s.kernel, { goalId, title: 'Parse headers' });
});
afterEach(() => s.dispose());

/** A turn started for `bot` on a custom host: by a launcher, or (no launcher) by the agent itself from its shell. */
function started(launchedBy?: TurnLauncher) {
  return startTurn(s.as(bot), { goalId, host: 'custom', ...(launchedBy ? { launchedBy } : {}) }).turn;
}

/** The host's own report, as a custom host prints it into the turn's output. */
function hostReports(turnId: string, costUsd: number): void {
  mkdirSync(join(s.kernel.root, turnDir(turnId)), { recursive: true });
  const line = `loopx-usage: ${JSON.stringify({ inputTokens: 1200, outputTokens: 300, costUsd })}`;
  writeFileSync(join(s.kernel.root, turnDir(turnId), 'output.log'), `working\n${line}\n`);
}

describe('who finishes a turn a launcher started', () => {
  test("its agent may not (not_allowed, in words), nothing changes, and the runner's finish records the host's own report", () => {
    const turn = started('runner');
    shipTodo(s.as(bot), 'T1', { evidence: 'headers parse' });
    hostReports(turn.id, 0.5);
    const before = s.kernel.db.prepare('SELECT max(seq) AS seq FROM events').get()?.seq;
    expect(() => finishTurn(s.as(bot), turn.id, 0, { costUsd: 0.0001 })).toThrow(
      expect.objectContaining({
        code: 'not_allowed',
        exitCode: 3,
        message: `turn ${turn.id} is finished by the runner that started it, from the host's own report`,
      }),
    );
    expect(getTurn(s.kernel.db, turn.id)).toMatchObject({ endedAt: null, usage: null });
    expect(s.kernel.db.prepare('SELECT max(seq) AS seq FROM events').get()?.seq).toBe(before);
    // The runner finishes it as the same agent, as its launcher: the host's report stands, whatever is passed in.
    const finished = finishTurn(s.as(bot), turn.id, 0, { costUsd: 0.0001 }, { byLauncher: true });
    expect(finished).toMatchObject({ resultKind: 'validated_completion', usage: { costUsd: 0.5, inputTokens: 1200 } });
  });

  test("a VS Code window's turn says so", () => {
    const turn = started('vscode');
    expect(() => finishTurn(s.as(bot), turn.id, 0)).toThrow(
      `turn ${turn.id} is finished by the VS Code window that started it, from the host's own report`,
    );
  });

  test('the kernel (a launcher gone) and a person still finish it', () => {
    addTodo(s.kernel, { goalId, title: 'Parse body' }); // the first todo backs off after its failed turn
    const first = started('runner');
    expect(finishTurn(s.as({ name: 'kernel', kind: 'kernel' }), first.id, -1)).toMatchObject({ resultKind: 'host_failure' });
    const second = started('vscode');
    expect(finishTurn(s.kernel, second.id, 1)).toMatchObject({ resultKind: 'host_failure' });
  });

  test('a "person" without a channel (an agent that unset LOOPX_AGENT, a script) is held to the agent\'s rule', () => {
    const turn = started('runner');
    hostReports(turn.id, 0.5);
    expect(() => finishTurn(s.as({ name: 'ada', kind: 'human' }), turn.id, 0, { costUsd: 0.0001 })).toThrow(
      expect.objectContaining({ code: 'not_allowed' }),
    );
    expect(getTurn(s.kernel.db, turn.id)).toMatchObject({ endedAt: null });
    expect(finishTurn(s.as({ name: 'ada', kind: 'human', channel: 'tty' }), turn.id, 1)).toMatchObject({ usage: { costUsd: 0.5 } });
  });

  test('a turn the agent started itself from its shell stays its own to finish, with its own report', () => {
    const turn = started();
    shipTodo(s.as(bot), 'T1', { evidence: 'headers parse' });
    expect(finishTurn(s.as(bot), turn.id, 0, { inputTokens: 10, outputTokens: 5, costUsd: 0.01 })).toMatchObject({
      resultKind: 'validated_completion',
      usage: { costUsd: 0.01 },
    });
  });

  test('the launcher is recorded on turn.started and replays', () => {
    const turn = started('runner');
    const row = s.kernel.db.prepare('SELECT data FROM events WHERE seq = ?').get(turn.startSeq);
    expect(JSON.parse(String(row?.data))).toMatchObject({ launchedBy: 'runner' });
    finishTurn(s.as(bot), turn.id, 0, undefined, { byLauncher: true });
    expect(checkReplay(s.kernel.db).differences).toEqual([]);
  });
});

describe("the window's sample turn", () => {
  const sampleTurn = (launchedBy?: TurnLauncher) =>
    startTurn(s.kernel, { goalId, host: 'sample', agent: 'sample', ...(launchedBy ? { launchedBy } : {}) }).turn;
  const spends = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM quota_spends').get()?.n);

  test('the sample agent a window runs and finishes spends no budget, though its work is validated', () => {
    const turn = sampleTurn('vscode');
    shipTodo(s.as(agent('sample')), 'T1', { evidence: 'the sample agent showed the loop' });
    const finished = finishTurn(s.kernel, turn.id, 0, undefined, { byLauncher: true });
    expect(finished).toMatchObject({ resultKind: 'validated_completion', spent: false });
    expect(spends()).toBe(0);
  });

  test('a turn on a host named sample from a shell, or finished by anyone but its window, spends as any turn', () => {
    const fromShell = startTurn(s.as(agent('sample')), { goalId, host: 'sample' }).turn;
    shipTodo(s.as(agent('sample')), 'T1', { evidence: 'done' });
    expect(finishTurn(s.as(agent('sample')), fromShell.id, 0)).toMatchObject({ resultKind: 'validated_completion', spent: true });
    addTodo(s.kernel, { goalId, title: 'Parse bodies' });
    const windows = sampleTurn('vscode');
    shipTodo(s.as(agent('sample')), 'T2', { evidence: 'done' });
    // The window is gone and the kernel finishes its turn (turn recovery): no launcher's own word, so it spends.
    expect(finishTurn(s.kernel, windows.id, 0)).toMatchObject({ resultKind: 'validated_completion', spent: true });
    expect(spends()).toBe(2);
  });
});
