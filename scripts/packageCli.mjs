// `npm run package` (after the build and the .vsix): the loopx CLI as an npm package. This checkout's package.json is
// the extension's manifest and the developers' project (Node 20 and better-sqlite3 for the test runner, the bundled
// libraries, the scripts), so the CLI package gets a manifest of its own in a generated folder, dist/cli-package/,
// holding only what runs: bin/loopx, the CLI's bundles (dist/cli.js, dist/agent/*.js, dist/command/*.js, dist/mcp.js,
// dist/lsp.js), a README and the licence. No dependencies: the bundles carry their libraries, and the store opens with Node's built-in
// node:sqlite (Node 22.13 and later; 22 and 24 are tested). `npm pack` of that folder writes dist/loopx-<version>.tgz.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The CLI package's manifest, from the checkout's: the same name, version and links; its own engines and bin. */
export function cliManifest(pkg) {
  return {
    name: pkg.name,
    version: pkg.version,
    description:
      'The loopx CLI and MCP server: durable goals, todos, gates and evidence for long-running AI agent work, in .loopx/ beside your code.',
    license: pkg.license,
    repository: pkg.repository,
    homepage: pkg.homepage,
    bugs: pkg.bugs,
    keywords: pkg.keywords,
    bin: { loopx: 'bin/loopx' },
    engines: { node: '>=22.13' },
  };
}

/** The dashboard's built page (esbuild.mjs writes dist/dashboard/): the CLI package and the .vsix both carry it. */
export const DASHBOARD_FILES = ['app.js', 'app.css', 'sw.js', 'manifest.webmanifest', 'icon.svg', 'icon.png'];

/** What the package holds besides its manifest, each as [from in the checkout, to in the package]. */
export function cliFiles() {
  // The agent verbs' bundles and the other commands', one per first word (bin/loopx picks one by the call's words).
  const bundles = ['agent', 'command'].flatMap((folder) =>
    readdirSync(join(root, 'dist', folder))
      .filter((name) => name.endsWith('.js'))
      .map((name) => [`dist/${folder}/${name}`, `dist/${folder}/${name}`]),
  );
  return [
    ['bin/loopx', 'bin/loopx'],
    ['dist/cli.js', 'dist/cli.js'],
    ['dist/mcp.js', 'dist/mcp.js'],
    ['dist/lsp.js', 'dist/lsp.js'],
    // team mode's PostgreSQL client (pure JavaScript), loaded by path in a worker thread
    ['dist/pg.js', 'dist/pg.js'],
    // loaded by path by agent verbs' bundles on first use: the event schemas (an event from elsewhere), croner
    ['dist/eventValidation.js', 'dist/eventValidation.js'],
    ['dist/migrationSql.js', 'dist/migrationSql.js'],
    ['dist/croner.js', 'dist/croner.js'],
    // loaded by path by the dashboard on its first push notification
    ['dist/webPush.js', 'dist/webPush.js'],
    // loaded by path by dist/cli.js for goal files and presets
    ['dist/yaml.js', 'dist/yaml.js'],
    // loopx dashboard's page: served from beside dist/cli.js
    ...DASHBOARD_FILES.map((name) => [`dist/dashboard/${name}`, `dist/dashboard/${name}`]),
    ...bundles,
    ['docs/cli-readme.md', 'README.md'],
    ['LICENSE', 'LICENSE'],
  ];
}

/** Writes `<into>/cli-package/` and `<into>/loopx-<version>.tgz` (dist/ unless a test packages apart). */
export function packageCli(into = join(root, 'dist')) {
  if (!existsSync(join(root, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build` first');
  const out = join(into, 'cli-package');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  rmSync(out, { recursive: true, force: true });
  for (const [from, to] of cliFiles()) {
    mkdirSync(dirname(join(out, to)), { recursive: true });
    copyFileSync(join(root, from), join(out, to));
  }
  writeFileSync(join(out, 'package.json'), `${JSON.stringify(cliManifest(pkg), null, 2)}\n`);
  const tarball = join(into, `${pkg.name}-${pkg.version}.tgz`);
  rmSync(tarball, { force: true });
  // Not the npm_* settings of an enclosing `npm run package`: they would describe the checkout, not this folder.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  execFileSync('npm', ['pack', '--silent', '--pack-destination', into], {
    cwd: out,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (!existsSync(tarball)) throw new Error(`npm pack did not write ${tarball}`);
  return tarball;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tarball = packageCli();
  console.log(`wrote ${tarball.slice(root.length + 1)}: npm install -g ${tarball.slice(root.length + 1)}`);
}
