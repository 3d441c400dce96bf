import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { describeActivity, processes } from './installActivity';

/**
 * The VS Code builds the end-to-end suite runs in, each a pinned code-server from the npm registry:
 * - vscode-1.100: code-server 4.100.3 on this machine's Node 20; the extension opens its store with better-sqlite3
 *   (the path code-server and other Node 20 hosts take).
 * - vscode-1.117: code-server 4.117.0 on Node 22 (the npm package node@22); the extension opens its store with the
 *   built-in node:sqlite, the path desktop VS Code and Cursor users take.
 * Everything is installed once under .cache/e2e and nothing is downloaded from anywhere but the npm registry.
 */
export interface Profile {
  name: 'vscode-1.100' | 'vscode-1.117';
  codeServerVersion: string;
  /** The folder code-server is installed in (the 1.100 one keeps its original name so old caches stay valid). */
  dir: string;
  /** Node 22 for the server and the extension host; undefined means the Node running the harness. */
  needsNode22: boolean;
  /** The @vscode/ripgrep release this code-server pulls, and the asset it would fetch from GitHub. */
  ripgrep: { pkg: string; asset: string };
  /** The npm package lacks the built-in git extension's @vscode/fs-copyfile from 4.10x on. */
  addFsCopyfile: boolean;
  /** The driver the extension is expected to pick in this host. */
  driver: 'better-sqlite3' | 'node:sqlite';
}

export const PROFILES: Record<Profile['name'], Profile> = {
  'vscode-1.100': {
    name: 'vscode-1.100',
    codeServerVersion: '4.100.3', // newest code-server whose engines.node is 20
    dir: 'cs',
    needsNode22: false,
    ripgrep: { pkg: '1.15.11', asset: 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz' },
    addFsCopyfile: false,
    driver: 'better-sqlite3',
  },
  'vscode-1.117': {
    name: 'vscode-1.117',
    codeServerVersion: '4.117.0', // newest code-server whose engines.node is 22
    dir: 'cs-4.117.0',
    needsNode22: true,
    ripgrep: { pkg: '1.17.1', asset: 'ripgrep-v15.0.1-x86_64-unknown-linux-musl.tar.gz' },
    addFsCopyfile: true,
    driver: 'node:sqlite',
  },
};

export function profileNamed(name = process.env.LOOPX_E2E_PROFILE ?? 'vscode-1.100'): Profile {
  const profile = PROFILES[name as Profile['name']];
  if (!profile) throw new Error(`unknown e2e profile "${name}"; known: ${Object.keys(PROFILES).join(', ')}`);
  return profile;
}

export function codeServerBin(home: string, profile: Profile): string {
  return join(home, profile.dir, 'node_modules', '.bin', 'code-server');
}

let node22: string | undefined;
/** Node 22 from .cache/node22 (scripts/node22.mjs installs it on first use). */
export function node22Bin(repo: string): string {
  node22 ??= execFileSync(process.execPath, [join(repo, 'scripts', 'node22.mjs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return node22;
}

/** The environment code-server runs with: Node 22 first on PATH where the profile needs it. */
export function profileEnv(repo: string, profile: Profile): Record<string, string> {
  if (!profile.needsNode22) return {};
  return { PATH: `${dirname(node22Bin(repo))}${delimiter}${process.env.PATH ?? ''}` };
}

function which(cmd: string): string | null {
  try {
    return execFileSync('which', [cmd], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

/** Installs the profile's code-server into .cache/e2e on first use and returns its binary. */
export async function ensureCodeServer(repo: string, home: string, profile: Profile): Promise<string> {
  const bin = codeServerBin(home, profile);
  const dir = join(home, profile.dir);
  const done = join(dir, 'installed.json');
  // An install killed half-way leaves the binary without the VS Code it serves: only a finished install counts.
  if (existsSync(done) || (existsSync(bin) && existsSync(join(dir, 'node_modules', 'code-server', 'lib', 'vscode', 'node_modules'))))
    return bin;
  const rg = which('rg');
  if (!rg) throw new Error("ripgrep not found: apt-get install -y ripgrep (code-server's @vscode/ripgrep cannot download it offline)");
  const tmp = join(home, 'tmp');
  // @vscode/ripgrep fetches its binary from GitHub unless the asset is already in this cache: seed it with Debian's rg.
  const cache = join(tmp, `vscode-ripgrep-cache-${profile.ripgrep.pkg}`);
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(tmpdir(), 'rg-'));
  copyFileSync(rg, join(staging, 'rg'));
  execFileSync('tar', ['czf', join(cache, profile.ripgrep.asset), '-C', staging, 'rg']);
  rmSync(staging, { recursive: true, force: true });
  // Not the npm_* settings of an enclosing `npm test`: they would override the inner npm's own (its user agent names
  // Node 20, and code-server's postinstall reads the Node version from it).
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  const env: Record<string, string | undefined> = {
    ...inherited,
    ...profileEnv(repo, profile),
    XDG_DATA_HOME: join(home, 'xdg', 'data'),
    XDG_CONFIG_HOME: join(home, 'xdg', 'config'),
    TMPDIR: tmp,
    // unsafe_perm: code-server's postinstall script refuses to run as root without it (it reads this variable
    // itself; npm 11 no longer knows the setting and would warn about it, hence loglevel error below, which
    // still shows every error); yes: node-pty's postinstall runs `npx node-gyp`.
    npm_config_unsafe_perm: 'true',
    npm_config_yes: 'true',
    npm_config_loglevel: 'error',
  };
  // Native modules must build against the headers of the Node that will load them (the machine's npmrc names Node 20's).
  if (profile.needsNode22) env.npm_config_nodedir = dirname(dirname(node22Bin(repo)));
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"name":"loopx-e2e-code-server","private":true}\n');
  const label = `code-server ${profile.codeServerVersion} (VS Code ${profile.name.slice(7)})`;
  console.error(`installing ${label} into ${dir}, first run only: a few minutes…`);
  const started = Date.now();
  const npm = (args: string[], cwd: string) =>
    withHeartbeat(label, dir, (onSpawn) => run('npm', ['install', '--no-audit', '--no-fund', ...args], { cwd, env }, onSpawn));
  await npm([`code-server@${profile.codeServerVersion}`], dir);
  if (profile.addFsCopyfile) {
    const side = join(home, `${profile.dir}-fs-copyfile`);
    mkdirSync(side, { recursive: true });
    if (!existsSync(join(side, 'package.json')))
      writeFileSync(join(side, 'package.json'), '{"name":"loopx-e2e-fs-copyfile","private":true}\n');
    await npm(['@vscode/fs-copyfile@2.0.0'], side);
    const target = join(dir, 'node_modules', 'code-server', 'lib', 'vscode', 'extensions', 'git', 'node_modules', '@vscode', 'fs-copyfile');
    rmSync(target, { recursive: true, force: true });
    cpSync(join(side, 'node_modules', '@vscode', 'fs-copyfile'), target, { recursive: true });
  }
  if (!existsSync(bin)) throw new Error(`code-server ${profile.codeServerVersion} installed but its binary is missing`);
  writeFileSync(done, `${JSON.stringify({ version: profile.codeServerVersion, at: new Date().toISOString() })}\n`);
  console.error(`installed ${label} in ${Math.round((Date.now() - started) / 1000)} s`);
  return bin;
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
  onSpawn: (pid: number) => void = () => {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: 'inherit' });
    if (child.pid) onSpawn(child.pid);
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`})`)),
    );
  });
}

/**
 * A long install prints nothing for minutes; say every few seconds that it is still going, how far, and what it is
 * doing now (the size stands still for minutes while a native module compiles: that must not look hung).
 */
async function withHeartbeat(label: string, dir: string, work: (onSpawn: (pid: number) => void) => Promise<void>): Promise<void> {
  const started = Date.now();
  let npmPid: number | undefined;
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    const now = npmPid === undefined ? undefined : describeActivity(processes(), npmPid);
    console.error(`  … still installing ${label}: ${seconds} s, ${megabytes(dir)} MB so far${now ? `; now ${now}` : ''}`);
  }, 10_000);
  try {
    await work((pid) => (npmPid = pid));
  } finally {
    clearInterval(timer);
  }
}

function megabytes(dir: string): string {
  try {
    return execFileSync('du', ['-sm', dir], { encoding: 'utf8' }).split('\t')[0] ?? '?';
  } catch {
    return '?';
  }
}
