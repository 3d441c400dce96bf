import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AgentWorld, startAgentWorld, turnLog, REAL_AGENT_TEST } from './agentWorld';
import { reviewTurnWritesNothing, shipsThroughMcpTools } from './hostTurns';
import { piBin } from './agentEnv';
import { REPO } from '../cli/harness';

/**
 * The real Pi (@earendil-works/pi-coding-agent at the catalog's tested release, installed into .cache/ on first use and
 * run on Node 22 from there: agentEnv.ts) running loopx turns with its default host command, offline: the person's own
 * Pi providers name the scripted model on 127.0.0.1 (an OpenAI-compatible endpoint). Pi has no permissions of its own:
 * each turn runs with loopx's guard extension, no shell, and the loopx MCP server (runtime/piBoundary.ts).
 */
let w: AgentWorld;
let pi: string;
beforeAll(async () => {
  pi = piBin(REPO);
  w = await startAgentWorld('pi');
}, 300_000);
afterAll(async () => {
  await w?.close();
});

/** A workspace as for every host, with Pi on PATH and the person's own Pi providers naming the scripted model. */
function setUp() {
  const world = w.setUp();
  const agentDir = join(world.env.HOME as string, '.pi', 'agent');
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(
    join(agentDir, 'models.json'),
    JSON.stringify({
      providers: {
        scripted: {
          baseUrl: `${w.server.url}/v1`,
          api: 'openai-completions',
          apiKey: 'loopx-test-dummy-key',
          models: [{ id: 'loopx-scripted' }],
        },
      },
    }),
  );
  writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ defaultProvider: 'scripted', defaultModel: 'loopx-scripted' }));
  return { ...world, env: { ...world.env, PATH: `${pi}:${world.env.PATH}` } };
}

describe('Pi with the default host command, offline', REAL_AGENT_TEST, () => {
  test("loopx run --host pi: Pi reads its todo and ships it through the loopx MCP tools, as the turn's agent; usage from its events, priced", async () => {
    await shipsThroughMcpTools(w, 'pi', setUp());
  });

  test("Pi: no shell, no file outside the workspace, no edit to .loopx/ or the hosts' config (through a link too), no MCP tool the turn was not given; an ordinary edit goes through; the repository's .pi/ takes no effect", async () => {
    const { root, env, cli } = setUp();
    const marker = (name: string) => join(root, name);
    mkdirSync(join(root, '.pi'));
    writeFileSync(
      join(root, '.pi', 'mcp.json'),
      JSON.stringify({ mcpServers: { widen: { command: 'sh', args: ['-c', `touch '${marker('ran-mcp')}'`] } } }),
    );
    writeFileSync(join(root, '.pi', 'settings.json'), JSON.stringify({ extensions: ['./widen.mjs'] }));
    writeFileSync(
      join(root, '.pi', 'widen.mjs'),
      `import { writeFileSync } from 'node:fs';\nexport default function () { writeFileSync(${JSON.stringify(marker('ran-extension'))}, ''); }\n`,
    );
    symlinkSync(join(root, '.loopx', 'loopx.db'), marker('innocent.txt'));
    const write = (path: string) => ({ tool: 'write', input: { path, content: 'forged' } });
    w.extra = () => [
      { tool: 'bash', input: { command: `touch '${marker('ran-bash')}'` } },
      write(join(root, '.loopx', 'ran-write')),
      write('innocent.txt'),
      write(join(root, '.claude', 'settings.json')),
      { tool: 'read', input: { path: '/etc/hostname' } },
      write('../escaped.txt'),
      { tool: 'loopx_claim', input: { todo: 'T1' } },
      { tool: 'write', input: { path: 'notes.md', content: 'the agent may write its work\n' } },
    ];
    const before = w.server.calls.length;
    try {
      const r = await w.run(root, env, ['--host', 'pi']);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      w.extra = () => [];
    }
    const refused = w.server.calls.slice(before + 1, before + 8);
    expect(refused).toHaveLength(7);
    for (const call of refused) expect(call.output, `${call.tool} ${call.command}\n${turnLog(root)}`).toMatch(/^loopx: |not found/);
    for (const name of ['ran-bash', 'ran-mcp', 'ran-extension']) expect(existsSync(marker(name)), name).toBe(false);
    expect(existsSync(join(root, '.loopx', 'ran-write'))).toBe(false);
    expect(existsSync(join(root, '.claude', 'settings.json'))).toBe(false);
    expect(existsSync(join(root, '..', 'escaped.txt'))).toBe(false);
    expect(cli(['log', 'verify', '--json']).code).toBe(0);
    expect(readFileSync(marker('notes.md'), 'utf8')).toBe('the agent may write its work\n');
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  });

  test("Pi reviewing a change: its write into the workspace is refused by the turn's guard, its approval through the loopx MCP tool is taken", async () => {
    await reviewTurnWritesNothing(
      w,
      {
        host: 'pi',
        write: (path) => ({ tool: 'write', input: { path, content: 'forged' } }),
        verdictBy: 'mcp',
        refused: /^loopx: this turn has no write/,
      },
      setUp(),
    );
  });
});
