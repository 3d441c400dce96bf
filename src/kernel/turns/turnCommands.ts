import { DEFAULT_LEASE_SECONDS } from '../todos/claims';
import { builtInHost } from '../../shared/hostCatalog';

/**
 * The loopx commands an agent's turn uses: one table that both the turn's prompt (what the agent is told to type)
 * and the hosts' permission rules (what Claude Code lets it run without asking) are built from, so the two can
 * never drift. Each entry is a verb the turn needs; `allow` says whether a host that asks before running commands
 * may let it run unasked. `evidence run -- CMD` runs a command of the agent's choosing, so it is never allowed
 * unasked: a host that asks keeps asking for it, as it would for the command itself.
 */
export interface TurnCommand {
  /** The words after the prefix that a permission rule pins (the todo id where the verb needs it pinned). */
  words(todo: string): string;
  /** What follows the words in the prompt's example. */
  example(todo: string): string;
  /** The prompt's comment on the line. */
  note: string;
  /** May a host let the agent run it without asking a person? */
  allow: boolean;
  /** Only when the todo or its goal has an acceptance check. */
  onlyWithCheck?: boolean;
  /**
   * The loopx MCP tool that does the same, for a host whose shell may read the store but not write it (Codex under
   * loopx's permission profile writes back through the MCP server, which runs outside its sandbox): the tool's name
   * and the arguments the prompt shows. None for a verb that runs a command of the agent's choosing.
   */
  mcp?: { tool: string; args(todo: string): Record<string, unknown> };
}

export const TURN_COMMANDS: readonly TurnCommand[] = [
  {
    words: () => 'todo show',
    example: (t) => ` ${t} --json`,
    note: 'your todo: acceptance, continuation, evidence so far',
    allow: true,
    mcp: { tool: 'loopx_todo_show', args: (t) => ({ todo: t }) },
  },
  {
    words: () => 'evidence add',
    example: (t) => ` --todo ${t} --kind test --summary "what you did and how you checked it" [--artifact PATH]`,
    note: '',
    allow: true,
    mcp: { tool: 'loopx_evidence', args: (t) => ({ todo: t, kind: 'test', summary: 'what you did and how you checked it' }) },
  },
  {
    words: (t) => `evidence run --todo ${t} --check`,
    example: () => '',
    note: "loopx runs the human's acceptance check and records the result",
    allow: true,
    mcp: { tool: 'loopx_check', args: (t) => ({ todo: t }) },
    onlyWithCheck: true,
  },
  {
    words: () => 'todo ship',
    example: (t) => ` ${t} --evidence "what shows it is done"`,
    note: 'when the acceptance is met',
    allow: true,
    mcp: { tool: 'loopx_ship', args: (t) => ({ todo: t, evidence: 'what shows it is done' }) },
  },
  {
    words: () => 'todo release',
    example: (t) => ` ${t} --note "what the next turn should do"`,
    note: 'when you stop before it is done',
    allow: true,
    mcp: { tool: 'loopx_release', args: (t) => ({ todo: t, note: 'what the next turn should do' }) },
  },
  {
    words: () => 'todo block',
    example: (t) => ` ${t} --reason "what is in the way"`,
    note: 'when you cannot go on',
    allow: true,
    mcp: { tool: 'loopx_block', args: (t) => ({ todo: t, reason: 'what is in the way' }) },
  },
  {
    words: () => 'gate ask',
    example: (t) => ` --todo ${t} --question "the decision you need"`,
    note: 'before anything gated or irreversible',
    allow: true,
    mcp: { tool: 'loopx_gate_ask', args: (t) => ({ todo: t, question: 'the decision you need' }) },
  },
  {
    words: () => 'handoff',
    example: (t) => ` ${t} --to AGENT --summary "where it stands" --pending "what is left"`,
    note: '',
    allow: true,
    mcp: { tool: 'loopx_handoff', args: (t) => ({ todo: t, to: 'AGENT', summary: 'where it stands', pending: 'what is left' }) },
  },
  {
    words: () => 'todo renew',
    example: (t) => ` ${t}`,
    note: `if you need more than ${DEFAULT_LEASE_SECONDS / 60} minutes`,
    allow: true,
    mcp: { tool: 'loopx_renew', args: (t) => ({ todo: t }) },
  },
  {
    words: () => 'monitor add',
    example: (t) => ` --todo ${t} --check "CMD" --every 5m --note "…"`,
    note: 'wait for CI, a deploy, a job: then exit (a person allows the check)',
    allow: true,
    mcp: { tool: 'loopx_monitor_add', args: (t) => ({ todo: t, check: 'CMD', every: '5m', note: '…' }) },
  },
  {
    words: (t) => `evidence run --todo ${t}`,
    example: () => ' -- npm test',
    note: 'loopx runs it and records the result (a host that asks before commands asks for this one)',
    allow: false,
  },
];

/**
 * A review turn's verbs (todos/review.ts): read the change, then one verdict. Its agent holds the todo's review, not
 * the todo: none of the implementer's verbs (ship, evidence, release) is in its prompt or its allowed commands.
 */
export const REVIEW_TURN_COMMANDS: readonly TurnCommand[] = [
  {
    words: () => 'review show',
    example: (t) => ` ${t}`,
    note: 'the change, its acceptance, what the implementer says it checked (--json for all of it)',
    allow: true,
    mcp: { tool: 'loopx_review_show', args: (t) => ({ todo: t }) },
  },
  {
    words: () => 'review approve',
    example: (t) => ` ${t} --summary "what you checked" [--finding '{"severity":"P3","title":"…","file":"…","line":1}']`,
    note: 'the change meets its acceptance; findings that block approval are refused',
    allow: true,
    mcp: { tool: 'loopx_review_verdict', args: (t) => ({ todo: t, verdict: 'approve', summary: 'what you checked' }) },
  },
  {
    words: () => 'review request-changes',
    example: (t) =>
      ` ${t} --summary "what must change" --finding '{"severity":"P1","confidence":0.8,"title":"…","body":"…","file":"…","line":1}'`,
    note: 'each finding with a severity (P0–P3), a confidence (0–1), a file and a line',
    allow: true,
    mcp: {
      tool: 'loopx_review_verdict',
      args: (t) => ({
        todo: t,
        verdict: 'request_changes',
        summary: 'what must change',
        findings: [{ severity: 'P1', confidence: 0.8, title: '…', file: '…', line: 1 }],
      }),
    },
  },
  {
    words: () => 'review unable',
    example: (t) => ` ${t} --reason "what stopped you"`,
    note: 'you could not review it (a tool failed, the check would not run): never an approval',
    allow: true,
    mcp: { tool: 'loopx_review_verdict', args: (t) => ({ todo: t, verdict: 'could_not_review', summary: 'what stopped you' }) },
  },
];

/**
 * The loopx MCP tools a turn's agent may call unasked, as a host without a shell names them (`mcp__loopx__<tool>`):
 * its verbs' tools, a review turn's the review verbs' only.
 */
export function turnMcpTools(review: boolean): string[] {
  const tools = (review ? REVIEW_TURN_COMMANDS : TURN_COMMANDS).flatMap((c) => (c.allow && c.mcp ? [c.mcp.tool] : []));
  return [...new Set(tools)].map((tool) => `mcp__loopx__${tool}`);
}

/** The shell-safe way to show a value inside the commands an agent will copy. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9._\-/@+]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * How every loopx command in a turn starts, exactly as the prompt shows it and a permission rule matches it: the
 * agent's name in LOOPX_AGENT, then this loopx's absolute path (quoted when it needs it, as on macOS).
 */
export function commandPrefix(agent: string, loopx: string): string {
  return `LOOPX_AGENT=${shellWord(agent)} ${shellWord(loopx)}`;
}

/** The prompt's command lines for a todo, from the table (the review verbs' for a review turn). */
export function promptCommandLines(
  prefix: string,
  todo: string,
  hasCheck: boolean,
  table: readonly TurnCommand[] = TURN_COMMANDS,
): string[] {
  return table
    .filter((c) => hasCheck || !c.onlyWithCheck)
    .map((c) => {
      const line = `${prefix} ${c.words(todo)}${c.example(todo)}`;
      return c.note ? `${line}  # ${c.note}` : line;
    });
}

/** The prompt's MCP lines for a todo, from the same table: `tool {json arguments}  # note`. */
export function promptMcpLines(todo: string, hasCheck: boolean, table: readonly TurnCommand[] = TURN_COMMANDS): string[] {
  return table
    .filter((c) => c.mcp && (hasCheck || !c.onlyWithCheck))
    .map((c) => {
      const { tool, args } = c.mcp as NonNullable<TurnCommand['mcp']>;
      const line = `${tool} ${JSON.stringify(args(todo))}`;
      return c.note ? `${line}  # ${c.note}` : line;
    });
}

/**
 * The command prefixes a host may let the agent run without asking: one per verb the turn needs, each starting
 * with the prompt's exact prefix. A command that only starts with one of them still has to be that whole command:
 * Claude Code checks every part of a compound command (`&&`, `;`, `|`) on its own and asks for command
 * substitutions, so nothing can be appended to an allowed loopx call and run unasked.
 */
export function allowedCommands(prefix: string, todo: string, table: readonly TurnCommand[] = TURN_COMMANDS): string[] {
  return table.filter((c) => c.allow).map((c) => `${prefix} ${c.words(todo)}`);
}

/** Claude Code's `--allowedTools` rules for those prefixes: `Bash(<prefix>:*)`, a prefix match. */
export function claudeAllowedTools(commands: readonly string[]): string[] {
  return commands.map((c) => `Bash(${c}:*)`);
}

/**
 * Reads a turn's prompt back as an agent does: its todo and the exact command prefix (quoted as it is there). Used
 * by the sample agent, and by the tests' scripted model.
 */
export function readTurnPrompt(prompt: string): { prefix: string; todo: string; mcp: boolean } | undefined {
  // The prefix names the agent (LOOPX_AGENT=name loopx), or is the turn's own loopx, which names it itself (turnLoopx.ts).
  const match = /^((?:LOOPX_AGENT=\S+ )?(?:'(?:[^']|'\\'')*'|\S+)) (?:todo|review) show (T\d+)/m.exec(prompt);
  if (match) return { prefix: match[1] as string, todo: match[2] as string, mcp: prompt.includes(MCP_WRITE_BACK) };
  // A turn with no shell names no command: its todo is in the MCP lines.
  const tools = /^loopx_(?:todo|review)_show \{"todo":"(T\d+)"\}/m.exec(prompt);
  return tools ? { prefix: '', todo: tools[1] as string, mcp: true } : undefined;
}

/**
 * The hosts whose turns write back through the loopx MCP server: loopx's default Codex command makes its shell
 * read-only to the store and gives the turn that server (runtime/hostBoundary.ts); the prompt says so.
 */
export function writesBackThroughMcp(host: string): boolean {
  return writeBackOf(host) !== 'cli';
}

/** How a host's turn writes back, as its prompt says it (prompt.ts): loopx commands, MCP tools, or MCP tools alone. */
export function writeBackOf(host: string): 'cli' | 'mcp' | 'mcp-only' {
  const writeBack = builtInHost(host)?.writeBack;
  return writeBack === 'mcp' || writeBack === 'mcp-only' ? writeBack : 'cli';
}

/** The sentence a prompt that writes back through MCP carries (and how a reader of the prompt knows it does). */
export const MCP_WRITE_BACK = 'write back through the loopx MCP tools';
