import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtInHost } from '../../shared/hostCatalog';
import { REVIEW_TURN_COMMANDS, TURN_COMMANDS, shellWord } from './turnCommands';
import { personsPath } from '../personsPath';

/**
 * The turn's own loopx, for a host whose permission rules match a shell command by its program alone (Copilot CLI,
 * shared/hostCatalog.ts `shellRules`). Such a rule cannot pin a verb, and such a host drops `VAR=value` words before
 * matching, so the prompt's `LOOPX_AGENT=name loopx …` could be run as any agent with any verb. This launcher, in the
 * turn's folder (out of the agent's reach), is the one program the turn's rules allow: it runs as the turn's agent
 * whatever the command line says, and refuses every verb the turn was not given, before loopx starts.
 */

/** The launcher's name in the turn's folder (named `loopx`: progress lines and people read it as loopx). */
export const TURN_LOOPX = 'loopx';

/** Does this host's turn get a launcher of its own? Only where rules match the program (and a POSIX shell runs it). */
export function needsTurnLoopx(host: string, platform = process.platform): boolean {
  const known = builtInHost(host);
  return (known?.shellRules === 'program' || known?.writeBack === 'mcp-only') && platform !== 'win32';
}

/**
 * The verbs a turn's launcher lets through, as argv words: the same table the prompt and the hosts' rules come from;
 * for a host with no shell, only the MCP server its host starts (whose environment the repository may have touched:
 * a project `.env` a host loads is passed on to the servers it starts).
 */
export function turnLoopxVerbs(host: string, todo: string, role?: 'review'): string[][] {
  if (builtInHost(host)?.writeBack === 'mcp-only') return [['mcp']];
  return (role === 'review' ? REVIEW_TURN_COMMANDS : TURN_COMMANDS).filter((c) => c.allow).map((c) => c.words(todo).split(' '));
}

/**
 * What the turn's loopx passes on from its caller's environment: the locale and terminal, and a team store's login
 * (the agents' own, which the host's environment already holds). Everything else a command line could set before it
 * (`NODE_OPTIONS=--import=./mine.mjs`, a PATH that finds another git or bwrap, another root or key folder) is dropped:
 * loopx runs on what the turn started with.
 */
export const PASSED_ON = [
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'TZ',
  'TERM',
  'NO_COLOR',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'CI',
  'LOOPX_DATABASE_URL',
  'LOOPX_SQLITE_DRIVER',
  'PGHOST',
  'PGPORT',
  'PGUSER',
  'PGDATABASE',
  'PGPASSWORD',
  'PGPASSFILE',
  'PGSERVICE',
  'PGSERVICEFILE',
  'PGSYSCONFDIR',
  'PGSSLMODE',
  'PGSSLROOTCERT',
  'PGSSLCERT',
  'PGSSLKEY',
  'PGAPPNAME',
  'PGCONNECT_TIMEOUT',
] as const;

/** What it fixes as the turn started: where programs and the person's key folder are found. */
const PINNED = ['PATH', 'HOME', 'XDG_CONFIG_HOME', 'LOOPX_CONFIG_DIR'] as const;

export interface TurnLoopxFacts {
  turnId: string;
  /** The host the turn runs on (which verbs it gets). */
  host: string;
  agent: string;
  /** The workspace's loopx (the agents' launcher) it runs. */
  loopx: string;
  todo: string;
  /** The workspace root: the only store it reaches. */
  root: string;
  /** A review turn gets the review verbs, never the implementer's. */
  role?: 'review';
  /** The environment the turn starts in, for the pinned values. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The launcher's text: the turn's verbs checked word by word (and no --agent or --root anywhere), then the workspace's
 * loopx as the turn's agent on its root, in an environment of the turn's start, not the command line's.
 */
export function turnLoopxText(o: TurnLoopxFacts): string {
  const env = o.env ?? process.env;
  const verbs = turnLoopxVerbs(o.host, o.todo, o.role);
  const checks = verbs.map((words) => `  ${words.map((w, i) => `[ "$${i + 1}" = ${shellWord(w)} ]`).join(' && ')} && return 0`);
  const names = verbs.map((w) => w.join(' ')).join(', ');
  const message = `turn ${o.turnId} runs only its own loopx verbs (${names}), as ${o.agent} on its own workspace; anything else is for a person`;
  const json = JSON.stringify({ ok: false, error: { code: 'not_allowed', message } });
  // PATH as the person's programs are found (personsPath): the launcher's `node`, and the git and bwrap loopx runs, are
  // never ones planted in a workspace folder on it (this loopx is also the MCP server Codex starts outside its sandbox).
  const value = (name: (typeof PINNED)[number]) => (name === 'PATH' && env.PATH !== undefined ? personsPath(env.PATH) : env[name]);
  const pinned = PINNED.flatMap((name) => (value(name) !== undefined ? [`${name}=${shellWord(value(name) as string)}`] : []));
  const passed = PASSED_ON.map((name) => `\${${name}+"${name}=$${name}"}`);
  return [
    '#!/bin/sh',
    `# Written by loopx for turn ${o.turnId}: its agent's only loopx (kernel/turns/turnLoopx.ts). It runs as`,
    `# ${o.agent}, on this workspace, with the environment the turn started with, and only the turn's verbs.`,
    'allowed() {',
    ...checks,
    '  return 1',
    '}',
    'refuse() {',
    '  for word in "$@"; do',
    `    if [ "$word" = --json ]; then printf '%s\\n' ${shellWord(json)}; exit 3; fi`,
    '  done',
    `  printf 'loopx: %s\\n' ${shellWord(message)} >&2`,
    '  exit 3',
    '}',
    'allowed "$@" || refuse "$@"',
    'for word in "$@"; do',
    '  case "$word" in --agent|--agent=*|--root|--root=*) refuse "$@" ;; esac',
    'done',
    `${['exec /usr/bin/env -i', ...pinned, ...passed].join(' \\\n  ')} \\`,
    `  LOOPX_AGENT=${shellWord(o.agent)} LOOPX_ROOT=${shellWord(o.root)} ${shellWord(o.loopx)} "$@"`,
    '',
  ].join('\n');
}

/** Writes the turn's launcher into its folder (whole, executable) and returns its path. */
export function writeTurnLoopx(turnFolder: string, o: TurnLoopxFacts): string {
  const file = join(turnFolder, TURN_LOOPX);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, turnLoopxText(o), { mode: 0o755 });
  chmodSync(temp, 0o755);
  renameSync(temp, file);
  return file;
}
