import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers (docs/architecture.md, "Layout"; CONTRIBUTING.md), enforced: inner layers never import outer ones. Tests are exempt from the layer rules (a
 * test may pin one layer against another, as the webview's rules are pinned against the kernel's), not from `vscode`.
 * src/layers.test.ts shows each rule firing on a wrong import.
 */
const VSCODE = {
  name: 'vscode',
  message:
    'src/kernel, src/runtime, src/protocol, src/cli, src/goalFile and src/languageServer never import vscode: they run in the CLI and in tests.',
};
const outside = (layer, folders, message) => ({ group: folders.flatMap((f) => [`**/${f}`, `**/${f}/**`]), message: `${layer} ${message}` });
const layer = (files, patterns, paths = [VSCODE]) => ({
  files,
  ignores: ['**/*.test.ts'],
  rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
});
/** The browser has no node: built-ins (nor their bare names). */
const NODE_BUILTINS = {
  regex: '^(node:.*|fs|path|os|crypto|child_process|url|util|events|stream|module|process|buffer|tty|net|http|https|zlib)(/.*)?$',
  message: 'src/protocol ships to the browser (the webview): no Node built-ins.',
};

/** What scripts and esbuild.mjs run on: Node's globals (no `globals` package needed for these few). */
const NODE_GLOBALS = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'performance',
    'fetch',
    'AbortController',
    'structuredClone',
    'TextDecoder',
    'TextEncoder',
    'queueMicrotask',
  ].map((g) => [g, 'readonly']),
);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.cache/**',
      'test-results/**',
      'bench/.work/**',
      '**/*.js',
      'test/**/*.mjs',
      'bench/**/*.mjs',
      'webview-ui/**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    // esbuild.mjs, the tool configs and scripts/*.mjs: plain ES modules run by Node.
    files: ['*.mjs', 'scripts/**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: NODE_GLOBALS },
    rules: { '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }] },
  },
  // Tool configs and ambient module declarations need a default export.
  { files: ['vitest.config.mts', '**/*.d.ts'], rules: { 'no-restricted-syntax': 'off' } },
  {
    files: [
      'src/kernel/**/*.ts',
      'src/runtime/**/*.ts',
      'src/protocol/**/*.ts',
      'src/shared/**/*.ts',
      'src/cli/**/*.ts',
      'src/goalFile/**/*.ts',
      'src/languageServer/**/*.ts',
    ],
    rules: { 'no-restricted-imports': ['error', { paths: [VSCODE] }] },
  },
  layer(
    ['src/kernel/**/*.ts'],
    [
      outside(
        'src/kernel',
        ['runtime', 'cli', 'extension', 'protocol', 'goalFile', 'languageServer'],
        'is the innermost layer: it imports neither the runtime above it, nor an adapter, nor the protocol.',
      ),
    ],
  ),
  // What the adapters share and the kernel does not need (hosts, launchers, the store watcher, file projections).
  layer(
    ['src/runtime/**/*.ts'],
    [
      outside(
        'src/runtime',
        ['cli', 'extension', 'goalFile', 'languageServer'],
        'sits between the kernel and the adapters: it imports only the kernel, src/protocol (words and shapes the adapters share) and src/shared.',
      ),
    ],
  ),
  layer(
    ['src/protocol/**/*.ts'],
    [
      outside(
        'src/protocol',
        ['kernel', 'runtime', 'cli', 'extension', 'goalFile', 'languageServer'],
        'is shared by the host and the webview: it imports no other layer.',
      ),
      NODE_BUILTINS,
    ],
  ),
  layer(
    ['src/shared/**/*.ts'],
    [
      outside(
        'src/shared',
        ['kernel', 'runtime', 'protocol', 'cli', 'extension', 'goalFile', 'languageServer'],
        'is below every layer (the kernel and the webview import it): it imports none.',
      ),
      { ...NODE_BUILTINS, message: 'src/shared ships to the browser too: no Node built-ins.' },
    ],
  ),
  layer(
    ['src/cli/**/*.ts'],
    [outside('src/cli', ['extension', 'languageServer'], 'is an adapter over the kernel: it imports no other adapter.')],
  ),
  // Goal files (parse, format, read) sit between the kernel and its adapters: the CLI and the language server use them.
  layer(['src/goalFile/**/*.ts'], [outside('src/goalFile', ['cli', 'extension', 'languageServer'], 'imports only the kernel.')]),
  layer(
    ['src/languageServer/**/*.ts'],
    [outside('src/languageServer', ['cli', 'extension'], 'is an adapter over the kernel and goal files: it imports no other adapter.')],
  ),
  layer(
    ['webview-ui/**/*.ts'],
    [
      outside('The webview', ['kernel', 'runtime', 'cli', 'extension', 'goalFile', 'languageServer'], 'imports only src/protocol.'),
      { ...NODE_BUILTINS, message: 'The webview runs in the browser: no Node built-ins.' },
    ],
    [{ name: 'vscode', message: 'The webview talks to VS Code only through postMessage.' }],
  ),
  layer(
    ['dashboard-ui/**/*.ts'],
    [
      outside('The dashboard page', ['kernel', 'runtime', 'cli', 'extension', 'goalFile', 'languageServer'], 'imports only src/protocol.'),
      { ...NODE_BUILTINS, message: 'The dashboard page runs in the browser: no Node built-ins.' },
    ],
    [{ name: 'vscode', message: 'The dashboard page talks to its server only over HTTP.' }],
  ),
);
