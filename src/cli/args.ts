import { InvalidInputError } from '../kernel/errors';
import { formatDuration, parseDuration } from '../kernel/time';
import { type EntityName, parseId } from '../kernel/validate';

export type FlagType = 'string' | 'int' | 'number' | 'duration' | 'boolean';

export interface FlagSpec {
  type: FlagType;
  description: string;
  repeat?: boolean;
  required?: boolean;
  /** Placeholder in help, e.g. TEXT or N. */
  value?: string;
  /** Numeric flags (int, number; a duration in seconds): the smallest and largest value taken; anything outside is invalid input (exit 2). */
  min?: number;
  max?: number;
}

export interface PositionalSpec {
  name: string;
  description: string;
  required?: boolean;
  /** The last positional only: takes every remaining argument (a command line after `--`). */
  rest?: boolean;
}

export type FlagValue = string | number | boolean | string[];

/** Parsed command-line arguments, with typed getters that say which flag was wrong. */
export class Args {
  constructor(
    readonly positionals: string[],
    private readonly flags: Map<string, FlagValue>,
    /** How many positionals came before `--` (all of them when there was none). */
    readonly beforeDashDash: number = positionals.length,
  ) {}

  has(name: string): boolean {
    return this.flags.has(name);
  }
  str(name: string): string | undefined {
    const v = this.flags.get(name);
    return v === undefined ? undefined : String(v);
  }
  num(name: string): number | undefined {
    const v = this.flags.get(name);
    return typeof v === 'number' ? v : undefined;
  }
  bool(name: string): boolean {
    return this.flags.get(name) === true;
  }
  list(name: string): string[] {
    const v = this.flags.get(name);
    return Array.isArray(v) ? v : [];
  }
  /** An optional id flag (--goal G1, --todo t3), normalised; malformed ids are invalid input. */
  id(entity: EntityName, flag: string = entity): string | undefined {
    return this.flags.has(flag) ? parseId(entity, this.str(flag)) : undefined;
  }
}

export const GLOBAL_FLAGS: Record<string, FlagSpec> = {
  json: { type: 'boolean', description: 'print exactly one JSON object: {"ok":true,"data":…} or {"ok":false,"error":…}' },
  root: {
    type: 'string',
    value: 'DIR',
    description: 'workspace root holding .loopx/ (default: $LOOPX_ROOT, else the nearest .loopx/ above)',
  },
  agent: { type: 'string', value: 'NAME', description: 'act as this agent (default: $LOOPX_AGENT); without one you act as a human' },
  help: { type: 'boolean', description: 'show help for this command' },
};

function convert(flag: string, spec: FlagSpec, raw: string): string | number {
  switch (spec.type) {
    case 'int': {
      if (!/^-?\d{1,15}$/.test(raw.trim())) throw new InvalidInputError(`--${flag} must be a whole number, got ${JSON.stringify(raw)}`);
      return inRange(flag, spec, Number(raw));
    }
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw new InvalidInputError(`--${flag} must be a number, got ${JSON.stringify(raw)}`);
      return inRange(flag, spec, n);
    }
    case 'duration':
      return inRange(flag, spec, parseDuration(raw, `--${flag}`));
    default:
      return raw;
  }
}

/** The one rule for a numeric flag's range: its spec's min and max. */
function inRange(flag: string, spec: FlagSpec, n: number): number {
  const { min, max } = spec;
  if ((min === undefined || n >= min) && (max === undefined || n <= max)) return n;
  // A duration's range and value read as durations (seconds inside): "from 10s to 24h, got 2d".
  const say = (v: number | undefined) => (spec.type === 'duration' ? formatDuration(v ?? 0) : String(v));
  const range =
    min !== undefined && max !== undefined
      ? `from ${say(min)} to ${say(max)}`
      : min !== undefined
        ? `at least ${say(min)}`
        : `at most ${say(max)}`;
  throw new InvalidInputError(`--${flag} must be ${range}, got ${say(n)}`);
}

/**
 * Strict parsing: unknown flags, missing values, repeated single flags and stray positionals are errors (exit 2).
 * Accepts `--flag value` and `--flag=value`; `--` ends the flags.
 */
export function parseArgs(
  tokens: readonly string[],
  flagSpecs: Record<string, FlagSpec>,
  positionalSpecs: readonly PositionalSpec[],
  commandName: string,
): Args {
  const specs = { ...GLOBAL_FLAGS, ...flagSpecs };
  const flags = new Map<string, FlagValue>();
  const positionals: string[] = [];
  const hint = `see: loopx ${commandName} --help`;
  let onlyPositionals = false;
  let beforeDashDash: number | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (onlyPositionals || !token.startsWith('-') || token === '-') {
      positionals.push(token);
      continue;
    }
    if (token === '--') {
      onlyPositionals = true;
      beforeDashDash = positionals.length;
      continue;
    }
    if (token === '-h') {
      flags.set('help', true);
      continue;
    }
    if (!token.startsWith('--')) throw new InvalidInputError(`unknown option ${token}`, hint);
    const eq = token.indexOf('=');
    const name = token.slice(2, eq === -1 ? undefined : eq);
    const spec = specs[name];
    if (!spec) throw new InvalidInputError(`unknown flag --${name} for \`loopx ${commandName}\``, hint);
    if (spec.type === 'boolean') {
      if (eq !== -1) throw new InvalidInputError(`--${name} takes no value`, hint);
      flags.set(name, true);
      continue;
    }
    let raw: string;
    if (eq !== -1) raw = token.slice(eq + 1);
    else {
      const next = tokens[i + 1];
      if (next === undefined || next.startsWith('--'))
        throw new InvalidInputError(`--${name} needs a value${spec.value ? ` (${spec.value})` : ''}`, hint);
      raw = next;
      i++;
    }
    const value = convert(name, spec, raw);
    if (spec.repeat) flags.set(name, [...((flags.get(name) as string[] | undefined) ?? []), String(value)]);
    else if (flags.has(name)) throw new InvalidInputError(`--${name} was given more than once`, hint);
    else flags.set(name, value);
  }
  if (flags.get('help') === true) return new Args(positionals, flags, beforeDashDash);
  const rest = positionalSpecs[positionalSpecs.length - 1]?.rest === true;
  if (!rest && positionals.length > positionalSpecs.length) {
    throw new InvalidInputError(`unexpected argument ${JSON.stringify(positionals[positionalSpecs.length])}`, hint);
  }
  positionalSpecs.forEach((p, index) => {
    if (p.required && positionals[index] === undefined) throw new InvalidInputError(`missing ${p.name}`, hint);
  });
  for (const [name, spec] of Object.entries(flagSpecs)) {
    if (spec.required && !flags.has(name)) throw new InvalidInputError(`--${name} is required`, hint);
  }
  return new Args(positionals, flags, beforeDashDash);
}

/**
 * `loopx --json status`, `loopx --root DIR todo list`: the global options a call may give before its command's words
 * (--json, --root DIR, --agent NAME, either with `=VALUE`), split from the rest. They are parsed with the command's
 * own flags afterwards, so an option given twice is still an error. bin/loopx skips the same options to find the
 * words (keep the two in step).
 */
export function leadingGlobalOptions(argv: readonly string[]): { lead: string[]; body: string[] } {
  let i = 0;
  while (i < argv.length) {
    const token = argv[i] as string;
    if (token === '--json') i += 1;
    else if (/^--(root|agent)=/.test(token)) i += 1;
    else if ((token === '--root' || token === '--agent') && argv[i + 1] !== undefined && !(argv[i + 1] as string).startsWith('--')) i += 2;
    else break;
  }
  return { lead: argv.slice(0, i), body: argv.slice(i) };
}
