import type { Kernel } from '../kernel';
import { InvalidInputError } from '../errors';
import { type Evidence, evidenceFromEvent } from './evidenceQueries';
import { type CommandResult, recordedRun, runCommand } from '../run/runCommand';
import { optionalText } from '../validate';
import { emitEvidence, evidenceTarget } from './evidence';
import { effectiveCheck, requireAcceptanceCheckStanding } from '../checks/checks';
import { checkEnv } from '../monitors/tick';
import { todoWorkFolder } from '../worktrees/worktreeRows';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { ranSentence } from '../../shared/timeWords';
import { getGoal } from '../goals/goalQueries';
import { planCheckSandbox } from '../run/checkSandbox';
import { iso } from '../time';

export interface EvidenceRunInput {
  todoId?: string;
  goalId?: string;
  kind?: string;
  /** The program and its arguments (run as they are, or as one shell command line with `shell`). */
  argv?: string[];
  shell?: boolean;
  /** Run the acceptance check that applies (the todo's, else its goal's), with the shell. */
  check?: boolean;
  runLimitSeconds?: number;
  env?: NodeJS.ProcessEnv;
}

export const EVIDENCE_RUN_LIMIT_SECONDS = 30 * 60;
const KIND = /^[a-z][a-z0-9_-]{0,31}$/;

/** How a command is shown and compared: argv quoted for a POSIX shell, so the text is what would run. */
export function quoteArgv(argv: readonly string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9._\-/=:@+,%]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * `evidence run`: the kernel runs a command (no shell unless asked) from the workspace root (the todo's worktree when
 * it has one) and records what it
 * saw — exit code, duration, output tail and hash — as evidence whose source is the kernel, not anyone's word.
 * The run happens outside any transaction; who may add evidence is checked before it and again when recording.
 */
export async function runEvidence(kernel: Kernel, input: EvidenceRunInput): Promise<{ evidence: Evidence; result: CommandResult }> {
  // The kernel itself runs a todo's acceptance check once more before an approved change lands on its own (autoLand.ts).
  const actor = kernel.actor.kind === 'kernel' && input.check === true ? kernel.actor : kernel.requireActor();
  if ((input.todoId === undefined) === (input.goalId === undefined))
    throw new InvalidInputError('evidence is for exactly one of --todo or --goal');
  const kind = optionalText(input.kind, 'kind') || 'test';
  if (!KIND.test(kind)) throw new InvalidInputError('evidence kind must be a short lowercase word (e.g. test, build, lint)');
  const limit = input.runLimitSeconds ?? EVIDENCE_RUN_LIMIT_SECONDS;
  if (!Number.isInteger(limit) || limit < 1 || limit > 24 * 3600) throw new InvalidInputError('--run-limit must be from 1s to 24h');
  const argv = input.argv ?? [];
  // What to run, decided (and the target checked) before anything runs.
  const target = kernel.read((db, now) => {
    const where = { ...evidenceTarget(db, actor, iso(now), input), cwd: todoWorkFolder(db, kernel.root, input.todoId) };
    if (!input.check) return { ...where, command: null };
    const applies = where.todoId ? effectiveCheck(db, where.todoId) : { check: getGoal(db, where.goalId).check, from: 'goal' as const };
    const check = applies?.check;
    if (!check) {
      throw new InvalidInputError(
        `${where.todoId ? `todo ${where.todoId}` : `goal ${where.goalId}`} has no acceptance check`,
        'a human sets one with: loopx goal set-check / loopx todo set-check',
      );
    }
    // loopx runs only a check a person's standing decision set (a forged goal.check_set is not run).
    requireAcceptanceCheckStanding(db, { todoId: where.todoId, goalId: where.goalId, from: applies.from }, check);
    return { ...where, command: check };
  });
  if (input.check && argv.length > 0) throw new InvalidInputError('--check runs the acceptance check; give no command after --');
  if (!input.check && (argv.length === 0 || argv[0]?.trim() === ''))
    throw new InvalidInputError('give the command to run after --, e.g. loopx evidence run --todo T1 -- npm test');
  const shell = input.check === true || input.shell === true;
  const command = target.command ?? (shell ? argv.join(' ') : quoteArgv(argv));
  if (command.length > TEXT_LIMITS.runCommand)
    throw new InvalidInputError(`the command is longer than ${TEXT_LIMITS.runCommand} characters`);
  const env = checkEnv(input.env ?? process.env, {
    LOOPX_ROOT: kernel.root,
    LOOPX_GOAL: target.goalId,
    ...(target.todoId ? { LOOPX_TODO: target.todoId } : {}),
  });
  // The acceptance check runs the code under judgement, so in a sandbox without the network; a command given after
  // `--` is the caller's own and runs as the caller would run it (inside the agent's sandbox when an agent calls).
  const plan = input.check
    ? planCheckSandbox({ purpose: 'acceptance', env, actorKind: actor.kind, writable: [kernel.root, target.cwd] })
    : undefined;
  const result = await runCommand({
    command,
    shell,
    argv: shell ? undefined : argv,
    cwd: target.cwd,
    env: plan?.env ?? env,
    limitMs: limit * 1000,
    wrapper: plan?.wrapper,
    sandbox: plan?.sandbox,
  });
  return { evidence: recordEvidenceRun(kernel, input, { command, shell, kind }, result), result };
}

/** Records a finished kernel run as evidence (one transaction; the permission is checked again at this point). */
export function recordEvidenceRun(
  kernel: Kernel,
  input: { todoId?: string; goalId?: string },
  spec: { command: string; shell: boolean; kind: string },
  result: CommandResult,
): Evidence {
  const { command, shell, kind } = spec;
  return kernel.write((tx) => {
    const where = evidenceTarget(tx.db, tx.actor, tx.at, input);
    // It counts as the acceptance check when what ran is, to the letter, the check that applies now.
    const current = where.todoId ? effectiveCheck(tx.db, where.todoId)?.check : getGoal(tx.db, where.goalId).check;
    const check = current === command ? command : null;
    const run = {
      command,
      shell,
      check,
      ...recordedRun(result),
    };
    const shown = command.length > 300 ? `${command.slice(0, 299)}…` : command;
    const summary = `${check ? 'acceptance check ' : ''}${ranSentence({ ...result, command: shown })}`;
    const event = emitEvidence(tx, where, { summary, kind, artifacts: [] }, run);
    return evidenceFromEvent(event);
  });
}
