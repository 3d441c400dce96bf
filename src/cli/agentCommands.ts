import verbs from './agentVerbs.json';

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
