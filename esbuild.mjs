// One build script: a shared base config spread into each bundle target.
import { build, context } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const agentVerbs = JSON.parse(readFileSync(new URL('./src/cli/agentVerbs.json', import.meta.url), 'utf8'));
const commandBundles = JSON.parse(readFileSync(new URL('./src/cli/commandBundles.json', import.meta.url), 'utf8'));
/** A verb's bundle name in dist/agent/: its words joined by dashes (bin/loopx looks the call's words up the same way). */
const bundleName = (verb) => verb.words.join('-');
const watch = process.argv.includes('--watch');

const base = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  minify: true,
  legalComments: 'none',
  loader: { '.sql': 'text' },
  // Native or host-provided modules are loaded at run time, never bundled.
  external: ['vscode', 'better-sqlite3'],
  // Team mode's PostgreSQL client runs in a worker that loads dist/pg.js by path (src/kernel/team/syncPg.ts).
  define: { __LOOPX_VERSION__: JSON.stringify(pkg.version), __LOOPX_PG_BUNDLE__: JSON.stringify('pg.js') },
  logLevel: 'warning',
};

/**
 * Node's built-ins as they are: esbuild writes `require("node:fs")` at the top of every file that imports one (about 30
 * in a verb's bundle), and each such require of a built-in refreshes its ES-module facade, every export of it (16 µs a
 * call for node:fs on Node 22 here, half a millisecond a bundle); process.getBuiltinModule hands over the module
 * itself. The bundle's `require` is the CommonJS wrapper's parameter, so this line replaces it for the whole file;
 * anything that is not a built-in goes to the real one. Only on what the CLI alone runs (dist/cli.js, the verbs'
 * bundles): VS Code's extension host hands an extension its own http and https (its proxy support) through require.
 */
const builtinsAsTheyAre = { js: 'var require = ((real) => (id) => process.getBuiltinModule?.(id) ?? real(id))(require);' };
// The CLI carries better-sqlite3's JavaScript and opens its addon by path (src/kernel/db/betterSqliteDriver.ts).
const cli = {
  ...base,
  external: ['vscode'],
  define: { ...base.define, __LOOPX_ROOT_FROM_BUNDLE__: JSON.stringify('..') },
};
// What VS Code loads (the extension, the goal-file language client and server) runs on the editor's own Node, which has
// node:sqlite from VS Code 1.105 (engines.vscode): better-sqlite3 is left out of them, so the .vsix carries no native
// binary and installs on every platform (src/kernel/db/openDb.ts).
const inEditor = { ...base, define: { ...base.define, __LOOPX_NODE_SQLITE_ONLY__: 'true' } };
/** What a browser runs (the board's and the story's webviews, the dashboard's page): one script per page, no Node. */
const inBrowser = { ...base, platform: 'browser', format: 'iife', target: 'chrome120', sourcemap: false, external: [] };
/**
 * Code an agent's call seldom runs, kept out of the verbs' bundles and loaded by path from a bundle of its own on
 * first use: checking an event's data against its kind's schema (zod and every event schema, a fifth of a verb's
 * bundle; only for events loopx did not build itself: team catch-up, replay, rebuild), and croner (a fifth of
 * `todo add` and `todo ship`; only for a todo that recurs on a cron expression). In a verb's bundle the import is a
 * stub whose exports call (or construct) the real ones. test/cli/agentVerbCost.test.ts keeps them out.
 */
const byPath = [
  { filter: /\/eventValidation$/, file: 'eventValidation.js', exports: ['invalidEventData'] },
  { filter: /^croner$/, file: 'croner.js', exports: ['Cron'] },
  // Every migration's SQL (a tenth of a verb's bundle): only for a store older than this code (src/kernel/db/migrate.ts).
  { filter: /\/migrationSql$/, file: 'migrationSql.js', exports: ['migrationSql'] },
];
/** The plugin that puts a stub in place of each of `entries`, loading the real code from `<bundle's folder>/<up>/<file>`. */
const loadedByPathFrom = (up, entries) => ({
  name: 'loaded-by-path',
  setup(build) {
    for (const [index, { filter }] of entries.entries())
      build.onResolve({ filter }, () => ({ path: String(index), namespace: 'loopx-by-path' }));
    build.onLoad({ filter: /.*/, namespace: 'loopx-by-path' }, ({ path }) => {
      const { file, exports } = entries[Number(path)];
      const load = `(loaded ??= require('node:module').createRequire(__filename)(require('node:path').join(__dirname, ${JSON.stringify(up)}, ${JSON.stringify(file)})))`;
      const forward = (name) =>
        `exports.${name} = function (...args) { const real = ${load}.${name}; return new.target ? new real(...args) : real.apply(this, args); };`;
      return { loader: 'js', contents: ['let loaded;', ...exports.map(forward)].join('\n') };
    });
  },
});
const loadedByPath = loadedByPathFrom('..', byPath);
/**
 * web-push (its ASN.1, JWS and encryption code, a tenth of dist/cli.js) for the dashboard's push notifications: in a
 * bundle of its own, loaded by path on the first push, so neither a CLI command nor VS Code's start-up reads it.
 */
const webPush = { filter: /^web-push$/, file: 'webPush.js', exports: ['generateVAPIDKeys', 'sendNotification'] };
/** The names a package exports as functions (and classes): what a stub forwards (not objects, nor a function's own properties). */
const functionsOf = (id) =>
  Object.entries(createRequire(import.meta.url)(id)).flatMap(([name, value]) => (typeof value === 'function' ? [name] : []));
/** yaml (an eighth of dist/cli.js and of dist/extension.js): for goal files and presets only. */
const yaml = { filter: /^yaml$/, file: 'yaml.js', exports: functionsOf('yaml') };
/**
 * dist/cli.js (every command that is not an agent verb: init, goal create, history, doctor…) loads by path what the
 * agent verbs do, web-push and yaml: those commands read 0.8 of what they did (docs/performance.md). VS Code's
 * activation reads neither web-push nor yaml.
 */
const cliByPath = loadedByPathFrom('.', [...byPath, webPush, yaml]);
const editorByPath = loadedByPathFrom('.', [webPush, yaml]);
/**
 * pg computes SCRAM with Web Crypto (lib/crypto/utils.js); the bundled pg uses Node's hashes instead
 * (src/kernel/team/pgScramCrypto.ts, which says why: a connection is opened for every agent call).
 */
const pgScramOnNodeCrypto = {
  name: 'pg-scram-on-node-crypto',
  setup(b) {
    b.onResolve({ filter: /^\.\/(crypto\/)?utils$/ }, (args) =>
      /[\\/]pg[\\/]lib[\\/](crypto[\\/]sasl|client)\.js$/.test(args.importer)
        ? { path: new URL('./src/kernel/team/pgScramCrypto.ts', import.meta.url).pathname }
        : undefined,
    );
  },
};
const agentBundle = {
  ...cli,
  banner: builtinsAsTheyAre,
  define: { ...cli.define, __LOOPX_ROOT_FROM_BUNDLE__: JSON.stringify('../..'), __LOOPX_PG_BUNDLE__: JSON.stringify('../pg.js') },
  plugins: [loadedByPath],
};
/** A first word's bundle: as a verb's, and web-push and yaml by path too, as dist/cli.js loads them. */
const commandBundle = { ...agentBundle, plugins: [loadedByPathFrom('..', [...byPath, webPush, yaml])] };

const targets = [
  { ...cli, entryPoints: ['src/cli/index.ts'], outfile: 'dist/cli.js', plugins: [cliByPath], metafile: true, banner: builtinsAsTheyAre },
  // Each verb of an agent's turn in a bundle of its own, which bin/loopx picks by the call's words (src/cli/agentCommands.ts).
  ...agentVerbs.map((verb) => ({
    ...agentBundle,
    stdin: {
      contents: `import { agentMain } from './agentMain';\nimport { ${verb.export} } from '${verb.module}';\nexport const main = agentMain(${verb.export});\n`,
      resolveDir: 'src/cli',
      sourcefile: `agent/${bundleName(verb)}.ts`,
      loader: 'ts',
    },
    outfile: `dist/agent/${bundleName(verb)}.js`,
    metafile: true,
  })),
  // Every other command in a bundle of its first word (src/cli/commandBundles.json), which bin/loopx picks when the call
  // has no verb's bundle: a person's command reads what its word needs, not the whole CLI (docs/performance.md).
  ...commandBundles.map(({ word, commands }) => ({
    ...commandBundle,
    stdin: {
      contents: [
        "import { commandsMain } from './agentMain';",
        ...commands.map((c, i) => `import { ${c.export} as c${i} } from '${c.module}';`),
        `export const main = commandsMain([${commands.map((_, i) => `c${i}`).join(', ')}]);`,
      ].join('\n'),
      resolveDir: 'src/cli',
      sourcefile: `command/${word}.ts`,
      loader: 'ts',
    },
    outfile: `dist/command/${word}.js`,
  })),
  // Loaded by path by the agent verbs' bundles, on first use only (byPath, above).
  { ...cli, entryPoints: ['src/kernel/events/eventValidation.ts'], outfile: 'dist/eventValidation.js' },
  { ...cli, entryPoints: ['src/kernel/db/migrationSql.ts'], outfile: 'dist/migrationSql.js' },
  {
    ...cli,
    stdin: { contents: "module.exports = require('croner');", resolveDir: '.', sourcefile: 'croner.js', loader: 'js' },
    outfile: 'dist/croner.js',
  },
  // PostgreSQL's client for team mode, pure JavaScript (pg-native, its optional native binding, is left out): loaded
  // by path in SyncPg's worker thread, by every bundle that may open a team store (the CLI, agents' verbs, VS Code).
  {
    ...base,
    stdin: { contents: "module.exports = require('pg');", resolveDir: '.', sourcefile: 'pg.js', loader: 'js' },
    external: ['pg-native'],
    plugins: [pgScramOnNodeCrypto],
    outfile: 'dist/pg.js',
  },
  { ...inEditor, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', plugins: [editorByPath] },
  {
    ...cli,
    stdin: { contents: "module.exports = require('web-push');", resolveDir: '.', sourcefile: 'webPush.js', loader: 'js' },
    outfile: 'dist/webPush.js',
  },
  {
    ...cli,
    stdin: { contents: "module.exports = require('yaml');", resolveDir: '.', sourcefile: 'yaml.js', loader: 'js' },
    outfile: 'dist/yaml.js',
  },
  // The goal-file language client: required by the extension when the first goal file opens.
  { ...inEditor, entryPoints: ['src/extension/goalFiles/languageClient.ts'], outfile: 'dist/goalFileClient.js' },
  // The sample agent Run Turn offers without Codex or Claude Code (a demo; see src/cli/sampleAgent.ts).
  { ...cli, entryPoints: ['src/cli/sampleAgent.ts'], outfile: 'dist/sampleAgent.js' },
  // `loopx mcp` only: the MCP SDK stays out of the CLI's start-up path.
  { ...base, entryPoints: ['src/cli/mcp/server.ts'], outfile: 'dist/mcp.js' },
  // The goal-file language server: its own process, started by the extension's language client.
  { ...inEditor, entryPoints: ['src/languageServer/server.ts'], outfile: 'dist/languageServer.js' },
  // The same server for `loopx lsp` (other editors), on the terminal's Node: it opens the store as the CLI does.
  { ...cli, entryPoints: ['src/languageServer/server.ts'], outfile: 'dist/lsp.js' },
  // The board's front end: browser code that imports only src/protocol; one script and one stylesheet.
  {
    ...inBrowser,
    entryPoints: [
      { in: 'webview-ui/src/main.ts', out: 'board' },
      { in: 'webview-ui/board.css', out: 'board' },
      // The goal story: its own script and stylesheet (the charts are SVG built by src/protocol/story).
      { in: 'webview-ui/src/story/main.ts', out: 'story' },
      { in: 'webview-ui/story.css', out: 'story' },
    ],
    outdir: 'dist/webview',
  },
  // The dashboard's page (loopx dashboard): browser code that imports only src/protocol and src/shared, its service
  // worker, its stylesheet; the manifest and the icons are copied beside them (copyDashboardFiles).
  {
    ...inBrowser,
    entryPoints: [
      { in: 'dashboard-ui/src/main.ts', out: 'app' },
      { in: 'dashboard-ui/src/sw.ts', out: 'sw' },
      { in: 'dashboard-ui/dashboard.css', out: 'app' },
    ],
    outdir: 'dist/dashboard',
  },
];
/** Codicons for the board come from @vscode/codicons, copied next to the bundle (the webview may load nothing else). */
function copyCodicons() {
  mkdirSync('dist/webview', { recursive: true });
  for (const file of ['codicon.css', 'codicon.ttf']) copyFileSync(`node_modules/@vscode/codicons/dist/${file}`, `dist/webview/${file}`);
}
/** The dashboard's manifest and icons, beside its bundle (the server serves only what is in dist/dashboard). */
function copyDashboardFiles() {
  mkdirSync('dist/dashboard', { recursive: true });
  copyFileSync('dashboard-ui/manifest.webmanifest', 'dist/dashboard/manifest.webmanifest');
  copyFileSync('media/icon.svg', 'dist/dashboard/icon.svg');
  copyFileSync('media/icon.png', 'dist/dashboard/icon.png');
}
if (process.argv.includes('--with-test-fixtures')) {
  // A writer that hammers the kernel in one process, for the kill -9 tests (never shipped).
  targets.push({ ...base, minify: false, entryPoints: ['test/cli/fixtures/writer.ts'], outfile: 'dist/test/writer.js' });
}
if (process.argv.includes('--e2e')) {
  // Mocha suites that run inside the VS Code extension host, and the Playwright scenarios that drive the UI.
  const test = { ...base, minify: false, sourcemap: 'inline', external: [...base.external, 'mocha', 'playwright-core', 'pg'] };
  targets.push({ ...test, entryPoints: ['test/extension/index.ts'], outfile: 'dist/test/extension/index.js' });
  targets.push({ ...test, entryPoints: ['test/extension/multiRoot/index.ts'], outfile: 'dist/test/extension/multiRoot.js' });
  targets.push({ ...test, entryPoints: ['test/e2e/main.ts'], outfile: 'dist/test/e2e/main.js' });
}

if (process.argv.includes('--bench')) {
  targets.push({ ...base, minify: false, entryPoints: ['bench/bench.ts'], outfile: 'dist/bench/bench.js' });
  targets.push({ ...base, minify: false, entryPoints: ['bench/goalFileBench.ts'], outfile: 'dist/bench/goalFileBench.js' });
  targets.push({ ...base, minify: false, entryPoints: ['bench/verbCost.ts'], outfile: 'dist/bench/verbCost.js' });
  targets.push({ ...base, minify: false, entryPoints: ['bench/runnerMemory.ts'], outfile: 'dist/bench/runnerMemory.js' });
  targets.push({ ...base, minify: false, entryPoints: ['bench/runnerGrowth.ts'], outfile: 'dist/bench/runnerGrowth.js' });
  targets.push({ ...base, minify: false, entryPoints: ['bench/storyBench.ts'], outfile: 'dist/bench/storyBench.js' });
  targets.push({ ...base, minify: false, entryPoints: ['bench/cacheDayBench.ts'], outfile: 'dist/bench/cacheDayBench.js' });
  targets.push({ ...base, minify: false, entryPoints: ['bench/cliAb.ts'], outfile: 'dist/bench/cliAb.js' });
  targets.push({ ...base, minify: false, entryPoints: ['bench/mcpBench.ts'], outfile: 'dist/bench/mcpBench.js' });
  // Team mode against a PostgreSQL the bench starts itself (test/support/postgres.ts); pg is loaded from node_modules.
  targets.push({
    ...base,
    minify: false,
    external: [...base.external, 'pg'],
    entryPoints: ['bench/teamBench.ts'],
    outfile: 'dist/bench/teamBench.js',
  });
  targets.push({
    ...base,
    minify: false,
    external: [...base.external, 'pg'],
    entryPoints: ['bench/teamLiveBench.ts'],
    outfile: 'dist/bench/teamLiveBench.js',
  });
  targets.push({
    ...base,
    minify: false,
    external: [...base.external, 'pg'],
    entryPoints: ['bench/teamCliBench.ts'],
    outfile: 'dist/bench/teamCliBench.js',
  });
  targets.push({
    ...base,
    minify: false,
    external: [...base.external, 'playwright-core'],
    entryPoints: ['bench/boardBench.ts'],
    outfile: 'dist/bench/boardBench.js',
  });
  targets.push({
    ...base,
    minify: false,
    external: [...base.external, 'playwright-core'],
    entryPoints: ['bench/dashboardBench.ts'],
    outfile: 'dist/bench/dashboardBench.js',
  });
}

if (process.argv.includes('--soak')) {
  // `npm run soak`: leaves loopx run alone with real processes, then audits the store (test/soak/).
  targets.push({ ...base, minify: false, entryPoints: ['scripts/soak.ts'], outfile: 'dist/scripts/soak.js' });
}

if (process.argv.includes('--start')) {
  targets.push({
    ...base,
    minify: false,
    external: [...base.external, 'pg'],
    entryPoints: ['bench/teamCliBench.ts'],
    outfile: 'dist/bench/teamCliBench.js',
  });
  targets.push({
    ...base,
    minify: false,
    external: [...base.external, 'playwright-core'],
    entryPoints: ['scripts/start.ts'],
    outfile: 'dist/scripts/start.js',
  });
}

/**
 * dist/agentBundles.json: for each agent verb's bundle, the modules it evaluates and the bytes each adds, from esbuild's
 * metafile; dist/cliBundle.json: the same for dist/cli.js, every other command's. test/cli/agentVerbCost.test.ts holds
 * them to a budget and names what grew.
 */
function writeBundleInputs(results) {
  const byVerb = {};
  let cliBundle;
  for (const { metafile } of results) {
    if (!metafile) continue;
    for (const [outfile, output] of Object.entries(metafile.outputs)) {
      const inputs = {};
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
        // node_modules may be a symlink (a worktree's): name a package's file from node_modules/ on.
        inputs[input.replace(/^.*?node_modules\//, 'node_modules/')] = bytesInOutput;
      const verb = /^dist\/agent\/(.+)\.js$/.exec(outfile)?.[1];
      if (verb !== undefined) byVerb[verb] = { bytes: output.bytes, inputs };
      if (outfile === 'dist/cli.js') cliBundle = { bytes: output.bytes, inputs };
    }
  }
  writeFileSync('dist/agentBundles.json', `${JSON.stringify(byVerb, null, 1)}\n`);
  writeFileSync('dist/cliBundle.json', `${JSON.stringify(cliBundle, null, 1)}\n`);
}

if (watch) {
  copyCodicons();
  copyDashboardFiles();
  for (const target of targets) await (await context(target)).watch();
  console.log('esbuild: watching…');
} else {
  const started = Date.now();
  const results = await Promise.all(targets.map((target) => build(target)));
  copyCodicons();
  copyDashboardFiles();
  writeBundleInputs(results);
  // A verb or word that left its list leaves no bundle behind; code caches of the loader before Node's compile cache go too.
  for (const name of readdirSync('dist')) if (/^cli\.js\..*cache$/.test(name)) rmSync(`dist/${name}`, { force: true });
  const keepOnly = (folder, bundles) => {
    for (const name of readdirSync(folder))
      if (name.endsWith('.cache') || !bundles.includes(name.replace(/\.js(\.map)?$/, ''))) rmSync(`${folder}/${name}`, { force: true });
  };
  keepOnly('dist/agent', agentVerbs.map(bundleName));
  keepOnly(
    'dist/command',
    commandBundles.map((bundle) => bundle.word),
  );
  console.log(`esbuild: built ${targets.length} bundle(s) in ${Date.now() - started} ms`);
}
