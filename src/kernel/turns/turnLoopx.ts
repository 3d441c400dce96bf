import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtInHost } from '../../shared/hostCatalog';
import { TURN_COMMANDS, shellWord } from './turnCommands';

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
  return builtInHost(host)?.shellRules === 'program' && platform !== 'win32';
}

/** The verbs a turn's launcher lets through, as argv words: the same table the prompt and the hosts' rules come from. */
export function turnLoopxVerbs(todo: string): string[][] {
  return TURN_COMMANDS.filter((c) => c.allow).map((c) => c.words(todo).split(' '));
}

/** The launcher's text: the turn's verbs checked word by word, then the workspace's loopx as the turn's agent. */
export function turnLoopxText(o: { turnId: string; agent: string; loopx: string; todo: string }): string {
  const verbs = turnLoopxVerbs(o.todo);
  const checks = verbs.map((words) => `  ${words.map((w, i) => `[ "$${i + 1}" = ${shellWord(w)} ]`).join(' && ')} && return 0`);
  const names = verbs.map((w) => w.join(' ')).join(', ');
  const message = `turn ${o.turnId} runs only its own loopx verbs (${names}); anything else is for a person`;
  const json = JSON.stringify({ ok: false, error: { code: 'not_allowed', message } });
  return [
    '#!/bin/sh',
    `# Written by loopx for turn ${o.turnId}: its agent's only loopx (kernel/turns/turnLoopx.ts). It runs as`,
    `# ${o.agent} whatever the command line says, and only the turn's verbs.`,
    'allowed() {',
    ...checks,
    '  return 1',
    '}',
    'if ! allowed "$@"; then',
    '  for word in "$@"; do',
    `    if [ "$word" = --json ]; then printf '%s\\n' ${shellWord(json)}; exit 3; fi`,
    '  done',
    `  printf 'loopx: %s\\n' ${shellWord(message)} >&2`,
    '  exit 3',
    'fi',
    `LOOPX_AGENT=${shellWord(o.agent)} exec ${shellWord(o.loopx)} "$@"`,
    '',
  ].join('\n');
}

/** Writes the turn's launcher into its folder (whole, executable) and returns its path. */
export function writeTurnLoopx(turnFolder: string, o: { turnId: string; agent: string; loopx: string; todo: string }): string {
  const file = join(turnFolder, TURN_LOOPX);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, turnLoopxText(o), { mode: 0o755 });
  chmodSync(temp, 0o755);
  renameSync(temp, file);
  return file;
}
