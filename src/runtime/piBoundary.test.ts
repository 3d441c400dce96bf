import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { piGuardText } from './piBoundary';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'loopx-pi-guard-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

type Handler = (event: { toolName: string; input?: Record<string, unknown> }) => { block: true; reason: string } | undefined;

/** The guard as Pi loads it: its module's default export, given an API that keeps the tool_call handler. */
async function guardFor(root: string): Promise<Handler> {
  const piDir = join(root, '.loopx', 'turns', 'R1', 'pi');
  mkdirSync(piDir, { recursive: true });
  const file = join(piDir, 'loopx-guard.mjs');
  writeFileSync(file, piGuardText({ root, cwd: root, keyDir: join(base, 'key') }, piDir));
  let handler: Handler | undefined;
  const guard = (await import(pathToFileURL(file).href)) as { default(pi: { on(event: string, h: Handler): void }): void };
  guard.default({ on: (event, h) => (event === 'tool_call' ? (handler = h) : undefined) });
  if (!handler) throw new Error('the guard registered no tool_call handler');
  return handler;
}

// Symbolic links: a POSIX file system (the fast tier on Windows skips it, visibly).
test.skipIf(process.platform === 'win32')(
  "Pi's guard judges a path where it really leads, the workspace reached through a link included: a protected folder that does not exist yet is refused as well",
  async () => {
    const real = join(base, 'real workspace');
    mkdirSync(real);
    const linked = join(base, 'linked');
    symlinkSync(real, linked);
    const guard = await guardFor(linked);
    const call = (toolName: string, path?: string) => guard({ toolName, input: path === undefined ? {} : { path } });
    // Refused: the shell, an MCP tool the turn was not given, writes into protected paths (existing or not, through
    // either name of the workspace), reads outside it and of the turn's Pi folder.
    expect(call('bash')?.reason).toMatch(/this turn has no bash/);
    expect(call('mcp__loopx__loopx_claim')?.reason).toMatch(/this turn has no/);
    for (const path of [
      join(linked, '.claude', 'settings.json'),
      join(real, '.claude', 'x'),
      join(linked, '.loopx', 'loopx.db'),
      '.git/hooks/pre-commit',
    ])
      expect(call('write', path)?.reason, path).toMatch(/loopx's or an agent host's/);
    expect(call('read', '/etc/hostname')?.reason).toMatch(/outside the workspace/);
    expect(call('read', join(linked, '.loopx', 'turns', 'R1', 'pi', 'loopx-guard.mjs'))?.reason).toMatch(/own Pi folder/);
    // Allowed: the turn's MCP tools, reads and edits in the workspace, a read of loopx's files.
    expect(call('mcp__loopx__loopx_ship')).toBeUndefined();
    expect(call('write', join(linked, 'src', 'new.ts'))).toBeUndefined();
    expect(call('edit', 'notes.md')).toBeUndefined();
    expect(call('read', join(linked, '.loopx', 'STATUS.md'))).toBeUndefined();
    expect(call('ls')).toBeUndefined();
  },
);
