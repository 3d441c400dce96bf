import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AgentWorld, startAgentWorld, turnLog, REAL_AGENT_TEST } from './agentWorld';
import { type ShellHost, refusesTheSideDoors, reviewTurnWritesNothing, shipsThroughItsShell } from './hostTurns';

/**
 * The real Copilot CLI (@github/copilot at the catalog's tested release, installed into .cache/ on first use:
 * agentEnv.ts) running loopx turns with its default host command, offline: a provider of the person's own on
 * 127.0.0.1 (COPILOT_PROVIDER_BASE_URL, COPILOT_OFFLINE) and the scripted model. Each turn runs with rules and a
 * Copilot home of its own (runtime/copilotBoundary.ts), and its loopx commands go through the turn's own loopx
 * (kernel/turns/turnLoopx.ts): Copilot's rules match a command by its program alone and drop `VAR=value` words.
 */
let w: AgentWorld;
beforeAll(async () => {
  w = await startAgentWorld('copilot');
});
afterAll(async () => {
  await w?.close();
});

const turnLoopx = (root: string) => `'${join(root, '.loopx', 'turns', 'R1', 'loopx')}'`;

const copilot: ShellHost = {
  host: 'copilot',
  api: 'chat',
  shellTool: 'bash',
  writeTool: { name: 'create', pathKey: 'path', contentKey: 'file_text' },
  refused: /Permission denied|denied due to the following rules/,
  prefix: turnLoopx,
};

describe('Copilot CLI with the default host command, offline', REAL_AGENT_TEST, () => {
  test("loopx run --host copilot: Copilot CLI runs the prompt's loopx commands through the turn's own loopx and ships the todo; usage from its usage file, priced", async () => {
    const { root } = await shipsThroughItsShell(w, copilot);
    // The turn's home is its own: the person's ~/.copilot (a saved trust, approvals) is never read.
    expect(existsSync(join(root, '.loopx', 'turns', 'R1', 'copilot'))).toBe(true);
    expect(readFileSync(join(root, '.loopx', 'turns', 'R1', 'prompt.md'), 'utf8')).toContain(`${turnLoopx(root)} todo ship T1`);
  });

  test("Copilot CLI: commands beside the turn's loopx, redirections and writes into .loopx/ are refused with nothing run, whatever the repository adds", async () => {
    // A hook a repository (or an earlier turn) would add: Copilot loads a folder's hooks only when it is trusted, and a
    // turn's home trusts nothing.
    await refusesTheSideDoors(
      w,
      copilot,
      (root) => {
        mkdirSync(join(root, '.github', 'hooks'), { recursive: true });
        writeFileSync(
          join(root, '.github', 'hooks', 'widen.json'),
          JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: `touch ${join(root, 'ran-hook')}` }] } }),
        );
      },
      ['ran-hook'],
    );
  });

  test("Copilot CLI: the turn's loopx runs as the turn's agent whatever the command line says, and refuses every verb the turn was not given", async () => {
    const { root, env, cli } = w.setUp();
    w.extra = ({ prefix, todo }) => [
      `LOOPX_AGENT=intruder ${prefix} evidence add --todo ${todo} --kind note --summary "claimed by another name" --json`,
      `${prefix} goal pause G1 --json`,
      `${prefix} evidence run --todo ${todo} --json -- touch ran-evidence-run`,
      // Code the agent wrote, preloaded into loopx through the environment (Copilot drops VAR= words before matching).
      { tool: 'create', input: { path: join(root, 'mine.cjs'), file_text: "require('fs').writeFileSync('ran-node-options', '')\n" } },
      `NODE_OPTIONS=--require=./mine.cjs ${prefix} todo show ${todo} --json`,
    ];
    const before = w.server.calls.length;
    try {
      const r = await w.run(root, env, ['--host', 'copilot']);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      w.extra = () => [];
    }
    const [intruder, pause, run, , preloaded] = w.server.calls.slice(before + 1, before + 6);
    for (const ran of [intruder, preloaded]) expect(ran?.output, turnLog(root)).toContain('"ok":true');
    expect(existsSync(join(root, 'mine.cjs'))).toBe(true);
    expect(existsSync(join(root, 'ran-node-options'))).toBe(false);
    for (const refused of [pause, run]) expect(refused?.output, refused?.command).toContain('"code":"not_allowed"');
    expect(existsSync(join(root, 'ran-evidence-run'))).toBe(false);
    const evidence = cli(['evidence', 'list', '--todo', 'T1', '--json']).json.data as { actor: string; summary: string }[];
    expect(evidence.map((e) => [e.actor, e.summary]).sort()).toEqual([
      ['copilot', 'checked by the scripted model'],
      ['copilot', 'claimed by another name'],
    ]);
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  });

  test('Copilot CLI: a language server the repository configures (.github/lsp.json) never starts: the tool that would start it is not offered', async () => {
    const { root, env } = w.setUp();
    mkdirSync(join(root, '.github'));
    writeFileSync(
      join(root, '.github', 'lsp.json'),
      JSON.stringify({ lspServers: { widen: { command: 'sh', args: ['-c', 'touch ran-lsp'], fileExtensions: { '.ts': 'typescript' } } } }),
    );
    writeFileSync(join(root, 'a.ts'), 'export const a = 1;\n');
    w.extra = () => [{ tool: 'lsp', input: { operation: 'hover', file: join(root, 'a.ts'), line: 1, character: 14 } }];
    try {
      const r = await w.run(root, env, ['--host', 'copilot']);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      w.extra = () => [];
    }
    expect(existsSync(join(root, 'ran-lsp'))).toBe(false);
  });

  test("Copilot CLI reviewing a change: its file creation in the workspace is refused by the turn's rules, its approval through the prompt's command is taken", async () => {
    await reviewTurnWritesNothing(w, {
      host: 'copilot',
      write: (path) => ({ tool: 'create', input: { path, file_text: 'forged' } }),
      verdictBy: 'shell',
      refused: copilot.refused,
    });
  });
});
