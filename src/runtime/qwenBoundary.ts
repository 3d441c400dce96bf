import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, posix } from 'node:path';
import { AGENT_READ_ONLY } from '../kernel/agentReach';
import { turnMcpTools } from '../kernel/turns/turnCommands';
import { TURN_LOOPX } from '../kernel/turns/turnLoopx';
import type { BoundaryPlace } from './hostBoundary';
import { readJsonObject } from './personJson';
import { realOr } from './programsOnPath';

/**
 * Qwen Code's boundary for a turn (measured with @qwen-code/qwen-code 0.24.4, docs/hosts.md). Its shell cannot be
 * bounded: a `$(…)` or backticks inside an allowed command's arguments ran, and it drops `VAR=value` words before
 * matching. So a turn has no shell at all: the agent reads its todo and writes back through the loopx MCP server the
 * turn starts (as Codex does), and edits files with its own tools, which may not touch loopx's files or the hosts'
 * config. `--bare` (in the default command) reads none of the repository's settings, hooks, MCP servers or skills.
 * The MCP server is the turn's own loopx (kernel/turns/turnLoopx.ts), allowed `mcp` alone: whatever environment Qwen
 * hands it (a project `.env` it loads), loopx runs in the turn's.
 */

/**
 * Claude-style rules for the paths an agent may not edit: `//` then the path without its leading slash. A review turn
 * may edit nothing under the roots at all.
 */
function qwenDeniedEdits(place: BoundaryPlace): string[] {
  // Each root as given and as it really is (a workspace reached through a link): a rule names one path form.
  const given = [place.root, place.cwd].filter((r) => isAbsolute(r));
  const roots = [...new Set([...given, ...given.map(realOr)])];
  const rule = (path: string) => [`Edit(${path})`, `WriteFile(${path})`];
  const denied = roots.flatMap((root) =>
    AGENT_READ_ONLY.flatMap((p) => {
      const at = `//${posix.join(root, p).replace(/^\/+/, '')}`;
      return (p.includes('.json') ? [at] : [at, `${at}/**`]).flatMap(rule);
    }),
  );
  if (place.review) denied.push(...roots.flatMap((root) => rule(`//${posix.join(root, '**').replace(/^\/+/, '')}`)));
  return denied;
}

/** The person's own Qwen Code settings, for what a turn carries over; {} when there are none. */
function personSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  return readJsonObject(join(env.QWEN_HOME || join(env.HOME || homedir(), '.qwen'), 'settings.json')) ?? {};
}

/** Where a turn's Qwen Code home is: inside the turn's folder. */
function qwenHome(turnDir: string): string {
  return join(turnDir, 'qwen');
}

/**
 * Writes the turn's settings (the person's way of signing in and model carried over; statistics, telemetry and
 * updates off) and returns the arguments ({boundary}) and environment (its own home) the turn runs with.
 */
export function qwenTurnSetup(
  place: BoundaryPlace,
  turnDir: string,
  env: NodeJS.ProcessEnv = process.env,
): { args: string[]; env: Record<string, string> } {
  const home = qwenHome(turnDir);
  mkdirSync(home, { recursive: true });
  const person = personSettings(env);
  const auth = (person.security as { auth?: unknown } | undefined)?.auth;
  const model = (person.model as { name?: unknown } | undefined)?.name;
  const settings = {
    ...(auth && typeof auth === 'object' ? { security: { auth } } : {}),
    ...(typeof model === 'string' ? { model: { name: model } } : {}),
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false },
  };
  writeFileSync(join(home, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  const mcp = { mcpServers: { loopx: { command: join(turnDir, TURN_LOOPX), args: ['mcp'], trust: true } } };
  return {
    args: [
      // Edits without asking (headless, nobody answers); its default, `auto`, lets the model's own classifier allow calls.
      '--approval-mode',
      'auto-edit',
      '--exclude-tools',
      'run_shell_command',
      ...qwenDeniedEdits(place),
      '--mcp-config',
      JSON.stringify(mcp),
      '--allowed-mcp-server-names',
      'loopx',
      '--allowed-tools',
      // The loopx MCP tools a turn's agent may call unasked: the turn's verbs (the prompt lists the same).
      ...turnMcpTools(place.review === true),
    ],
    env: { QWEN_HOME: home, QWEN_USAGE_STATISTICS_ENABLED: 'false' },
  };
}
