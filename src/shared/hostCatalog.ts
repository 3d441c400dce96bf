/**
 * The agent CLIs loopx knows, as data: one definition per host, in one home. What differs between hosts is said here
 * (the command line, how its output is read, how its permissions keep loopx's files out of the agent's reach, how the
 * agent writes back, what it installs from and is tested with); the mechanisms each field names live in the layers
 * that run them (runtime/hostBoundary.ts for `boundary`, kernel/turns/usage/hostStream.ts for `output`). Imports
 * nothing: the kernel, the CLI, VS Code and the language server read it alike.
 */

/** How a host's output is read for progress and usage (hostStream.ts); `text`: printed as it comes, usage unknown. */
export type HostOutput = 'claude' | 'codex' | 'opencode' | 'gemini' | 'copilot' | 'qwen' | 'pi' | 'text';

/**
 * How a host is told what its agent may not write ({boundary} in its command; hostBoundary.ts): Claude Code's deny
 * rules with project settings off, Codex's permission profile with the loopx MCP server, OpenCode's permission map in a
 * config of the turn's own (runtime/opencodeBoundary.ts), Gemini CLI's admin policy and settings of the turn's own
 * (runtime/geminiBoundary.ts), Copilot CLI's tool and path rules with a home of the turn's own
 * (runtime/copilotBoundary.ts), Qwen Code with no shell at all and the loopx MCP server (runtime/qwenBoundary.ts), Pi
 * (which has no permissions of its own) with an extension of loopx's that refuses every tool call outside the turn's
 * reach, no shell and the loopx MCP server (runtime/piBoundary.ts), or nothing loopx can give.
 */
export type HostBoundaryKind =
  'claude-rules' | 'codex-profile' | 'opencode-config' | 'gemini-policy' | 'copilot-rules' | 'qwen-mcp' | 'pi-guard' | 'none';

export interface HostDefinition {
  /** The name in settings, `loopx run --host` and a turn's record. */
  id: string;
  /** What people read, in a list or a picker. */
  name: string;
  /** How a sentence names it ("install the Codex CLI", "Claude Code is not installed"). */
  called: string;
  /** The default command line (its placeholders: runtime/hosts.ts hostCommand). */
  command: string;
  /** The npm package it installs from (the install and update hints). */
  npmPackage: string;
  /** The release loopx's tests run (test/agents): an older one lacking a flag of the command is too old. */
  testedVersion: string;
  /**
   * The oldest Node its package runs on, for a host npm installs as a Node script (it runs on PATH's `node`): said when
   * the program fails at its start. None: a native program, or any supported Node.
   */
  nodeFloor?: string;
  output: HostOutput;
  boundary: HostBoundaryKind;
  /**
   * How a turn's agent writes back: the turn's loopx verbs in its shell; the loopx MCP server's tools beside a shell
   * that can read the store (`mcp`); or those tools alone, for a host whose shell cannot be bounded and is not offered
   * (`mcp-only`).
   */
  writeBack: 'shell' | 'mcp' | 'mcp-only';
  /** The project instruction file the host reads by itself. */
  instructionFile: string;
  /**
   * Words that, in a command, let a headless run call the turn's loopx verbs without asking anybody; a command
   * without any of them would have every write-back refused (doctor warns). Empty: the host needs none.
   */
  headlessPermissionWords: readonly string[];
  /** How its provider caches prompts (null: it depends on the provider the host is set up with; not counted on). */
  promptCache: PromptCache | null;
  /**
   * How its permission rules match a shell command: by its leading words (`prefix`: a rule can pin a loopx verb), or
   * by the program alone (`program`: Copilot CLI, which also drops `VAR=value` words before matching). For the latter
   * a turn's loopx commands go through a launcher of the turn's own, which sets the turn's agent whatever the command
   * line says and refuses any verb the turn was not given (kernel/turns/turnLoopx.ts).
   */
  shellRules: 'prefix' | 'program';
}

/**
 * A host's prompt cache as its provider publishes it. A turn whose first request comes within `windowSeconds` of the
 * last request that used the same prompt prefix reads that prefix from the cache (at the price table's cachedInput
 * rate); after it, the prefix is read, and written again, in full. should-run keeps a retry inside it when that costs
 * the wait little (turns/backoff.ts); a person may set another window in hosts.json (kernel/turns/promptCache.ts).
 */
export interface PromptCache {
  /** How long a cached prefix lives after its last use (each hit starts it again): the shorter published figure. */
  windowSeconds: number;
  /** Prompts shorter than this are not cached at all. */
  minTokens: number;
  /** What writing a prefix to the cache costs, as a multiple of the input price (1: no charge beyond the input). */
  writeMultiplier: number;
  /** Where the figures were read, and when. */
  source: string;
}

/**
 * Anthropic: a prefix lives 5 minutes, refreshed on every hit (1 hour on request); writing it costs 1.25x input for
 * the 5-minute cache (2x for 1 hour), reading it 0.1x; prompts under 1,024 tokens are not cached (2,048 on Haiku).
 */
export const ANTHROPIC_PROMPT_CACHE: PromptCache = {
  windowSeconds: 300,
  minTokens: 1024,
  writeMultiplier: 1.25,
  source: 'https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching (2026-12-05)',
};

/**
 * OpenAI: prompts of 1,024 tokens or more are cached by themselves, with no charge to write; a prefix is cleared after
 * 5 to 10 idle minutes, always within an hour (24 hours on request): 5 minutes is what can be counted on.
 */
export const OPENAI_PROMPT_CACHE: PromptCache = {
  windowSeconds: 300,
  minTokens: 1024,
  writeMultiplier: 1,
  source: 'https://platform.openai.com/docs/guides/prompt-caching (2026-12-05)',
};

/** The built-in hosts, in the order people are offered them. */
export const BUILT_IN_HOSTS: readonly HostDefinition[] = [
  {
    id: 'codex',
    name: 'Codex CLI',
    called: 'the Codex CLI',
    // Reads the prompt from stdin, so no prompt travels through a shell command line. {boundary} is loopx's
    // permission profile (the workspace writable, .loopx/ and the hosts' config read-only, the person's key
    // unreadable) and the loopx MCP server its agent writes back through (hostBoundary.ts); outside a git repository
    // too. `--full-auto` is gone since about 0.157 (exit 2, "unexpected argument"); `--sandbox` would switch the
    // profile off (it is the older setting). --json: one event per line (usage/hostStream.ts reads them).
    command: 'codex exec --skip-git-repo-check --json {boundary} -',
    npmPackage: '@openai/codex',
    testedVersion: '0.171.0',
    output: 'codex',
    boundary: 'codex-profile',
    writeBack: 'mcp',
    instructionFile: 'AGENTS.md',
    headlessPermissionWords: [],
    promptCache: OPENAI_PROMPT_CACHE,
    shellRules: 'prefix',
  },
  {
    id: 'claude',
    name: 'Claude Code',
    called: 'Claude Code',
    // In -p mode it can ask nobody: {allowedTools} lets exactly the turn's loopx verbs run (turnCommands.ts);
    // {boundary} denies editing .loopx/ and the hosts' config and reading the person's key, and loads no project
    // settings. stream-json (which -p allows only with --verbose): its messages, tool calls and, last, usage and cost.
    command: 'claude -p --permission-mode acceptEdits --output-format stream-json --verbose {boundary} --allowedTools {allowedTools}',
    npmPackage: '@anthropic-ai/claude-code',
    testedVersion: '2.1.197',
    output: 'claude',
    boundary: 'claude-rules',
    writeBack: 'shell',
    instructionFile: 'CLAUDE.md',
    headlessPermissionWords: [
      '{allowedTools}',
      '--allowedTools',
      '--allowed-tools',
      '--dangerously-skip-permissions',
      'bypassPermissions',
      '--mcp-config',
    ],
    promptCache: ANTHROPIC_PROMPT_CACHE,
    shellRules: 'prefix',
  },
  {
    id: 'opencode',
    name: 'OpenCode',
    called: 'OpenCode',
    // The prompt on stdin (as an argument OpenCode re-quotes words with spaces). --title: no extra request to name the
    // session (its tokens would be in no event). --format json: one event per line, usage per model request. Its
    // permissions cannot be given on the command line: {boundary} is empty and the turn's own config, with the
    // environment that makes OpenCode read only it, is put before the command (runtime/opencodeBoundary.ts).
    command: 'opencode run --format json --title loopx-turn {boundary}',
    npmPackage: 'opencode-ai',
    testedVersion: '1.18.33',
    output: 'opencode',
    boundary: 'opencode-config',
    writeBack: 'shell',
    instructionFile: 'AGENTS.md',
    headlessPermissionWords: [],
    // Any provider (its own config names it): its cache is that provider's.
    promptCache: null,
    shellRules: 'prefix',
  },
  {
    id: 'gemini',
    name: 'Gemini CLI',
    called: 'Gemini CLI',
    // The prompt on stdin. --skip-trust runs in the workspace without trusting it (a trusted folder's
    // .gemini/settings.json would be merged: its hooks, MCP servers and discovery command run). {boundary} is the
    // turn's admin policy (the highest tier: exactly the turn's loopx verbs, no edits to loopx's files) and its model;
    // the turn's own settings folder comes in the environment (runtime/geminiBoundary.ts). stream-json: one event per
    // line, usage in the last.
    command: 'gemini --skip-trust --output-format stream-json {boundary}',
    npmPackage: '@google/gemini-cli',
    testedVersion: '0.61.0',
    output: 'gemini',
    boundary: 'gemini-policy',
    writeBack: 'shell',
    instructionFile: 'GEMINI.md',
    headlessPermissionWords: [],
    // Gemini's implicit cache publishes no lifetime to count on.
    promptCache: null,
    shellRules: 'prefix',
  },
  {
    id: 'copilot',
    name: 'Copilot CLI',
    called: 'Copilot CLI',
    // The prompt on stdin. JSONL events (usage/hostStream.ts reads them); no update, no GitHub MCP servers, no files in
    // the system's temporary folder. {boundary} is the turn's rules (exactly the turn's own loopx, edits in the
    // workspace but not to loopx's files or the hosts' config, a shell redirection refused), the file its usage is
    // written to, and, before the command, a Copilot home of the turn's own (runtime/copilotBoundary.ts).
    command: 'copilot --output-format json --no-ask-user --no-auto-update --disable-builtin-mcps --disallow-temp-dir {boundary}',
    npmPackage: '@github/copilot',
    testedVersion: '1.0.102',
    output: 'copilot',
    boundary: 'copilot-rules',
    writeBack: 'shell',
    instructionFile: 'AGENTS.md',
    headlessPermissionWords: [],
    // Copilot's own models or a provider of the person's (COPILOT_PROVIDER_BASE_URL): no window to count on.
    promptCache: null,
    shellRules: 'program',
  },
  {
    id: 'qwen',
    name: 'Qwen Code',
    called: 'Qwen Code',
    // The prompt on stdin. Its shell cannot be bounded (a `$(…)` inside an allowed command's arguments runs, and it
    // drops `VAR=value` words before matching), so a turn has none: --bare (none of the repository's settings, hooks,
    // MCP servers or skills), and {boundary} takes the shell tool away, keeps edits off loopx's files and the hosts'
    // config, and gives the loopx MCP server the agent reads and writes back through (runtime/qwenBoundary.ts).
    // stream-json: Claude Code's shape, usage in the last line. Needs Node 22 or newer.
    command: 'qwen --bare --output-format stream-json {boundary}',
    npmPackage: '@qwen-code/qwen-code',
    testedVersion: '0.24.4',
    nodeFloor: '22',
    output: 'qwen',
    boundary: 'qwen-mcp',
    writeBack: 'mcp-only',
    instructionFile: 'QWEN.md',
    headlessPermissionWords: [],
    // Any provider of the person's (an OpenAI-compatible one, Anthropic's, …): no window to count on.
    promptCache: null,
    shellRules: 'prefix',
  },
  {
    id: 'pi',
    name: 'Pi',
    called: 'Pi',
    // The prompt on stdin. Pi has no permission layer at all, so {boundary} brings one: an extension of the turn's own
    // that refuses any tool call outside the turn's reach (no shell; reads and edits in the workspace, no edits to
    // loopx's files or the hosts' config), the built-in MCP support alone for the loopx MCP server, and an agent folder
    // of the turn's own (runtime/piBoundary.ts). --no-approve: none of the repository's `.pi/` settings, extensions or
    // MCP servers. JSON events, usage per model request. Needs Node 22.19 or newer.
    command: 'pi -p --mode json --offline --no-approve --no-session --no-skills --no-prompt-templates {boundary}',
    npmPackage: '@earendil-works/pi-coding-agent',
    testedVersion: '1.6.0',
    nodeFloor: '22.19',
    output: 'pi',
    boundary: 'pi-guard',
    writeBack: 'mcp-only',
    instructionFile: 'AGENTS.md',
    headlessPermissionWords: [],
    // Any provider of the person's: no window to count on.
    promptCache: null,
    shellRules: 'prefix',
  },
];

/** The hosts a turn can name without a hosts.json of its own: every built-in one, and a custom command. */
export const HOST_IDS: readonly string[] = [...BUILT_IN_HOSTS.map((h) => h.id), 'custom'];

/** How a host is named (a built-in one, `custom`, a person's own in hosts.json): lowercase letters, digits, hyphens. */
export const HOST_ID = /^[a-z][a-z0-9-]{0,31}$/;

/** A built-in host by its id; undefined for `custom` and anything else. */
export function builtInHost(id: string): HostDefinition | undefined {
  return BUILT_IN_HOSTS.find((h) => h.id === id);
}

/** A sentence's first word capitalised ("The Codex CLI is not installed"). */
export function calledAtStart(host: HostDefinition): string {
  return host.called.charAt(0).toUpperCase() + host.called.slice(1);
}
