import type * as ChildProcess from 'node:child_process';
import { nodeCrypto } from '../nodeCrypto';
import type { CheckSandbox } from './checkSandbox';

/**
 * Runs one command for the kernel (a monitor's check, kernel-run evidence): from a given directory, with a time
 * limit that kills its whole process group, its output (stdout and stderr together) hashed in full and kept only
 * as a capped tail. It never throws: a command that cannot start is a result with an error.
 */
export interface CommandSpec {
  /** A shell command line (`shell: true`), or the program of `argv`. */
  command: string;
  shell: boolean;
  /** Without the shell: the program and its arguments, passed as they are. */
  argv?: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  limitMs: number;
  /** Written to its stdin, which is then closed (a hook's JSON); without it stdin is empty. */
  input?: string;
  /** A sandbox's argv (bwrap and its options) put before `/bin/sh -c CMD` or the argv (POSIX only). */
  wrapper?: readonly string[];
  /** What the wrapper is, in words, passed on to the result (and so to the log). */
  sandbox?: CheckSandbox;
}

export interface CommandResult {
  /** The exit code, or null when it was killed (time limit, signal) or could not start. */
  exitCode: number | null;
  durationMs: number;
  /** The end of the output, cleaned for display (no terminal escapes), at most TAIL_CHARS characters. */
  outputTail: string;
  /** SHA-256 of all of the output, byte for byte. */
  outputSha256: string;
  timedOut: boolean;
  /** Why it did not run to its end: not found, not executable, killed at the time limit or by a signal. */
  error: string | null;
  /** The last MATCH_BYTES of the output as text, for `match:REGEX` conditions. */
  matchText: string;
  /** For a check: the sandbox it ran in (`kind: none` when it had none). */
  sandbox?: CheckSandbox;
}

/** What the log keeps of a run (evidence and monitor checks alike): everything but the text kept for matching. */
export function recordedRun(result: CommandResult): Omit<CommandResult, 'matchText'> {
  const { exitCode, durationMs, outputTail, outputSha256, timedOut, error, sandbox } = result;
  return { exitCode, durationMs, outputTail, outputSha256, timedOut, error, ...(sandbox ? { sandbox } : {}) };
}

export const TAIL_CHARS = 2000;
export const MATCH_BYTES = 64 * 1024;
/** After the command's own process exits, how long its output may still take to drain. */
const DRAIN_MS = 2000;

let loaded: typeof ChildProcess | undefined;
function childProcess(): typeof ChildProcess {
  return (loaded ??= process.getBuiltinModule('node:child_process') as typeof ChildProcess);
}

// Terminal control sequences (CSI, OSC) and other control characters except newline and tab. A block, not
// disable-next-line: the formatter may move the pattern to the line after `=`.
/* eslint-disable no-control-regex */
const ESCAPES =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(\u0007|\u001b\\)?|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

/** Output as text people and prompts can read: no escapes or control characters, CRLF as LF. */
export function cleanOutput(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(ESCAPES, '');
}

export function runCommand(spec: CommandSpec): Promise<CommandResult> {
  const started = Date.now();
  const hash = nodeCrypto().createHash('sha256');
  const kept: Buffer[] = [];
  let keptBytes = 0;
  const collect = (chunk: Buffer) => {
    hash.update(chunk);
    kept.push(chunk);
    keptBytes += chunk.length;
    while (keptBytes - (kept[0]?.length ?? 0) >= MATCH_BYTES) keptBytes -= (kept.shift() as Buffer).length;
  };
  const windows = process.platform === 'win32';
  return new Promise((resolve) => {
    let child: ChildProcess.ChildProcess;
    let timedOut = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let spawnError: string | null = null;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(limitTimer);
      if (drainTimer) clearTimeout(drainTimer);
      const durationMs = Date.now() - started;
      let all = Buffer.concat(kept);
      if (all.length > MATCH_BYTES) all = all.subarray(all.length - MATCH_BYTES);
      const matchText = all.toString('utf8');
      const code = exited?.code ?? null;
      let error = spawnError;
      if (!error && timedOut) error = `killed at its time limit of ${Math.round(spec.limitMs / 1000)} s`;
      else if (!error && exited?.signal) error = `killed by ${exited.signal}`;
      else if (!error && spec.shell && code === 127) error = 'command not found (the shell exited 127)';
      else if (!error && spec.shell && code === 126) error = 'command not executable (the shell exited 126)';
      resolve({
        exitCode: timedOut || spawnError ? null : code,
        durationMs,
        outputTail: cleanOutput(matchText).slice(-TAIL_CHARS),
        outputSha256: hash.digest('hex'),
        timedOut,
        error,
        matchText,
        ...(spec.sandbox ? { sandbox: spec.sandbox } : {}),
      });
    };
    const killGroup = () => {
      const pid = child?.pid;
      if (pid === undefined) return;
      try {
        if (windows) childProcess().spawnSync('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
        else process.kill(-pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    try {
      const options: ChildProcess.SpawnOptions = {
        cwd: spec.cwd,
        env: spec.env,
        stdio: [spec.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        // Its own process group (POSIX), so the time limit and the clean-up reach everything it started.
        detached: !windows,
        windowsHide: true,
      };
      const argv = spec.shell ? ['/bin/sh', '-c', spec.command] : [spec.argv?.[0] ?? spec.command, ...(spec.argv ?? []).slice(1)];
      const wrapped = !windows && spec.wrapper?.length ? [...spec.wrapper, ...argv] : argv;
      child =
        spec.shell && windows
          ? childProcess().spawn(spec.command, { ...options, shell: true })
          : childProcess().spawn(wrapped[0] as string, wrapped.slice(1), options);
    } catch (error) {
      spawnError = `could not start: ${(error as Error).message}`;
      resolve({
        exitCode: null,
        durationMs: 0,
        outputTail: '',
        outputSha256: hash.digest('hex'),
        timedOut: false,
        error: spawnError,
        matchText: '',
        ...(spec.sandbox ? { sandbox: spec.sandbox } : {}),
      });
      return;
    }
    const limitTimer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, spec.limitMs);
    if (spec.input !== undefined && child.stdin) {
      // A command that never reads its stdin (notify-send) closes the pipe early: that is not its failure.
      child.stdin.on('error', () => undefined);
      child.stdin.end(spec.input);
    }
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError =
        error.code === 'ENOENT'
          ? `command not found: ${spec.argv?.[0] ?? spec.command}`
          : error.code === 'EACCES'
            ? `command not executable: ${spec.argv?.[0] ?? spec.command}`
            : `could not run: ${error.message}`;
      finish();
    });
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      // Whatever it left running in its group goes with it; output still in the pipes drains first.
      killGroup();
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, DRAIN_MS);
    });
    child.on('close', () => {
      if (exited) finish();
    });
  });
}
