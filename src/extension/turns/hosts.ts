import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** POSIX shell quoting: everything goes inside single quotes; nothing is interpolated unquoted. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export interface HostSettings {
  codex: string;
  claude: string;
  custom: string;
}

export const DEFAULT_HOSTS: HostSettings = {
  // Both read the prompt from stdin, so no prompt ever travels through a shell command line.
  codex: 'codex exec --full-auto -',
  claude: 'claude -p --permission-mode acceptEdits',
  custom: '',
};

export const INSTALL_HINTS: Record<string, string> = {
  codex: 'install the Codex CLI: npm install -g @openai/codex',
  claude: 'install Claude Code: npm install -g @anthropic-ai/claude-code',
  custom: 'set "loopx.hosts.custom.command" to your runner, e.g. node ./agent.js {prompt}',
};

export interface HostPlan {
  host: string;
  /** The program that must exist on PATH. */
  executable: string;
  /** The whole line /bin/sh runs (only quoted paths and the configured command in it). */
  commandLine: string;
}

/**
 * The command line a host runs. Codex and Claude Code read the prompt file on stdin; a custom template names it
 * with {prompt} (also {turn}, {todo}, {goal}, {agent}), each replaced by a quoted value. The exit code goes to a file
 * the extension watches, and the output is kept in the turn's folder.
 */
export function planHost(host: string, settings: HostSettings, turn: { promptFile: string; dir: string; env: Record<string, string> }): HostPlan {
  const template = (settings as unknown as Record<string, string>)[host] ?? '';
  if (!template.trim()) throw new Error(`no command is configured for host "${host}"; ${INSTALL_HINTS[host] ?? INSTALL_HINTS.custom}`);
  const values: Record<string, string> = {
    prompt: turn.promptFile,
    turn: turn.env.LOOPX_TURN ?? '',
    todo: turn.env.LOOPX_TODO ?? '',
    goal: turn.env.LOOPX_GOAL ?? '',
    agent: turn.env.LOOPX_AGENT ?? '',
  };
  const usesPlaceholders = /\{(prompt|turn|todo|goal|agent)\}/.test(template);
  const command = template.replace(/\{(prompt|turn|todo|goal|agent)\}/g, (_m, key: string) => shellQuote(values[key] ?? ''));
  const run = usesPlaceholders ? command : `${command} < ${shellQuote(turn.promptFile)}`;
  const exitFile = shellQuote(join(turn.dir, 'exit-code'));
  const log = shellQuote(join(turn.dir, 'output.log'));
  const executable = (template.trim().match(/^\S+/)?.[0] ?? '').replace(/^['"]|['"]$/g, '');
  return {
    host,
    executable,
    // The terminal stays open after the run (until Enter) so a person can read what the agent did.
    commandLine:
      `{ ${run}; printf '%s' "$?" > ${exitFile}; } 2>&1 | tee -a ${log}; code="$(cat ${exitFile} 2>/dev/null || echo 1)"; ` +
      `printf '\\n[loopx] the turn ended with exit code %s; output kept in %s. Press Enter to close.\\n' "$code" ${log}; read -r _; exit "$code"`,
  };
}

/** Finds an executable on PATH (or checks an explicit path), as the shell would. */
export function findExecutable(name: string, path = process.env.PATH ?? ''): string | undefined {
  const candidates = isAbsolute(name) || name.includes('/') ? [name] : path.split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
