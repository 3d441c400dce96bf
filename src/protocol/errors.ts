/**
 * One map from a thrown error to what is said about it: the CLI's JSON envelope, the MCP server's answers, VS Code's
 * messages and the board's toasts all come from errorBody(). Types and plain functions only: the webview imports it.
 */
export interface ErrorBody {
  code: string;
  message: string;
  hint: string | null;
}

/** Who reads the message: an agent or script (CLI, MCP) gets the contract's text; a person in VS Code a sentence. */
export type Audience = 'agent' | 'person';

/** The shape of the kernel's typed errors (LoopxError), recognised without importing the kernel. */
interface TypedError {
  code: string;
  message: string;
  exitCode: number;
  hint?: string;
}

export function isTypedError(error: unknown): error is TypedError {
  if (!(error instanceof Error)) return false;
  const e = error as Error & Partial<TypedError>;
  return typeof e.code === 'string' && typeof e.exitCode === 'number';
}

/** Said to a person instead of the contract's message, by code. */
const FOR_PEOPLE: Record<string, (error: TypedError) => Pick<ErrorBody, 'message' | 'hint'>> = {
  busy: () => ({
    message:
      'The loopx store is busy: another loopx process (an agent, a terminal, another window) is writing to it. Nothing was changed; try again in a moment.',
    hint: null,
  }),
};

export function errorBody(error: unknown, audience: Audience = 'agent'): ErrorBody {
  if (isTypedError(error)) {
    const people = audience === 'person' ? FOR_PEOPLE[error.code]?.(error) : undefined;
    if (people) return { code: error.code, ...people };
    const hint = audience === 'person' ? hintForPeople(error.hint) : error.hint;
    return { code: error.code, message: error.message, hint: hint ?? null };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: 'internal',
    message,
    hint: audience === 'person' ? 'see the LoopX output log' : 'this is a loopx bug; rerun with LOOPX_DEBUG=1 for a stack trace',
  };
}

/** A hint that tells the reader to type a `loopx …` command is for the CLI; VS Code offers buttons instead. */
export function hintForPeople(hint: string | null | undefined): string | undefined {
  if (!hint || /\bloopx\s+[a-z]|--[a-z]/.test(hint)) return undefined;
  return hint;
}
