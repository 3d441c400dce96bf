import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { claudeAllowedTools } from '../kernel/turns/turnCommands';
import { hostFormat } from '../kernel/turns/usage/hostStream';
import { type BoundaryPlace, type McpServerLine, type ShellWord, TERMINAL_PATH_VAR, boundaryArgs } from './hostBoundary';
import { BUILT_IN_HOSTS, builtInHost } from '../shared/hostCatalog';
import { opencodeTurnSetup } from './opencodeBoundary';
import { geminiTurnSetup } from './geminiBoundary';
import { copilotTurnSetup } from './copilotBoundary';
import { qwenTurnSetup } from './qwenBoundary';
import { piTurnSetup } from './piBoundary';
import { leftOutFolders, personsPath } from '../kernel/personsPath';

/** POSIX shell quoting: everything goes inside single quotes; nothing is interpolated unquoted. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export interface HostSettings {
  codex: string;
  claude: string;
  opencode: string;
  gemini: string;
  copilot: string;
  qwen: string;
  pi: string;
  custom: string;
  /** VS Code's built-in sample agent (a demo): its launcher beside the loopx a prompt names. */
  sample?: string;
}

/** The built-in hosts' default commands (shared/hostCatalog.ts, where each is explained), and no custom one. */
export const DEFAULT_HOSTS: HostSettings = {
  ...(Object.fromEntries(BUILT_IN_HOSTS.map((h) => [h.id, h.command])) as Pick<
    HostSettings,
    'codex' | 'claude' | 'opencode' | 'gemini' | 'copilot' | 'qwen' | 'pi'
  >),
  custom: '',
};

export const INSTALL_HINTS: Record<string, string> = {
  ...Object.fromEntries(BUILT_IN_HOSTS.map((h) => [h.id, `install ${h.called}: npm install -g ${h.npmPackage}`])),
  custom: 'set "loopx.hosts.custom.command" (or pass loopx run --command) to your runner, e.g. node ./agent.js {prompt}',
};

export interface HostPlan {
  host: string;
  /** The program that must exist on PATH. */
  executable: string;
  /** The whole line /bin/sh runs (only quoted paths and the configured command in it). */
  commandLine: string;
  /** The host's own command inside it (hostCommand): what a turn's config record names. */
  hostLine: string;
}

/** What a host run needs to know about its turn: the prompt file, the turn's folder and the environment. */
export interface HostTurn {
  promptFile: string;
  dir: string;
  env: Record<string, string>;
  /** The loopx command prefixes the turn's agent may run unasked (`TurnStart.allowedCommands`). */
  allowedCommands?: readonly string[];
  /** The loopx that renders a host's structured output as readable lines in a terminal (`loopx turn progress`). */
  progressLoopx?: string;
  /** What {boundary} keeps out of the agent's reach, and the MCP server a Codex turn writes back through. */
  boundary?: { place: BoundaryPlace; mcp: McpServerLine };
  /** The line runs in a VS Code terminal that keeps its own PATH in TERMINAL_PATH_VAR (planHost). */
  terminalPath?: boolean;
}

const PLACEHOLDER = /\{(prompt|turn|todo|goal|agent|allowedTools|boundary)\}/g;

/**
 * What a turn's boundary puts in its command line (shared/hostCatalog.ts names the kind): {boundary}'s words, and the
 * environment before the command for a host whose boundary is a config of the turn's own, written in the turn's
 * folder (OpenCode, Gemini CLI, Copilot CLI, Qwen Code, Pi). Nothing for a host loopx cannot bound, a command without {boundary}, or no turn.
 */
function boundaryParts(host: string, turn: HostTurn, bounded: boolean): { args: (string | ShellWord)[]; env: Record<string, string> } {
  if (!turn.boundary || !bounded) return { args: [], env: {} };
  const kind = builtInHost(host)?.boundary ?? 'none';
  if (kind === 'opencode-config') return { args: [], env: opencodeTurnSetup(turn.boundary.place, turn.allowedCommands ?? [], turn.dir) };
  if (kind === 'gemini-policy')
    return geminiTurnSetup(turn.allowedCommands ?? [], turn.dir, process.env, turn.boundary.place.review === true);
  if (kind === 'copilot-rules') return copilotTurnSetup(turn.boundary.place, turn.allowedCommands ?? [], turn.dir);
  if (kind === 'qwen-mcp') return qwenTurnSetup(turn.boundary.place, turn.dir);
  if (kind === 'pi-guard') return piTurnSetup(turn.boundary.place, turn.dir);
  return { args: boundaryArgs(kind, turn.boundary.place, turn.boundary.mcp, { terminalPath: turn.terminalPath }), env: {} };
}

/**
 * The shell line that runs the agent. A template names the prompt file with {prompt} (also {turn}, {todo}, {goal},
 * {agent}), each replaced by a quoted value; without {prompt} the prompt file is its stdin. {allowedTools} becomes
 * Claude Code's permission rules for the turn's loopx verbs, one quoted word each. Shared by the extension's
 * terminals and `loopx run`'s child processes: one definition of what a host runs.
 */
export function hostCommand(host: string, settings: HostSettings, turn: HostTurn): string {
  const bounded = templateFor(host, settings).includes('{boundary}');
  const parts = boundaryParts(host, turn, bounded);
  const boundary = parts.args.map((word) => (typeof word === 'string' ? shellQuote(word) : word.shell)).join(' ');
  // Without a boundary to give (a custom host, or no turn yet) the placeholder goes with the space before it.
  const template = boundary ? templateFor(host, settings) : templateFor(host, settings).replace(/ ?\{boundary\}/g, '');
  const values: Record<string, string> = {
    prompt: turn.promptFile,
    turn: turn.env.LOOPX_TURN ?? '',
    todo: turn.env.LOOPX_TODO ?? '',
    goal: turn.env.LOOPX_GOAL ?? '',
    agent: turn.env.LOOPX_AGENT ?? '',
  };
  const command = template.replace(PLACEHOLDER, (_m, key: string) =>
    key === 'allowedTools'
      ? claudeAllowedTools(turn.allowedCommands ?? [])
          .map(shellQuote)
          .join(' ')
      : key === 'boundary'
        ? boundary
        : shellQuote(values[key] ?? ''),
  );
  const line = template.includes('{prompt}') ? command : `${command} < ${shellQuote(turn.promptFile)}`;
  // The environment as assignments before the command: the runner's child and the VS Code terminal run one line.
  return `${Object.entries(parts.env)
    .map(([k, v]) => `${k}=${shellQuote(v)} `)
    .join('')}${line}`;
}

/** The program a host's command starts, which must exist on PATH before anything is claimed. */
export function hostExecutable(host: string, settings: HostSettings): string {
  return (templateFor(host, settings).trim().match(/^\S+/)?.[0] ?? '').replace(/^['"]|['"]$/g, '');
}

function templateFor(host: string, settings: HostSettings): string {
  const template = (settings as unknown as Record<string, string>)[host] ?? '';
  if (!template.trim()) throw new Error(`no command is configured for host "${host}"; ${INSTALL_HINTS[host] ?? INSTALL_HINTS.custom}`);
  return template;
}

/**
 * The command line a host runs in a VS Code terminal: the host's command, its exit code written to a file the
 * extension watches, and the output kept in the turn's folder.
 */
export function planHost(host: string, settings: HostSettings, turn: HostTurn): HostPlan {
  const run = hostCommand(host, settings, { ...turn, terminalPath: true });
  // Only a line that names the terminal's PATH (a bounded Codex turn's) keeps it.
  const keepsTerminalPath = run.includes(`$${TERMINAL_PATH_VAR}`);
  const exitFile = shellQuote(join(turn.dir, 'exit-code'));
  const log = shellQuote(join(turn.dir, 'output.log'));
  // Claude Code and Codex write JSON lines: the log keeps them raw, the terminal shows them as readable lines.
  const progress = hostFormat(host) && turn.progressLoopx ? ` | ${shellQuote(turn.progressLoopx)} turn progress --host ${host}` : '';
  return {
    host,
    hostLine: run,
    executable: hostExecutable(host, settings),
    // The terminal stays open after the run (until Enter) so a person can read what the agent did. Its PATH first, as
    // the person's programs are found: a host's program, and loopx, are Node scripts (`#!/usr/bin/env node`), and the
    // terminal's shell may have put a workspace folder first (an activated .venv/bin), where an agent could have
    // planted the `node` that would run them outside any sandbox (`loopx run` gives its child the same PATH). The
    // terminal's own PATH is kept first, for what runs in a sandbox (a Codex agent's commands: codexBoundaryArgs).
    commandLine:
      `${keepsTerminalPath ? `${TERMINAL_PATH_VAR}="$PATH"; ` : ''}${personsPathWords()}${keepsTerminalPath ? escapeTerminalPath : ''}{ ${run}; printf '%s' "$?" > ${exitFile}; } 2>&1 | tee -a ${log}${progress}; code="$(cat ${exitFile} 2>/dev/null || echo 1)"; ` +
      `printf '\\n[loopx] the turn ended with exit code %s; output kept in %s. Press Enter to close.\\n' "$code" ${log}; read -r _; exit "$code"`,
  };
}

/** TERMINAL_PATH_VAR made a TOML string's content (`\` and `"` escaped), by the person's sed, once PATH is theirs. */
const escapeTerminalPath = String.raw`${TERMINAL_PATH_VAR}="$(printf '%s' "$${TERMINAL_PATH_VAR}" | sed 's/[\\"]/\\&/g')"; `;

/** What to do about a host's program found only where loopx leaves it (programLeftOut): `host_missing`'s hint, doctor's sentence. */
export const LEFT_OUT_HINT = 'install it outside the workspace, or name it by its full path in the command';

/**
 * Where a program loopx did not find (findExecutable) is on PATH all the same: in a folder it leaves out, a relative
 * one or one inside a loopx workspace (personsPath), so that the refusal can say why. Undefined when it is nowhere.
 */
export function programLeftOut(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of leftOutFolders(path)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      /* not there */
    }
  }
  return undefined;
}

/** `PATH=…; export PATH; `: this process's PATH as the person's programs are found (personsPath), for a shell line. */
export function personsPathWords(path = process.env.PATH): string {
  return path === undefined ? '' : `PATH=${shellQuote(personsPath(path))}; export PATH; `;
}

/**
 * Finds an executable on PATH (or checks an explicit path), as the shell would, but only in PATH's folders outside
 * loopx workspaces (personsPath): loopx runs what it finds outside any agent's sandbox.
 */
export function findExecutable(name: string, path = process.env.PATH ?? ''): string | undefined {
  const candidates =
    isAbsolute(name) || name.includes('/')
      ? [name]
      : personsPath(path)
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, name));
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
