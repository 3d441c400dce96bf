import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AgentWorld, startAgentWorld, REAL_AGENT_TEST } from './agentWorld';
import { type ShellHost, refusesTheSideDoors, reviewTurnWritesNothing, shipsThroughItsShell } from './hostTurns';
import { OPENCODE_TURN_CONFIG } from '../../src/kernel/turns/usage/turnUsage';

/**
 * The real OpenCode CLI (opencode-ai at the catalog's tested release, installed into .cache/ on first use: agentEnv.ts) running loopx turns with its default host command,
 * offline: the person's own OpenCode config names the scripted model on 127.0.0.1 as an OpenAI-compatible provider,
 * and each turn runs on a config of its own in the turn's folder (runtime/opencodeBoundary.ts), with that model carried
 * over and nothing else of the person's or the repository's.
 */
let w: AgentWorld;
beforeAll(async () => {
  w = await startAgentWorld('opencode');
});
afterAll(async () => {
  await w?.close();
});

function turnConfig(root: string): { permission: { bash: Record<string, string>; edit: Record<string, string> }; model: string } {
  return JSON.parse(readFileSync(join(root, '.loopx', 'turns', 'R1', OPENCODE_TURN_CONFIG), 'utf8'));
}

const opencode: ShellHost = {
  host: 'opencode',
  api: 'chat',
  shellTool: 'bash',
  writeTool: { name: 'write', pathKey: 'filePath' },
  refused: /rule which prevents you/,
};

describe('OpenCode with the default host command, offline', REAL_AGENT_TEST, () => {
  test("loopx run --host opencode: OpenCode runs the prompt's loopx commands and ships the todo; usage summed over its steps and priced", async () => {
    const { root, cli } = await shipsThroughItsShell(w, opencode);
    // The turn's config: the person's model and provider, not their permissive permissions.
    const config = turnConfig(root);
    expect(config.model).toBe('scripted/loopx-scripted');
    expect(config.permission.bash['*']).toBe('deny');
    expect(config.permission.edit['.loopx/**']).toBe('deny');
    // The config in force, as evidence: the command and the turn's own OpenCode config, by its hash, in the log.
    const shown = cli(['turn', 'show', 'R1', '--json']).json.data as {
      config: { command: string; files: unknown[] };
    };
    expect(shown.config.command).toContain('opencode run');
    // OpenCode rewrites its config as it starts: the record keeps what loopx wrote (the prompt is as it was).
    expect(shown.config.files).toContainEqual({
      path: `.loopx/turns/R1/${OPENCODE_TURN_CONFIG}`,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(shown.config.files).toContainEqual({
      path: '.loopx/turns/R1/prompt.md',
      sha256: createHash('sha256')
        .update(readFileSync(join(root, '.loopx', 'turns', 'R1', 'prompt.md')))
        .digest('hex'),
    });
    expect(shown).toMatchObject({ launchedBy: 'runner', boundary: 'enforced' });
  });

  test('OpenCode: commands beside the allowed loopx calls, redirections and writes into .loopx/ are refused with nothing run, whatever the project config says', async () => {
    // A project config that would allow everything: OpenCode must not read it during a turn.
    await refusesTheSideDoors(w, opencode, (root) =>
      writeFileSync(join(root, 'opencode.json'), JSON.stringify({ permission: { bash: { '*': 'allow' }, edit: 'allow' } })),
    );
  });

  test("OpenCode: a project with plugins (code OpenCode imports whatever a turn's config says) is refused before anything is claimed", async () => {
    const { root, env, cli } = w.setUp();
    mkdirSync(join(root, '.opencode', 'plugin'), { recursive: true });
    writeFileSync(join(root, '.opencode', 'plugin', 'widen.js'), 'export default async () => ({});\n');
    const r = await w.run(root, env, ['--host', 'opencode']);
    expect(r.code).toBe(3);
    const refusal = JSON.stringify(r.events);
    expect(refusal).toContain('"code":"host_unsafe"');
    expect(refusal).toContain(join(root, '.opencode', 'plugin'));
    expect(cli(['turn', 'list', '--json']).json.data).toEqual([]);
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'open' });
  });

  test("OpenCode reviewing a change: its write into the workspace is refused by the turn's config, its approval through the prompt's command is taken", async () => {
    await reviewTurnWritesNothing(w, {
      host: 'opencode',
      write: (path) => ({ tool: 'write', input: { filePath: path, content: 'forged' } }),
      verdictBy: 'shell',
      refused: opencode.refused,
    });
  });
});
