import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain .mjs script (npm run package:cli), without type declarations
import { packageCli } from '../../scripts/packageCli.mjs';
import { nodeBin } from '../e2e/profiles';
import { LOOPX, REPO, cleanEnv, loopx } from './harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty, runInPty } from './pty';

/**
 * `loopx update plan|apply` as a person meets it: the CLI's npm package installed with npm install -g into a fresh
 * prefix (Node 22), npm set up with a stand-in registry on 127.0.0.1 that offers a newer loopx (the same package,
 * its version raised), and the other channels (a checkout, the extension's own loopx) told apart and left alone.
 */
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
const [major, minor] = pkg.version.split('.').map(Number) as [number, number];
const NEXT = `${major}.${minor + 1}.0`;
const scratch = mkdtempSync(join(tmpdir(), 'loopx-update-'));
const registryFiles = join(scratch, 'registry');
let registry: ChildProcess | undefined;
let registryUrl = '';
let node22 = '';
let env: NodeJS.ProcessEnv = {};
let installedRoot = '';

afterAll(() => {
  registry?.kill();
  rmSync(scratch, { recursive: true, force: true });
});

/** The CLI package of `version`: this checkout's, its manifest and the version its bundle says raised for a newer one. */
function tarballOf(version: string, current: string): string {
  if (version === pkg.version) return current;
  const folder = join(scratch, `package-${version}`);
  cpSync(join(dirname(current), 'cli-package'), folder, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string };
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ ...manifest, version }));
  const cli = readFileSync(join(folder, 'dist', 'cli.js'), 'utf8');
  expect(cli.split(JSON.stringify(pkg.version)).length - 1, 'the version appears once in dist/cli.js').toBe(1);
  writeFileSync(join(folder, 'dist', 'cli.js'), cli.replace(JSON.stringify(pkg.version), JSON.stringify(version)));
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: folder, encoding: 'utf8' }).trim();
  return join(scratch, name);
}

/** The registry's answer for loopx: each version's manifest and tarball (served from the stand-in), `latest` the last. */
function publish(versions: string[], current: string): void {
  const entries = versions.map((version) => {
    const file = tarballOf(version, current);
    const bytes = readFileSync(file);
    cpSync(file, join(registryFiles, `loopx-${version}.tgz`));
    const manifest = JSON.parse(execFileSync('tar', ['xzf', file, '-O', 'package/package.json'], { encoding: 'utf8' })) as object;
    const dist = {
      tarball: `{registry}/loopx/-/loopx-${version}.tgz`,
      shasum: createHash('sha1').update(bytes).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    };
    return [version, { ...manifest, dist }] as const;
  });
  const packument = { name: 'loopx', 'dist-tags': { latest: versions.at(-1) }, versions: Object.fromEntries(entries) };
  writeFileSync(join(registryFiles, 'loopx.json'), JSON.stringify(packument));
}

beforeAll(async () => {
  mkdirSync(registryFiles);
  const current = packageCli(join(scratch, 'built')) as string;
  publish([pkg.version, NEXT], current);
  registry = spawn(process.execPath, [join(REPO, 'test', 'support', 'standInNpmRegistry.mjs'), registryFiles], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  registryUrl = await new Promise<string>((found) => registry?.stdout?.once('data', (line: Buffer) => found(line.toString().trim())));
  node22 = nodeBin(REPO, 22);
  const home = join(scratch, 'home');
  const prefix = join(home, 'prefix');
  mkdirSync(home);
  env = {
    ...cleanEnv(),
    HOME: home,
    npm_config_prefix: prefix,
    npm_config_cache: join(home, 'npm-cache'),
    npm_config_registry: `${registryUrl}/`,
    npm_config_update_notifier: 'false',
    PATH: [join(prefix, 'bin'), dirname(node22), process.env.PATH].join(delimiter),
  };
  for (const key of Object.keys(env)) if (/^npm_(?!config_(prefix|cache|registry|update_notifier)$)/i.test(key)) delete env[key];
  // As the install page says: the package file, installed with npm install -g.
  const r = spawnSync('npm', ['install', '-g', '--no-audit', '--no-fund', current], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm install -g failed: ${r.stderr}`);
  installedRoot = join(realpathSync(join(prefix, 'lib', 'node_modules')), 'loopx');
}, 240_000);

/** The installed loopx as a shell runs it (the command on PATH, on Node 22), without a terminal. */
function installed(args: string[], extra: Record<string, string> = {}) {
  const r = spawnSync('loopx', args, { cwd: scratch, env: { ...env, ...extra }, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: args.includes('--json') ? JSON.parse(r.stdout) : null };
}
const versionInstalled = () => (JSON.parse(readFileSync(join(installedRoot, 'package.json'), 'utf8')) as { version: string }).version;
const typedAt = (args: string[], typed: string) =>
  runInPty([join(installedRoot, '..', '..', '..', 'bin', 'loopx'), ...args], typed, env, scratch);

describe('an npm install -g', () => {
  test('plan names the channel and the newest loopx on the registry npm is set up with, and changes nothing', () => {
    const plan = installed(['update', 'plan', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.json.data).toMatchObject({
      channel: 'npm-global',
      version: pkg.version,
      latest: NEXT,
      action: 'update',
      command: `npm install -g loopx@${NEXT}`,
      root: installedRoot,
    });
    const text = installed(['update', 'plan']);
    expect(text.stdout).toContain(`loopx ${pkg.version}, installed with npm install -g (${installedRoot})`);
    expect(text.stdout).toContain(`loopx ${NEXT} is available: \`loopx update apply\` would run npm install -g loopx@${NEXT}`);
    expect(versionInstalled()).toBe(pkg.version);
  });

  test("a workspace's .npmrc (agents write it) does not choose the registry: plan asks npm as the person set it up", () => {
    // The person's registry in their own npm config (~/.npmrc), not the environment (which outranks a project's file).
    const userConfig = join(scratch, 'home', '.npmrc');
    writeFileSync(userConfig, `registry=${registryUrl}/\n`);
    const workspace = join(scratch, 'workspace');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'package.json'), '{"name": "app", "private": true}\n');
    writeFileSync(join(workspace, '.npmrc'), 'registry=http://127.0.0.1:9/\n'); // what an agent wrote: nothing answers there
    const { npm_config_registry: _set, ...person } = env;
    try {
      const r = spawnSync('loopx', ['update', 'plan', '--json'], { cwd: workspace, env: person, encoding: 'utf8', timeout: 120_000 });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).data).toMatchObject({ channel: 'npm-global', latest: NEXT });
    } finally {
      rmSync(userConfig);
    }
  });

  test('an agent cannot apply it, nor a script without a terminal: refused, nothing installed', () => {
    const agent = installed(['update', 'apply', '--json'], { LOOPX_AGENT: 'codex' });
    expect(agent.code).toBe(3);
    expect(agent.json.error.code).toBe('not_allowed');
    const script = installed(['update', 'apply', '--json']);
    expect(script.code).toBe(3);
    expect(script.json.error.code).toBe('human_channel_required');
    expect(versionInstalled()).toBe(pkg.version);
  });

  test.skipIf(!PTY_AVAILABLE)('a person who types anything but the version, or asks for an older one, changes nothing', () => {
    const wrong = typedAt(['update', 'apply', '--json'], 'yes');
    expect(wrong.code).toBe(3);
    expect(wrong.json?.error?.code).toBe('not_confirmed');
    expect(wrong.stderr).toContain(`Install loopx ${NEXT} in place of ${pkg.version}:`);
    expect(wrong.stderr).toContain(`it runs: npm install -g loopx@${NEXT}`);
    expect(wrong.stderr).toContain(`Type ${NEXT} to confirm:`);
    const older = typedAt(['update', 'apply', '0.0.1', '--json'], '0.0.1');
    expect(older.code).toBe(3);
    expect(older.json?.error).toMatchObject({ code: 'update_older' });
    const notAVersion = typedAt(['update', 'apply', 'latest', '--json'], 'latest');
    expect(notAVersion.code).toBe(2);
    expect(versionInstalled()).toBe(pkg.version);
  });

  test.skipIf(!PTY_AVAILABLE)('a person who types the version gets it, through npm, and loopx checks what npm installed', () => {
    const applied = typedAt(['update', 'apply', '--json'], NEXT);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.json?.data).toMatchObject({ installed: NEXT, changed: true, channel: 'npm-global' });
    expect(versionInstalled()).toBe(NEXT);
    expect(installed(['--version']).stdout.trim()).toBe(NEXT);
    expect(installed(['update', 'plan', '--json']).json.data).toMatchObject({ version: NEXT, latest: NEXT, action: 'current' });
    const again = typedAt(['update', 'apply', '--json'], NEXT);
    expect(again.json?.data).toMatchObject({ changed: false });
  });

  test.skipIf(!PTY_AVAILABLE)(
    'not on the registry: plan says so, apply refuses (exit 4); an unreachable registry is npm’s trouble, said in its words',
    () => {
      renameSync(join(registryFiles, 'loopx.json'), join(registryFiles, 'gone.json'));
      try {
        expect(installed(['update', 'plan', '--json']).json.data).toMatchObject({
          action: 'unknown',
          latest: null,
          lookup: { code: 'not_published', message: 'loopx is not on the npm registry yet' },
        });
        const refused = typedAt(['update', 'apply', '--json'], NEXT);
        expect(refused.code).toBe(4);
        expect(refused.json?.error?.code).toBe('not_published');
      } finally {
        renameSync(join(registryFiles, 'gone.json'), join(registryFiles, 'loopx.json'));
      }
      const offline = installed(['update', 'plan', '--json'], { npm_config_registry: 'http://127.0.0.1:9/' });
      expect(offline.code).toBe(0);
      expect(offline.json.data.lookup.code).toBe('npm_failed');
      expect(offline.json.data.lookup.message).toMatch(/^npm could not say which loopx is newest: .*ECONNREFUSED/);
    },
  );
});

test("an npm an agent could have planted (in the workspace, or by a relative PATH entry) is never run: the person's is", () => {
  const workspace = join(scratch, 'project');
  const planted = join(workspace, 'node_modules', '.bin');
  mkdirSync(planted, { recursive: true });
  const ran = join(scratch, 'planted-npm-ran');
  writeFileSync(join(planted, 'npm'), `#!/bin/sh\necho "$@" >> '${ran}'\necho '"99.0.0"'\n`, { mode: 0o755 });
  writeFileSync(join(workspace, 'npm'), `#!/bin/sh\necho "$@" >> '${ran}'\necho '"99.0.0"'\n`, { mode: 0o755 });
  const r = spawnSync('loopx', ['update', 'plan', '--json'], {
    cwd: workspace,
    env: { ...env, PATH: [planted, '.', env.PATH].join(delimiter) },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout).data).toMatchObject({ channel: 'npm-global', latest: NEXT });
  expect(() => readFileSync(ran, 'utf8'), 'the planted npm ran').toThrow();
});

test.skipIf(!PTY_AVAILABLE)('a checkout and the extension’s own loopx are updated through themselves: plan says how, apply refuses', () => {
  const checkout = loopx(['update', 'plan', '--json'], { cwd: scratch });
  expect(checkout.json?.data).toMatchObject({ channel: 'checkout', root: REPO, action: 'manual', latest: null });
  const refused = loopxTty(['update', 'apply', '--json'], '', { cwd: scratch });
  expect(refused.code).toBe(3);
  expect(refused.json?.error?.code).toBe('update_manual');
  expect(refused.json?.error?.message).toContain('pull it and run npm run build there; nothing was changed');
  // The extension's folder as the .vsix lays it out: its manifest (engines.vscode), bin/loopx and dist/cli.js.
  const extension = join(scratch, 'extensions', `loopx.loopx-${pkg.version}`);
  mkdirSync(join(extension, 'dist'), { recursive: true });
  cpSync(join(REPO, 'bin'), join(extension, 'bin'), { recursive: true });
  cpSync(join(REPO, 'dist', 'cli.js'), join(extension, 'dist', 'cli.js'));
  cpSync(join(REPO, 'package.json'), join(extension, 'package.json'));
  const ext = spawnSync(process.execPath, [join(extension, 'bin', 'loopx'), 'update', 'plan', '--json'], {
    cwd: scratch,
    env: cleanEnv(),
    encoding: 'utf8',
  });
  expect(JSON.parse(ext.stdout).data).toMatchObject({ channel: 'extension', root: extension, action: 'manual' });
  expect(JSON.parse(ext.stdout).data.how).toContain("updated with it: VS Code's Extensions view");
  expect(LOOPX).toBe(join(REPO, 'bin', 'loopx'));
});

if (!PTY_AVAILABLE) console.warn(`SKIPPED (loopx update apply at a terminal): ${PTY_SKIP_REASON}`);
