// Installs the pinned code-server into .cache/e2e (once). chromium and ripgrep come from Debian (.ci/run installs
// them); @vscode/ripgrep's download from GitHub is satisfied by seeding its cache with Debian's rg.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HOME = join(REPO, '.cache', 'e2e');
const TMP = join(HOME, 'tmp');
const CODE_SERVER_VERSION = '4.100.3'; // newest code-server whose engines.node is 20
const CODE_SERVER_BIN = join(HOME, 'cs', 'node_modules', '.bin', 'code-server');
const CHROMIUM = process.env.LOOPX_CHROMIUM ?? '/usr/bin/chromium';
const isolatedEnv = (extra = {}) => ({ ...process.env, XDG_DATA_HOME: join(HOME, 'xdg', 'data'), XDG_CONFIG_HOME: join(HOME, 'xdg', 'config'), TMPDIR: TMP, ...extra });

function which(cmd) {
  try {
    return execFileSync('which', [cmd], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

export function ensureCodeServer() {
  if (!existsSync(CHROMIUM)) throw new Error(`chromium not found at ${CHROMIUM}: apt-get install -y chromium (or set LOOPX_CHROMIUM)`);
  if (existsSync(CODE_SERVER_BIN)) return CODE_SERVER_BIN;
  const rg = which('rg');
  if (!rg) throw new Error('ripgrep not found: apt-get install -y ripgrep (code-server\'s @vscode/ripgrep cannot download it offline)');
  mkdirSync(TMP, { recursive: true });
  // @vscode/ripgrep@1.15.11 (code-server 4.100.3) fetches ripgrep-v13.0.0-10 from GitHub unless it is in this cache.
  const cache = join(TMP, 'vscode-ripgrep-cache-1.15.11');
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(tmpdir(), 'rg-'));
  copyFileSync(rg, join(staging, 'rg'));
  execFileSync('tar', ['czf', join(cache, 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz'), '-C', staging, 'rg']);
  rmSync(staging, { recursive: true, force: true });
  const dir = join(HOME, 'cs');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"name":"loopx-e2e-code-server","private":true}\n');
  console.error(`e2e: installing code-server ${CODE_SERVER_VERSION} into ${dir} (first run only, a few minutes)…`);
  // unsafe_perm: its postinstall refuses to run as root otherwise; yes: node-pty's postinstall runs `npx node-gyp`.
  execFileSync('npm', ['install', '--no-audit', '--no-fund', `code-server@${CODE_SERVER_VERSION}`], {
    cwd: dir,
    stdio: 'inherit',
    env: isolatedEnv({ npm_config_unsafe_perm: 'true', npm_config_yes: 'true' }),
  });
  if (!existsSync(CODE_SERVER_BIN)) throw new Error('code-server installed but its binary is missing');
  return CODE_SERVER_BIN;
}

if (process.argv[1] && process.argv[1].endsWith('install.mjs')) console.log(ensureCodeServer());
