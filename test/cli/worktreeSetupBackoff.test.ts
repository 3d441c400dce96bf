import { afterAll, describe, expect, test } from 'vitest';
import { worktreeRepo } from '../fixtures/worktreeRepo';
import { loopx } from './harness';
import { getGoal } from '../../src/kernel/goals/goalQueries';
import { planTurn } from '../../src/kernel/goals/quotaQueries';
import { addTodo } from '../../src/kernel/todos/todos';
import { prepareTurnStart, startTurn } from '../../src/kernel/turns/turns';
import { setGoalWorktree } from '../../src/kernel/worktrees/worktreeSetting';
import { setupWaits } from '../../src/kernel/worktrees/setupBackoff';

/**
 * A todo whose worktree setup failed backs off (worktreeSetup.ts). should-run's plan — what `quota should-run`, `loopx
 * run` and VS Code's auto-run follow — skips it and takes another ready todo, or says why nothing can run and when.
 */
const repos: ReturnType<typeof worktreeRepo>[] = [];
afterAll(() => {
  for (const r of repos) {
    r.kernel.close();
    r.cleanUp();
  }
});

/** A goal whose setup fails in T1's worktree only, and the failed setup of T1 as a runner met it. */
async function failedSetupOfT1() {
  const repo = worktreeRepo();
  repos.push(repo);
  const setup = 'case "$LOOPX_WORKTREE" in *T1-*) echo "npm ERR! broken" >&2; exit 1;; esac';
  setGoalWorktree(repo.kernel, repo.goalId, undefined, setup);
  const t1 = addTodo(repo.kernel, { goalId: repo.goalId, title: 'Parse quoted fields' }).id;
  const agent = repo.kernel.as({ name: 'bot', kind: 'agent' });
  const input = { goalId: repo.goalId, host: 'custom', agent: 'bot' };
  await expect(prepareTurnStart(agent, input, { unattended: true })).rejects.toMatchObject({ code: 'setup_failed' });
  // The plan as an unattended runner makes it (the failed setups' back-offs known), or as a person's turn start.
  const plan = (unattended = true) =>
    repo.kernel.read((db, now) => {
      const goal = getGoal(db, repo.goalId);
      return planTurn(db, goal, now, unattended ? { setupWaits: setupWaits(repo.kernel.storeDir, goal, now) } : {});
    });
  return { repo, t1, agent, input, setup, plan };
}

describe('a todo whose worktree setup is backing off', () => {
  test('should-run plans another ready todo, and an unattended turn start takes that one', async () => {
    const { repo, t1, agent, input, plan } = await failedSetupOfT1();
    expect(plan().todoId).not.toBe(t1);
    const t2 = addTodo(repo.kernel, { goalId: repo.goalId, title: 'Write the docs' }).id;
    expect(plan()).toMatchObject({ answer: { run: true, reason: 'ok' }, todoId: t2 });
    const started = startTurn(agent, input, await prepareTurnStart(agent, input, { unattended: true }));
    expect(started.turn.todoId).toBe(t2);
    expect(started.worktree?.branch).toBe('loopx/T2-write-the-docs');
  });

  test('when it is the only ready todo, should-run says why nothing runs and when it will; a person may still run it', async () => {
    const { repo, t1, setup, plan } = await failedSetupOfT1();
    const answer = plan();
    expect(answer).toMatchObject({ answer: { run: false, reason: 'setup_backoff' }, todoId: null });
    const retryAt = Date.parse(String(answer.answer.nextWakeAt));
    expect(retryAt - Date.now()).toBeGreaterThan(30_000); // the first back-off: a minute
    expect(retryAt - Date.now()).toBeLessThanOrEqual(60_000);
    const cli = loopx(['quota', 'should-run', '--goal', repo.goalId, '--json'], { cwd: repo.root });
    expect(cli.json.data).toMatchObject({ run: false, reason: 'setup_backoff', nextWakeAt: answer.answer.nextWakeAt });
    // A person's turn start runs the setup at once (its plan does not skip the todo).
    expect(plan(false).todoId).toBe(t1);
    // A person's changed command runs at once everywhere: the todo is no longer skipped.
    setGoalWorktree(repo.kernel, repo.goalId, undefined, `${setup} # fixed`);
    expect(plan()).toMatchObject({ answer: { run: true }, todoId: t1 });
  });
});
