import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { cliLauncher } from './cliLauncher';

test("on macOS and Linux the launcher is a shell script that runs the bundled CLI on the editor's runtime as Node", () => {
  const { file, content } = cliLauncher('/Applications/Visual Studio Code.app/Contents/MacOS/Electron', "/ext/it's/bin/loopx", 'darwin');
  expect(file).toBe('loopx');
  expect(content.split('\n')[0]).toBe('#!/bin/sh');
  expect(content).toContain(
    `ELECTRON_RUN_AS_NODE=1 exec '/Applications/Visual Studio Code.app/Contents/MacOS/Electron' '/ext/it'\\''s/bin/loopx' "$@"`,
  );
});

test('the shell launcher passes every argument through untouched and exits with the CLI’s code', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopx-launcher-'));
  try {
    // A stand-in for bin/loopx: prints what it got, one per line, and whether it runs as Node; exits 7.
    const bundled = join(dir, 'fake loopx.js');
    writeFileSync(bundled, 'console.log([process.env.ELECTRON_RUN_AS_NODE, ...process.argv.slice(2)].join("\\n")); process.exit(7);\n');
    const { content } = cliLauncher(process.execPath, bundled, 'linux');
    const launcher = join(dir, 'loopx');
    writeFileSync(launcher, content);
    chmodSync(launcher, 0o755);
    let out = '';
    let status = 0;
    try {
      execFileSync(launcher, ['todo', 'add', '--title', 'a "quoted" $HOME & more'], { encoding: 'utf8' });
    } catch (error) {
      ({ stdout: out, status } = error as { stdout: string; status: number });
    }
    expect(status).toBe(7);
    expect(out.trim().split('\n')).toEqual(['1', 'todo', 'add', '--title', 'a "quoted" $HOME & more']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('on Windows it is loopx.cmd: Electron as Node, the arguments passed on, % in a path escaped, the exit code kept', () => {
  const { file, content } = cliLauncher(
    'C:\\Users\\ada\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe',
    'C:\\Users\\ada\\.vscode\\extensions\\loopx.loopx-0.1.0\\100%\\bin\\loopx',
    'win32',
  );
  expect(file).toBe('loopx.cmd');
  const lines = content.split('\r\n');
  expect(lines[0]).toBe('@echo off');
  // setlocal: the variable stays inside the launcher, not in the terminal that called it.
  expect(lines.indexOf('setlocal')).toBeLessThan(lines.indexOf('set ELECTRON_RUN_AS_NODE=1'));
  expect(lines).toContain(
    '"C:\\Users\\ada\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe" "C:\\Users\\ada\\.vscode\\extensions\\loopx.loopx-0.1.0\\100%%\\bin\\loopx" %*',
  );
  expect(lines).toContain('exit /b %ERRORLEVEL%');
  expect(content).not.toMatch(/(^|[^\r])\n/); // CRLF throughout
});
