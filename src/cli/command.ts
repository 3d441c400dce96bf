import type { Args, FlagSpec, PositionalSpec } from './args';
import type { Kernel } from '../kernel/kernel';
import type { Actor } from '../kernel/events/eventTypes';

/** What a command gets: its parsed arguments, who is acting, and the store (opened on first use). */
export interface CommandContext {
  args: Args;
  actor: Actor;
  /** Opens the store found from --root / LOOPX_ROOT / the nearest .loopx/ (exit 5 when there is none). */
  kernel(): Kernel;
  /** Where `init` creates a store: --root, else LOOPX_ROOT, else the current directory. */
  initRoot(): string;
  env: NodeJS.ProcessEnv;
  /** The directory relative paths on the command line are relative to. */
  cwd: string;
  color: boolean;
  /**
   * The human, confirmed in an interactive terminal: shows `details`, asks for `id` to be typed (on stderr) and
   * returns the actor with channel `tty`. Throws human_channel_required without a terminal, not_confirmed otherwise.
   */
  confirmHuman(action: string, id: string, details?: string[]): Actor;
  /** A human at an interactive terminal (who could confirm). */
  canConfirm: boolean;
  /** True with --json: a long-running command (`loopx run`) then prints one JSON object per line. */
  json: boolean;
  /** Writes as it goes, for a command that reports while it runs (`loopx run`); most return one result instead. */
  out(text: string): void;
}

/** A command's result: `data` goes into the JSON envelope, `text` is what a person sees. */
export interface CommandResult {
  data: unknown;
  /** A function where building the text costs more than a --json caller (an agent) should pay for: a long list. */
  text: string | (() => string);
  /**
   * A non-zero exit that still carries data (log verify, doctor: 3). `evidence run` passes on the exit status of
   * the command it ran this way; the evidence of that failing run is recorded all the same.
   */
  failure?: { code: string; message: string; hint?: string; exitCode: number };
  /** A list that left items out (a limit): how many, reported as the envelope's `more`. */
  more?: number;
  /** A `mutates` command that in the end changed nothing (a tick with nothing due): STATUS.md stays as it is. */
  unchanged?: boolean;
}

export interface Command {
  /** Words after `loopx`, e.g. ['todo', 'claim']. */
  name: string[];
  summary: string;
  /** Extra help text shown under the usage line. */
  description?: string;
  positionals?: PositionalSpec[];
  flags?: Record<string, FlagSpec>;
  examples?: string[];
  /** Changes state on an agent's behalf: refused without an agent identity. */
  needsAgent?: boolean;
  /**
   * Decisions only a human makes: refused when an agent identity is present, and without an interactive terminal
   * (human_channel_required); the command confirms with ctx.confirmHuman.
   */
  humanOnly?: boolean;
  /** Only reads: the store is opened read-only, so it works on another user's store or a read-only mount. */
  readOnly?: boolean;
  /** Writes the store (STATUS.md is regenerated after success). */
  mutates?: boolean;
  /**
   * A write whose run touches nothing but the store, synchronously (no file written, no process or connection of its
   * own, no wait): run again from the start, it does the same. On a team store, a one-shot call (an agent's) then
   * commits to the log after its run, on the connection its catch-up opened, and runs once more when the log moved on
   * meanwhile (Kernel.settle): no worker thread. A function decides by the call's arguments.
   */
  storeOnly?: boolean | ((args: Args) => boolean);
  run(ctx: CommandContext): CommandResult | Promise<CommandResult>;
}

/** The longest command in `commands` whose words start argv, and the remaining tokens. */
export function findCommand(argv: readonly string[], commands: readonly Command[]): { command: Command; rest: string[] } | null {
  let best: Command | null = null;
  for (const command of commands) {
    const matches = command.name.every((word, i) => argv[i] === word);
    if (matches && (!best || command.name.length > best.name.length)) best = command;
  }
  return best ? { command: best, rest: argv.slice(best.name.length) } : null;
}
