import type { ProgressLine } from './progressLines';
import { type ToolNames, firstLine, resultLine, toolLine } from './toolLines';
import { type TurnUsage, addUsage } from './usage';

export const PI_TOOLS: ToolNames = { shell: 'bash', edits: /^(edit|write)$/, pathKeys: ['path', 'pattern'] };

/**
 * Reads Pi 1.6's `--mode json` events (one per line): `message_end` of an assistant message (its text, and its usage:
 * `input` leaves out what the cache served, `cacheRead` and `cacheWrite` apart; `cost.total` is Pi's own price, 0 for a
 * model it has none for), `tool_execution_start` and `tool_execution_end` (a call and its result, refused ones
 * included), `agent_settled` the end.
 */
export class PiEvents {
  used: TurnUsage | null = null;
  private started = false;
  /** Each call's shell or loopx command by its id, so its result can be read as that command's. */
  private readonly commands = new Map<string, string>();

  lines(event: Record<string, unknown>): ProgressLine[] {
    if (event.type === 'agent_start' && !this.started) {
      this.started = true;
      return [{ kind: 'start', text: 'Pi started' }];
    }
    if (event.type === 'message_end') return this.message((event.message ?? {}) as Record<string, unknown>);
    if (event.type === 'tool_execution_start') {
      const { line, command } = toolLine(String(event.toolName ?? 'tool'), (event.args ?? {}) as Record<string, unknown>, PI_TOOLS);
      this.commands.set(String(event.toolCallId), command);
      return [line];
    }
    if (event.type === 'tool_execution_end') {
      const content = ((event.result as { content?: { text?: string }[] } | undefined)?.content ?? []).map((c) => c.text ?? '').join('\n');
      const command = this.commands.get(String(event.toolCallId));
      const failed = event.isError === true;
      if (!command) return failed ? [{ kind: 'answer', ok: false, text: firstLine(content) || 'failed' }] : [];
      const line = resultLine(command, content, failed);
      return line ? [line] : [];
    }
    if (event.type === 'agent_settled') {
      const ok = event.aborted !== true;
      return [{ kind: 'end', ok, text: ok ? 'Pi finished' : 'Pi stopped: aborted' }];
    }
    return [];
  }

  private message(message: Record<string, unknown>): ProgressLine[] {
    if (message.role !== 'assistant') return [];
    const usage = (message.usage ?? {}) as Record<string, unknown>;
    const n = (key: string) => (typeof usage[key] === 'number' ? (usage[key] as number) : 0);
    const cost = (usage.cost as { total?: unknown } | undefined)?.total;
    const priced = typeof cost === 'number' && cost > 0 ? cost : null;
    this.used = addUsage(this.used, {
      inputTokens: n('input') + n('cacheRead') + n('cacheWrite'),
      outputTokens: n('output'),
      cachedTokens: n('cacheRead'),
      ...(n('cacheWrite') > 0 ? { cacheWriteTokens: n('cacheWrite') } : {}),
      costUsd: priced,
      costSource: priced === null ? null : 'host',
      model: typeof message.model === 'string' ? message.model : null,
    });
    const content = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
    return content.flatMap((block): ProgressLine[] => {
      if (block.type === 'text' && typeof block.text === 'string' && block.text.trim()) return [{ kind: 'say', text: block.text.trim() }];
      if (block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking.trim())
        return [{ kind: 'think', text: firstLine(block.thinking) }];
      return [];
    });
  }
}
