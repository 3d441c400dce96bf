// Runs before `npm start` and `npm test` (npm's prestart and pretest), so a fresh clone needs nothing but those two
// commands. Uses only Node's built-ins: it runs before any dependency is there.
// 1. The locked npm dependencies: `npm ci` when node_modules is missing or does not match package-lock.json.
// 2. The Debian packages the real VS Code needs here: ripgrep and the krb5 headers to install code-server (npm start
//    and npm test), chromium to drive it (npm test). Installed with apt-get when running as root, else named with the
//    command that installs them.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const purpose = process.argv[2] === 'test' ? 'test' : 'start';

/**
 * Why node_modules does not match the lock file, or undefined when it does. npm test builds better-sqlite3's binding
 * itself when it is missing (scripts/testAll.mjs, beside its first checks), so for it (`binding: false`) a missing one
 * is no reason to install everything again.
 */
export function dependencyDrift(dir = root, { binding = true } = {}) {
  const installed = readJson(join(dir, 'node_modules', '.package-lock.json'));
  if (!installed) return 'node_modules is missing';
  const locked = readJson(join(dir, 'package-lock.json'))?.packages ?? {};
  for (const [path, entry] of Object.entries(locked)) {
    // Optional packages for other platforms (esbuild's, rolldown's…) are never installed here.
    if (!path || entry.optional) continue;
    const have = installed.packages?.[path];
    if (!have) return `${path.replace(/^.*node_modules\//, '')} is not installed`;
    if (have.version !== entry.version)
      return `${path.replace(/^.*node_modules\//, '')} is ${have.version}, the lock file says ${entry.version}`;
  }
  // An install killed while better-sqlite3 built from source leaves the package without its binary.
  if (binding && !existsSync(join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')))
    return 'better-sqlite3 was never built';
  return undefined;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function ensureNpmDependencies() {
  const drift = dependencyDrift(root, { binding: purpose !== 'test' });
  if (!drift) return;
  console.log(
    `loopx: installing the locked npm dependencies (${drift}); where better-sqlite3's prebuilt binary cannot be downloaded, it builds from source, about 3 minutes the first time…`,
  );
  const started = Date.now();
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(
      'loopx: `npm ci` failed (see above); nothing else was changed. Check the network to the npm registry and the disk space, then run the command again.',
    );
    process.exit(result.status ?? 1);
  }
  console.log(`loopx: dependencies installed in ${Math.round((Date.now() - started) / 1000)} s.`);
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** The Debian packages this run needs and lacks, each with what it is for. */
export function missingPackages(forPurpose = purpose) {
  const missing = [];
  if (!onPath('rg')) missing.push({ pkg: 'ripgrep', why: "code-server's search (its own download cannot work offline)" });
  if (!existsSync('/usr/include/krb5.h') && !existsSync('/usr/include/krb5/krb5.h'))
    missing.push({ pkg: 'libkrb5-dev', why: 'a code-server native module builds against its headers' });
  const chromium = process.env.LOOPX_CHROMIUM ?? '/usr/bin/chromium';
  if (forPurpose === 'test' && !existsSync(chromium)) missing.push({ pkg: 'chromium', why: 'the end-to-end tests drive VS Code in it' });
  if (forPurpose === 'test' && !onPath('bwrap'))
    missing.push({ pkg: 'bubblewrap', why: 'the sandbox loopx runs checks in (its tests need it)' });
  if (forPurpose === 'test' && !existsSync('/usr/lib/postgresql'))
    missing.push({ pkg: 'postgresql', why: "team mode's tests start their own PostgreSQL cluster" });
  return missing;
}

function ensureSystemPackages() {
  const missing = missingPackages();
  if (missing.length === 0) return;
  const names = missing.map((m) => m.pkg).join(' ');
  const list = missing.map((m) => `  ${m.pkg}: ${m.why}`).join('\n');
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !onPath('apt-get') || process.env.LOOPX_NO_APT) {
    console.error(
      `loopx: npm ${purpose} needs Debian packages that are not installed:\n${list}\nInstall them with:\n  sudo apt-get install -y ${names}\nthen run npm ${purpose} again.`,
    );
    process.exit(1);
  }
  console.log(`loopx: installing Debian packages npm ${purpose} needs (running as root):\n${list}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', ...names.split(' ')], { stdio: 'inherit', env });
  } catch {
    console.error(`loopx: apt-get could not install ${names} (see above). Install them by hand and run npm ${purpose} again.`);
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [major] = process.versions.node.split('.').map(Number);
  if (major < 20) {
    console.error(`loopx: Node ${process.versions.node} is too old; npm ${purpose} needs Node 20 or newer.`);
    process.exit(1);
  }
  ensureNpmDependencies();
  ensureSystemPackages();
}
