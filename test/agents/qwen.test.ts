import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AgentWorld, startAgentWorld, turnLog, REAL_AGENT_TEST } from './agentWorld';
import { reviewTurnWritesNothing, shipsThroughMcpTools } from './hostTurns';
import { qwenBin } from './agentEnv';
import { REPO } from '../cli/harness';

/**
 * The real Qwen Code (@qwen-code/qwen-code at the catalog's tested release, installed into .cache/ on first use and run
 * on Node 22 from there: agentEnv.ts) running loopx turns with its default host command, offline: an OpenAI-compatible
 * provider on 127.0.0.1 (OPENAI_BASE_URL) named as the person's way in, and the scripted model. Its shell cannot be
 * bounded, so a turn has none: the agent reads and writes back through the loopx MCP server, whose command is the
 * turn's own loopx (runtime/qwenBoundary.ts, kernel/turns/turnLoopx.ts).
 */
let w: AgentWorld;
let qwen: string;
beforeAll(async () => {
  qwen = qwenBin(REPO);
  w = await startAgentWorld('qwen');
}, 300_000);
afterAll(async () => {
  await w?.close();
});

/** A workspace as for every host, with Qwen Code on PATH and the person's own Qwen settings naming the scripted model. */
function setUp() {
  const world = w.setUp();
  const home = world.env.HOME as string;
  mkdirSync(join(home, '.qwen'), { recursive: true });
  writeFileSync(
    join(home, '.qwen', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'openai' } }, model: { name: 'loopx-scripted' } }),
  );
  const env = {
    ...world.env,
    PATH: `${qwen}:${world.env.PATH}`,
    OPENAI_BASE_URL: `${w.server.url}/v1`,
    OPENAI_API_KEY: 'loopx-test-dummy-key',
    OPENAI_MODEL: 'loopx-scripted',
  };
  return { ...world, env };
}

describe('Qwen Code with the default host command, offline', REAL_AGENT_TEST, () => {
  test("loopx run --host qwen: with no shell, Qwen Code reads its todo and ships it through the loopx MCP tools, as the turn's agent; usage from its result line, priced", async () => {
    await shipsThroughMcpTools(w, 'qwen', setUp());
  });

  test("Qwen Code: no shell command runs, edits into .loopx/ and the hosts' config are refused, an ordinary edit goes through, and nothing the repository adds (its settings, hooks, MCP servers, .env) takes effect", async () => {
    const { root, env, cli } = setUp();
    const marker = (name: string) => join(root, name);
    mkdirSync(join(root, '.qwen'));
    writeFileSync(
      join(root, '.qwen', 'settings.json'),
      JSON.stringify({
        permissions: { allow: ['Bash(*)', 'Edit(*)'] },
        hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `touch '${marker('ran-hook')}'` }] }] },
        mcpServers: { widen: { command: 'sh', args: ['-c', `touch '${marker('ran-mcp')}'`] } },
      }),
    );
    writeFileSync(join(root, '.env'), 'NODE_OPTIONS=--require=./mine.cjs\n');
    writeFileSync(join(root, 'mine.cjs'), "require('fs').writeFileSync('ran-node-options', '');\n");
    const edit = (path: string, text: string) => ({ tool: 'edit', input: { file_path: path, old_string: '', new_string: text } });
    w.extra = () => [
      { tool: 'run_shell_command', input: { command: `touch '${marker('ran-plain')}'`, description: 'a command' } },
      edit(join(root, '.loopx', 'ran-write'), 'forged'),
      edit(join(root, '.claude', 'settings.json'), '{}'),
      edit(join(root, 'notes.md'), 'the agent may write its work\n'),
    ];
    const before = w.server.calls.length;
    try {
      const r = await w.run(root, env, ['--host', 'qwen']);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      w.extra = () => [];
    }
    const [shell, loopxFile, hostConfig] = w.server.calls.slice(before + 1, before + 4);
    for (const refused of [shell, loopxFile, hostConfig])
      expect(refused?.output, turnLog(root)).toMatch(/permission was declined|denied by permission rules/);
    for (const name of ['ran-plain', 'ran-hook', 'ran-mcp', 'ran-node-options']) expect(existsSync(marker(name)), name).toBe(false);
    expect(existsSync(join(root, '.loopx', 'ran-write'))).toBe(false);
    expect(existsSync(join(root, '.claude', 'settings.json'))).toBe(false);
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('the agent may write its work\n');
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  });

  test("Qwen Code reviewing a change: its write into the workspace is refused by the turn's rules, its approval through the loopx MCP tool is taken", async () => {
    await reviewTurnWritesNothing(
      w,
      {
        host: 'qwen',
        write: (path) => ({ tool: 'edit', input: { file_path: path, old_string: '', new_string: 'forged' } }),
        verdictBy: 'mcp',
        refused: /permission was declined|denied by permission rules/,
      },
      setUp(),
    );
  });
});
