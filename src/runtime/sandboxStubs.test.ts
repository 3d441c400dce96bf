import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { AGENT_READ_ONLY } from '../kernel/agentReach';
import { holdSandboxStubs, missingPaths, removeSandboxStubs } from './sandboxStubs';

const dir = mkdtempSync(join(tmpdir(), 'loopx stubs '));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a sandbox's mount points", () => {
  test("a sandbox's leftover mount points are removed after a turn; anything with content, or there before, stays", () => {
    const cwd = join(dir, 'leftovers');
    mkdirSync(join(cwd, '.vscode'), { recursive: true });
    writeFileSync(join(cwd, '.vscode', 'settings.json'), '{}');
    const missing = missingPaths(cwd);
    expect(missing).toContain('.claude');
    expect(missing).not.toContain('.vscode');
    writeFileSync(join(cwd, '.claude'), ''); // an empty file, as bubblewrap leaves one
    mkdirSync(join(cwd, '.git')); // an empty folder
    mkdirSync(join(cwd, '.codex'));
    writeFileSync(join(cwd, '.codex', 'config.toml'), 'x'); // written by someone: kept
    expect(removeSandboxStubs(cwd, missing).sort()).toEqual(['.claude', '.git']);
    expect(existsSync(join(cwd, '.claude'))).toBe(false);
    expect(existsSync(join(cwd, '.codex', 'config.toml'))).toBe(true);
    expect(existsSync(join(cwd, '.vscode', 'settings.json'))).toBe(true);
  });

  test('a Codex turn finds every read-only path there (made before it starts), and the last turn in the folder removes them', () => {
    const cwd = join(dir, 'two turns');
    mkdirSync(join(cwd, '.vscode'), { recursive: true });
    writeFileSync(join(cwd, '.vscode', 'settings.json'), '{}');
    const first = holdSandboxStubs(cwd, 'codex');
    for (const p of AGENT_READ_ONLY) expect(existsSync(join(cwd, p)), p).toBe(true);
    expect(lstatSync(join(cwd, 'opencode.json')).isFile()).toBe(true);
    expect(lstatSync(join(cwd, '.gemini')).isDirectory()).toBe(true);
    const second = holdSandboxStubs(cwd, 'codex'); // a turn beside it, in the same folder
    expect(first()).toEqual([]); // the second may still be mounting them
    expect(first()).toEqual([]); // a release counts once
    expect(existsSync(join(cwd, 'opencode.json'))).toBe(true);
    writeFileSync(join(cwd, '.mcp.json'), '{"mcpServers":{}}'); // written meanwhile by the person: kept
    const removed = second();
    expect(removed).toContain('opencode.json');
    expect(removed).not.toContain('.mcp.json');
    expect(missingPaths(cwd)).toEqual(expect.arrayContaining(['opencode.json', '.gemini', '.claude', '.git']));
    expect(existsSync(join(cwd, '.mcp.json'))).toBe(true);
    expect(existsSync(join(cwd, '.vscode', 'settings.json'))).toBe(true);
  });

  test('a turn on another host makes nothing, and still removes what its sandbox left', () => {
    const cwd = join(dir, 'claude');
    mkdirSync(cwd, { recursive: true });
    const release = holdSandboxStubs(cwd, 'claude');
    expect(existsSync(join(cwd, 'opencode.json'))).toBe(false);
    mkdirSync(join(cwd, '.claude'));
    expect(release()).toEqual(['.claude']);
  });

  test("a nested mount point gets its missing folders first, and they go with it; a folder of the project's stays", () => {
    const bare = join(dir, 'no github');
    mkdirSync(bare, { recursive: true });
    expect(missingPaths(bare).filter((p) => p.startsWith('.github'))).toEqual([
      '.github',
      '.github/hooks',
      '.github/lsp.json',
      '.github/agents',
    ]);
    const release = holdSandboxStubs(bare, 'codex');
    expect(lstatSync(join(bare, '.github', 'hooks')).isDirectory()).toBe(true);
    expect(lstatSync(join(bare, '.github', 'lsp.json')).isFile()).toBe(true);
    expect(release()).toEqual(expect.arrayContaining(['.github', '.github/hooks', '.github/lsp.json', '.github/agents']));
    expect(existsSync(join(bare, '.github'))).toBe(false);

    const project = join(dir, 'with workflows');
    mkdirSync(join(project, '.github', 'workflows'), { recursive: true });
    writeFileSync(join(project, '.github', 'workflows', 'ci.yml'), 'on: push\n');
    const again = holdSandboxStubs(project, 'codex');
    expect(existsSync(join(project, '.github', 'hooks'))).toBe(true);
    expect(again()).not.toContain('.github');
    expect(existsSync(join(project, '.github', 'hooks'))).toBe(false);
    expect(existsSync(join(project, '.github', 'workflows', 'ci.yml'))).toBe(true);
  });
});
