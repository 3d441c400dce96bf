import { type FSWatcher, closeSync, openSync, readSync, statSync, watch } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** A line longer than this is passed on in pieces: a chatty agent printing without newlines cannot grow our memory. */
const MAX_LINE = 64 * 1024;
/** A file-system watch can miss events (network mounts, some platforms): look this often anyway. */
const FALLBACK_MS = 2000;

export interface LogFollower {
  /** Reads what was appended since the last read and passes on every whole line. */
  read(): void;
  /** A last read, then the rest of a line without its newline, then stops watching. */
  stop(): void;
}

/**
 * Follows a host's output file the way `tail -f` does: the agent writes to the file itself (so its output and the
 * agent survive the runner: nothing it writes goes through a pipe the runner holds), and the runner echoes each new
 * line. Starts at `from` (the file's end when adopting a turn another runner echoed so far).
 */
export function followLog(file: string, echo: (line: string) => void, from = 0): LogFollower {
  let offset = from;
  let pending = '';
  let stopped = false;
  const buffer = Buffer.alloc(64 * 1024);
  const decoder = new StringDecoder('utf8'); // a character split between two reads is kept whole
  const read = () => {
    if (stopped) return;
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      return; // not there yet
    }
    try {
      for (;;) {
        const n = readSync(fd, buffer, 0, buffer.length, offset);
        if (n <= 0) break;
        offset += n;
        const parts = (pending + decoder.write(buffer.subarray(0, n))).split('\n');
        pending = parts.pop() ?? '';
        for (const line of parts) echo(line);
        while (pending.length > MAX_LINE) {
          echo(pending.slice(0, MAX_LINE));
          pending = pending.slice(MAX_LINE);
        }
      }
    } finally {
      closeSync(fd);
    }
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(file, { persistent: false }, () => read());
  } catch {
    watcher = undefined; // the fallback timer reads it
  }
  const timer = setInterval(read, FALLBACK_MS);
  timer.unref();
  return {
    read,
    stop() {
      read();
      stopped = true;
      if (pending) echo(pending);
      pending = '';
      watcher?.close();
      clearInterval(timer);
    },
  };
}

/** The size of a file now (0 when it is missing): where following it should start. */
export function fileEnd(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
