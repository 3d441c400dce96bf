import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { AGENT_READ_ONLY, boundaryOf, claudeBoundaryArgs, codexBoundaryArgs, shellWritesStore, turnBoundary } from './hostBoundary';
import { copilotTurnSetup } from './copilotBoundary';
import { DEFAULT_HOSTS, hostCommand } from './hosts';

const dir = mkdtempSync(join(tmpdir(), 'loopx boundary \' "$(id)"-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = join(dir, 'work space');
const keyDir = join(dir, 'config', 'loopx');
const launcher = join(dir, 'my tools', 'loopx-launcher');
const started = { cwd: root, env: { LOOPX_AGENT: 'codex', LOOPX_ROOT: root, LOOPX_TURN: 'R1', LOOPX_TODO: 'T1', LOOPX_GOAL: 'G1' } };

/** What /bin/sh hands the program, word by word. */
function argvOf(line: string): string[] {
  return execFileSync('/bin/sh', ['-c', `printf '%s\\n' ${line.replace(/^\S+ /, '').replace(/ < .*$/, '')}`], { encoding: 'utf8' })
    .split('\n')
    .slice(0, -1);
}

describe("a turn's boundary on the built-in hosts' command lines", () => {
  test("whose agent's own commands may write the store: shell write-back hosts and unbounded commands; not Codex, Qwen Code, Pi", () => {
    const writes = Object.fromEntries(
      ['claude', 'codex', 'opencode', 'gemini', 'copilot', 'qwen', 'pi'].map((h) => [h, shellWritesStore(h, DEFAULT_HOSTS)]),
    );
    expect(writes).toEqual({ claude: true, codex: false, opencode: true, gemini: true, copilot: true, qwen: false, pi: false });
    // A person's command without {boundary}: nothing keeps its agent from the store, so its calls are its own either way.
    expect(shellWritesStore('codex', { ...DEFAULT_HOSTS, codex: 'codex exec -' })).toBe(true);
    expect(shellWritesStore('custom', { ...DEFAULT_HOSTS, custom: 'node agent.js {prompt}' })).toBe(true);
  });

  test("Codex gets loopx's permission profile (store and hosts' config read-only, key unreadable) and the MCP server as the turn's agent", () => {
    const boundary = turnBoundary(started, launcher, keyDir, {});
    const argv = argvOf(hostCommand('codex', DEFAULT_HOSTS, { promptFile: join(dir, 'p.md'), dir, env: started.env, boundary }));
    expect(argv).not.toContain('--sandbox'); // the older setting would switch the profile off
    const values = argv.filter((_, i) => argv[i - 1] === '-c');
    expect(values).toContain('default_permissions="loopx"');
    expect(values).toContain('permissions.loopx.extends=":workspace"');
    const fs = values.find((v) => v.startsWith('permissions.loopx.filesystem=')) as string;
    expect(fs).toContain('":project_roots"={"."="write"');
    for (const p of AGENT_READ_ONLY) expect(fs).toContain(`${JSON.stringify(p)}="read"`);
    expect(fs).toContain(`${JSON.stringify(keyDir)}="none"`);
    expect(values).toContain(`mcp_servers.loopx.command=${JSON.stringify(launcher)}`);
    expect(values).toContain(`mcp_servers.loopx.args=["mcp","--root",${JSON.stringify(root)}]`);
    expect(values).toContain('mcp_servers.loopx.env={LOOPX_AGENT="codex"}');
    expect(values).toContain('mcp_servers.loopx.default_tools_approval_mode="approve"');
    expect(argv.at(-1)).toBe('-');
  });

  test('the key folder is passed on to the MCP server only when it is not the default', () => {
    const { mcp } = turnBoundary(started, 'loopx', keyDir, { LOOPX_CONFIG_DIR: keyDir });
    expect(codexBoundaryArgs({ root, cwd: root, keyDir }, mcp)).toContain(
      `mcp_servers.loopx.env={LOOPX_AGENT="codex",LOOPX_CONFIG_DIR=${JSON.stringify(keyDir)}}`,
    );
  });

  test("Codex starts the MCP server (outside its sandbox) with the person's PATH when the turn's has a workspace folder on it; its agent's shell keeps the whole", () => {
    mkdirSync(join(root, '.loopx'), { recursive: true });
    const path = process.env.PATH;
    try {
      const whole = [join(root, '.venv/bin'), '/usr/bin', '/bin'].join(':');
      process.env.PATH = whole;
      const { mcp } = turnBoundary(started, 'loopx', keyDir, {});
      const args = codexBoundaryArgs({ root, cwd: root, keyDir }, mcp);
      expect(args).toContain('mcp_servers.loopx.env={LOOPX_AGENT="codex",PATH="/usr/bin:/bin"}');
      expect(args).toContain(`shell_environment_policy.set.PATH=${JSON.stringify(whole)}`);
      // A PATH with no workspace folder on it is left to Codex as it is.
      process.env.PATH = '/usr/bin:/bin';
      expect(codexBoundaryArgs({ root, cwd: root, keyDir }, mcp).filter((a) => typeof a !== 'string' || a.includes('PATH'))).toEqual([]);
    } finally {
      process.env.PATH = path;
      rmSync(join(root, '.loopx'), { recursive: true, force: true });
    }
  });

  test('Claude Code loads no project settings or MCP servers, and is denied editing the protected paths and reading the key', () => {
    const worktree = join(dir, 'work space.loopx-worktrees', 'T1');
    const args = claudeBoundaryArgs({ root, cwd: worktree, keyDir });
    expect(args.slice(0, 4)).toEqual(['--setting-sources', 'user', '--strict-mcp-config', '--disallowedTools']);
    const rules = args.slice(4);
    for (const at of [root, worktree]) {
      expect(rules).toContain(`Edit(/${at}/.loopx/**)`);
      expect(rules).toContain(`Edit(/${at}/.claude/**)`);
      expect(rules).toContain(`Edit(/${at}/.mcp.json)`);
    }
    expect(rules).toContain(`Read(/${keyDir}/**)`);
    // Every rule survives the shell as one word, spaces and quotes in the paths included.
    const line = hostCommand('claude', DEFAULT_HOSTS, {
      promptFile: join(dir, 'p.md'),
      dir,
      env: started.env,
      allowedCommands: ['loopx todo show'],
      boundary: { place: { root, cwd: worktree, keyDir }, mcp: turnBoundary(started, 'loopx', keyDir, {}).mcp },
    });
    const argv = argvOf(line);
    expect(argv.slice(argv.indexOf('--disallowedTools') + 1, argv.indexOf('--allowedTools'))).toEqual(rules);
  });

  test("a review turn's boundary makes the workspace read-only: Codex's read-only profile, Claude Code's and Copilot CLI's deny rules", () => {
    const review = turnBoundary({ cwd: root, env: { ...started.env, LOOPX_ROLE: 'review' } }, 'loopx', keyDir, {});
    expect(review.place.review).toBe(true);
    const codex = codexBoundaryArgs(review.place, review.mcp)
      .map((word) => (typeof word === 'string' ? word : word.shell))
      .filter((_, i, all) => all[i - 1] === '-c');
    expect(codex).toContain('permissions.loopx.extends=":read-only"');
    expect(codex.find((v) => v.startsWith('permissions.loopx.filesystem='))).toContain('":project_roots"={"."="read"');
    expect(claudeBoundaryArgs(review.place)).toContain(`Edit(/${root}/**)`);
    const copilot = copilotTurnSetup(review.place, ['loopx review show'], dir).args;
    expect(copilot).toContain(`write(${root}/**)`);
    expect(copilot[copilot.indexOf(`write(${root}/**)`) - 1]).toBe('--deny-tool');
    // An ordinary turn is as before.
    expect(turnBoundary(started, 'loopx', keyDir, {}).place.review).toBeUndefined();
    expect(claudeBoundaryArgs({ root, cwd: root, keyDir })).not.toContain(`Edit(/${root}/**)`);
  });

  test('only a built-in host whose command carries {boundary} is bounded', () => {
    expect(boundaryOf('codex', DEFAULT_HOSTS.codex)).toBe('enforced');
    expect(boundaryOf('claude', DEFAULT_HOSTS.claude)).toBe('enforced');
    expect(boundaryOf('codex', 'codex exec --sandbox workspace-write -')).toBe('none');
    expect(boundaryOf('custom', 'my-agent {boundary}')).toBe('none');
    expect(hostCommand('custom', { ...DEFAULT_HOSTS, custom: 'my-agent {boundary} {prompt}' }, { promptFile: 'p', dir, env: {} })).toBe(
      "my-agent 'p'",
    );
  });
});
