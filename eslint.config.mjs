import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noVscode = {
  'no-restricted-imports': [
    'error',
    {
      paths: [{ name: 'vscode', message: 'src/kernel, src/protocol and src/cli never import vscode: they run in the CLI and in tests.' }],
    },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'test-results/**', 'bench/.work/**', '**/*.mjs', '**/*.js'] },
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
  // Tool configs and ambient module declarations need a default export.
  { files: ['vitest.config.mts', '**/*.d.ts'], rules: { 'no-restricted-syntax': 'off' } },
  { files: ['src/kernel/**/*.ts', 'src/protocol/**/*.ts', 'src/cli/**/*.ts', 'src/goalFile/**/*.ts', 'src/languageServer/**/*.ts'], rules: noVscode },
  {
    // Goal files (parse, format, read) sit between the kernel and its adapters: the CLI and the language server use them.
    files: ['src/goalFile/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: ['vscode'], patterns: [{ group: ['**/cli/**', '**/extension/**', '**/languageServer/**'], message: 'src/goalFile imports only the kernel.' }] }],
    },
  },
  {
    files: ['webview-ui/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/kernel/**', '**/cli/**', '**/extension/**', 'vscode'], message: 'The webview imports only src/protocol.' }] }],
    },
  },
);
