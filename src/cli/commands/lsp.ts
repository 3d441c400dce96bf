import type { Command } from '../command';
import { InvalidInputError } from '../../kernel/errors';

/** Listed for help; `loopx lsp` itself is started by the entry point, which hands stdio to the language server. */
export const lsp: Command = {
  name: ['lsp'],
  summary: 'the goal-file language server on stdio, for editors other than VS Code (neovim, Helix, Zed, Emacs)',
  description:
    'Diagnostics, completion, hover with live state, code lenses and quick fixes for *.goal.md, and links for G3/T12 in ' +
    'Markdown and code comments. It reads stores read-only; applying a file stays `loopx goal apply`, at a terminal.',
  examples: ["neovim: vim.lsp.config('loopx', { cmd = { 'loopx', 'lsp', '--stdio' }, filetypes = { 'markdown' } })"],
  run() {
    throw new InvalidInputError('loopx lsp speaks the Language Server Protocol on stdin/stdout; start it from an editor');
  },
};
