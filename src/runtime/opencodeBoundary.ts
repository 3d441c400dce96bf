import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { AGENT_READ_ONLY } from '../kernel/agentReach';
import { OPENCODE_TURN_CONFIG } from '../kernel/turns/usage/turnUsage';
import { builtInHost } from '../shared/hostCatalog';
import type { BoundaryPlace } from './hostBoundary';
import { readJsonObject } from './personJson';

/**
 * OpenCode's boundary for a turn. Its permissions cannot be given on the command line, and a repository's
 * `opencode.json` is merged over any config it is handed (a project `"touch *": "allow"` beats a pinned `"*": "deny"`),
 * so each turn gets a config of its own in the turn's folder (which the agent cannot write), and the environment that
 * makes OpenCode read only that one: private config, cache and state folders, the project's config off, no models
 * catalogue fetched, no update, no sharing. Measured with opencode-ai 1.18.33 (docs/hosts.md).
 *
 * What it cannot close: OpenCode imports a project's plugins (`.opencode/plugin/`, a `plugin` list in
 * `opencode.json`) at start-up whatever its settings say, so a turn is refused where there are any (opencodePlugins).
 */

/** The keys of the person's own OpenCode config a turn keeps: the model and how to reach it, nothing that permits. */
const CARRIED_KEYS = ['model', 'small_model', 'provider', 'enabled_providers', 'disabled_providers'] as const;

/**
 * The turn's OpenCode permissions: exactly the turn's loopx verbs in its shell, edits anywhere but loopx's files; a
 * review turn (`review`) edits nothing at all.
 */
export function opencodePermission(allowedCommands: readonly string[], review = false): Record<string, unknown> {
  const bash: Record<string, string> = { '*': 'deny' };
  // A trailing " *" also matches the prefix alone; last match wins, so the denials that follow come last.
  for (const prefix of allowedCommands) bash[`${prefix} *`] = 'allow';
  // OpenCode checks each simple command (chains, substitutions, subshells) but not redirections: none at all.
  bash['*>*'] = 'deny';
  // Paths are matched relative to the git root (outside a repository, to /): each name at the root and below it.
  const edit: Record<string, string> = { '*': review ? 'deny' : 'allow' };
  for (const name of AGENT_READ_ONLY) for (const at of [name, `*/${name}`]) for (const p of [at, `${at}/**`]) edit[p] = 'deny';
  return {
    '*': 'deny',
    read: 'allow',
    list: 'allow',
    glob: 'allow',
    grep: 'allow',
    edit,
    bash,
    // Files outside the workspace (the person's key folder among them), asked for nothing: refused.
    external_directory: 'deny',
  };
}

/** The person's own OpenCode config (its global file), for the keys a turn carries over; {} when there is none. */
function personConfig(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const dir = join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'opencode');
  return readJsonObject(join(dir, 'opencode.json')) ?? readJsonObject(join(dir, 'config.json')) ?? {};
}

/** Where a turn's OpenCode folders are: inside the turn's folder, its config where the usage reader looks. */
export function opencodeHome(turnDir: string): string {
  return join(turnDir, OPENCODE_TURN_CONFIG.split(/[\\/]/)[0] as string);
}

/**
 * Writes the turn's OpenCode config and returns the environment that makes OpenCode read it alone. The person's model
 * and providers are carried over from their own config; their login (auth.json) stays where it is, in OpenCode's data
 * folder, which the turn leaves as it is.
 */
export function opencodeTurnSetup(
  place: BoundaryPlace,
  allowedCommands: readonly string[],
  turnDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const home = opencodeHome(turnDir);
  const configDir = dirname(join(turnDir, OPENCODE_TURN_CONFIG));
  mkdirSync(join(configDir, 'node_modules'), { recursive: true });
  mkdirSync(join(home, 'home'), { recursive: true });
  // OpenCode installs its plugin package into every config folder it reads (from the npm registry) unless a lock file
  // lists it and node_modules/ exists: both, empty, keep a turn off the network.
  const version = builtInHost('opencode')?.testedVersion ?? 'latest';
  writeFileSync(join(configDir, 'package.json'), JSON.stringify({ dependencies: { '@opencode-ai/plugin': version } }));
  writeFileSync(
    join(configDir, 'package-lock.json'),
    JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: { '@opencode-ai/plugin': version } } } }),
  );
  const person = personConfig(env);
  const instructions = join(place.cwd, 'AGENTS.md');
  const config = {
    ...Object.fromEntries(CARRIED_KEYS.filter((k) => k in person).map((k) => [k, person[k]])),
    autoupdate: false,
    share: 'disabled',
    snapshot: false,
    // The project's config is off, its AGENTS.md with it: named again here, as instructions only.
    ...(existsSync(instructions) ? { instructions: [instructions] } : {}),
    permission: opencodePermission(allowedCommands, place.review === true),
    // A refusal is the tool's answer and the turn goes on (an "ask" would end the turn: nobody answers headless).
    experimental: { continue_loop_on_deny: true },
  };
  writeFileSync(join(turnDir, OPENCODE_TURN_CONFIG), `${JSON.stringify(config, null, 2)}\n`);
  return {
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_STATE_HOME: join(home, 'state'),
    // OpenCode reads ~/.opencode/ too; this (its own variable) moves that home without moving the agent's $HOME.
    OPENCODE_TEST_HOME: join(home, 'home'),
    OPENCODE_DISABLE_PROJECT_CONFIG: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
    // A config named from outside would be merged over the turn's: emptied (OpenCode treats empty as unset).
    OPENCODE_CONFIG: '',
    OPENCODE_CONFIG_DIR: '',
    OPENCODE_CONFIG_CONTENT: '',
    OPENCODE_PERMISSION: '',
    // The agent's loopx calls inherit XDG_CONFIG_HOME: they must still find the person's key folder.
    LOOPX_CONFIG_DIR: place.keyDir,
  };
}

/**
 * The project plugins OpenCode would import whatever its settings say: files in `.opencode/plugin(s)/`, and a
 * `plugin` list in `opencode.json(c)`, from `cwd` up to the repository's top (or the file system's). Empty: none.
 */
export function opencodePlugins(cwd: string): string[] {
  const found: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    for (const folder of ['plugin', 'plugins']) {
      const at = join(dir, '.opencode', folder);
      try {
        if (readdirSync(at).length > 0) found.push(at);
      } catch {
        /* no such folder */
      }
    }
    for (const name of ['opencode.json', 'opencode.jsonc']) {
      try {
        if (/"plugin"\s*:/.test(readFileSync(join(dir, name), 'utf8'))) found.push(join(dir, name));
      } catch {
        /* no such file */
      }
    }
    if (existsSync(join(dir, '.git')) || dirname(dir) === dir) return found;
  }
}
