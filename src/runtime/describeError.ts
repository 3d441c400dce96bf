import { EXIT, LoopxError } from '../kernel/errors';
import { storeError } from '../kernel/storeFile';
import { type Audience, type ErrorBody, errorBody } from '../protocol/errors';

export interface DescribedError {
  /** What is said: the envelope's `error` (CLI, MCP), VS Code's message, the board's toast. */
  body: ErrorBody;
  /** The typed error behind it (SQLite trouble already named as environment trouble or `busy`), if any. */
  typed: LoopxError | undefined;
  exitCode: number;
}

/**
 * The one route from anything thrown to what is said about it: SQLite and file trouble named by `storeError`, then
 * worded by `errorBody` for its audience. The protocol cannot import the kernel (it ships to the webview), so the
 * two meet here, and every adapter asks this instead of spelling the pair.
 */
export function describeError(thrown: unknown, audience: Audience): DescribedError {
  const error = storeError(thrown);
  const typed = error instanceof LoopxError ? error : undefined;
  return { body: errorBody(error, audience), typed, exitCode: typed?.exitCode ?? EXIT.internal };
}
