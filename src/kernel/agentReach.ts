import { dirname, relative, resolve, sep } from 'node:path';
import { workspaceRootOf } from './personsPath';

/**
 * What an agent may not write, relative to a workspace (and a worktree turn's folder): everything loopx reads to
 * decide (`.loopx/`: the store and its WAL, the agents' launcher, turn folders and usage, set-up records) and the
 * config of the agent hosts loopx's next turn or check starts, which runs outside any sandbox (a hook in
 * `.claude/settings.json`, an MCP server in `.codex/config.toml` or `.mcp.json`, a host command or auto-run in
 * `.vscode/settings.json`, the next hosts' folders, Copilot CLI's `.github/hooks/`, `.github/lsp.json` and
 * `.github/agents/`, and Cursor's `.cursor/`, LoopX's other editor), and `.git/` (what its config names,
 * `core.fsmonitor` or a filter, runs when loopx's own git commands make a worktree or land a branch, unattended; hooks
 * never run there: NO_HOOKS in worktrees/git.ts). Reads stay allowed. Instruction files (AGENTS.md, CLAUDE.md) stay
 * writable: they are the project's, and nothing they say widens what a turn may do.
 *
 * One home: the built-in hosts' default commands (runtime/hostBoundary.ts), the checks' sandbox (run/checkSandbox.ts),
 * `loopx doctor` and the docs' tables read it.
 */
export const AGENT_READ_ONLY: readonly string[] = [
  '.loopx',
  '.claude',
  '.codex',
  '.mcp.json',
  '.vscode',
  // Cursor's (LoopX's other editor): its project MCP servers, hooks and background agents' install commands.
  '.cursor',
  '.gemini',
  '.qwen',
  '.opencode',
  '.pi',
  'opencode.json',
  '.git',
  // What Copilot CLI runs from a repository: its hooks (in a folder a person trusts), the language servers its lsp tool
  // starts, custom agents with their MCP servers. The rest of .github (workflows, instructions) stays the project's.
  '.github/hooks',
  '.github/lsp.json',
  '.github/agents',
];

/**
 * Whether an agent of a loopx workspace can write `path` with its host's default reach: inside a workspace (the
 * nearest folder with `.loopx` at or above it) and outside the paths above. What the person's tools read from such a
 * file (a `.code-workspace` file's settings, say) is what an agent may have written.
 */
export function inAgentsReach(path: string): boolean {
  const abs = resolve(path);
  const root = workspaceRootOf(dirname(abs));
  if (root === null) return false;
  const inside = relative(root, abs).split(sep).join('/');
  return !AGENT_READ_ONLY.some((kept) => inside === kept || inside.startsWith(`${kept}/`));
}
