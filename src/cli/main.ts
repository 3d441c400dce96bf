import type { Actor } from '../kernel/events/eventTypes';
import { EXIT, InvalidInputError } from '../kernel/errors';
import { confirmInTerminal, terminalActor } from './humanChannel';
import { hasHumanChannel, requireHumanChannel } from '../kernel/authority';
import { Kernel } from '../kernel/kernel';
import { requireStoreDriver } from '../kernel/db/openDb';
import { describeError } from '../runtime/describeError';
import { initRootDir, locateRoot } from '../runtime/locate';
import { markStatusMdStale, writeStatusMd } from '../runtime/projections/statusMd';
import { parseAgentName } from '../kernel/validate';
import { humanName } from '../runtime/identity';
import { type Envelope, failure, success } from '../protocol/envelope';
import { revealHidden } from '../protocol/display';
import { DECEPTIVE_CHARS } from '../shared/hiddenChars';
import { leadingGlobalOptions, parseArgs } from './args';
import { type Command, type CommandContext, type CommandResult, findCommand } from './command';
import { commandHelp, overviewHelp } from './help';
import { LOOPX_VERSION } from '../shared/version';
import { iso } from '../kernel/time';

export const VERSION = LOOPX_VERSION;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  isTty: boolean;
  /** stdin and stdout are both terminals: a person can be asked to confirm a human-only action. */
  interactive?: boolean;
  /** Reads one typed line from stdin (the confirmation); null at end of input. */
  readLine?: () => string | null;
  /** The process exits once the call returns (the CLI's own): the store is left to the exit (Kernel.leaveForExit). */
  exitsAfterCall?: boolean;
  /**
   * The store as its caller keeps it open across calls (a runner answering its agents' calls, src/cli/run/verbServer.ts):
   * the call uses it and neither opens nor closes one of its own.
   */
  openKernel?: (root: string, actor: Actor) => Kernel;
}

/**
 * Who is acting: --agent, else LOOPX_AGENT, else the human. An explicitly empty identity (`--agent ""`,
 * `--agent=`, `LOOPX_AGENT=`) is an error, never "no agent": otherwise an agent could turn itself into the human. An
 * agent named in LOOPX_AGENT cannot take another name with --agent: a turn's prompt and its host's rules pin the
 * `LOOPX_AGENT=` word, and an `--agent` appended to an allowed call would otherwise act under any name.
 */
function resolveActor(flag: string | undefined, env: NodeJS.ProcessEnv): Actor {
  if (flag !== undefined) {
    const name = parseIdentity(flag, '--agent');
    const own = env.LOOPX_AGENT;
    if (own !== undefined && own.trim() !== '' && own !== name)
      throw new InvalidInputError(
        `--agent ${JSON.stringify(name)} differs from LOOPX_AGENT=${JSON.stringify(own)}: an agent cannot act under another name`,
        'drop --agent (LOOPX_AGENT names you), or unset LOOPX_AGENT',
      );
    return { name, kind: 'agent' };
  }
  if (env.LOOPX_AGENT !== undefined) return { name: parseIdentity(env.LOOPX_AGENT, 'LOOPX_AGENT'), kind: 'agent' };
  return { name: humanName(env), kind: 'human' };
}

function parseIdentity(value: string, source: string): string {
  if (value.trim() === '') {
    throw new InvalidInputError(
      `${source} is empty: an empty agent name is not "no agent"`,
      `name the agent, or ${source === '--agent' ? 'drop --agent' : 'unset LOOPX_AGENT'} to act as yourself`,
    );
  }
  return parseAgentName(value, source);
}

/**
 * Runs one CLI invocation against `commands` (the whole CLI's, or a verb bundle's one) and returns its exit code.
 * Never rejects.
 */
export async function runCli(argv: readonly string[], io: CliIo, commands: readonly Command[]): Promise<number> {
  // Only loopx's own options count: after `--` comes a command line `evidence run` passes on untouched.
  const dashDash = argv.indexOf('--');
  const json = (dashDash === -1 ? argv : argv.slice(0, dashDash)).includes('--json');
  const emit = (envelope: Envelope, text: string | null, code: number): number => {
    // Deceptive characters already in the store: \u escapes in JSON (the same value), <U+202E> in text.
    if (json) io.stdout(`${escapeHiddenJson(JSON.stringify(envelope))}\n`);
    else if (text !== null) (code === EXIT.ok ? io.stdout : io.stderr)(`${revealHidden(text)}\n`);
    return code;
  };
  let kernel: Kernel | undefined;
  // Global options may come before the command's words (`loopx --json status`); they are parsed with its flags.
  const { lead, body } = leadingGlobalOptions(argv);
  try {
    if (body.length === 0 || body[0] === '--help' || body[0] === '-h' || body[0] === 'help') {
      const target = body[0] === 'help' ? findCommand(body.slice(1), commands) : null;
      return emit(
        success({ commands: commands.map((c) => c.name.join(' ')) }),
        target ? commandHelp(target.command) : overviewHelp(VERSION, commands),
        EXIT.ok,
      );
    }
    if (body[0] === '--version' || body[0] === 'version') return emit(success({ version: VERSION }), VERSION, EXIT.ok);
    const found = findCommand(body, commands);
    if (!found) throw unknownCommand(body, commands);
    const { command, rest } = found;
    const args = parseArgs([...lead, ...rest], command.flags ?? {}, command.positionals ?? [], command.name.join(' '));
    if (args.bool('help')) return emit(success({ usage: commandHelp(command) }), commandHelp(command), EXIT.ok);
    const actor = resolveActor(args.has('agent') ? args.str('agent') : undefined, io.env);
    const commandName = `\`loopx ${command.name.join(' ')}\``;
    let interactive: boolean | undefined; // asked once, and only when a command needs to know (see CliIo)
    const terminal = {
      get interactive() {
        return (interactive ??= io.interactive === true && io.readLine !== undefined);
      },
      stderr: io.stderr,
      readLine: () => io.readLine?.() ?? null,
    };
    // An agent is refused (not_allowed) before the terminal is asked about; a human without one: human_channel_required.
    if (command.humanOnly) requireHumanChannel(terminalActor(actor, terminal), commandName);
    if (command.needsAgent && actor.kind !== 'agent') {
      throw new InvalidInputError(
        `\`loopx ${command.name.join(' ')}\` acts for an agent: name one`,
        'pass --agent NAME or set LOOPX_AGENT',
      );
    }
    const where = { root: args.str('root'), envRoot: io.env.LOOPX_ROOT, cwd: io.cwd };
    // A read or a store-only write that ends the process on a team store: its replica is caught up before the
    // command's synchronous reads, and the write commits after it (the team verbs reach the server their own way).
    const oneShot = io.exitsAfterCall === true && command.name[0] !== 'team';
    const writesLater = oneShot && (typeof command.storeOnly === 'function' ? command.storeOnly(args) : command.storeOnly === true);
    const ctx: CommandContext = {
      args,
      actor,
      env: io.env,
      cwd: io.cwd,
      color: !json && !io.env.NO_COLOR && io.isTty,
      get canConfirm() {
        return hasHumanChannel(terminalActor(actor, terminal));
      },
      confirmHuman: (action, id, details) => confirmInTerminal(actor, terminal, action, id, details),
      json,
      out: io.stdout,
      initRoot: () => initRootDir(where),
      kernel: () => {
        if (kernel) return kernel;
        if (io.openKernel) return (kernel = io.openKernel(locateRoot(where), actor));
        requireStoreDriver();
        const readOnly = command.readOnly === true;
        return (kernel = Kernel.open(locateRoot(where), { actor, readOnly, warm: !readOnly && !writesLater }));
      },
    };
    const commitsAfter = writesLater && (await catchUpTeamFirst(ctx, where, { thenWrite: true }));
    if (oneShot && command.readOnly) await catchUpTeamFirst(ctx, where);
    const result = commitsAfter ? await runThenSettle(command, ctx) : await runCommand(command, ctx);
    if (command.mutates && kernel && !result.unchanged) refreshStatusMd(kernel, io);
    if (result.failure) {
      const { code, message, hint, exitCode } = result.failure;
      if (!json) io.stdout(`${revealHidden(textOf(result))}\n`);
      return emit(failure({ code, message, hint: hint ?? null }, result.data), json ? null : `loopx: ${message}`, exitCode);
    }
    return emit(success(result.data, result.more), json ? null : textOf(result), EXIT.ok);
  } catch (thrown) {
    // File work around the kernel (init, backups, STATUS.md) meets the disk too: named like the kernel's own trouble.
    const { body, typed, exitCode } = describeError(thrown, 'agent');
    if (io.env.LOOPX_DEBUG && thrown instanceof Error) io.stderr(`${thrown.stack}\n`);
    const text = `loopx: ${body.message}${body.hint ? `\n  hint: ${body.hint}` : ''}`;
    return emit(failure(body, typed?.data), text, exitCode);
  } finally {
    if (io.exitsAfterCall) kernel?.leaveForExit();
    else if (!io.openKernel) kernel?.close();
  }
}

/**
 * A team store's one-shot read catches its replica up on this thread first (Kernel.catchUpFirst), so the command's
 * read needs no worker thread. Where no store or no replica yet is found, or the store cannot be opened, nothing: the
 * command opens it as it always has, and says why in its own words.
 */
async function catchUpTeamFirst(
  ctx: CommandContext,
  where: Parameters<typeof locateRoot>[0],
  options: { thenWrite?: boolean } = {},
): Promise<boolean> {
  let kernel: Kernel;
  try {
    if (!Kernel.hasTeamReplica(locateRoot(where))) return false;
    kernel = ctx.kernel();
  } catch {
    return false;
  }
  await kernel.catchUpFirst(options);
  return true;
}

/** Most commands answer synchronously; a few (monitor tick, evidence run) wait for a process they run. */
async function runCommand(command: Command, ctx: CommandContext): Promise<CommandResult> {
  const returned = command.run(ctx);
  return returned instanceof Promise ? await returned : returned;
}

/**
 * A store-only write on a team store, committed after its run (Kernel.settle); run once more, the ordinary way, when
 * the log moved on meanwhile. A run that failed after a write still commits that write, as it would have committed
 * as it ran; then its own failure is the answer.
 */
async function runThenSettle(command: Command, ctx: CommandContext): Promise<CommandResult> {
  const kernel = ctx.kernel();
  let result: CommandResult | undefined;
  let failed: { error: unknown } | null = null;
  try {
    result = await runCommand(command, ctx);
  } catch (error) {
    failed = { error };
  }
  if ((await kernel.settle()) === 'again') return runCommand(command, ctx);
  if (failed) throw failed.error;
  return result as CommandResult;
}

/**
 * STATUS.md is a projection: failing to write it never fails the command that changed the store. A human's write
 * regenerates it; an agent's write only marks it out of date (regenerating takes a full status report, more than
 * most agent calls cost in all), and `loopx status`, the next human write or VS Code rewrites it.
 */
function refreshStatusMd(kernel: Kernel, io: CliIo): void {
  try {
    if (kernel.actor.kind === 'agent') markStatusMdStale(kernel.storeDir, iso(Date.now()));
    else writeStatusMd(kernel);
  } catch (error) {
    io.stderr(`loopx: warning: could not refresh STATUS.md: ${(error as Error).message}\n`);
  }
}

const textOf = (result: CommandResult): string => (typeof result.text === 'function' ? result.text() : result.text);

const DECEPTIVE = new RegExp(`[${DECEPTIVE_CHARS}]`, 'g');
function escapeHiddenJson(text: string): string {
  return text.replace(DECEPTIVE, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

function unknownCommand(argv: readonly string[], commands: readonly Command[]): InvalidInputError {
  const typed = argv
    .filter((a) => !a.startsWith('-'))
    .slice(0, 2)
    .join(' ');
  const near = commands.filter((c) => c.name[0] === argv[0]).map((c) => `loopx ${c.name.join(' ')}`);
  return new InvalidInputError(`unknown command "${typed}"`, near.length ? `did you mean: ${near.join(', ')}` : 'see: loopx --help');
}
