import { type TurnUsage, addUsage } from './usage';
import type { ProgressLine } from './progressLines';
import {
  CLAUDE_TOOLS,
  GEMINI_TOOLS,
  OPENCODE_TOOLS,
  QWEN_TOOLS,
  firstLine,
  loopxCall,
  resultLine,
  toolLine,
  unwrapShell,
} from './toolLines';

export { type ProgressKind, type ProgressLine, renderProgress } from './progressLines';
export { loopxCall } from './toolLines';
import { type HostOutput, builtInHost } from '../../../shared/hostCatalog';
import { CopilotEvents } from './copilotEvents';
import { PiEvents } from './piEvents';

/**
 * Reads a host's structured output as it streams (Claude Code's `--output-format stream-json --verbose`, Codex's
 * `exec --json`, OpenCode's `run --format json`, Gemini CLI's `--output-format stream-json`, Copilot CLI's
 * `--output-format json`, copilotEvents.ts): one JSON object per line. It turns each into readable progress lines (what the agent says, the
 * commands it runs, its loopx write-backs and their answers) and sums what the turn used. A line that is not JSON,
 * or JSON it does not know, passes through as it is: a host that prints text keeps working.
 */
export type HostFormat = Exclude<HostOutput, 'text'>;

/** The host format a host's default command writes (shared/hostCatalog.ts); hosts that print text: undefined. */
export function hostFormat(host: string): HostFormat | undefined {
  const output = builtInHost(host)?.output;
  return output === 'text' ? undefined : output;
}

export class HostStream {
  private buffer = '';
  private used: TurnUsage | null = null;
  /** Claude Code's tool calls by id, so their results can be told apart (a loopx call or not). */
  private readonly commands = new Map<string, string>();
  private model: string | null = null;
  /** OpenCode starts a step per model request: the first is the turn's start. */
  private started = false;
  /** Gemini CLI's text in pieces, said once the next event comes. */
  private saying = '';
  private copilot: CopilotEvents | undefined;
  private pi: PiEvents | undefined;

  constructor(private readonly format: HostFormat) {}

  /** What the turn used so far (summed over the host's reports); null until the host reported any. */
  get usage(): TurnUsage | null {
    const used = this.pi?.used ?? this.used;
    return used && { ...used, model: used.model ?? this.model };
  }

  /** Feeds a chunk of output; returns the progress lines of every line it completed. */
  push(chunk: string): ProgressLine[] {
    this.buffer += chunk;
    const lines = this.buffer.split('\n');
    this.buffer = lines.pop() ?? '';
    return lines.flatMap((line) => this.line(line));
  }

  /** The output ended: the last line, if it had no newline. */
  end(): ProgressLine[] {
    const rest = this.buffer;
    this.buffer = '';
    // Gemini CLI's last words wait for an event that, in a stream cut short (no `result`), never comes.
    return [...(rest ? this.line(rest) : []), ...this.said()];
  }

  /** The text Gemini CLI sent in pieces since the last other event, as one line; the pieces are then forgotten. */
  private said(): ProgressLine[] {
    const text = this.saying.trim();
    this.saying = '';
    return text ? [{ kind: 'say', text }] : [];
  }

  private line(line: string): ProgressLine[] {
    if (!line.trim()) return [];
    let event: Record<string, unknown>;
    try {
      const parsed = JSON.parse(line) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return [{ kind: 'raw', text: line }];
      event = parsed as Record<string, unknown>;
    } catch {
      return [{ kind: 'raw', text: line }];
    }
    try {
      if (this.format === 'claude') return this.claude(event);
      if (this.format === 'codex') return this.codex(event);
      if (this.format === 'copilot') return (this.copilot ??= new CopilotEvents()).lines(event);
      if (this.format === 'qwen') return this.qwen(event);
      if (this.format === 'pi') return (this.pi ??= new PiEvents()).lines(event);
      return this.format === 'opencode' ? this.opencode(event) : this.gemini(event);
    } catch {
      // An event of a shape this release did not expect: shown as it came, never a broken turn.
      return [{ kind: 'raw', text: line }];
    }
  }

  private claude(event: Record<string, unknown>): ProgressLine[] {
    if (event.type === 'system' && event.subtype === 'init') {
      this.model = typeof event.model === 'string' ? event.model.replace(/\[.*\]$/, '') : null;
      const version = typeof event.claude_code_version === 'string' ? ` ${event.claude_code_version}` : '';
      return [
        {
          kind: 'start',
          text: `Claude Code${version} · ${this.model ?? 'model unknown'} · ${String(event.permissionMode ?? '')}`.replace(/ · $/, ''),
        },
      ];
    }
    if (event.type === 'assistant' || event.type === 'user') {
      const message = event.message as { content?: unknown } | undefined;
      const content = Array.isArray(message?.content) ? (message.content as Record<string, unknown>[]) : [];
      return content.flatMap((block) => this.claudeBlock(block));
    }
    if (event.type === 'result') {
      const usage = event.usage as Record<string, unknown> | undefined;
      const model = event.modelUsage && typeof event.modelUsage === 'object' ? Object.keys(event.modelUsage)[0] : undefined;
      if (usage) {
        const n = (key: string) => (typeof usage[key] === 'number' ? (usage[key] as number) : 0);
        this.used = addUsage(this.used, {
          inputTokens: n('input_tokens') + n('cache_creation_input_tokens') + n('cache_read_input_tokens'),
          outputTokens: n('output_tokens'),
          cachedTokens: n('cache_read_input_tokens'),
          ...(n('cache_creation_input_tokens') > 0 ? { cacheWriteTokens: n('cache_creation_input_tokens') } : {}),
          costUsd: typeof event.total_cost_usd === 'number' ? event.total_cost_usd : null,
          costSource: typeof event.total_cost_usd === 'number' ? 'host' : null,
          model: model ? model.replace(/\[.*\]$/, '') : this.model,
        });
      }
      const ok = event.is_error !== true && event.subtype === 'success';
      const calls = typeof event.num_turns === 'number' ? ` after ${event.num_turns} model calls` : '';
      return [
        { kind: 'end', ok, text: ok ? `Claude Code finished${calls}` : `Claude Code stopped: ${String(event.subtype ?? 'error')}${calls}` },
      ];
    }
    return [];
  }

  /**
   * Qwen Code 0.24's stream-json: Claude Code's shape (a `system` init naming the model, `assistant` and `user`
   * messages of blocks, a last `result`), but its `input_tokens` already count the cached ones, and it has no cost.
   */
  private qwen(event: Record<string, unknown>): ProgressLine[] {
    if (event.type === 'system' && event.subtype === 'init') {
      this.model = typeof event.model === 'string' ? event.model : null;
      const version = typeof event.qwen_code_version === 'string' ? ` ${event.qwen_code_version}` : '';
      return [{ kind: 'start', text: `Qwen Code${version} · ${this.model ?? 'model unknown'}` }];
    }
    if (event.type === 'assistant' || event.type === 'user') {
      const message = event.message as { content?: unknown } | undefined;
      const content = Array.isArray(message?.content) ? (message.content as Record<string, unknown>[]) : [];
      return content.flatMap((block) => this.claudeBlock(block, QWEN_TOOLS));
    }
    if (event.type !== 'result') return [];
    const usage = event.usage as Record<string, unknown> | undefined;
    if (usage) {
      const n = (key: string) => (typeof usage[key] === 'number' ? (usage[key] as number) : 0);
      this.used = addUsage(this.used, {
        inputTokens: n('input_tokens'),
        outputTokens: n('output_tokens'),
        cachedTokens: n('cache_read_input_tokens'),
        costUsd: null,
        costSource: null,
        model: this.model,
      });
    }
    const ok = event.is_error !== true && event.subtype === 'success';
    return [{ kind: 'end', ok, text: ok ? 'Qwen Code finished' : `Qwen Code stopped: ${String(event.subtype ?? 'error')}` }];
  }

  private claudeBlock(block: Record<string, unknown>, tools = CLAUDE_TOOLS): ProgressLine[] {
    if (block.type === 'text' && typeof block.text === 'string' && block.text.trim()) return [{ kind: 'say', text: block.text.trim() }];
    if (block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking.trim())
      return [{ kind: 'think', text: firstLine(block.thinking) }];
    if (block.type === 'tool_use') {
      const { line, command } = toolLine(String(block.name ?? 'tool'), (block.input ?? {}) as Record<string, unknown>, tools);
      this.commands.set(String(block.id), command);
      return [line];
    }
    if (block.type === 'tool_result') {
      const command = this.commands.get(String(block.tool_use_id));
      const output =
        typeof block.content === 'string'
          ? block.content
          : Array.isArray(block.content)
            ? (block.content as { text?: string }[]).map((c) => c.text ?? '').join('\n')
            : '';
      const failed = block.is_error === true;
      if (command === undefined || command === '')
        return failed ? [{ kind: 'answer', ok: false, text: firstLine(output) || 'failed' }] : [];
      const line = resultLine(command, output, failed);
      return line ? [line] : [];
    }
    return [];
  }

  /**
   * OpenCode 1.18: `step_start` and `step_finish` around each model request (its tokens and cost), `tool_use` once a
   * call has ended (its input and output, or the refusal), `text`, `reasoning`, `error`. Usage is the sum of the steps:
   * `input` leaves out what the cache served (`cache.read`, `cache.write`), `output` leaves out `reasoning`, and `cost`
   * is 0 for a model OpenCode has no prices for (then the price table decides).
   */
  private opencode(event: Record<string, unknown>): ProgressLine[] {
    const part = (event.part ?? {}) as Record<string, unknown>;
    if (event.type === 'step_start') {
      if (this.started) return [];
      this.started = true;
      return [{ kind: 'start', text: 'OpenCode started' }];
    }
    if (event.type === 'step_finish') {
      const tokens = (part.tokens ?? {}) as Record<string, unknown>;
      const cache = (tokens.cache ?? {}) as Record<string, unknown>;
      const n = (from: Record<string, unknown>, key: string) => (typeof from[key] === 'number' ? (from[key] as number) : 0);
      const cost = typeof part.cost === 'number' && part.cost > 0 ? part.cost : null;
      this.used = addUsage(this.used, {
        inputTokens: n(tokens, 'input') + n(cache, 'read') + n(cache, 'write'),
        outputTokens: n(tokens, 'output') + n(tokens, 'reasoning'),
        cachedTokens: n(cache, 'read'),
        ...(n(cache, 'write') > 0 ? { cacheWriteTokens: n(cache, 'write') } : {}),
        costUsd: cost,
        costSource: cost === null ? null : 'host',
        model: null,
      });
      return part.reason === 'stop' ? [{ kind: 'end', ok: true, text: 'OpenCode finished' }] : [];
    }
    if (event.type === 'text' && typeof part.text === 'string' && part.text.trim()) return [{ kind: 'say', text: part.text.trim() }];
    if (event.type === 'reasoning' && typeof part.text === 'string' && part.text.trim())
      return [{ kind: 'think', text: firstLine(part.text) }];
    if (event.type === 'error') {
      const error = (event.error ?? {}) as { name?: string; data?: { message?: string } };
      return [{ kind: 'end', ok: false, text: `OpenCode stopped: ${error.data?.message ?? error.name ?? 'error'}` }];
    }
    if (event.type !== 'tool_use') return [];
    const tool = String(part.tool ?? 'tool');
    const state = (part.state ?? {}) as Record<string, unknown>;
    const input = (state.input ?? {}) as Record<string, unknown>;
    const failed = state.status === 'error';
    const output = failed ? String(state.error ?? 'refused') : String(state.output ?? '');
    // OpenCode reports a call once it has ended: the call and its result come together.
    const { line, command } = toolLine(tool, input, OPENCODE_TOOLS);
    if (command) {
      const exit = (state.metadata as { exit?: unknown } | undefined)?.exit;
      const result = resultLine(
        command,
        output,
        failed || (typeof exit === 'number' && exit !== 0),
        typeof exit === 'number' ? exit : null,
      );
      return [line, ...(result ? [result] : [])];
    }
    return [line, ...(failed ? [{ kind: 'answer' as const, ok: false, text: firstLine(output) }] : [])];
  }

  /**
   * Gemini CLI 0.61: `init` (its model), `message` (the assistant's text in pieces, `delta`), `tool_use` and
   * `tool_result` (paired by `tool_id`), and a last `result` whose stats hold the turn's tokens: `input_tokens` counts
   * the cached ones, `output_tokens` leaves out thoughts. No cost: the price table decides.
   */
  private gemini(event: Record<string, unknown>): ProgressLine[] {
    if (event.type === 'init') {
      this.model = typeof event.model === 'string' && event.model !== 'auto' ? event.model : null;
      return [{ kind: 'start', text: `Gemini CLI · ${this.model ?? 'model chosen per request'}` }];
    }
    const said = event.type === 'message' && event.role === 'assistant' && typeof event.content === 'string' ? event.content : '';
    if (said) {
      this.saying += said;
      return [];
    }
    const lines = this.said();
    if (event.type === 'tool_use') {
      const { line, command } = toolLine(
        String(event.tool_name ?? 'tool'),
        (event.parameters ?? {}) as Record<string, unknown>,
        GEMINI_TOOLS,
      );
      this.commands.set(String(event.tool_id), command);
      return [...lines, line];
    }
    if (event.type === 'tool_result') {
      const command = this.commands.get(String(event.tool_id));
      const failed = event.status !== 'success';
      const output = String(event.output ?? (event.error as { message?: string } | undefined)?.message ?? '');
      if (!command) return failed ? [...lines, { kind: 'answer', ok: false, text: firstLine(output) || 'failed' }] : lines;
      const line = resultLine(command, output, failed);
      return line ? [...lines, line] : lines;
    }
    if (event.type === 'result') {
      const stats = (event.stats ?? {}) as Record<string, unknown>;
      const n = (key: string) => (typeof stats[key] === 'number' ? (stats[key] as number) : 0);
      const models = stats.models && typeof stats.models === 'object' ? Object.keys(stats.models) : [];
      if (typeof stats.input_tokens === 'number')
        this.used = addUsage(this.used, {
          inputTokens: n('input_tokens'),
          outputTokens: n('output_tokens'),
          cachedTokens: n('cached'),
          costUsd: null,
          costSource: null,
          model: this.model ?? (models.length === 1 ? (models[0] as string) : null),
        });
      const ok = event.status === 'success';
      const error = (event.error ?? {}) as { message?: string };
      return [
        ...lines,
        { kind: 'end', ok, text: ok ? 'Gemini CLI finished' : `Gemini CLI stopped: ${firstLine(error.message ?? 'error')}` },
      ];
    }
    return lines;
  }

  private codex(event: Record<string, unknown>): ProgressLine[] {
    if (event.type === 'thread.started') return [{ kind: 'start', text: 'Codex started' }];
    if (event.type === 'turn.completed' || event.type === 'turn.failed') {
      const usage = event.usage as Record<string, unknown> | undefined;
      if (usage) {
        const n = (key: string) => (typeof usage[key] === 'number' ? (usage[key] as number) : 0);
        this.used = addUsage(this.used, {
          inputTokens: n('input_tokens'),
          outputTokens: n('output_tokens'),
          cachedTokens: n('cached_input_tokens'),
          costUsd: null,
          costSource: null,
          model: this.model,
        });
      }
      if (event.type === 'turn.failed') {
        const error = event.error as { message?: string } | undefined;
        return [{ kind: 'end', ok: false, text: `Codex stopped: ${error?.message ?? 'the turn failed'}` }];
      }
      return [{ kind: 'end', ok: true, text: 'Codex finished' }];
    }
    if (event.type === 'error') return [{ kind: 'error', text: String(event.message ?? 'error') }];
    if (event.type !== 'item.started' && event.type !== 'item.completed') return [];
    const item = (event.item ?? {}) as Record<string, unknown>;
    const done = event.type === 'item.completed';
    switch (item.type) {
      case 'command_execution': {
        const command = String(item.command ?? '');
        if (!done) {
          const call = loopxCall(command);
          return [call ? { kind: 'loopx', text: call } : { kind: 'run', text: unwrapShell(command) }];
        }
        const exit = typeof item.exit_code === 'number' ? item.exit_code : null;
        const line = resultLine(
          command,
          String(item.aggregated_output ?? ''),
          item.status === 'failed' || (exit !== null && exit !== 0),
          exit,
        );
        return line ? [line] : [];
      }
      case 'agent_message':
        return done && typeof item.text === 'string' ? [{ kind: 'say', text: item.text.trim() }] : [];
      case 'reasoning':
        return done && typeof item.text === 'string' ? [{ kind: 'think', text: firstLine(item.text) }] : [];
      case 'file_change': {
        const changes = Array.isArray(item.changes) ? (item.changes as { path?: string; kind?: string }[]) : [];
        return done ? changes.map((c) => ({ kind: 'edit' as const, text: `${c.kind ?? 'change'} ${c.path ?? ''}`.trim() })) : [];
      }
      case 'mcp_tool_call':
        return done ? [{ kind: 'tool', text: `${String(item.server ?? 'mcp')}.${String(item.tool ?? 'tool')}` }] : [];
      case 'web_search':
        return done ? [{ kind: 'tool', text: `web search ${String(item.query ?? '')}`.trim() }] : [];
      case 'error':
        return [{ kind: 'error', text: String(item.message ?? 'error') }];
      default:
        return [];
    }
  }
}
