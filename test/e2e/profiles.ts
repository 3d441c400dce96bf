import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { describeActivity, processes } from './installActivity';

/**
 * The VS Code builds the end-to-end suite runs in, each a pinned code-server from the npm registry, each on the Node
 * its VS Code runs extensions on; the extension opens its store with the built-in node:sqlite in both:
 * - vscode-1.105: code-server 4.105.1 (VS Code 1.105.1) on Node 22 (the npm package node@22): the floor,
 *   `engines.vscode`, the first VS Code whose extension host has a working node:sqlite on every platform, and the
 *   VS Code that Cursor 2.1 to 3.9 report.
 * - vscode-1.139: code-server 4.139.1 (VS Code 1.139.1) on Node 24 (node@24): the newest the registry has, and the
 *   runtime every VS Code since 1.123 (Electron 42) gives its extensions.
 * Everything is installed once under .cache/ and nothing is downloaded from anywhere but the npm registry.
 */
export interface Profile {
  name: 'vscode-1.105' | 'vscode-1.139';
  codeServerVersion: string;
  /** The folder under .cache/e2e code-server is installed in. */
  dir: string;
  /** The Node major the server and the extension host run on (the npm package node@<major>, in .cache/node<major>). */
  node: 22 | 24;
  /** The @vscode/ripgrep release this code-server pulls and the asset it would fetch from GitHub; none when it ships
   * its binaries (@vscode/ripgrep-universal, from 4.13x). */
  ripgrep?: { pkg: string; asset: string };
  /** The npm package lacks the built-in git extension's @vscode/fs-copyfile in some releases. */
  addFsCopyfile: boolean;
  /**
   * Dependencies of the VS Code inside code-server that its lock file takes from GitHub, which cannot be reached
   * offline: installed from the npm registry instead (name → version).
   */
  fromRegistry?: Record<string, string>;
  /**
   * code-server arguments that let the workbench load an extension under development named in its `payload` (the
   * host suites and the scenarios run the checkout that way): from VS Code 1.13x only with the smoke-test driver on.
   */
  developmentArgs: string[];
  /** The driver the extension is expected to pick in this host. */
  driver: 'node:sqlite';
}

export const PROFILES: Record<Profile['name'], Profile> = {
  'vscode-1.105': {
    name: 'vscode-1.105',
    codeServerVersion: '4.105.1', // VS Code 1.105.1, engines.node 22
    dir: 'cs-4.105.1',
    node: 22,
    ripgrep: { pkg: '1.15.14', asset: 'ripgrep-v13.0.0-13-x86_64-unknown-linux-musl.tar.gz' },
    addFsCopyfile: false,
    // VS Code 1.105 pins a commit of @parcel/watcher on GitHub; the registry's 2.5.1 is the same release.
    fromRegistry: { '@parcel/watcher': '2.5.1' },
    developmentArgs: [],
    driver: 'node:sqlite',
  },
  'vscode-1.139': {
    name: 'vscode-1.139',
    codeServerVersion: '4.139.1', // VS Code 1.139.1, engines.node 24: the newest in the registry
    dir: 'cs-4.139.1',
    node: 24,
    addFsCopyfile: true,
    developmentArgs: ['--vscode-option', 'enable-smoke-test-driver'],
    driver: 'node:sqlite',
  },
};

/** The build `npm start` and a bare `npm run test:e2e -- PART` use: the newest, what most people run. */
export const DEFAULT_PROFILE: Profile['name'] = 'vscode-1.139';

export function profileNamed(name = process.env.LOOPX_E2E_PROFILE ?? DEFAULT_PROFILE): Profile {
  const profile = PROFILES[name as Profile['name']];
  if (!profile) throw new Error(`unknown e2e profile "${name}"; known: ${Object.keys(PROFILES).join(', ')}`);
  return profile;
}

export function codeServerBin(home: string, profile: Profile): string {
  return join(home, profile.dir, 'node_modules', '.bin', 'code-server');
}

const nodes = new Map<number, string>();
/** Node <major> from .cache/node<major> (scripts/nodeRelease.mjs installs it on first use). */
export function nodeBin(repo: string, major: number): string {
  let bin = nodes.get(major);
  if (!bin) {
    bin = execFileSync(process.execPath, [join(repo, 'scripts', 'nodeRelease.mjs'), String(major)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    nodes.set(major, bin);
  }
  return bin;
}

/** The environment code-server runs with: the profile's Node first on PATH. */
export function profileEnv(repo: string, profile: Profile): Record<string, string> {
  return { PATH: `${dirname(nodeBin(repo, profile.node))}${delimiter}${process.env.PATH ?? ''}` };
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
  const tmp = join(home, 'tmp');
  if (profile.ripgrep) seedRipgrep(tmp, profile.ripgrep);
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
  env.npm_config_nodedir = dirname(dirname(nodeBin(repo, profile.node)));
  // And unoptimised (node-gyp's makefiles put these after their own -O2/-O3): VS Code's sqlite3, spdlog and kerberos
  // serve a test window and `npm start`'s, where their speed is never felt, and build in about half the CPU (1.139's
  // install: 169 → 96 CPU s here), which every fresh clone and CI run pays.
  for (const flags of ['CFLAGS', 'CXXFLAGS']) env[flags] = `${process.env[flags] ?? ''} -O0`.trim();
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"name":"loopx-e2e-code-server","private":true}\n');
  const label = `code-server ${profile.codeServerVersion} (VS Code ${profile.name.slice(7)})`;
  console.error(`installing ${label} into ${dir}, first run only: a few minutes…`);
  const started = Date.now();
  const npm = (args: string[], cwd: string) =>
    withHeartbeat(label, dir, (onSpawn) => run('npm', ['install', '--no-audit', '--no-fund', ...args], { cwd, env }, onSpawn));
  // Unpack without running install scripts (code-server's postinstall installs its VS Code's dependencies), point
  // those dependencies at the registry where GitHub would be asked, keep the native modules no test window loads from
  // being compiled, then run every other install script (argon2's build, the postinstall…).
  await npm(['--ignore-scripts', `code-server@${profile.codeServerVersion}`], dir);
  const vscode = join(dir, 'node_modules', 'code-server', 'lib', 'vscode');
  if (profile.fromRegistry) useRegistryFor(vscode, profile.fromRegistry);
  denyInstallScripts(vscode, NEVER_LOADED);
  await withHeartbeat(label, dir, (onSpawn) => run('npm', ['rebuild'], { cwd: dir, env }, onSpawn));
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

/**
 * Native modules of VS Code's server that no test window and no `npm start` window loads, so their C++ is not compiled
 * (1.139's install here: 78 → 44 CPU s for the five together; SQLite's was its longest build). Each is imported only on
 * demand, by a feature those windows never use: kerberos for a proxy's Kerberos sign-in, @vscode/sqlite3 for the chat
 * agent host's sessions (chat.disableAIFeatures is on), the rest only on Windows. Were one loaded after all, its import
 * would fail where that feature starts (no build/Release/*.node), not at install.
 */
const NEVER_LOADED = [
  'kerberos',
  '@vscode/sqlite3',
  '@vscode/windows-registry',
  '@vscode/windows-process-tree',
  '@vscode/windows-ca-certs',
];

/**
 * Keeps the install scripts of `names` from running when npm installs the package's dependencies: its package.json's
 * allowScripts (npm 11.16+) marks each `false`, in place of any entry VS Code pinned to a version (a denial is by name).
 * An older npm ignores the field and builds them, as before.
 */
function denyInstallScripts(packageDir: string, names: string[]): void {
  const manifestFile = join(packageDir, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { allowScripts?: Record<string, boolean> };
  const allowScripts = manifest.allowScripts ?? {};
  for (const key of Object.keys(allowScripts)) if (names.includes(key.replace(/(.)@.*$/, '$1'))) delete allowScripts[key];
  for (const name of names) allowScripts[name] = false;
  manifest.allowScripts = allowScripts;
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Makes a package's dependencies `names` come from the npm registry: its package.json and lock file both. */
function useRegistryFor(packageDir: string, names: Record<string, string>): void {
  const manifestFile = join(packageDir, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { dependencies?: Record<string, string> };
  const lockFile = join(packageDir, 'npm-shrinkwrap.json');
  const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as { packages: Record<string, { dependencies?: Record<string, string> }> };
  for (const [name, version] of Object.entries(names)) {
    if (manifest.dependencies?.[name]) manifest.dependencies[name] = version;
    const root = lock.packages[''];
    if (root?.dependencies?.[name]) root.dependencies[name] = version;
    delete lock.packages[`node_modules/${name}`]; // npm resolves it afresh, from the registry
  }
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
}

/** @vscode/ripgrep fetches its binary from GitHub unless the asset is already in its cache: seed it with Debian's rg. */
function seedRipgrep(tmp: string, ripgrep: { pkg: string; asset: string }): void {
  const rg = which('rg');
  if (!rg) throw new Error("ripgrep not found: apt-get install -y ripgrep (code-server's @vscode/ripgrep cannot download it offline)");
  const cache = join(tmp, `vscode-ripgrep-cache-${ripgrep.pkg}`);
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(tmpdir(), 'rg-'));
  copyFileSync(rg, join(staging, 'rg'));
  execFileSync('tar', ['czf', join(cache, ripgrep.asset), '-C', staging, 'rg']);
  rmSync(staging, { recursive: true, force: true });
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
