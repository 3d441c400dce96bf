import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type AgentWorld, turnLog, SCRIPTED_TURN_USAGE } from './agentWorld';
import { type loopx, inVsCode } from '../cli/harness';
import { Kernel } from '../../src/kernel/kernel';
import { reviewPolicy, setGoalReview } from '../../src/kernel/goals/goalReview';
import { claimTodo } from '../../src/kernel/todos/claims';
import { addEvidence } from '../../src/kernel/evidence/evidence';
import { shipTodo } from '../../src/kernel/todos/todos';
import type { Step, ToolCall } from './modelServer';

/**
 * What every host whose agent writes back with the prompt's loopx commands must show with the real CLI (OpenCode,
 * Gemini CLI): a turn that ships its todo through its shell tool, with its usage priced; and a turn in which the
 * commands beside the allowed loopx calls, a redirection into `.loopx/` and a file write there are refused with
 * nothing run, while an ordinary write goes through.
 */
export interface ShellHost {
  host: string;
  /** The wire the CLI speaks to the scripted model (modelServer.ts). */
  api: ToolCall['api'];
  /** Its shell tool's name, and its file-writing tool with the argument that names the file. */
  shellTool: string;
  writeTool: { name: string; pathKey: string; contentKey?: string };
  /** What the CLI answers a refused call with. */
  refused: RegExp;
  /** The loopx commands' prefix the prompt gives (default: `LOOPX_AGENT=<host> '<root>/.loopx/bin/loopx'`). */
  prefix?: (root: string) => string;
}

/** The lines the runner showed for the turn's loopx calls. */
function loopxProgress(events: Record<string, unknown>[]): string[] {
  return events
    .filter((e) => e.event === 'output')
    .flatMap((e) => (e.progress as { kind: string; text: string }[]) ?? [])
    .filter((p) => p.kind === 'loopx')
    .map((p) => p.text);
}

/** `loopx run --host H`: the prompt's three loopx commands through the shell tool, the todo shipped, usage priced. */
export async function shipsThroughItsShell(
  w: AgentWorld,
  h: ShellHost,
): Promise<{ root: string; cli: ReturnType<AgentWorld['setUp']>['cli'] }> {
  const { root, env, cli } = w.setUp();
  const before = w.server.calls.length;
  const r = await w.run(root, env, ['--host', h.host]);
  expect(r.code, r.stderr).toBe(0);
  const ended = r.events.find((e) => e.event === 'turn_ended') as { usage: Record<string, unknown> };
  expect(ended, turnLog(root)).toMatchObject({ resultKind: 'validated_completion', spent: true, exitCode: 0 });
  const prefix = h.prefix?.(root) ?? `LOOPX_AGENT=${h.host} '${join(root, '.loopx', 'bin', 'loopx')}'`;
  const calls = w.server.calls.slice(before);
  expect(calls.map((c) => [c.api, c.tool, c.command])).toEqual([
    [h.api, h.shellTool, `${prefix} todo show T1 --json`],
    [h.api, h.shellTool, expect.stringContaining(' evidence add --todo T1 ')],
    [h.api, h.shellTool, `${prefix} todo ship T1 --json`],
  ]);
  for (const call of calls) expect(call.output).toContain('"ok":true');
  expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  expect(cli(['evidence', 'list', '--todo', 'T1', '--json']).json.data).toEqual([
    expect.objectContaining({ actor: h.host, source: 'agent', summary: 'checked by the scripted model' }),
  ]);
  // Four model requests of 100 tokens in and 20 out; no price of the host's own for the scripted model: the person's.
  expect(ended.usage).toEqual(SCRIPTED_TURN_USAGE);
  expect(loopxProgress(r.events)).toEqual([
    'loopx todo show T1 --json',
    expect.stringContaining('loopx evidence add --todo T1 '),
    'loopx todo ship T1 --json',
  ]);
  expect(w.server.outside).toEqual([]);
  expect(w.server.problems).toEqual([]);
  return { root, cli };
}

/**
 * A turn whose model tries the side doors before it ships: a plain command, one chained and one substituted onto an
 * allowed loopx call, a redirection and a file write into `.loopx/`; then an ordinary write. `prepare` puts what the
 * repository would add (a permissive project config) in the workspace first; `ranToo` names more markers it must not
 * have made (a hook).
 */
export async function refusesTheSideDoors(
  w: AgentWorld,
  h: ShellHost,
  prepare: (root: string) => void,
  ranToo: string[] = [],
): Promise<void> {
  const { root, env, cli } = w.setUp();
  prepare(root);
  const marker = (name: string) => join(root, name);
  const write = (path: string, content: string): Step => ({
    tool: h.writeTool.name,
    input: { [h.writeTool.pathKey]: path, [h.writeTool.contentKey ?? 'content']: content },
  });
  w.extra = ({ prefix, todo }) => [
    `touch ${marker('ran-plain')}`,
    `${prefix} todo show ${todo} && touch ${marker('ran-and')}`,
    `${prefix} todo show ${todo}; touch ${marker('ran-semicolon')}`,
    `${prefix} todo show $(touch ${marker('ran-substitution')})`,
    `${prefix} todo show ${todo} > ${join(root, '.loopx', 'ran-redirect')}`,
    write(join(root, '.loopx', 'ran-write'), 'forged'),
    write(join(root, 'notes.md'), 'the agent may write its work\n'),
  ];
  const before = w.server.calls.length;
  try {
    const r = await w.run(root, env, ['--host', h.host]);
    expect(r.code, r.stderr).toBe(0);
  } finally {
    w.extra = () => [];
  }
  const refused = w.server.calls.slice(before + 1, before + 7);
  expect(refused).toHaveLength(6);
  for (const call of refused) expect(call.output, call.command).toMatch(h.refused);
  for (const name of ['ran-plain', 'ran-and', 'ran-semicolon', 'ran-substitution', ...ranToo])
    expect(existsSync(marker(name)), name).toBe(false);
  for (const name of ['ran-redirect', 'ran-write']) expect(existsSync(join(root, '.loopx', name)), name).toBe(false);
  expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('the agent may write its work\n');
  expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
}

/**
 * `loopx run --host H` for a host whose turns have no shell (Qwen Code, Pi): the todo read, given evidence and shipped
 * through the loopx MCP tools as the host's agent, the prompt naming no command, the usage priced.
 */
export async function shipsThroughMcpTools(
  w: AgentWorld,
  host: string,
  world: { root: string; env: Record<string, string>; cli: (args: string[]) => ReturnType<typeof loopx> },
): Promise<void> {
  const { root, env, cli } = world;
  const before = w.server.calls.length;
  const r = await w.run(root, env, ['--host', host]);
  expect(r.code, r.stderr).toBe(0);
  const ended = r.events.find((e) => e.event === 'turn_ended') as { usage: Record<string, unknown> };
  expect(ended, turnLog(root)).toMatchObject({ resultKind: 'validated_completion', spent: true, exitCode: 0 });
  const calls = w.server.calls.slice(before);
  expect(calls.map((c) => c.tool)).toEqual(['loopx_todo_show', 'loopx_evidence', 'loopx_ship']);
  for (const call of calls) expect(call.output, turnLog(root)).toContain('"ok":true');
  const prompt = readFileSync(join(root, '.loopx', 'turns', 'R1', 'prompt.md'), 'utf8');
  expect(prompt).toContain('This turn has no shell');
  expect(prompt).not.toMatch(/^\S+ todo ship T1/m);
  expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  expect(cli(['evidence', 'list', '--todo', 'T1', '--json']).json.data).toEqual([
    expect.objectContaining({ actor: host, source: 'agent', summary: 'checked by the scripted model' }),
  ]);
  expect(ended.usage).toEqual(SCRIPTED_TURN_USAGE);
  expect(w.server.outside).toEqual([]);
  expect(w.server.problems).toEqual([]);
}

/** How a review turn's scripted model writes a file and gives its verdict on a host (reviewTurnWritesNothing). */
export interface ReviewingHost {
  host: string;
  /** The host's own file-writing tool call for `path`. */
  write: (path: string) => Step;
  /** The verdict through the prompt's shell command, or through the loopx MCP tool (hosts without a shell). */
  verdictBy: 'shell' | 'mcp';
  /** What the CLI answers the refused write with. */
  refused: RegExp;
}

/**
 * A change in review on a host's review turn (issue 42): the implementer ("claude", with the kernel directly) submits
 * a change in a git workspace; `loopx run --host H` serves the review; its model tries to write a file into the
 * workspace with the host's own tool, which the turn's boundary refuses, and then approves through the verdict its
 * prompt gives. The workspace is as the implementer left it, and the todo is approved (shipped) by the review turn.
 * `world`: a host's own workspace set-up (its CLI on PATH, the person's settings), as shipsThroughMcpTools takes.
 */
export async function reviewTurnWritesNothing(
  w: AgentWorld,
  h: ReviewingHost,
  world: { root: string; env: Record<string, string>; cli: (args: string[]) => ReturnType<typeof loopx> } = w.setUp(),
): Promise<void> {
  const { root, env, cli } = world;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=ada', '-c', 'user.email=ada@example.com', 'commit', '-qm', 'start');
  inVsCode(root, (kernel) => setGoalReview(kernel, 'G1', reviewPolicy({ reviewerHost: h.host })));
  const implementer = Kernel.open(root, { actor: { name: 'claude', kind: 'agent' } });
  try {
    claimTodo(implementer, 'T1');
    writeFileSync(join(root, 'change.txt'), 'the change\n');
    addEvidence(implementer, { todoId: 'T1', summary: 'checked by hand' });
    shipTodo(implementer, 'T1', { validation: 'read it twice' });
  } finally {
    implementer.close();
  }
  const intruder = join(root, 'reviewer-was-here.md');
  w.only = ({ prefix, todo }, prompt): Step[] => {
    // The prompt as the model reads it (a host may put words of its own before loopx's).
    if (!/^# loopx: one bounded review turn/m.test(prompt)) return [];
    const verdict: Step =
      h.verdictBy === 'shell'
        ? `${prefix} review approve ${todo} --summary "read the change; it does what it says" --json`
        : { tool: 'loopx_review_verdict', input: { todo, verdict: 'approve', summary: 'read the change; it does what it says' } };
    return [h.write(intruder), verdict];
  };
  const before = w.server.calls.length;
  try {
    const r = await w.run(root, env, ['--host', h.host]);
    expect(r.code, `${r.stderr}\n${JSON.stringify(r.events)}`).toBe(0);
  } finally {
    w.only = undefined;
  }
  const [write, approve] = w.server.calls.slice(before, before + 2);
  expect(write?.output, `${JSON.stringify(w.server.calls.slice(before))}\n${turnLog(root)}`).toMatch(h.refused);
  expect(approve?.output, turnLog(root)).toContain('"ok":true');
  expect(existsSync(intruder)).toBe(false);
  expect(readFileSync(join(root, 'change.txt'), 'utf8')).toBe('the change\n');
  expect(cli(['turn', 'list', '--json']).json.data).toEqual([expect.objectContaining({ host: h.host, role: 'review' })]);
  expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped', implementer: 'claude' });
  expect(w.server.outside).toEqual([]);
}
