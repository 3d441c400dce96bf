import { mkdirSync } from 'node:fs';
import { isAbsolute, join, posix } from 'node:path';
import { AGENT_READ_ONLY } from '../kernel/agentReach';
import { COPILOT_USAGE_FILE } from '../kernel/turns/usage/turnUsage';
import type { BoundaryPlace } from './hostBoundary';

/**
 * Copilot CLI's boundary for a turn (measured with @github/copilot 1.0.102, docs/hosts.md). Its shell rules match a
 * command by its program alone and drop `VAR=value` words first, so the one program allowed is the turn's own loopx
 * (kernel/turns/turnLoopx.ts), which pins the agent and the verbs. It refuses chains, substitutions and any command
 * not allowed (nobody answers headless). Edits: allowed under the workspace (and the todo's worktree), denied for
 * loopx's files and the hosts' config; a scoped write rule also refuses shell redirections (only a bare `write` allows
 * them). Paths outside the workspace, the person's key folder among them, are refused by Copilot's own path check.
 * Its home is the turn's own: no saved folder trust (which would load a repository's hooks, MCP servers and skills),
 * no saved approvals, no person's MCP servers; and the tools that start a repository's language servers and custom
 * agents are not offered at all.
 */

/** The first shell word of a command (quoted as the prompt quotes it): the program a Copilot rule names. */
function programOf(command: string): string {
  return /^('(?:[^']|'\\'')*'|\S+)/.exec(command)?.[1] ?? command;
}

/** The turn's rules: its loopx, edits under the roots, none to what an agent may not write. */
function copilotRules(place: BoundaryPlace, allowedCommands: readonly string[]): string[] {
  const roots = [...new Set([place.root, place.cwd])].filter((r) => isAbsolute(r));
  const programs = [...new Set(allowedCommands.map(programOf))];
  const deny = roots.flatMap((root) =>
    AGENT_READ_ONLY.flatMap((p) => {
      const at = posix.join(root, p);
      return p.includes('.json') ? [`write(${at})`] : [`write(${at})`, `write(${at}/**)`];
    }),
  );
  // A review turn writes nothing under the roots (kernel/todos/review.ts): no edit is allowed there, every one denied.
  if (place.review) deny.push(...roots.map((root) => `write(${posix.join(root, '**')})`));
  return [
    ...programs.flatMap((program) => ['--allow-tool', `shell(${program})`]),
    ...(place.review ? [] : roots.flatMap((root) => ['--allow-tool', `write(${posix.join(root, '**')})`])),
    ...deny.flatMap((rule) => ['--deny-tool', rule]),
  ];
}

/** Where a turn's Copilot home is: inside the turn's folder. */
function copilotHome(turnDir: string): string {
  return join(turnDir, 'copilot');
}

/**
 * The turn's arguments ({boundary}: its rules and the usage file) and environment (its own home; the ways of widening
 * a turn from outside emptied). A sign-in reaches the turn as a token in the environment (COPILOT_GITHUB_TOKEN,
 * GH_TOKEN) or a provider of the person's (COPILOT_PROVIDER_*): a login saved in ~/.copilot is not read.
 */
export function copilotTurnSetup(
  place: BoundaryPlace,
  allowedCommands: readonly string[],
  turnDir: string,
): { args: string[]; env: Record<string, string> } {
  const home = copilotHome(turnDir);
  mkdirSync(home, { recursive: true });
  return {
    args: [
      ...copilotRules(place, allowedCommands),
      // Tools that start what a repository configures, untrusted or not: `lsp` runs the servers `.github/lsp.json`
      // names, `task` the custom agents of `.github/agents/` with their MCP servers.
      '--excluded-tools',
      'lsp',
      'task',
      '--usage-output-file',
      join(turnDir, COPILOT_USAGE_FILE),
    ],
    env: {
      COPILOT_HOME: home,
      // "true" would also trust the workspace (its hooks run); any truthy value allows every tool.
      COPILOT_ALLOW_ALL: '',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_CUSTOM_INSTRUCTIONS_DIRS: '',
    },
  };
}
