import { readSync } from 'node:fs';
import type { Actor } from '../kernel/events/eventTypes';
import { RefusedError } from '../kernel/errors';
import { sleepSync } from '../kernel/time';
import { requireHumanChannel } from '../kernel/authority';
import { revealHidden } from '../protocol/display';

/**
 * The terminal channel for human-only actions. An agent's tool call (Codex, Claude Code) runs without a terminal,
 * so a decision made here needs stdin and stdout to be a TTY and the person to type the id being decided at a
 * prompt on stderr (stdout stays one JSON object with --json). What it cannot stop: a same-user agent that drives a
 * pseudo-terminal on purpose; such decisions are still recorded with channel `tty` (see docs/authority.md).
 */
export interface TerminalIo {
  /** stdin and stdout are both terminals. */
  interactive: boolean;
  stderr(text: string): void;
  /** One line typed on stdin, without its newline; null at end of input. */
  readLine(): string | null;
}

/**
 * The actor as this terminal can vouch for it: a human at an interactive terminal could confirm (channel `tty`);
 * anyone else has no human channel here. The kernel's `requireHumanChannel` and `hasHumanChannel` judge the result,
 * so the CLI asks the same rule as every kernel operation. `io.interactive` is read only for a human.
 */
export function terminalActor(actor: Actor, io: Pick<TerminalIo, 'interactive'>): Actor {
  const { channel: _none, ...bare } = actor;
  return actor.kind === 'human' && io.interactive ? { ...bare, channel: 'tty' } : bare;
}

/** Asks the human to type `id`; returns the actor with channel `tty`, or throws (an agent, no terminal, not confirmed). */
export function confirmInTerminal(actor: Actor, io: TerminalIo, action: string, id: string, details: string[] = []): Actor {
  requireHumanChannel(terminalActor(actor, io), action);
  io.stderr(
    `${[`${action[0]?.toUpperCase()}${action.slice(1)}:`, ...details.map((d) => `  ${revealHidden(d)}`)].join('\n')}\nType ${id} to confirm: `,
  );
  const typed = io.readLine();
  if (typed === null || typed.trim().toUpperCase() !== id.toUpperCase()) {
    throw new RefusedError(
      'not_confirmed',
      `${typed === null ? 'no answer' : `typed ${JSON.stringify(typed.trim())}`}, not ${id}: nothing was changed`,
      `run it again and type ${id}`,
    );
  }
  return { ...actor, channel: 'tty' };
}

/** Reads one line from fd 0 without a stream (a blocking read on a terminal; retries while the fd is non-blocking). */
export function readLineSync(): string | null {
  const bytes: number[] = [];
  const one = Buffer.alloc(1);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, one, 0, 1, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
        sleepSync(20);
        continue;
      }
      if ((error as NodeJS.ErrnoException).code === 'EOF') return bytes.length ? Buffer.from(bytes).toString('utf8') : null;
      throw error;
    }
    if (n === 0) return bytes.length ? Buffer.from(bytes).toString('utf8') : null;
    if (one[0] === 10) return Buffer.from(bytes).toString('utf8').replace(/\r$/, '');
    bytes.push(one[0] as number);
    if (bytes.length > 4096) return Buffer.from(bytes).toString('utf8');
  }
}
