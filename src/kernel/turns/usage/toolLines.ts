import type { ProgressKind, ProgressLine } from './progressLines';

/**
 * What a tool call and its result read as in a turn's progress, the same for every host (hostStream.ts reads each
 * host's stream and asks these): a loopx call with loopx's answer, a shell command and how it failed, or a tool and
 * the path it touched.
 */

/** The loopx verb and arguments in a shell command an agent ran, without the prompt's prefix; undefined if none. */
export function loopxCall(command: string): string | undefined {
  const unwrapped = unwrapShell(command);
  const match = /(?:^|[\s;&|])(?:LOOPX_AGENT=(?:'[^']*'|\S+)\s+)?(?:'[^']*\/loopx'|\S*\/loopx|loopx)\s+([a-z][\s\S]*)$/.exec(unwrapped);
  return match ? `loopx ${(match[1] as string).trim()}` : undefined;
}

/** Codex shows its shell calls as `/bin/bash -lc '<command>'`: the command is what the agent typed. */
export function unwrapShell(command: string): string {
  const match = /^\S*\/(?:ba|z)?sh -l?c '([\s\S]*)'$/.exec(command.trim());
  return match ? (match[1] as string).replace(/'\\''/g, "'") : command;
}

/** What a loopx answer (its --json output) says in a few words: ok with the status it set, or the refusal. */
function loopxAnswer(output: string): ProgressLine | undefined {
  const text = output.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const answer = JSON.parse(text) as { ok?: boolean; data?: Record<string, unknown>; error?: { code?: string; message?: string } };
    if (answer.ok === true) {
      const data = answer.data ?? {};
      const what =
        typeof data.status === 'string'
          ? `${data.id ?? ''} ${data.status}`.trim()
          : typeof data.summary === 'string'
            ? `recorded: ${data.summary}`
            : 'done';
      return { kind: 'answer', ok: true, text: what };
    }
    if (answer.ok === false)
      return { kind: 'answer', ok: false, text: `${answer.error?.code ?? 'refused'}: ${answer.error?.message ?? ''}`.trim() };
  } catch {
    return undefined;
  }
  return undefined;
}

export function firstLine(text: string, max = 200): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A command's result, in a line: a loopx answer as loopx said it, anything else by its exit and first line. */
export function resultLine(command: string, output: string, failed: boolean, exitCode?: number | null): ProgressLine | undefined {
  if (loopxCall(command))
    return loopxAnswer(output) ?? { kind: 'answer', ok: !failed, text: firstLine(output) || (failed ? 'failed' : 'done') };
  if (!failed) return undefined;
  const code = exitCode === undefined || exitCode === null ? '' : `exit ${exitCode}`;
  return { kind: 'answer', ok: false, text: [code, firstLine(output)].filter(Boolean).join(': ') || 'failed' };
}

/** How one host names its tools: the shell tool, the tools that edit files, and where a call's input names its path. */
export interface ToolNames {
  shell: string;
  edits: RegExp;
  pathKeys: readonly string[];
}

export const CLAUDE_TOOLS: ToolNames = {
  shell: 'Bash',
  edits: /^(Edit|Write|MultiEdit|NotebookEdit)$/,
  pathKeys: ['file_path', 'notebook_path', 'path', 'pattern', 'url'],
};
export const OPENCODE_TOOLS: ToolNames = { shell: 'bash', edits: /^(edit|write|apply_patch)$/, pathKeys: ['filePath', 'path', 'pattern'] };
export const QWEN_TOOLS: ToolNames = {
  shell: 'run_shell_command',
  edits: /^(edit|write_file|notebook_edit)$/,
  pathKeys: ['file_path', 'absolute_path', 'path', 'pattern'],
};
export const GEMINI_TOOLS: ToolNames = {
  shell: 'run_shell_command',
  edits: /^(write_file|replace)$/,
  pathKeys: ['file_path', 'dir_path', 'pattern'],
};

/**
 * The line a tool call reads as, the same for every host: a loopx call, a shell command, or a tool and its path. The
 * shell command is returned too (empty for other tools), so a host whose results come later can pair them with it.
 */
export function toolLine(name: string, input: Record<string, unknown>, tools: ToolNames): { line: ProgressLine; command: string } {
  // A loopx MCP tool as a host names it (`mcp__loopx__loopx_ship`): a loopx call, its answer read as loopx's.
  const mcp = /^mcp__loopx__(loopx_\w+)$/.exec(name)?.[1];
  if (mcp) return { line: { kind: 'loopx', text: typeof input.todo === 'string' ? `${mcp} ${input.todo}` : mcp }, command: `loopx ${mcp}` };
  if (name === tools.shell && typeof input.command === 'string') {
    const call = loopxCall(input.command);
    return { line: call ? { kind: 'loopx', text: call } : { kind: 'run', text: input.command }, command: input.command };
  }
  const path = tools.pathKeys.map((key) => input[key]).find((value) => value !== undefined && value !== null);
  const kind: ProgressKind = tools.edits.test(name) ? 'edit' : 'tool';
  return { line: { kind, text: typeof path === 'string' ? `${name} ${path}` : name }, command: '' };
}
