import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AGENT_READ_ONLY } from '../kernel/agentReach';
import { readJsonObject } from './personJson';

/**
 * Gemini CLI's boundary for a turn (measured with 0.61.0, docs/hosts.md). Its settings folder is the turn's own
 * (`GEMINI_CLI_HOME` in the turn's folder, which the agent cannot write): no hooks, no usage statistics, no update,
 * no `.env` of the project, one attempt per request, the environment's secrets kept from the agent's commands. Its
 * permissions are an admin policy (`--admin-policy`, the highest tier: nothing a settings file or a user policy adds
 * outranks it): the turn's loopx verbs in its shell and nothing else (it refuses chains, substitutions and
 * `VAR=value` prefixes, and asks, so refuses headless, for redirections), reading and searching files, and edits
 * anywhere but loopx's files and the hosts' config. The project's `.gemini/settings.json` is never merged while the
 * workspace is not trusted, and `--skip-trust` (in the default command) runs it untrusted.
 */

/** A TOML basic string: JSON's escapes are TOML's for the characters a command prefix or a pattern holds. */
const toml = (value: string): string => JSON.stringify(value);

/** A name as a regular expression, literally. */
const literal = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The turn's policy: the rules in the order Gemini CLI reads them (the highest priority wins). A review turn
 * (`review`) has no edit allowed at all: its edits fall to the last rule, refused.
 */
export function geminiPolicy(allowedCommands: readonly string[], review = false): string {
  const rule = (fields: Record<string, string | string[] | number>) =>
    `[[rule]]\n${Object.entries(fields)
      .map(([k, v]) => `${k} = ${Array.isArray(v) ? `[${v.map(toml).join(', ')}]` : typeof v === 'number' ? v : toml(v)}`)
      .join('\n')}\n`;
  const edits = ['write_file', 'replace'];
  return [
    "# loopx: this turn's permissions (runtime/geminiBoundary.ts). Everything not allowed here is refused.",
    rule({ toolName: ['read_file', 'read_many_files', 'list_directory', 'glob', 'grep_search'], decision: 'allow', priority: 500 }),
    ...allowedCommands.map((prefix) => rule({ toolName: 'run_shell_command', commandPrefix: prefix, decision: 'allow', priority: 500 })),
    // Paths are matched as written in the call's arguments: a protected name anywhere in the path, and any backslash
    // (an escaped quote would end the pattern's view of the path early).
    ...AGENT_READ_ONLY.map((name) =>
      rule({
        toolName: edits,
        argsPattern: `"file_path":"[^"]*${literal(name)}${name.endsWith('.json') ? '"' : '/'}`,
        decision: 'deny',
        priority: 900,
      }),
    ),
    rule({ toolName: edits, argsPattern: '"file_path":"[^"]*\\\\', decision: 'deny', priority: 900 }),
    ...(review ? [] : [rule({ toolName: edits, decision: 'allow', priority: 500 })]),
    rule({ toolName: '*', decision: 'deny', priority: 1 }),
  ].join('\n');
}

/** The person's own Gemini CLI settings, for what a turn carries over; {} when there are none. */
function personSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  return readJsonObject(join(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini', 'settings.json')) ?? {};
}

/** Where a turn's Gemini CLI home is: inside the turn's folder. */
export function geminiHome(turnDir: string): string {
  return join(turnDir, 'gemini');
}

/**
 * Writes the turn's settings and policy, and returns the arguments ({boundary}: the policy, and the person's model,
 * without which every step first asks a router model) and the environment (its settings folder) a turn runs with.
 * The person's way of signing in (`security.auth.selectedType`) and model are carried over; their key stays in their
 * environment (GEMINI_API_KEY), kept from the agent's commands.
 */
export function geminiTurnSetup(
  allowedCommands: readonly string[],
  turnDir: string,
  env: NodeJS.ProcessEnv = process.env,
  review = false,
): { args: string[]; env: Record<string, string> } {
  const home = geminiHome(turnDir);
  mkdirSync(join(home, '.gemini'), { recursive: true });
  const person = personSettings(env);
  const auth = ((person.security as { auth?: unknown } | undefined)?.auth ?? undefined) as Record<string, unknown> | undefined;
  const model = (person.model as { name?: unknown } | undefined)?.name;
  const settings = {
    security: {
      ...(auth ? { auth } : {}),
      environmentVariableRedaction: { enabled: true },
    },
    ...(typeof model === 'string' ? { model: { name: model } } : {}),
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1 },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    advanced: { ignoreLocalEnv: true },
    hooksConfig: { enabled: false },
  };
  writeFileSync(join(home, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  const policy = join(home, 'policy.toml');
  writeFileSync(policy, geminiPolicy(allowedCommands, review));
  return {
    args: ['--admin-policy', policy, ...(typeof model === 'string' && model ? ['--model', model] : [])],
    env: {
      GEMINI_CLI_HOME: home,
      // It starts a second copy of itself otherwise (a bigger heap): twice the start-up, a process tree to end.
      GEMINI_CLI_NO_RELAUNCH: 'true',
      // Ways of trusting the workspace (its settings then merge) or replacing the policy or prompt from outside.
      GEMINI_CLI_TRUST_WORKSPACE: '',
      GEMINI_CLI_TRUSTED_FOLDERS_PATH: '',
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: '',
      GEMINI_SYSTEM_MD: '',
    },
  };
}
