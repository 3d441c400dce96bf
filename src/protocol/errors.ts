/**
 * One map from a thrown error to what is said about it: the CLI's JSON envelope, the MCP server's answers, VS Code's
 * messages and the board's toasts all come from errorBody(). Types and plain functions only: the webview imports it.
 */
export interface ErrorBody {
  code: string;
  message: string;
  hint: string | null;
}

/**
 * Who reads the message: an agent or script at the CLI gets the contract's text; an agent through MCP the same with
 * hints that name MCP tools (it may have no shell); a person in VS Code a sentence.
 */
export type Audience = 'agent' | 'mcp' | 'person';

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
  store_moved: (error) => ({
    message: `This workspace's store was moved into the team store${teamAt(error)}. Nothing was changed; try again and the change goes to the team store.`,
    hint: null,
  }),
  team_unreachable: (error) => ({
    message: `${teamUnreachableSentence((error as { data?: { where?: string } }).data?.where)} Nothing was changed and nothing is lost; try again once it is back.`,
    hint: null,
  }),
};

const teamAt = (error: TypedError): string => {
  const where = (error as { data?: { where?: string } }).data?.where;
  return where ? ` at ${where}` : '';
};

/** The sentence VS Code says when the team store's server does not answer (the views, the board, a refused change). */
export function teamUnreachableSentence(where: string | undefined): string {
  return `The team store${where ? ` at ${where}` : ''} cannot be reached.`;
}

export function errorBody(error: unknown, audience: Audience = 'agent'): ErrorBody {
  if (isTypedError(error)) {
    const people = audience === 'person' ? FOR_PEOPLE[error.code]?.(error) : undefined;
    if (people) return { code: error.code, ...people };
    const hint = audience === 'person' ? hintForPeople(error.hint) : audience === 'mcp' ? hintForMcp(error.hint) : error.hint;
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

/** CLI commands in hints, as what an MCP client can do instead: its tool, or who can when no tool does. */
const MCP_EQUIVALENTS: [RegExp, string][] = [
  [/loopx todo list --ready/g, 'loopx_todo_list with ready: true'],
  [/loopx todo list\b/g, 'loopx_todo_list'],
  [/loopx todo next\b/g, 'loopx_next'],
  [/loopx todo claim\b/g, 'loopx_claim'],
  [/loopx todo renew\b/g, 'loopx_renew'],
  [/loopx todo release\b/g, 'loopx_release'],
  [/loopx todo ship\b/g, 'loopx_ship'],
  [/loopx todo block\b/g, 'loopx_block'],
  [/loopx todo show\b/g, 'loopx_todo_show'],
  [/loopx history --todo (\S+)/g, 'loopx_todo_show on $1 (its history)'],
  [/loopx evidence add\b/g, 'loopx_evidence'],
  [/loopx gate ask\b/g, 'loopx_gate_ask'],
  [/loopx handoff accept\b/g, 'loopx_handoff_accept'],
  [/loopx handoff\b/g, 'loopx_handoff'],
  [/loopx monitor add\b/g, 'loopx_monitor_add'],
  [/loopx monitor list\b/g, 'loopx_monitor_list'],
  [/loopx status\b/g, 'loopx_status'],
  [/loopx gate approve\|reject ID/g, 'a person (in VS Code, or at a terminal with the loopx CLI)'],
];

/** A hint for an agent that reaches loopx through MCP: tool names for CLI commands; a command no tool runs says so. */
export function hintForMcp(hint: string | null | undefined): string | undefined {
  if (!hint) return undefined;
  let out = hint;
  for (const [pattern, tool] of MCP_EQUIVALENTS) out = out.replace(pattern, tool);
  // What is left is a CLI command no MCP tool runs: say who can run it.
  return /`?loopx [a-z]/.test(out) ? `${out} (a loopx CLI command: no MCP tool runs it; a shell or a person can)` : out;
}
