// Does the CLI's start-up machinery pay for itself? (issue 24, deliverable 5.) Builds the CLI in four shapes, each an
// install of its own (bin/loopx, dist/, node_modules linked), and times them against each other with bench/cliAb.ts
// on Node 20 (better-sqlite3), 22 and 24 (node:sqlite), one A/B run per runtime, the current shape the baseline:
//
//   perverb   the checkout's bin/loopx. When the figures in docs/performance.md were taken: a bundle per agent verb
//             (src/cli/agentVerbs.json) through a vm loader and a V8 code cache per command; since, the same bundles
//             through plain require and Node's compile cache (what perverbcc measured)
//   whole     one CLI bundle (dist/cli.js), plain require, Node's own compile cache (module.enableCompileCache)
//   lazy      one CLI as ES modules split by esbuild: a dispatcher that imports a verb's command on demand (a
//             dynamic import per agent verb, the whole CLI for everything else), Node's compile cache
//   perverbcc the per-verb bundles, plain require and Node's compile cache: the vm loader's own share
//
// Node 20 has no module.enableCompileCache: there the three new shapes run with no cache at all.
//
//   node esbuild.mjs --bench && node bench/cliShapes.mjs   # CLI_AB_ROUNDS, CLI_AB_VERBS as for cliAb; CLI_SHAPES=perverb,whole
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { nodePath } from '../scripts/nodeRelease.mjs';

const REPO = resolve(import.meta.dirname, '..');
const agentVerbs = JSON.parse(readFileSync(join(REPO, 'src/cli/agentVerbs.json'), 'utf8'));
const version = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version;
const scratch = mkdtempSync(join(tmpdir(), 'loopx-shapes-'));

/** The lazy shape's entry: words → a dynamic import of that verb's command; anything else → the whole CLI. */
function dispatcher() {
  const cases = agentVerbs.map(
    (v) =>
      `  ${JSON.stringify(v.words.join(' '))}: () => Promise.all([import('./agentMain'), import('${v.module}')]).then(([a, c]) => a.agentMain(c.${v.export})),`,
  );
  return `const VERBS: Record<string, () => Promise<(argv: readonly string[]) => void>> = {
${cases.join('\n')}
};
export function start(words: string[], argv: readonly string[]): void {
  const pick = VERBS[words.join(' ')] ?? VERBS[words[0] ?? ''];
  (pick ? pick() : import('./index').then((m) => m.main)).then((main) => main(argv), (error: unknown) => { throw error; });
}
`;
}

// The same word scan as bin/loopx (global options first, then up to two words), shared by the new launchers.
const WORDS = `const argv = process.argv.slice(2);
let first = 0;
while (first < argv.length) {
  const arg = argv[first];
  if (arg === '--json' || /^--(root|agent)=/.test(arg)) first += 1;
  else if ((arg === '--root' || arg === '--agent') && argv[first + 1] !== undefined && !argv[first + 1].startsWith('--')) first += 2;
  else break;
}
const words = [];
for (const arg of argv.slice(first)) {
  if (words.length === 2 || !/^[a-z][a-z-]{0,23}$/.test(arg)) break;
  words.push(arg);
}
`;
const CACHE = `const path = require('path');
require('module').enableCompileCache?.(path.join(__dirname, '..', 'dist', '.compile-cache'));
`;
const LAUNCHERS = {
  whole: `#!/usr/bin/env node\n'use strict';\n${CACHE}require('../dist/cli.js').main(process.argv.slice(2));\n`,
  perverbcc: `#!/usr/bin/env node\n'use strict';\n${CACHE}const fs = require('fs');\n${WORDS}
const names = words.length === 2 ? [words.join('-'), words[0]] : words;
let file = path.join(__dirname, '..', 'dist', 'cli.js');
for (const name of names) {
  const candidate = path.join(__dirname, '..', 'dist', 'agent', name + '.js');
  if (fs.existsSync(candidate)) { file = candidate; break; }
}
require(file).main(argv);
`,
  lazy: `#!/usr/bin/env node\n'use strict';\n${CACHE}${WORDS}
import(path.join(__dirname, '..', 'dist', 'lazy', 'dispatch.mjs')).then((m) => m.start(words, argv));
`,
};

async function buildLazy(dir) {
  await build({
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    splitting: true,
    minify: true,
    legalComments: 'none',
    loader: { '.sql': 'text' },
    external: ['vscode'],
    define: { __LOOPX_VERSION__: JSON.stringify(version), __LOOPX_ROOT_FROM_BUNDLE__: JSON.stringify('../..') },
    // The kernel is CommonJS-minded (__dirname for the addon, require for better-sqlite3): each chunk gets both.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; import { fileURLToPath as __fu } from 'node:url'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url); const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
    },
    stdin: { contents: dispatcher(), resolveDir: join(REPO, 'src/cli'), sourcefile: 'dispatch.ts', loader: 'ts' },
    outdir: join(dir, 'dist', 'lazy'),
    entryNames: 'dispatch',
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
}

async function install(name) {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  cpSync(join(REPO, 'dist'), join(dir, 'dist'), {
    recursive: true,
    filter: (src) => !src.startsWith(join(REPO, 'dist', 'bench')) && !src.endsWith('.cache') && !src.endsWith('.map'),
  });
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  if (name === 'perverb') cpSync(join(REPO, 'bin', 'loopx'), join(dir, 'bin', 'loopx'));
  else writeFileSync(join(dir, 'bin', 'loopx'), LAUNCHERS[name], { mode: 0o755 });
  if (name === 'lazy') await buildLazy(dir);
  return `${name}=${dir}`;
}

try {
  const spec = [];
  for (const name of process.env.CLI_SHAPES?.split(',') ?? ['perverb', 'whole', 'lazy', 'perverbcc']) spec.push(await install(name));
  for (const node of [process.execPath, nodePath(22), nodePath(24)]) {
    // Each runtime starts from cold caches: the warm-up rounds write them.
    spawnSync('sh', ['-c', `rm -rf ${scratch}/*/dist/.compile-cache; find ${scratch} -name '*.cache' -delete`]);
    const r = spawnSync(node, [join(REPO, 'dist', 'bench', 'cliAb.js')], {
      stdio: 'inherit',
      env: { ...process.env, CLI_AB: spec.join(',') },
    });
    if (r.status !== 0) process.exitCode = 1;
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
