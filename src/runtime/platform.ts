import { EXIT, LoopxError } from '../kernel/errors';

/**
 * What needs a POSIX shell: a turn runs its host through /bin/sh (the prompt on stdin, the exit code written to a
 * file, the output kept with `tee`), in VS Code's terminals and under `loopx run` alike. Windows has no /bin/sh, so
 * those say so there instead of failing to spawn. Everything else (the store, the CLI's verbs, MCP, checks, which run
 * through cmd.exe with --shell) is plain Node and runs anywhere.
 */
export class UnsupportedPlatformError extends LoopxError {
  constructor(what: string) {
    super(
      'unsupported_platform',
      `${what} does not run on Windows yet: it starts the agent through /bin/sh, which Windows lacks`,
      EXIT.refused,
      'start your agent in a terminal yourself (it reaches the store with loopx or its MCP server), or open the folder in WSL, where turns run',
    );
  }
}

/** Refuses `what` on Windows (see UnsupportedPlatformError); `platform` is a parameter so tests can fake it. */
export function requirePosixShell(what: string, platform: NodeJS.Platform = process.platform): void {
  if (platform === 'win32') throw new UnsupportedPlatformError(what);
}
