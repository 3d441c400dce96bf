import verbs from './agentVerbs.json';
import commandBundles from './commandBundles.json';

/** A verb with a bundle of its own: its words, and the module and export of its command. */
export interface AgentVerb {
  words: string[];
  module: string;
  export: string;
}

/**
 * The verbs of an agent's turn, which agents call hundreds of times a day (agentVerbs.json, read by esbuild.mjs
 * too). Each is built into a bundle of its own, dist/agent/<words>.js: the command and what it imports, and
 * nothing else, so a call reads, compiles and runs a fraction of the whole CLI. bin/loopx picks the bundle by the
 * call's words and hands everything else (help, a person's decisions, goal files) to the whole CLI, dist/cli.js.
 * Each bundle holds the whole CLI's own command object (registry.ts): agentCommands.test.ts holds them together.
 */
export const AGENT_VERBS: readonly AgentVerb[] = verbs;

/** A first word's bundle: the word, and the module and export of each of its commands (an export may be a list). */
export interface CommandBundle {
  word: string;
  commands: { module: string; export: string }[];
}

/**
 * Every other command's bundle: one per first word (commandBundles.json, read by esbuild.mjs too), dist/command/<word>.js,
 * holding every command that starts with the word in the whole CLI's order (so its help and its "did you mean" are the
 * whole CLI's). bin/loopx loads it when a call's words name no verb's bundle. The words that have none: those whose
 * every command is a verb's (status, handoff), and those dist/cli.js answers itself (WHOLE_CLI_WORDS).
 */
export const COMMAND_BUNDLES: readonly CommandBundle[] = commandBundles;

/** The words only dist/cli.js answers: `mcp` and `lsp` load bundles of their own, `turn progress` filters stdin (index.ts). */
export const WHOLE_CLI_WORDS: readonly string[] = ['mcp', 'lsp', 'turn'];
