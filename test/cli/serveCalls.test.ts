import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { LOOPX, cleanEnv, goalsWorkspace, loopxAsync, workspace } from './harness';
import { parseServeLine } from '../../src/cli/commands/serveCalls';
import { verbSocketFolder } from '../../src/runtime/verbSocket';
import { teamPointerPath, teamReplicaPath } from '../../src/kernel/team/teamPointer';

/**
 * `loopx serve-calls`: what a VS Code window starts to answer its turns' agents' calls (src/extension/turns/turnCalls.ts),
 * driven here as the window drives it: the socket's path as an argument, each turn's token granted and revoked on stdin.
 */
const HOME = join(__dirname, '..', '..', '.cache', 'test-sockets', 'serve-calls-home');
const spaces: { dispose(): void }[] = [];
const helpers: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const h of helpers) if (h.exitCode === null) h.kill('SIGKILL');
  for (const ws of spaces) ws.dispose();
});

function setUp(): { root: string; folder: string } {
  const ws = goalsWorkspace([{ title: 'Nightly', todos: ['Step 1'] }]);
  spaces.push(ws);
  mkdirSync(HOME, { recursive: true });
  const folder = verbSocketFolder({ HOME });
  if (!folder) throw new Error('no socket folder');
  return { root: ws.root, folder };
}

/** The helper as a window starts it; `lines` collects what it prints, one JSON object a line. */
function helper(root: string, socket: string) {
  const child = spawn(process.execPath, [LOOPX, 'serve-calls', '--socket', socket], {
    cwd: root,
    env: cleanEnv({ HOME, LOOPX_ROOT: root }),
  });
  helpers.push(child);
  const lines: Record<string, unknown>[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end).trim();
      pending = pending.slice(end + 1);
      if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  const heard = async (what: (line: Record<string, unknown>) => boolean) => {
    for (let i = 0; i < 300 && !lines.some(what); i++) await new Promise((r) => setTimeout(r, 50));
    const line = lines.find(what);
    if (!line) throw new Error(`the helper did not say it; it said ${JSON.stringify(lines)}`);
    return line;
  };
  const exited = new Promise<number | null>((done) => child.on('exit', done));
  return { child, lines, heard, exited, send: (o: object) => child.stdin.write(`${JSON.stringify(o)}\n`) };
}

const token = () => randomBytes(24).toString('base64url');
/** An agent's call in a turn's terminal: the socket and token the window put in its environment. */
const call = (root: string, socket: string, key: string, args: string[]) =>
  loopxAsync(args, {
    cwd: root,
    env: { HOME, LOOPX_AGENT: 'claude', LOOPX_RUNNER_SOCKET: socket, LOOPX_RUNNER_TOKEN: key, LOOPX_TIMING: '1' },
  });
const bundleOf = (stderr: string) => /"bundle":"([^"]+)"/.exec(stderr)?.[1];

describe('a window’s helper answers its turns’ agents’ calls', () => {
  test('a granted turn’s calls are answered there, counted at its end; after that, and for any other key, they run in their own process', async () => {
    const { root, folder } = setUp();
    const socket = join(folder, `r${process.pid}-${randomBytes(4).toString('hex')}.sock`);
    const h = helper(root, socket);
    expect(await h.heard((l) => 'listening' in l)).toEqual({ listening: socket });
    const key = token();
    h.send({ grant: { token: key, agent: 'claude', turnId: 'R1', shellWrites: true } });
    const claim = await call(root, socket, key, ['todo', 'claim', 'T1', '--json']);
    expect([claim.code, claim.json.data, bundleOf(claim.stderr)]).toEqual([0, expect.objectContaining({ owner: 'claude' }), 'runner']);
    const shown = await call(root, socket, key, ['todo', 'show', 'T1', '--json']);
    expect([shown.code, bundleOf(shown.stderr)]).toEqual([0, 'runner']);
    // A key the window never granted is not answered: the call runs itself, with the same answer.
    const stranger = await call(root, socket, token(), ['todo', 'show', 'T1', '--json']);
    expect([stranger.code, bundleOf(stranger.stderr)]).toEqual([0, 'agent/todo-show.js']);
    expect(stranger.json.data).toEqual(shown.json.data);
    h.send({ revoke: key });
    expect(await h.heard((l) => l.revoked === key)).toEqual({ revoked: key, answered: 2 });
    const after = await call(root, socket, key, ['todo', 'show', 'T1', '--json']);
    expect([after.code, bundleOf(after.stderr)]).toEqual([0, 'agent/todo-show.js']);
    // The window closed: its stdin ends, the helper with it, and its socket is gone.
    h.child.stdin.end();
    expect(await h.exited).toBe(0);
    expect(existsSync(socket)).toBe(false);
  });

  test('it listens only where loopx keeps sockets, under a name loopx gives one: elsewhere it says so and ends', async () => {
    const { root, folder } = setUp();
    for (const socket of [join(root, 'r1-00000000.sock'), join(folder, 'agent.sock')]) {
      const h = helper(root, socket);
      expect(await h.heard(() => true)).toMatchObject({ notServing: expect.stringMatching(/cannot listen safely here/) });
      expect(await h.exited).toBe(0);
      expect(existsSync(socket)).toBe(false);
    }
  });

  test('a team store is not served (its calls commit their own way): it says so at once, reaching no server', async () => {
    const ws = workspace();
    spaces.push(ws);
    mkdirSync(join(ws.root, '.loopx'));
    // A pointer to a server that is not there, and a replica: opening the store would try the server first.
    writeFileSync(teamPointerPath(ws.root), JSON.stringify({ url: 'postgres://127.0.0.1:1/none', storeId: 'x' }));
    writeFileSync(teamReplicaPath(ws.root), '');
    mkdirSync(HOME, { recursive: true });
    const folder = verbSocketFolder({ HOME }) as string;
    const socket = join(folder, `r${process.pid}-${randomBytes(4).toString('hex')}.sock`);
    const h = helper(ws.root, socket);
    expect(await h.heard(() => true)).toMatchObject({ notServing: expect.stringMatching(/a team store/) });
    expect(await h.exited).toBe(0);
    expect(existsSync(socket)).toBe(false);
  });

  test('a line it cannot read is no grant', () => {
    const key = token();
    expect(parseServeLine(JSON.stringify({ grant: { token: key, agent: 'claude', turnId: 'R1', shellWrites: false } }))).toEqual({
      grant: { token: key, agent: 'claude', turnId: 'R1', shellWrites: false },
    });
    expect(parseServeLine(JSON.stringify({ revoke: key }))).toEqual({ revoke: key });
    for (const bad of [
      'not json',
      JSON.stringify({ grant: { token: 'short', agent: 'claude', turnId: 'R1', shellWrites: true } }),
      JSON.stringify({ grant: { token: key, agent: 'no spaces allowed', turnId: 'R1', shellWrites: true } }),
      JSON.stringify({ grant: { token: key, agent: 'claude', turnId: 'R1' } }),
      JSON.stringify({ revoke: 42 }),
      'null',
    ])
      expect(parseServeLine(bad)).toBeNull();
  });
});
