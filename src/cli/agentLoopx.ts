import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cliLauncher } from '../kernel/cliLauncher';
import { STORE_DIR } from '../kernel/kernel';

/** Where the agents' launcher lives in a workspace: `.loopx/bin/loopx`. */
export const AGENT_LAUNCHER = `${STORE_DIR}/bin/loopx`;

/**
 * The loopx a turn's prompt tells its agent to run: this very CLI, on the Node that runs it now. bin/loopx starts
 * with `#!/usr/bin/env node`, and an agent's shell may not find that Node: Codex runs each command in `bash -lc`,
 * a login shell whose profile resets PATH (Debian's /etc/profile does) and so loses a Node that nvm or a version
 * manager put there. So the prompt names `.loopx/bin/loopx`, a shell launcher with both absolute paths (the one the
 * VS Code terminals use, kernel/cliLauncher.ts), rewritten only when the CLI or its Node moved. On Windows (no
 * /bin/sh), or when the store's folder cannot take the file, the prompt names bin/loopx itself, as before.
 */
export function loopxForAgents(root: string, script = process.argv[1], runtime = process.execPath): string {
  if (!script) return 'loopx';
  const self = resolve(script);
  if (process.platform === 'win32') return self;
  const file = join(root, AGENT_LAUNCHER);
  const { content } = cliLauncher(runtime, self, process.platform);
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

function readOr(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
