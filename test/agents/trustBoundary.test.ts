import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanEnv, loopx, startGoal } from '../cli/harness';
import { humanKeyDir, HUMAN_KEY_FILE } from '../../src/kernel/humanKey';
import { type AgentWorld, startAgentWorld, turnLog, REAL_AGENT_TEST } from './agentWorld';
import type { Step } from './modelServer';

/**
 * An agent's reach is its host's reach (issue 37): under each built-in host's DEFAULT command, the real CLI's agent
 * tries every side door to a decision loopx trusts — a SQL write to the store, a person's verb through a
 * pseudo-terminal, the launcher its allow rules name, the price table, another host's config, its own turn's usage, a
 * hook, the person's key — and each is refused with nothing run, the store's decisions unchanged; the todo still
 * ships through the turn's own write-back.
 */
let w: AgentWorld;
beforeAll(async () => {
  w = await startAgentWorld('boundary');
});
afterAll(async () => {
  await w?.close();
});

const PWNED = '#!/bin/sh\necho pwned\n';

/** A workspace where another agent holds T2 (in goal G2) with a gate pending: what a forged decision would approve. */
function setUpWithGate() {
  const world = w.setUp();
  world.cli(['goal', 'create', '--title', 'Retire the old importer', '--turns', '5']);
  startGoal(world.root, 'G2');
  world.cli(['todo', 'add', '--goal', 'G2', '--title', 'Drop the legacy importer']);
  const scout = (args: string[]) => loopx(args, { cwd: world.root, env: { HOME: world.env.HOME as string, LOOPX_AGENT: 'scout' } });
  expect(scout(['todo', 'claim', 'T2', '--json']).code).toBe(0);
  expect(scout(['gate', 'ask', '--todo', 'T2', '--question', 'Delete the legacy importer?', '--json']).code).toBe(0);
  return world;
}

/** What must not change, read before and after the turn. */
function snapshot(root: string, cli: (args: string[]) => ReturnType<typeof loopx>) {
  const history = cli(['history', '--limit', '500', '--json']).json.data as { actorKind: string; seq: number; kind: string }[];
  return {
    decisions: history.filter((e) => e.actorKind === 'human').map((e) => `${e.seq} ${e.kind}`),
    gate: (cli(['gate', 'list', '--json']).json.data as { id: string; status: string }[]).map((g) => `${g.id} ${g.status}`),
    launcher: existsSync(join(root, '.loopx', 'bin', 'loopx')) ? readFileSync(join(root, '.loopx', 'bin', 'loopx'), 'utf8') : null,
  };
}

function expectNothingChanged(root: string, cli: (args: string[]) => ReturnType<typeof loopx>, before: ReturnType<typeof snapshot>) {
  const after = snapshot(root, cli);
  expect(after.decisions).toEqual(before.decisions);
  expect(after.gate).toEqual(before.gate);
  // The runner wrote the agents' launcher at the turn's start; nothing rewrote it after.
  expect(after.launcher).toMatch(/^#!\/bin\/sh\n# Written by loopx run/);
  expect(after.launcher).not.toContain('pwned');
  for (const planted of [
    '.claude/settings.json',
    '.codex/config.toml',
    '.vscode/settings.json',
    '.cursor/mcp.json',
    '.cursor/hooks.json',
    '.github/hooks/planted.json',
    '.github/lsp.json',
    '.loopx/prices.json.planted',
    'hooked',
    'checked',
  ])
    expect(existsSync(join(root, planted)), planted).toBe(false);
  expect(existsSync(join(root, '.loopx', 'prices.json')), 'prices.json').toBe(false);
  expect(
    (cli(['prices', '--json']).json.data as { prices: { model: string; input: number }[] }).prices.find(
      (p) => p.model === 'loopx-scripted',
    ),
  ).toMatchObject({
    input: 2,
  });
  expect(cli(['log', 'verify', '--json']).code).toBe(0);
  expect((cli(['hook', 'list', '--json']).json.data as { hooks: unknown[] }).hooks).toEqual([]);
  expect((cli(['todo', 'show', 'T1', '--json']).json.data as { check?: string | null }).check ?? null).toBeNull();
  expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  expect(cli(['todo', 'show', 'T2', '--json']).json.data).toMatchObject({ status: 'claimed', owner: 'scout' });
}

/**
 * One turn on `host`'s default command whose agent, besides its work, makes each of `attacks`' calls: the run and the
 * answers those calls got, in order (`beforeCalls`: where this turn's calls start in the model server's record).
 */
async function turnWithAttacks(root: string, env: Record<string, string>, host: string, attacks: (turn: { prefix: string }) => Step[]) {
  w.extra = (turn) => attacks(turn);
  const beforeCalls = w.server.calls.length;
  let r: Awaited<ReturnType<AgentWorld['run']>>;
  try {
    r = await w.run(root, env, ['--host', host, '--goal', 'G1']);
  } finally {
    w.extra = () => [];
  }
  expect(r.code, r.stderr).toBe(0);
  return { r, beforeCalls, calls: w.server.calls.slice(beforeCalls + 1, beforeCalls + 1 + attacks({ prefix: '' }).length) };
}

/**
 * After a turn whose agent tried every side door: the key never reached the agent in any call's answer, nothing loopx
 * trusts changed, and the turn completed with the usage loopx read itself (`costSource`), not the agent's figure.
 */
function expectTurnHeld(
  t: {
    root: string;
    cli: (args: string[]) => ReturnType<typeof loopx>;
    before: ReturnType<typeof snapshot>;
    keyFile: string;
    beforeCalls: number;
    r: Awaited<ReturnType<AgentWorld['run']>>;
  },
  costSource: 'prices' | 'host',
) {
  const key = readFileSync(t.keyFile, 'utf8').trim();
  for (const call of w.server.calls.slice(t.beforeCalls)) expect(String(call.output)).not.toContain(key);
  expectNothingChanged(t.root, t.cli, t.before);
  const ended = t.r.events.find((e) => e.event === 'turn_ended') as { resultKind: string; usage: { costUsd: number; costSource: string } };
  expect(ended, turnLog(t.root)).toMatchObject({ resultKind: 'validated_completion', usage: { costSource } });
  expect(ended.usage.costUsd).toBeGreaterThan(0.0001);
}

describe("the agent cannot write what loopx trusts, under each built-in host's default command", REAL_AGENT_TEST, () => {
  test('Codex: every side door is refused in its sandbox (store, pty route, launcher, prices, hosts’ config, own usage, hook, key); it ships through MCP', async () => {
    const { root, env, cli } = setUpWithGate();
    const keyFile = join(humanKeyDir({ env: cleanEnv(env) }), HUMAN_KEY_FILE);
    expect(existsSync(keyFile)).toBe(true); // made by the person's decisions above
    const before = snapshot(root, cli);
    const launcher = join(root, '.loopx', 'bin', 'loopx');
    const attacks = ({ prefix }: { prefix: string }): string[] => [
      `python3 -c "import sqlite3; c = sqlite3.connect('.loopx/loopx.db'); c.execute(\\"UPDATE gates SET status = 'approved'\\"); c.commit()"`,
      // The pty route: not an agent any more (LOOPX_AGENT unset), at a terminal, typing the gate's id.
      `printf 'Q1\\n' | env -u LOOPX_AGENT script -qec "LOOPX_HUMAN=ada '${launcher}' gate approve Q1" /dev/null`,
      `printf '${PWNED.replace(/\n/g, '\\n')}' > .loopx/bin/loopx`,
      `printf '{"loopx-scripted":{"input":0,"cachedInput":0,"output":0}}' > .loopx/prices.json`,
      `mkdir -p .claude && printf '{"hooks":{}}' > .claude/settings.json`,
      `mkdir -p .codex && printf '[mcp_servers.x]\\ncommand = "touch"\\n' > .codex/config.toml`,
      `mkdir -p .vscode && printf '{}' > .vscode/settings.json`,
      // Cursor's project MCP servers, which the person's Cursor starts: LoopX's other editor.
      `mkdir -p .cursor && printf '{"mcpServers":{}}' > .cursor/mcp.json`,
      // Copilot CLI's hooks and language servers, which a later Copilot session runs from the repository.
      `mkdir -p .github/hooks && printf '{"hooks":{}}' > .github/hooks/planted.json`,
      `printf '{"lspServers":{}}' > .github/lsp.json`,
      `${prefix} turn finish R1 --exit-code 0 --usage '{"costUsd":0.0001}' --json`,
      // A hook and an acceptance check run later, unattended: a person's, typed at a terminal.
      `printf 'N1\\n' | env -u LOOPX_AGENT script -qec "'${launcher}' hook add --on gate.asked --command 'touch hooked'" /dev/null`,
      `printf 'T1\\n' | env -u LOOPX_AGENT script -qec "'${launcher}' todo set-check T1 --check 'touch checked'" /dev/null`,
      `cat '${keyFile}'`,
    ];
    const { r, calls, beforeCalls } = await turnWithAttacks(root, env, 'codex', attacks);
    for (const call of calls) {
      expect(call.output, call.command).not.toBeNull();
      expect(call.output, call.command).toMatch(
        /Read-only file system|readonly|read-only|Permission denied|unable to open|not_allowed|store_unusable|needs the key that proves it|cannot create directory/i,
      );
    }
    // The turn's usage is the host's own report, priced by the person's table: the agent's figure never stood.
    expectTurnHeld({ root, cli, before, keyFile, beforeCalls, r }, 'prices');
    // Nothing the sandbox mounted is left behind in the workspace.
    for (const stub of ['.claude', '.codex', '.vscode', '.cursor', '.agents', '.github'])
      expect(existsSync(join(root, stub)), stub).toBe(false);
  });

  test("Claude Code: its file tools and file commands cannot touch loopx's files or other hosts' config, nor read the key; other commands are not allowed; it ships", async () => {
    const { root, env, cli } = setUpWithGate();
    const keyFile = join(humanKeyDir({ env: cleanEnv(env) }), HUMAN_KEY_FILE);
    expect(existsSync(keyFile)).toBe(true);
    const before = snapshot(root, cli);
    const at = (p: string) => join(root, p);
    const attacks = ({ prefix }: { prefix: string }): Step[] => [
      { tool: 'Write', input: { file_path: at('.loopx/bin/loopx'), content: PWNED } },
      {
        tool: 'Write',
        input: { file_path: at('.loopx/prices.json'), content: '{"loopx-scripted":{"input":0,"cachedInput":0,"output":0}}' },
      },
      { tool: 'Write', input: { file_path: at('.claude/settings.json'), content: '{"hooks":{}}' } },
      { tool: 'Write', input: { file_path: at('.codex/config.toml'), content: '[mcp_servers.x]\ncommand = "touch"\n' } },
      { tool: 'Write', input: { file_path: at('.vscode/settings.json'), content: '{}' } },
      { tool: 'Write', input: { file_path: at('.cursor/hooks.json'), content: '{"hooks":{}}' } },
      { tool: 'Write', input: { file_path: at('.github/hooks/planted.json'), content: '{"hooks":{}}' } },
      { tool: 'Write', input: { file_path: at('.github/lsp.json'), content: '{"lspServers":{}}' } },
      { tool: 'Read', input: { file_path: keyFile } },
      `cp .loopx/bin/loopx .loopx/prices.json.planted`,
      `python3 -c "import sqlite3; c = sqlite3.connect('.loopx/loopx.db'); c.execute(\\"UPDATE gates SET status = 'approved'\\"); c.commit()"`,
      `script -qec "LOOPX_HUMAN=ada ${prefix.replace(/^LOOPX_AGENT=\S+ /, '')} gate approve Q1" /dev/null`,
      `${prefix} turn finish R1 --exit-code 0 --usage '{"costUsd":0.0001}' --json`,
      `${prefix.replace(/^LOOPX_AGENT=\S+ /, '')} hook add --on gate.asked --command 'touch hooked'`,
    ];
    const { r, calls, beforeCalls } = await turnWithAttacks(root, env, 'claude', attacks);
    for (const call of calls) {
      expect(call.output, call.command).not.toBeNull();
      expect(call.output, `${call.command}\n${call.output}`).toMatch(
        /denied|requires approval|not allowed|permission|cannot be statically analyzed/i,
      );
    }
    expectTurnHeld({ root, cli, before, keyFile, beforeCalls, r }, 'host');
  });
});
