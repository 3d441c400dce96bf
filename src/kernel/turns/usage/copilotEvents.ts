import type { ProgressLine } from './progressLines';
import { type ToolNames, firstLine, resultLine, toolLine } from './toolLines';

export const COPILOT_TOOLS: ToolNames = { shell: 'bash', edits: /^(create|edit|str_replace|apply_patch)$/, pathKeys: ['path', 'pattern'] };

/** The line Copilot CLI adds to a shell call's result (`<shellId: 0 completed with exit code 0>`), not the command's. */
const SHELL_TRAILER = /\n?<shellId: [^>]*>\s*$/;

/**
 * Reads Copilot CLI 1.0's `--output-format json` events (one per line): `session.tools_updated` names the model,
 * `assistant.message` what the agent says, `tool.execution_start` and `tool.execution_complete` a tool call and its
 * result (paired by `toolCallId`), `result` the exit. Its events carry no tokens: usage comes from the file it writes
 * at the end (turnUsage.ts copilotUsage).
 */
export class CopilotEvents {
  private started = false;
  private readonly commands = new Map<string, string>();

  lines(event: Record<string, unknown>): ProgressLine[] {
    const data = (event.data ?? {}) as Record<string, unknown>;
    if (event.type === 'session.tools_updated' && !this.started) {
      this.started = true;
      return [{ kind: 'start', text: `Copilot CLI · ${typeof data.model === 'string' ? data.model : 'model unknown'}` }];
    }
    if (event.type === 'assistant.message' && typeof data.content === 'string' && data.content.trim())
      return [{ kind: 'say', text: data.content.trim() }];
    if (event.type === 'assistant.reasoning' && typeof data.content === 'string' && data.content.trim())
      return [{ kind: 'think', text: firstLine(data.content) }];
    if (event.type === 'tool.execution_start') {
      const { line, command } = toolLine(String(data.toolName ?? 'tool'), (data.arguments ?? {}) as Record<string, unknown>, COPILOT_TOOLS);
      this.commands.set(String(data.toolCallId), command);
      return [line];
    }
    if (event.type === 'tool.execution_complete') {
      const failed = data.success !== true;
      const result = (data.result ?? {}) as { content?: unknown };
      const error = (data.error ?? {}) as { message?: unknown };
      const output = String((failed ? error.message : result.content) ?? '').replace(SHELL_TRAILER, '');
      const exit = (data.shellExecution as { exitCode?: unknown } | undefined)?.exitCode;
      const command = this.commands.get(String(data.toolCallId));
      if (!command) return failed ? [{ kind: 'answer', ok: false, text: firstLine(output) || 'failed' }] : [];
      const line = resultLine(command, output, failed || (typeof exit === 'number' && exit !== 0), typeof exit === 'number' ? exit : null);
      return line ? [line] : [];
    }
    if (event.type === 'session.error' || event.type === 'error')
      return [{ kind: 'error', text: firstLine(String(data.message ?? event.message ?? 'error')) }];
    if (event.type === 'result') {
      const ok = event.exitCode === 0;
      return [{ kind: 'end', ok, text: ok ? 'Copilot CLI finished' : `Copilot CLI stopped: exit ${String(event.exitCode ?? 'unknown')}` }];
    }
    return [];
  }
}
