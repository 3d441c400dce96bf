import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { HostStream, hostFormat } from './hostStream';
import { DEFAULT_PRICES, type PriceTable } from '../../prices/modelPrices';
import { type CheckedUsage, type TurnUsage, addUsage, checkUsage, priced } from './usage';
import { nodeOs } from '../../nodeOs';

/** Where a turn's output is kept, relative to its folder (the runner and the VS Code terminal both write it). */
export const TURN_OUTPUT = 'output.log';
/**
 * A custom host reports what it used with a line of its own in its output: `loopx-usage: {"inputTokens": 1200,
 * "outputTokens": 300, "cachedTokens": 0, "costUsd": 0.02, "model": "…"}` (every field optional; the last line counts).
 * Whatever follows the marker is the report: a rest that is not JSON is said in a warning, not passed over in silence.
 */
export const USAGE_LINE = /^loopx-usage:(.*)$/;
/** Only the end of a long output is read: the hosts report usage last, and a runaway log must not cost memory. */
const TAIL_BYTES = 8 * 1024 * 1024;

/**
 * What a finished turn used, read from its output the way its host wrote it (Claude Code's stream-json result,
 * Codex's turn.completed events, or a custom host's `loopx-usage:` line), priced from `prices` (the store's table,
 * prices/priceTable.ts) when the host named no cost, and checked. Unknown, never an error, when the output is missing
 * or says nothing usable.
 */
export function usageOfTurn(
  root: string,
  storeDir: string,
  turn: { id: string; host: string },
  options: { prices?: PriceTable; env?: NodeJS.ProcessEnv } = {},
): CheckedUsage {
  const { prices = DEFAULT_PRICES, env = process.env } = options;
  const turnFolder = join(root, storeDir, 'turns', turn.id);
  const text = readTail(join(turnFolder, TURN_OUTPUT));
  if (text === undefined) return { usage: null, warnings: [] };
  let reported: unknown = null;
  const format = hostFormat(turn.host);
  if (format === 'copilot') reported = copilotUsage(turnFolder);
  else if (format) {
    const stream = new HostStream(format);
    stream.push(text);
    stream.end();
    reported = stream.usage;
  }
  for (const line of text.split('\n')) {
    const match = USAGE_LINE.exec(line.trim());
    if (!match) continue;
    reported = usageLine(match[1] as string);
  }
  if (reported === NOT_JSON) return { usage: null, warnings: ['the loopx-usage line is not JSON; recorded as unknown'] };
  const checked = checkUsage(reported);
  if (!checked.usage) return checked;
  const model = checked.usage.model ?? (format === 'codex' ? codexModel(env) : format === 'opencode' ? opencodeModel(turnFolder) : null);
  const usage = { ...checked.usage, model };
  if (usage.costUsd !== null) return { ...checked, usage };
  return { ...checked, usage: priced(usage, prices) };
}

const NOT_JSON = Symbol('not JSON');

/** A loopx-usage line's report, for checkUsage to judge (a number or a string is not an object: it says so). */
function usageLine(rest: string): unknown {
  try {
    return JSON.parse(rest) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/**
 * The model Codex 0.171.0 runs when its config.toml names none: the first model its picker lists, by priority, in the
 * catalog it ships (codex-rs/models-manager: `get_default_model` → `default_model_from_available` over the bundled
 * models.json; `gpt-6.2-sol` has priority 1). Checked against 0.171.0 itself: a config without `model` sends
 * `"model": "gpt-6.2-sol"` to its provider. A newer Codex may change it; a config's `model` always wins.
 */
export const CODEX_DEFAULT_MODEL = 'gpt-6.2-sol';

/**
 * The model a Codex turn ran on: `model` in its config.toml (CODEX_HOME, else ~/.codex), or in the profile the config
 * selects; else Codex's own default. null for a config Codex itself would refuse (not TOML): nothing to price.
 */
export function codexModel(env: NodeJS.ProcessEnv): string | null {
  const text = readOptional(join(env.CODEX_HOME || join(env.HOME || nodeOs().homedir(), '.codex'), 'config.toml'));
  if (!text) return CODEX_DEFAULT_MODEL;
  let config: Record<string, unknown>;
  try {
    config = parseToml(text);
  } catch {
    return null;
  }
  const profiles = (config.profiles ?? {}) as Record<string, { model?: unknown } | undefined>;
  const profile = typeof config.profile === 'string' ? profiles[config.profile]?.model : undefined;
  const model = typeof profile === 'string' ? profile : config.model;
  return typeof model === 'string' && model.trim() ? model : CODEX_DEFAULT_MODEL;
}

/** Where an OpenCode turn's own config is, in its folder (runtime/opencodeBoundary.ts writes it). */
export const OPENCODE_TURN_CONFIG = join('opencode', 'config', 'opencode', 'opencode.json');

/**
 * The model an OpenCode turn ran on: its config's `model` ("provider/model"), without the provider. OpenCode's events
 * do not name it. null when the turn's config names none (OpenCode then picks one itself).
 */
export function opencodeModel(turnFolder: string): string | null {
  try {
    const model = (JSON.parse(readFileSync(join(turnFolder, OPENCODE_TURN_CONFIG), 'utf8')) as { model?: unknown }).model;
    return typeof model === 'string' && model.includes('/') ? model.slice(model.indexOf('/') + 1) : null;
  } catch {
    return null;
  }
}

/** Where a Copilot CLI turn's usage is written, in its folder (`--usage-output-file`, runtime/copilotBoundary.ts). */
export const COPILOT_USAGE_FILE = 'copilot-usage.json';

/**
 * What a Copilot CLI turn used, from the file it writes at its end (1.0.102: `modelMetrics.<model>.usage` with
 * inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, summed here over its models). Its JSON events carry no
 * tokens, and its `cost` counts premium requests, not money: the price table prices the tokens. null: no file, or
 * nothing in it (the turn then records usage as unknown).
 */
export function copilotUsage(turnFolder: string): TurnUsage | null {
  let report: { modelMetrics?: Record<string, { usage?: Record<string, unknown> }>; currentModel?: unknown };
  try {
    report = JSON.parse(readFileSync(join(turnFolder, COPILOT_USAGE_FILE), 'utf8')) as typeof report;
  } catch {
    return null;
  }
  const models = Object.entries(report?.modelMetrics ?? {}).filter(([, m]) => m && typeof m.usage === 'object' && m.usage);
  if (models.length === 0) return null;
  let used: TurnUsage | null = null;
  for (const [model, metrics] of models) {
    const u = metrics.usage as Record<string, unknown>;
    const n = (key: string) => (typeof u[key] === 'number' ? (u[key] as number) : 0);
    used = addUsage(used, {
      inputTokens: n('inputTokens'),
      outputTokens: n('outputTokens'),
      cachedTokens: n('cacheReadTokens'),
      ...(n('cacheWriteTokens') > 0 ? { cacheWriteTokens: n('cacheWriteTokens') } : {}),
      costUsd: null,
      costSource: null,
      model,
    });
  }
  const current = typeof report.currentModel === 'string' ? report.currentModel : null;
  return used && { ...used, model: models.length === 1 ? (models[0]?.[0] ?? null) : current };
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function readTail(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const text = buffer.toString('utf8');
    // Cut mid-file: drop the partial first line.
    return size > length ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    closeSync(fd);
  }
}
