// `npm run test:fresh-clone` (the last part of `npm test`): the README's set-up, exactly as written, on a clean
// clone of this checkout's HEAD (no node_modules, no dist): `npm start` must install what it needs by itself, print
// nothing a newcomer would read as trouble, and serve VS Code at the URL it prints. Only the code-server install is
// shared with this checkout (a symlink into .cache/e2e), because the e2e pass before this one has just installed
// it from scratch the same way; everything npm installs is installed anew (Node 24 for code-server included).
// better-sqlite3's binary comes as a person's install gets it, prebuilt, but from this checkout's own build
// (servePrebuilt): its download from GitHub cannot be reached here, and building it from source took about 150 s of a
// core beside the suites; `.ci/run`'s own `npm ci` on its fresh clone builds it from source as before.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const LIMIT_MS = 15 * 60_000;
/** What a clean first run must never print: install warnings people read as trouble, and stack traces. */
const ALARMING = [
  /EBADENGINE/,
  /allowScripts/,
  /Unknown (env|cli) config/,
  /ERR_MODULE_NOT_FOUND/,
  /npm (warn|ERR!)/i,
  /▲ \[WARNING\]/, // esbuild's: a bundle that builds with a warning (import.meta in a CommonJS bundle, once)
  /\n\s+at .+:\d+:\d+\)?\n/,
];

const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' }).trim();
if (dirty) console.log('fresh clone: note: the working tree has uncommitted changes; the clone tests the last commit');
const scratch = mkdtempSync(join(tmpdir(), 'loopx-fresh-'));
const clone = join(scratch, 'loopx');
execFileSync('git', ['clone', '--quiet', repo, clone]);
// Every code-server the e2e pass installed (`npm start` runs the default profile's, test/e2e/profiles.ts).
const e2e = join(repo, '.cache', 'e2e');
for (const name of existsSync(e2e) ? readdirSync(e2e) : []) {
  if (!/^cs(-[\d.]+)?$/.test(name) || !existsSync(join(e2e, name, 'installed.json'))) continue;
  mkdirSync(join(clone, '.cache', 'e2e'), { recursive: true });
  symlinkSync(join(e2e, name), join(clone, '.cache', 'e2e', name));
}

/**
 * better-sqlite3's install (`prebuild-install || node-gyp rebuild`) looks for the prebuilt binary it would download in
 * a local folder first: the folder gets this checkout's binary, packed as a release asset is, under the asset's name
 * (`<name>-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`). Only when that binary loads in this Node (the asset's
 * name carries this Node's ABI); else the clone builds it from source. The folder is named in prebuild-install's own
 * settings file (rc: `.prebuild-installrc`, looked for from the package's folder upwards) in the scratch folder above
 * the clone: an npm_config_ setting would be warned about by npm as unknown, and sh drops an environment variable
 * named prebuild-install_….
 */
function servePrebuilt() {
  const pkg = join(repo, 'node_modules', 'better-sqlite3');
  try {
    new (createRequire(import.meta.url)(pkg))(':memory:').close();
  } catch {
    console.log("fresh clone: this checkout's better-sqlite3 does not load here; the clone builds its own from source");
    return;
  }
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  const folder = join(scratch, 'prebuilds');
  mkdirSync(folder);
  const asset = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', join(folder, asset), '-C', pkg, 'build/Release/better_sqlite3.node']);
  writeFileSync(join(scratch, '.prebuild-installrc'), `local-prebuilds=${folder}\n`);
}
servePrebuilt();

// A newcomer's shell: none of the npm_* settings of the enclosing `npm test`, nor what it tells its own steps (that the
// bundles are built, where its .vsix is: scripts/testAll.mjs).
const env = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'LOOPX_TEST_BUILT' && key !== 'LOOPX_E2E_VSIX'),
);
const started = Date.now();
console.log(`fresh clone: ${clone}\nfresh clone: running \`npm start\` there…`);
const child = spawn('npm', ['start'], {
  cwd: clone,
  env: { ...env, PORT: '0' },
  detached: true,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
const collect = (chunk) => {
  output += chunk;
  process.stdout.write(chunk.toString().replace(/^(?=.)/gm, '  │ '));
};
child.stdout.on('data', collect);
child.stderr.on('data', collect);

let failure = await new Promise((resolve) => {
  const timer = setTimeout(() => resolve(`no URL within ${LIMIT_MS / 60_000} minutes`), LIMIT_MS);
  child.on('exit', (code) => resolve(`npm start exited (${code}) before printing a URL`));
  const check = setInterval(async () => {
    const url = /http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+/.exec(output)?.[0];
    if (!url) return;
    clearInterval(check);
    clearTimeout(timer);
    try {
      const page = await fetch(url, { signal: globalThis.AbortSignal.timeout(60_000) });
      const html = await page.text();
      if (page.status !== 200) return resolve(`${url} answered HTTP ${page.status}`);
      if (!/workbench/i.test(html)) return resolve(`${url} did not serve the VS Code workbench`);
      resolve(undefined);
    } catch (error) {
      resolve(`${url} could not be fetched: ${error.message}`);
    }
  }, 500);
});

try {
  process.kill(-child.pid, 'SIGINT');
} catch {
  // already gone
}
// `npm start` stops its code-server on Ctrl-C; one that does not within half a minute is stopped hard (and said).
const stopped = await new Promise((resolve) => {
  if (child.exitCode !== null) return resolve(true);
  const timer = setTimeout(() => resolve(false), 30_000);
  child.once('exit', () => (clearTimeout(timer), resolve(true)));
});
if (!stopped) {
  failure ??= 'npm start did not stop within 30 s of Ctrl-C (a person would be left with a server running)';
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
const alarming = ALARMING.find((pattern) => pattern.test(output));
const seconds = Math.round((Date.now() - started) / 1000);
rmSync(scratch, { recursive: true, force: true });
if (failure || alarming) {
  console.error(`fresh clone: FAILED after ${seconds} s: ${failure ?? `the output has something alarming (${alarming})`}`);
  process.exit(1);
}
console.log(`fresh clone: npm start installed everything and served VS Code in ${seconds} s; the output was clean`);
