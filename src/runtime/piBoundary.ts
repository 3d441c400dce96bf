import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { AGENT_READ_ONLY } from '../kernel/agentReach';
import { turnMcpTools } from '../kernel/turns/turnCommands';
import { TURN_LOOPX } from '../kernel/turns/turnLoopx';
import type { BoundaryPlace } from './hostBoundary';
import { readJsonObject } from './personJson';
import { realOr } from './programsOnPath';

/**
 * Pi's boundary for a turn (measured with @earendil-works/pi-coding-agent 1.6.0, docs/hosts.md). Pi has no permission
 * layer of its own: every tool runs whatever the model asks. Its extensions can refuse a tool call before it runs (a
 * `tool_call` handler returning `block`; an error in one blocks too), so loopx brings the boundary as an extension of
 * the turn's own, in the turn's folder: only reading, listing, searching and editing files, and the turn's loopx MCP
 * tools; a path is judged where it really leads (symbolic links resolved): inside the workspace (or the todo's
 * worktree) to be read, and not into loopx's files, the hosts' config or this turn's Pi folder to be changed. No shell
 * (none could be kept to the turn's commands): the agent reads its todo and writes back through the loopx MCP server,
 * which is the turn's own loopx. Pi runs with no extension but this one and its built-in MCP support, and an agent
 * folder of the turn's own (the person's providers and default model carried over).
 */

/**
 * The tools a Pi turn may call: Pi's file tools and the turn's loopx MCP tools (as Pi names them); a review turn
 * reads and searches only.
 */
function piAllowedTools(review: boolean): string[] {
  return ['read', 'ls', 'find', 'grep', ...(review ? [] : ['edit', 'write']), ...turnMcpTools(review)];
}

/** The extension's source: the rules as data (JSON), one handler that refuses what they do not allow. */
export function piGuardText(place: BoundaryPlace, piDir: string): string {
  const roots = [...new Set([place.root, place.cwd])].filter((r) => isAbsolute(r));
  const facts = {
    cwd: place.cwd,
    roots: roots.map(realOr),
    // The root resolved first: a protected path that does not exist yet still compares with what the guard resolves.
    protected: [...roots.flatMap((root) => AGENT_READ_ONLY.map((p) => realOr(resolve(realOr(root), p)))), realOr(piDir)],
    unreadable: [realOr(piDir)],
    allowed: piAllowedTools(place.review === true),
    writing: ['edit', 'write'],
  };
  return `// Written by loopx for one turn (src/runtime/piBoundary.ts): what this turn's agent may do, refused before it runs.
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

const RULES = ${JSON.stringify(facts, null, 2)};
const ALLOWED = new Set(RULES.allowed);
const WRITING = new Set(RULES.writing);

/** Where a path really leads: the deepest folder that exists, links followed, and the rest as written. */
function real(path) {
  let at = resolve(RULES.cwd, path);
  const rest = [];
  while (!existsSync(at)) {
    rest.unshift(basename(at));
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  return join(realpathSync(at), ...rest);
}

const inside = (path, dir) => path === dir || path.startsWith(dir + sep);

export default function (pi) {
  pi.on('tool_call', (event) => {
    const name = event.toolName;
    if (!ALLOWED.has(name)) return { block: true, reason: \`loopx: this turn has no \${name}: it reads and edits files in the workspace and writes back through the loopx MCP tools\` };
    if (name.startsWith('mcp__')) return undefined;
    const path = real(String(event.input?.path ?? '.'));
    if (!RULES.roots.some((root) => inside(path, root))) return { block: true, reason: \`loopx: \${event.input?.path} is outside the workspace\` };
    if (RULES.unreadable.some((dir) => inside(path, dir))) return { block: true, reason: \`loopx: \${event.input?.path} is this turn's own Pi folder\` };
    if (WRITING.has(name) && RULES.protected.some((dir) => inside(path, dir)))
      return { block: true, reason: \`loopx: \${event.input?.path} is loopx's or an agent host's; this turn may not change it\` };
    return undefined;
  });
}
`;
}

/** Where a turn's Pi folder is: inside the turn's folder. */
function piHome(turnDir: string): string {
  return join(turnDir, 'pi');
}

/**
 * Writes the turn's Pi folder (the guard, the agent folder: the loopx MCP server given directly to the model, the
 * person's providers and default model carried over) and returns the arguments ({boundary}) and environment.
 */
export function piTurnSetup(
  place: BoundaryPlace,
  turnDir: string,
  env: NodeJS.ProcessEnv = process.env,
): { args: string[]; env: Record<string, string> } {
  const home = piHome(turnDir);
  const agentDir = join(home, 'agent');
  mkdirSync(agentDir, { recursive: true });
  const personDir = env.PI_CODING_AGENT_DIR || join(env.HOME || homedir(), '.pi', 'agent');
  // Providers (models.json) are the person's way to a model; their saved logins (auth.json) stay where they are.
  if (existsSync(join(personDir, 'models.json'))) copyFileSync(join(personDir, 'models.json'), join(agentDir, 'models.json'));
  const person = readJsonObject(join(personDir, 'settings.json')) ?? {};
  const defaults = Object.fromEntries(
    ['defaultProvider', 'defaultModel'].filter((k) => typeof person[k] === 'string').map((k) => [k, person[k]]),
  );
  writeFileSync(join(agentDir, 'settings.json'), `${JSON.stringify(defaults, null, 2)}\n`);
  const mcp = {
    autoEnableCodemode: false,
    mcpServers: { loopx: { command: join(turnDir, TURN_LOOPX), args: ['mcp'], exposure: 'direct' } },
  };
  writeFileSync(join(agentDir, 'mcp.json'), `${JSON.stringify(mcp, null, 2)}\n`);
  const guard = join(home, 'loopx-guard.mjs');
  writeFileSync(guard, piGuardText(place, home));
  return {
    args: ['--no-extensions', '-e', 'builtin:mcp', '-e', guard, '--exclude-tools', 'bash'],
    env: { PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
  };
}
