import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { shellQuote } from '../runtime/hosts';
import { STORE_DIR } from '../kernel/kernel';

/** Where the agents' launcher lives in a workspace: `.loopx/bin/loopx`. */
export const AGENT_LAUNCHER = `${STORE_DIR}/bin/loopx`;

/**
 * The loopx a turn's prompt tells its agent to run: this very CLI, on the Node that runs it now. bin/loopx starts
 * with `#!/usr/bin/env node`, and an agent's shell may not find that Node: Codex runs each command in `bash -lc`,
 * a login shell whose profile resets PATH (Debian's /etc/profile does) and so loses a Node that nvm or a version
 * manager put there. So the prompt names `.loopx/bin/loopx`, a shell launcher with both absolute paths (as the VS
 * Code terminals' launcher, src/extension/cliLauncher.ts, but without ELECTRON_RUN_AS_NODE: on plain Node it would
 * only leak into what the agent runs, and make an Electron app its tests start act as Node), rewritten only when the
 * CLI or its Node moved. On Windows (no /bin/sh), or when the store's folder cannot take the file, the prompt names
 * bin/loopx itself, as before.
 */
export function loopxForAgents(root: string, script = process.argv[1], runtime = process.execPath): string {
  if (!script) return 'loopx';
  const self = resolve(script);
  if (process.platform === 'win32') return self;
  const file = join(root, AGENT_LAUNCHER);
  const content = agentLauncher(runtime, self);
  try {
    if (readOr(file) !== content) {
      mkdirSync(join(root, STORE_DIR, 'bin'), { recursive: true });
      // Whole or not at all: an agent of another runner may be starting it right now.
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, content, { mode: 0o755 });
      chmodSync(temp, 0o755);
      renameSync(temp, file);
    }
    return file;
  } catch {
    return self;
  }
}

/** The launcher's text: this CLI on this runtime (Electron's only as Node, when the CLI runs inside an editor). */
export function agentLauncher(runtime: string, script: string, electron = process.versions.electron !== undefined): string {
  return [
    '#!/bin/sh',
    "# Written by loopx run and loopx turn start: the loopx a turn's prompt names, on the Node that wrote it.",
    `${electron ? 'ELECTRON_RUN_AS_NODE=1 ' : ''}exec ${shellQuote(runtime)} ${shellQuote(script)} "$@"`,
    '',
  ].join('\n');
}

function readOr(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
