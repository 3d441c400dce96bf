import { fstatSync, writeSync } from 'node:fs';
import type * as Tty from 'node:tty';
import type { CliIo } from './main';
import { readLineSync } from './humanChannel';

/** The real process as the CLI sees it: stdout and stderr written straight to their descriptors, the terminal asked lazily. */
export function processIo(): CliIo {
  return {
    stdout: (text) => write(1, text),
    stderr: (text) => write(2, text),
    env: process.env,
    cwd: process.cwd(),
    // Asked only when needed (colour for text output, a human's confirmation): node:tty loads node:net and
    // node:stream, several milliseconds that a --json call from an agent never needs.
    get isTty() {
      return isTerminal(1);
    },
    // Not process.stdin.isTTY: creating the stdin stream would make fd 0 non-blocking for readLineSync.
    get interactive() {
      return isTerminal(1) && isTerminal(0);
    },
    readLine: readLineSync,
    exitsAfterCall: true,
  };
}

/**
 * Runs one call and sets the exit code: what each bundle's entry does once it knows the call is its own. Once nothing
 * is left to do (output written, no child waited for: 'beforeExit'), the process exits at once, before the SQLite
 * drivers' exit hooks close the store it left open (Kernel.leaveForExit): that close would checkpoint and delete the
 * WAL. Should a driver close it anyway, the call costs the fsyncs it always did; nothing else changes.
 */
export function runProcess(call: Promise<number>): void {
  void call.then((code) => {
    process.exitCode = code;
    process.once('beforeExit', () => process.exit());
  });
}

/**
 * Writes straight to the file descriptor. Touching process.stdout loads node:stream, about 10 ms of a call that
 * agents make hundreds of times a day; a blocking write does not. A reader that went away (EPIPE) ends the output;
 * a descriptor that would block (EAGAIN) gets the rest through the stream as before.
 */
function write(fd: 1 | 2, text: string): void {
  const buffer = Buffer.from(text);
  let offset = 0;
  try {
    while (offset < buffer.length) offset += writeSync(fd, buffer, offset);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') return;
    (fd === 1 ? process.stdout : process.stderr).write(buffer.subarray(offset));
  }
}

/** process.stdout.isTTY would build the stream; only a character device can be a terminal, so ask tty only then. */
function isTerminal(fd: 0 | 1): boolean {
  try {
    return fstatSync(fd).isCharacterDevice() && (process.getBuiltinModule('node:tty') as typeof Tty).isatty(fd);
  } catch {
    return false;
  }
}
