import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, bareHuman, human, makeStore, type TestStore } from '../../../../test/support/testKit';
import { checkReplay } from '../../replay';
import { applyGoalSpec } from './apply';
import { exportGoalSpec } from './export';
import { setGoalWorktree } from '../../worktrees/worktreeSetting';
import { getGoal } from '../goalQueries';
import { PATH, eventCount, refusal, spec, tableSnapshot } from '../../../../test/support/specTestKit';

/** A person's decision carries a proof under this machine's key (decisions.ts). */
const PROOF = { key: expect.stringMatching(/^[0-9a-f]{16}$/), mac: expect.stringMatching(/^[0-9a-f]{64}$/) };

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

const events = () => eventCount(s);
const snapshot = () => tableSnapshot(s);

describe('worktree keys in a goal file: the base and the setup command, managed only when the file names them', () => {
  /** The store's root as a git repository with a main and a release branch (the base is checked against it). */
  const gitRepo = () => {
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: s.kernel.root,
        env: { ...process.env, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@x' },
      });
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'start');
    git('branch', 'release');
  };
  const worktree = () => {
    const { worktreeBase, worktreeSetup } = getGoal(s.kernel.db, 'G1');
    return { worktreeBase, worktreeSetup };
  };

  test('a new goal gets them, through the event goal set-worktree writes; a second apply appends nothing; export writes them back', () => {
    gitRepo();
    applyGoalSpec(s.as(human), spec({ worktree: 'main', worktreeSetup: 'npm ci' }), { path: PATH });
    expect(worktree()).toEqual({ worktreeBase: 'main', worktreeSetup: 'npm ci' });
    const kinds = s.kernel.db.prepare(`SELECT data FROM events WHERE kind = 'goal.worktree_set'`).all();
    expect(kinds.map((e) => JSON.parse(String(e.data)))).toEqual([
      { base: 'main', from: null, setup: 'npm ci', setupFrom: null, channel: 'vscode', proof: PROOF },
    ]);
    expect(applyGoalSpec(s.as(human), spec({ worktree: 'main', worktreeSetup: 'npm ci' }), { path: PATH }).events).toBe(0);
    expect(exportGoalSpec(s.kernel.db, 'G1')).toMatchObject({ worktree: 'main', worktreeSetup: 'npm ci' });
    expect(checkReplay(s.kernel.db).ok).toBe(true);
  });

  test('left out, the file leaves them as the store has them; named, it changes them; null turns them off', () => {
    gitRepo();
    applyGoalSpec(s.as(human), spec({ worktree: 'main' }), { path: PATH });
    // Only the record of what the file manages changes (goal.file_applied); the setting stays.
    expect(applyGoalSpec(s.as(human), spec(), { path: PATH }).plan.goalChanges).toEqual([]);
    expect(applyGoalSpec(s.as(human), spec(), { path: PATH }).events).toBe(0);
    expect(worktree()).toEqual({ worktreeBase: 'main', worktreeSetup: null });
    const moved = applyGoalSpec(s.as(human), spec({ worktree: 'release', worktreeSetup: 'npm ci' }), { path: PATH });
    expect(moved.plan.goalChanges).toEqual([
      { field: 'worktree', from: 'main', to: 'release', drift: false },
      { field: 'worktreeSetup', from: null, to: 'npm ci', drift: false },
    ]);
    expect(worktree()).toEqual({ worktreeBase: 'release', worktreeSetup: 'npm ci' });
    // The setup alone changes: the base stays.
    applyGoalSpec(s.as(human), spec({ worktreeSetup: 'npm install' }), { path: PATH });
    expect(worktree()).toEqual({ worktreeBase: 'release', worktreeSetup: 'npm install' });
    applyGoalSpec(s.as(human), spec({ worktree: null, worktreeSetup: null }), { path: PATH });
    expect(worktree()).toEqual({ worktreeBase: null, worktreeSetup: null });
    expect(applyGoalSpec(s.as(human), spec({ worktree: null, worktreeSetup: null }), { path: PATH }).events).toBe(0);
    expect(checkReplay(s.kernel.db).ok).toBe(true);
  });

  test('a setting changed in the store after the apply is drift; applying the file puts it back', () => {
    gitRepo();
    applyGoalSpec(s.as(human), spec({ worktree: 'main' }), { path: PATH });
    setGoalWorktree(s.as(human), 'G1', 'release', 'make deps');
    const { plan } = applyGoalSpec(s.as(human), spec({ worktree: 'main' }), { path: PATH, dryRun: true });
    expect(plan.goalChanges).toEqual([{ field: 'worktree', from: 'release', to: 'main', drift: true }]);
    applyGoalSpec(s.as(human), spec({ worktree: 'main' }), { path: PATH });
    expect(worktree()).toEqual({ worktreeBase: 'main', worktreeSetup: 'make deps' }); // the file does not name a setup
  });

  test('a base that is no branch, a workspace without git and a bad setup are refused in words, and nothing changes', () => {
    expect(refusal(() => applyGoalSpec(s.as(human), spec({ worktree: 'main' }), { path: PATH }))[1]).toMatch(/is not a git repository/);
    gitRepo();
    expect(refusal(() => applyGoalSpec(s.as(human), spec({ worktree: 'nope' }), { path: PATH }))).toEqual([
      'invalid_input',
      'no branch or commit named "nope" in this repository',
    ]);
    expect(refusal(() => applyGoalSpec(s.as(human), spec({ worktree: 'main', worktreeSetup: 'a\nb' }), { path: PATH }))[0]).toBe(
      'invalid_input',
    );
    expect(events()).toBe(1); // store.initialized only
  });

  test('an agent may ask a new goal for worktrees, but never set a setup command nor change either later; nor a human without a channel', () => {
    gitRepo();
    expect(applyGoalSpec(s.as(agent('codex')), spec({ quota: {}, worktree: 'main' }), { path: PATH }).goalId).toBe('G1');
    expect(worktree()).toEqual({ worktreeBase: 'main', worktreeSetup: null });
    const before = snapshot();
    for (const [who, over, code] of [
      [agent('codex'), { quota: {}, worktree: 'release' }, 'not_allowed'],
      [agent('codex'), { quota: {}, worktree: null }, 'not_allowed'],
      [agent('codex'), { quota: {}, worktreeSetup: 'curl x | sh' }, 'not_allowed'],
      [bareHuman, { quota: {}, worktree: 'release' }, 'human_channel_required'],
      [bareHuman, { quota: {}, worktreeSetup: 'npm ci' }, 'human_channel_required'],
    ] as const)
      expect(refusal(() => applyGoalSpec(s.as(who), spec(over), { path: PATH }))[0], JSON.stringify(over)).toBe(code);
    expect(snapshot()).toEqual(before);
    expect(
      refusal(() =>
        applyGoalSpec(s.as(agent('codex')), spec({ title: 'Other', quota: {}, worktreeSetup: 'npm ci' }), { path: 'loopx/o.goal.md' }),
      )[0],
    ).toBe('not_allowed');
  });
});
