import { shellQuote } from '../runtime/hosts';

/** The `loopx` launcher a terminal finds on PATH: its file name in the launcher folder, and what it says. */
export interface CliLauncher {
  file: string;
  content: string;
}

/**
 * A launcher that runs the bundled CLI (`bundled`, the extension's bin/loopx) on the editor's own runtime: Electron
 * acting as Node (ELECTRON_RUN_AS_NODE) in desktop VS Code and Cursor, code-server's Node elsewhere. A shell script on
 * macOS and Linux; a batch file on Windows, which PowerShell and cmd.exe both run for `loopx` (PATHEXT). `name` is
 * the command's name (the sample agent Run Turn offers has a launcher of its own beside loopx's).
 */
export function cliLauncher(runtime: string, bundled: string, platform: NodeJS.Platform = process.platform, name = 'loopx'): CliLauncher {
  if (platform === 'win32') {
    // Inside double quotes cmd.exe still expands %VAR%: a % in a path is written %%. Paths cannot hold a double quote.
    const quote = (path: string) => `"${path.replace(/%/g, '%%')}"`;
    return {
      file: `${name}.cmd`,
      content: [
        '@echo off',
        "rem Written by the LoopX extension: its bundled CLI on the editor's own runtime. Rewritten when either moves.",
        'setlocal',
        'set ELECTRON_RUN_AS_NODE=1',
        `${quote(runtime)} ${quote(bundled)} %*`,
        'exit /b %ERRORLEVEL%',
        '',
      ].join('\r\n'),
    };
  }
  return {
    file: name,
    content: [
      '#!/bin/sh',
      "# Written by the LoopX extension: its bundled CLI on the editor's own runtime. Rewritten when either moves.",
      `ELECTRON_RUN_AS_NODE=1 exec ${shellQuote(runtime)} ${shellQuote(bundled)} "$@"`,
      '',
    ].join('\n'),
  };
}
