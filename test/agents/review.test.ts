import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inVsCode, inVsCodeAsync } from '../cli/harness';
import { setGoalHost } from '../../src/kernel/goals/goalHost';
import { setGoalWorktree } from '../../src/kernel/worktrees/worktreeSetting';
import { mergeWorktree } from '../../src/kernel/worktrees/landing';
import { reviewPolicy, setGoalReview } from '../../src/kernel/goals/goalReview';
import { type AgentWorld, startAgentWorld, turnLog, REAL_AGENT_TEST } from './agentWorld';
import type { Step } from './modelServer';

/**
 * Peer review with the real CLIs (issue 42): Claude Code implements, Codex reviews, each under loopx's default host
 * command against the scripted model. The model's script follows the prompt it is given: an implementer's turn writes
 * the file and ships; a review turn reads the change (`review show`) and gives the verdict the test asks for. What each
 * CLI did with each call is read back from the model server, as realAgents.test.ts does.
 */
let w: AgentWorld;
beforeAll(async () => {
  w = await startAgentWorld('review');
}, 300_000);
afterAll(async () => {
  await w?.close();
});

const REVIEW_TURN = /^# loopx: one bounded review turn/;

/**
 * A workspace as a person sets it up: a git repository on main, its goal implemented on Claude Code in a worktree per
 * todo and reviewed on Codex.
 */
function setUpReviewed() {
  const world = w.setUp();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: world.root, encoding: 'utf8' });
  git('init', '-q');
  git('config', 'user.email', 'ada@example.com');
  git('config', 'user.name', 'ada');
  git('add', '-A');
  git('commit', '-qm', 'start');
  git('branch', '-M', 'main');
  inVsCode(world.root, (kernel) => {
    setGoalHost(kernel, 'G1', 'claude');
    setGoalWorktree(kernel, 'G1', 'main');
    setGoalReview(kernel, 'G1', reviewPolicy({ reviewerHost: 'codex', maxRounds: 3 }));
  });
  return world;
}

describe('Claude Code implements, Codex reviews', REAL_AGENT_TEST, () => {
  test('Codex asks for changes once, Claude fixes them, Codex approves, a person merges; the reviewer cannot edit, the implementer cannot approve', async () => {
    const { root, env, cli } = setUpReviewed();
    // The todo's worktree, as the implementer's prompt names it (the review turns run in the same folder).
    let file = '';
    w.only = ({ prefix, todo }, prompt): Step[] => {
      const folder = /You work in your own git worktree, (.+?), on branch/.exec(prompt)?.[1];
      if (folder) file = join(folder, 'quoted.txt');
      // The script runs on each request of a turn: which round it is comes from the prompt, never from a count here.
      if (REVIEW_TURN.test(prompt)) {
        const round = prompt.includes('### Earlier rounds') ? 2 : 1;
        const show = `${prefix} review show ${todo} --json`;
        // The reviewer tries to change the change: its read-only workspace refuses it.
        const edit = `printf 'reviewer was here\\n' >> '${file}'`;
        const verdict =
          round === 1
            ? {
                todo,
                verdict: 'request_changes',
                summary: 'quotes inside a field are not doubled',
                findings: [
                  { severity: 'P1', confidence: 0.9, title: 'Doubled quotes', body: 'a "" inside quotes', file: 'quoted.txt', line: 1 },
                ],
              }
            : { todo, verdict: 'approve', summary: 'doubled quotes handled; read the whole diff' };
        return [show, edit, { tool: 'loopx_review_verdict', input: verdict }];
      }
      const round = prompt.includes('asked for changes') ? 2 : 1;
      const content = round === 1 ? 'a,"b"\n' : 'a,"b ""c"""\n';
      return [
        `${prefix} todo show ${todo} --json`,
        // Claude Code writes over a file only once it has read it.
        ...(round === 2 ? [{ tool: 'Read', input: { file_path: file } }] : []),
        { tool: 'Write', input: { file_path: file, content } },
        `${prefix} evidence add --todo ${todo} --kind test --summary "round ${round}: fixtures pass" --json`,
        // The implementer tries to approve its own change: not its verb, and not its decision.
        ...(round === 2 ? [`${prefix} review approve ${todo} --summary "mine is fine" --json`] : []),
        `${prefix} todo ship ${todo} --json`,
      ];
    };
    try {
      const turns: Record<string, unknown>[] = [];
      for (const host of ['claude', 'codex', 'claude', 'codex']) {
        const r = await w.run(root, env, ['--host', host]);
        expect(r.code, r.stderr).toBe(0);
        const ended = r.events.find((e) => e.event === 'turn_ended');
        expect(
          ended,
          `${host}: ${turnLog(root, `R${turns.length + 1}`)}\n${JSON.stringify(r.events)}\n${JSON.stringify(cli(['todo', 'show', 'T1', '--json']).json.data)}\n${JSON.stringify(cli(['turn', 'list', '--json']).json.data)}`,
        ).toBeDefined();
        turns.push(ended as Record<string, unknown>);
      }
      expect(turns.map((t) => t.resultKind)).toEqual([
        'validated_completion',
        'validated_completion',
        'validated_completion',
        'validated_completion',
      ]);
      // The runner on codex ran reviews only (the goal is claude's to implement), each as a review turn.
      const list = cli(['turn', 'list', '--json']).json.data as { id: string; agent: string; host: string; role: string }[];
      expect(list.map((t) => [t.id, t.host, t.role]).sort()).toEqual([
        ['R1', 'claude', 'implement'],
        ['R2', 'codex', 'review'],
        ['R3', 'claude', 'implement'],
        ['R4', 'codex', 'review'],
      ]);
      const todo = cli(['todo', 'show', 'T1', '--json']).json.data as { status: string; reviewRound: number; implementer: string };
      expect(todo).toMatchObject({ status: 'shipped', reviewRound: 2, implementer: 'claude' });
      // The reviewer's edit never landed: the file is the implementer's second version.
      expect(readFileSync(file, 'utf8')).toBe('a,"b ""c"""\n');
      // Claude committed nothing; the approved change is now its branch's commit, and a person merges it into main.
      const title = (cli(['todo', 'show', 'T1', '--json']).json.data as { title: string }).title;
      const approved = execFileSync('git', ['log', '-1', '--format=%an|%s'], { cwd: dirname(file), encoding: 'utf8' });
      expect(approved.trim(), JSON.stringify(w.server.calls.filter((c) => c.tool === 'loopx_review_verdict').map((c) => c.output))).toBe(
        `claude (via loopx)|T1: ${title}`,
      );
      await inVsCodeAsync(root, (kernel) => mergeWorktree(kernel, 'T1', 'ff'));
      expect(readFileSync(join(root, 'quoted.txt'), 'utf8')).toBe('a,"b ""c"""\n');
      expect(cli(['worktree', 'list', '--json']).json.data).toContainEqual(expect.objectContaining({ todoId: 'T1', status: 'merged' }));
      const reviewCalls = w.server.calls.filter((c) => c.command.includes('reviewer was here'));
      expect(reviewCalls).toHaveLength(2);
      for (const call of reviewCalls) expect(call.output, call.output ?? '').toMatch(/denied|read-only|Permission|not permitted|sandbox/i);
      // The implementer's own approval was refused: nothing it ran approved anything.
      const selfApproval = w.server.calls.find((c) => c.command.includes('review approve'));
      expect(selfApproval?.output ?? '').not.toContain('"ok":true');
      // The review's rounds, as `review show` and the story read them.
      const brief = cli(['review', 'show', 'T1', '--json']).json.data as { rounds: { round: number; reviewer: string; verdict: string }[] };
      expect(brief.rounds.map((r) => [r.round, r.reviewer, r.verdict])).toEqual([
        [1, 'codex', 'request_changes'],
        [2, 'codex', 'approve'],
      ]);
      // Codex saw the change it judged: the first review's prompt carried the implementer's diff.
      const prompt2 = readFileSync(join(root, '.loopx', 'turns', 'R2', 'prompt.md'), 'utf8');
      expect(prompt2).toContain('+a,"b"');
      expect(prompt2).toContain('round 1: fixtures pass');
      expect(w.server.outside).toEqual([]);
      expect(w.server.problems).toEqual([]);
    } finally {
      w.only = undefined;
    }
  }, 600_000);
});
