import { mkdirSync } from 'node:fs';
import { isAbsolute, posix } from 'node:path';
import { AGENT_READ_ONLY } from '../kernel/agentReach';
import { BUILT_IN_HOSTS, type HostBoundaryKind, builtInHost } from '../shared/hostCatalog';
import { personsPath } from '../kernel/personsPath';

/**
 * The trust boundary of a turn: what its agent may not write (AGENT_READ_ONLY, kernel/agentReach.ts) and how each
 * built-in host is told so. An agent's reach is its host's reach, so everything loopx reads to decide must be out of
 * it. Reads stay allowed (an agent reads its todo from the store), except the person's key that proves decisions
 * (kernel/humanKey.ts), which may not even be read.
 */
export { AGENT_READ_ONLY };

/** What a turn's boundary needs to know. */
export interface BoundaryPlace {
  /** The workspace root (where `.loopx/` is). */
  root: string;
  /** Where the host runs: the root, or the todo's worktree. */
  cwd: string;
  /** The folder of the person's key, denied even for reading. */
  keyDir: string;
  /**
   * A review turn (kernel/todos/review.ts): it may not change the change it judges, so the whole workspace and the
   * change's folder are read-only to it (its verdict is also refused should the change have moved).
   */
  review?: boolean;
}

/** How the Codex turn reaches loopx for its writes: the MCP server, started by Codex outside its sandbox. */
export interface McpServerLine {
  /** The loopx to run (an absolute path: the agents' launcher, or the CLI itself). */
  command: string;
  /** The turn's agent: the server's identity, fixed here and not by anything the agent can edit. */
  agent: string;
  root: string;
  /** Extra variables the server needs (the key folder when it is not the default). */
  env?: Record<string, string>;
}

/** A word of a shell line that the shell expands when the line runs (every other word is quoted). */
export interface ShellWord {
  readonly shell: string;
}

/**
 * The variable a VS Code turn's line keeps its terminal's own PATH in, before it sets the person's, with `\` and `"`
 * escaped for a TOML string (hosts.ts planHost).
 */
export const TERMINAL_PATH_VAR = 'LOOPX_TERMINAL_PATH';

/** A TOML basic string: JSON's escapes are TOML's for the characters a path or name can hold. */
const toml = (value: string): string => JSON.stringify(value);

/** The permission profile's name in the turn's command line. */
export const CODEX_PROFILE = 'loopx';

/**
 * Codex's `-c` overrides for a turn, each one argv word: a permission profile (Codex 0.138+) that extends its
 * workspace profile, writes the project but only reads AGENT_READ_ONLY (a path that does not exist yet cannot be
 * made either) and cannot read the key folder; and the loopx MCP server, whose tools write back as the turn's agent
 * without asking (Codex runs MCP servers outside its sandbox). Command-line overrides outrank every config file,
 * `sandbox_mode` in the user's config.toml included (tested with the real CLI).
 */
export function codexBoundaryArgs(
  place: BoundaryPlace,
  mcp: McpServerLine,
  options: { terminalPath?: boolean } = {},
): (string | ShellWord)[] {
  const readOnly = AGENT_READ_ONLY.map((p) => `${toml(p)}="read"`).join(',');
  // Codex starts the server outside its sandbox with its own PATH: where that has a workspace folder (an activated
  // `.venv/bin`), the server gets the person's PATH instead, so `loopx`'s `#!/usr/bin/env node` never finds a planted node.
  const path = process.env.PATH;
  const persons = path === undefined ? path : personsPath(path);
  const env = { LOOPX_AGENT: mcp.agent, ...(mcp.env ?? {}), ...(persons !== path ? { PATH: persons } : {}) };
  // The agent's own commands run in the sandbox: there they get the PATH the person had, workspace folders and all
  // (an activated `.venv/bin`), which the Codex process itself runs without. Nothing they find runs outside it. In a
  // VS Code terminal that is the terminal's PATH, as its line found it (TOML-escaped there: planHost).
  const agentPath: (string | ShellWord)[] = options.terminalPath
    ? ['-c', { shell: `"shell_environment_policy.set.PATH=\\"$${TERMINAL_PATH_VAR}\\""` }]
    : persons !== path && path !== undefined
      ? ['-c', `shell_environment_policy.set.PATH=${toml(path)}`]
      : [];
  const words = [
    `default_permissions=${toml(CODEX_PROFILE)}`,
    // A review turn's commands write nothing (Codex's :workspace would still let them write the system's temp folder).
    `permissions.${CODEX_PROFILE}.extends=${place.review ? '":read-only"' : '":workspace"'}`,
    `permissions.${CODEX_PROFILE}.filesystem={":project_roots"={"."=${place.review ? '"read"' : '"write"'},${readOnly}},${toml(place.keyDir)}="none"}`,
    `mcp_servers.loopx.command=${toml(mcp.command)}`,
    `mcp_servers.loopx.args=["mcp","--root",${toml(mcp.root)}]`,
    `mcp_servers.loopx.env={${Object.entries(env)
      .map(([k, v]) => `${k}=${toml(v)}`)
      .join(',')}}`,
    'mcp_servers.loopx.default_tools_approval_mode="approve"',
    // Codex gives an MCP server 10 s to start by default; on a loaded machine `loopx mcp` behind the launcher can take
    // longer, and a turn without its tools cannot write back (it ends with nothing shipped).
    'mcp_servers.loopx.startup_timeout_sec=60',
  ].flatMap((value) => ['-c', value]);
  return [...words, ...agentPath];
}

/** Claude Code's absolute-path rule form: `//` then the path without its leading slash. */
function claudePath(path: string): string {
  return `//${path.replace(/^\/+/, '')}`;
}

/**
 * Claude Code's flags for a turn: its project and local settings are not loaded (a hook or an allow rule an agent
 * planted there never starts), no MCP server but those loopx names (none: Claude Code writes back with the allowed
 * loopx commands), and deny rules for editing AGENT_READ_ONLY under the root and the worktree (Edit rules cover every
 * file-writing tool and the file commands `acceptEdits` allows) and for reading the key folder.
 */
export function claudeBoundaryArgs(place: BoundaryPlace): string[] {
  const roots = [...new Set([place.root, place.cwd])].filter((r) => isAbsolute(r));
  const rules = roots.flatMap((root) =>
    AGENT_READ_ONLY.flatMap((p) => {
      const at = claudePath(posix.join(root, p));
      return p.includes('.json') ? [`Edit(${at})`] : [`Edit(${at})`, `Edit(${at}/**)`];
    }),
  );
  rules.push(`Read(${claudePath(place.keyDir)}/**)`, `Edit(${claudePath(place.keyDir)}/**)`);
  if (place.review) rules.push(...roots.map((root) => `Edit(${claudePath(root)}/**)`));
  return ['--setting-sources', 'user', '--strict-mcp-config', '--disallowedTools', ...rules];
}

/** {boundary}'s words for a host's kind of boundary (shared/hostCatalog.ts): none for a host loopx cannot bound. */
export function boundaryArgs(
  kind: HostBoundaryKind,
  place: BoundaryPlace,
  mcp: McpServerLine,
  options: { terminalPath?: boolean } = {},
): (string | ShellWord)[] {
  if (kind === 'codex-profile') return codexBoundaryArgs(place, mcp, options);
  if (kind === 'claude-rules') return claudeBoundaryArgs(place);
  return [];
}

/** What a host's command in force promises about the boundary, for `doctor`, the docs and a turn's record. */
export type BoundaryKind = 'enforced' | 'none';

/** The hosts loopx knows how to bound. */
export const BOUNDED_HOSTS: readonly string[] = BUILT_IN_HOSTS.filter((h) => h.boundary !== 'none').map((h) => h.id);

/** A command keeps the boundary when it is a bounded host's and carries `{boundary}` (every built-in default does). */
export function boundaryOf(host: string, template: string): BoundaryKind {
  return BOUNDED_HOSTS.includes(host) && template.includes('{boundary}') ? 'enforced' : 'none';
}

/** The boundary of `host`'s command in force, from the host settings (hosts.ts HostSettings: the runner's and VS Code's). */
export function hostBoundary(host: string, settings: object): BoundaryKind {
  const template = (settings as Record<string, unknown>)[host];
  return boundaryOf(host, typeof template === 'string' ? template : '');
}

/**
 * Whether a turn's agent's own commands may write the store: its host's command does not keep loopx's boundary, or
 * the host writes back through the turn's loopx verbs in its shell. A bounded Codex, Qwen Code or Pi agent writes back
 * through loopx's MCP server only (the catalog's `writeBack`): its shell reads `.loopx/`, never writes it.
 */
export function shellWritesStore(host: string, settings: object): boolean {
  if (hostBoundary(host, settings) === 'none') return true;
  return builtInHost(host)?.writeBack === 'shell';
}

/** What a runner (and a turn's record) says of a host whose command loopx cannot bound. */
export function unboundedLine(host: string): string {
  return (
    `Turns on ${host} run without loopx's boundary: its agent can write .loopx/ (the store, the launcher, turn folders) ` +
    "and the other hosts' config. A decision it forged would be detected (loopx log verify), not prevented."
  );
}

/**
 * A started turn's boundary: its root and folder from the turn, the key folder, and the MCP server as the turn's
 * agent through `loopx` (the launcher the prompt names). The person's key folder is passed on when it is not the
 * default one, so the server finds the same key the person's decisions were proven with.
 */
export function turnBoundary(
  turn: { cwd: string; env: Record<string, string> },
  loopx: string,
  keyDir: string,
  env: NodeJS.ProcessEnv = process.env,
): { place: BoundaryPlace; mcp: McpServerLine } {
  const root = turn.env.LOOPX_ROOT ?? turn.cwd;
  // The folder must exist for a sandbox to deny it (bubblewrap cannot mount over a path it cannot make, and Codex
  // then starts no command at all); made as the key's own folder would be, private to the person.
  try {
    mkdirSync(keyDir, { recursive: true, mode: 0o700 });
  } catch {
    /* a folder that cannot be made: the host says so when it starts */
  }
  const passOn = Object.fromEntries(
    (['LOOPX_CONFIG_DIR', 'XDG_CONFIG_HOME'] as const).flatMap((k) => (env[k] ? [[k, env[k] as string]] : [])),
  );
  return {
    place: { root, cwd: turn.cwd, keyDir, ...(turn.env.LOOPX_ROLE === 'review' ? { review: true } : {}) },
    mcp: { command: loopx, agent: turn.env.LOOPX_AGENT ?? '', root, env: passOn },
  };
}
