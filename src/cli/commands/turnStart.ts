import type { Command } from '../command';
import { prepareTurnStart, startTurn } from '../../kernel/turns/turns';
import { loopxForAgents } from '../agentLoopx';
import { nodeCrypto } from '../../kernel/nodeCrypto';

export const turnStart: Command = {
  name: ['turn', 'start'],
  summary: 'plan and start a turn: should-run, claim, record, write the prompt (nothing happens when it should not run)',
  description:
    'Claims the next ready todo (or --todo) for the agent (--agent, LOOPX_AGENT, else the host name) and writes ' +
    '.loopx/turns/<id>/prompt.md. data: the turn, promptFile, the env to run the host with, and allowedCommands (the ' +
    "prompt's loopx command prefixes, for a host's permission rules, e.g. Claude Code's --allowedTools). When " +
    'should-run says ' +
    'no: exit 3, code should_not_run, data { route, run, reason, nextWakeAt, remaining }. cwd: where to run the host ' +
    "(the todo's worktree when its goal has worktrees on); worktree: its branch and folder, or null.",
  mutates: true,
  flags: {
    goal: { type: 'string', value: 'G', required: true, description: 'the goal' },
    host: { type: 'string', value: 'H', required: true, description: "codex, claude, custom or your runner's name" },
    todo: { type: 'string', value: 'T', description: 'this todo instead of the next ready one' },
    review: {
      type: 'boolean',
      description: "review the goal's next change in review instead (a todo in review named with --todo is reviewed anyway)",
    },
  },
  examples: [
    'loopx turn start --goal G1 --host codex --json',
    'loopx turn start --goal G1 --host custom --todo T4 --agent my-bot',
    'loopx turn start --goal G1 --host codex --review',
  ],
  async run(ctx) {
    // A turn start always loads node:crypto (its claim's lease token): loaded first, the decision audit's MAC and the
    // events' hashes use it too, rather than first running @noble/hashes' JavaScript cold (nodeCrypto.ts).
    nodeCrypto();
    const a = ctx.args;
    // The prompt names this very loopx on this Node, so the agent calls the same store's CLI whatever its PATH.
    const kernel = ctx.kernel();
    const input = {
      goalId: a.id('goal') as string,
      host: a.str('host') as string,
      todoId: a.id('todo'),
      agent: ctx.actor.kind === 'agent' ? ctx.actor.name : undefined,
      loopxCommand: loopxForAgents(kernel.root),
      ...(a.bool('review') ? { role: 'review' as const } : {}),
    };
    // The worktree and its setup first (an agent's call respects a failed setup's back-off), then the write.
    const started = startTurn(kernel, input, await prepareTurnStart(kernel, input));
    const t = started.turn;
    const env = Object.entries(started.env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    return {
      data: {
        ...t,
        promptFile: started.promptFile,
        env: started.env,
        allowedCommands: started.allowedCommands,
        cwd: started.cwd,
        worktree: started.worktree,
      },
      text: `Started ${t.id}: ${t.agent} ${t.role === 'review' ? 'reviews the change of' : 'works'} ${t.todoId} (host ${t.host}).\nPrompt: ${started.promptFile}${started.worktree ? `\nRun the host in ${started.cwd} (branch ${started.worktree.branch}).` : ''}\nEnvironment for the host: ${env}\nWhen the host exits: loopx turn finish ${t.id} --exit-code $?`,
    };
  },
};
