/**
 * How long each text a person or an agent writes may be, in characters. The kernel's checks (`requireText`,
 * `optionalText`) and the MCP server's tool schemas both read this table, so a limit changes in one place. Plain
 * data: the webview may read it too.
 */
export const TEXT_LIMITS = {
  /** A goal's or a todo's title, and any other one-line name (`requireText`'s default). */
  title: 200,
  /** Free text: a detail, an objective, a note, an evidence kind, a handoff's done and pending (`optionalText`'s default). */
  text: 10_000,
  /** What evidence or a handoff says happened. */
  summary: 4000,
  /** Why a todo is blocked or killed, or a monitor cancelled. */
  reason: 2000,
  /** A gate's question to a person. */
  question: 2000,
  /** A shell command loopx keeps to run later: an acceptance check, a monitor's check, a hook's command. */
  check: 2000,
  /** A command `evidence run` runs now. */
  runCommand: 4000,
  /** A monitor's note for the next turn. */
  monitorNote: 2000,
  /** A monitor's `until` (exit0, change, or match:REGEX). */
  until: 510,
  /** A hook's note, a handoff's permission, a pattern of allowed checks. */
  short: 500,
  /** A goal file's background section. */
  background: 100_000,
  /** An agent's name (the same 64 as `parseAgentName`'s rule). */
  agentName: 64,
  /** An artifact's path as given. */
  artifactPath: 4096,
  /** Artifacts in one evidence entry. */
  artifacts: 100,
  /** An id or a duration as typed (T12, 30m): longer is never valid, so longer is refused before parsing. */
  token: 24,
} as const;
