import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Kernel } from '../../kernel/kernel';
import { createGoal } from '../../kernel/goals/goals';
import { addTodo } from '../../kernel/todos/todos';
import { claimTodo } from '../../kernel/todos/claims';
import { AGENT_VERBS } from '../agentCommands';
import { CLI_COMMANDS } from '../registry';
import type { Command } from '../command';
import { SERVED_VERBS } from './servedVerbs';
import { type VerbRequest, VerbServer, parseVerbRequest } from './verbServer';
import { RUNNER_TOKEN_ENV, verbSocketFolder } from '../../runtime/verbSocket';

/** A folder for sockets outside the temp folder (which verbSocketFolder refuses): the checkout's own cache. */
const SOCKETS = join(__dirname, '..', '..', '..', '.cache', 'test-sockets');

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function store(): string {
  const root = mkdtempSync(join(tmpdir(), 'loopx-serve-'));
  const { kernel } = Kernel.init(root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  createGoal(kernel, { title: 'Nightly' });
  addTodo(kernel, { goalId: 'G1', title: 'Step 1' });
  kernel.close();
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

async function server(root: string): Promise<VerbServer> {
  mkdirSync(SOCKETS, { recursive: true });
  const s = await VerbServer.start(root, { HOME: SOCKETS, XDG_CACHE_HOME: SOCKETS });
  if (!s) throw new Error('the server did not start');
  cleanups.push(() => s.close());
  return s;
}

function request(root: string, token: string, argv: string[], env: Record<string, string> = {}): VerbRequest {
  return { v: 1, token, argv, cwd: root, env: { LOOPX_AGENT: 'codex', NO_COLOR: '1', ...env }, tty: false };
}

describe('a runner answers its turns’ agents’ calls', () => {
  test('a granted agent’s store-only call runs in the runner, under its own name, with its output and exit code', async () => {
    const root = store();
    const s = await server(root);
    const token = s.grant({ agent: 'codex', turnId: 'R1', shellWrites: true })[RUNNER_TOKEN_ENV] as string;
    const claim = await s.answer(request(root, token, ['todo', 'claim', 'T1', '--json']));
    expect(claim).toMatchObject({ served: true, code: 0, stderr: '' });
    expect(JSON.parse((claim as { stdout: string }).stdout)).toMatchObject({ ok: true, data: { id: 'T1', owner: 'codex' } });
    // A refusal is answered too, in the same words and exit code as the agent's own process would give.
    const again = await s.answer(request(root, token, ['todo', 'show', 'T9', '--json']));
    expect(again).toMatchObject({ served: true, code: 4 });
    expect(s.served).toBe(2);
    const k = Kernel.open(root);
    expect(k.db.prepare(`SELECT actor, actor_kind AS kind FROM events WHERE kind = 'todo.claimed'`).get()).toEqual({
      actor: 'codex',
      kind: 'agent',
    });
    k.close();
  });

  test('the store stays open between calls, and each call sees what other processes wrote meanwhile', async () => {
    const root = store();
    const s = await server(root);
    const token = s.grant({ agent: 'codex', turnId: 'R1', shellWrites: true })[RUNNER_TOKEN_ENV] as string;
    const show = async () =>
      JSON.parse(((await s.answer(request(root, token, ['todo', 'show', 'T1', '--json']))) as { stdout: string }).stdout);
    expect((await show()).data).toMatchObject({ status: 'open' });
    const other = Kernel.open(root, { actor: { name: 'claude', kind: 'agent' } });
    claimTodo(other, 'T1');
    other.close();
    expect((await show()).data).toMatchObject({ status: 'claimed', owner: 'claude' });
    // Its own write and the next read, on the connection it kept.
    expect(await s.answer(request(root, token, ['todo', 'add', '--goal', 'G1', '--title', 'Step 2', '--json']))).toMatchObject({
      served: true,
      code: 0,
    });
    expect(JSON.parse(((await s.answer(request(root, token, ['todo', 'list', '--json']))) as { stdout: string }).stdout).data).toHaveLength(
      2,
    );
  });

  test('not served, so run by the caller as before: another name, --root or --agent, another store, a verb with side effects, an unknown or ended turn', async () => {
    const root = store();
    const other = store();
    const s = await server(root);
    const env = s.grant({ agent: 'codex', turnId: 'R1', shellWrites: true });
    const token = env[RUNNER_TOKEN_ENV] as string;
    const why = async (r: VerbRequest | null) => {
      const a = await s.answer(r);
      return a.served ? 'served' : a.why;
    };
    expect(await why(request(root, token, ['todo', 'next', '--json'], { LOOPX_AGENT: 'claude' }))).toBe('another_agent');
    expect(await why({ ...request(root, token, ['status']), env: { NO_COLOR: '1' } })).toBe('another_agent'); // a person's call
    expect(await why(request(root, token, ['todo', 'next', '--root', other]))).toBe('explicit_option');
    expect(await why(request(root, token, ['--agent=codex', 'todo', 'next']))).toBe('explicit_option');
    expect(await why(request(root, token, ['todo', 'next'], { LOOPX_ROOT: other }))).toBe('another_store');
    expect(await why(request(tmpdir(), token, ['todo', 'next']))).toBe('no_store');
    for (const argv of [
      ['turn', 'start', '--goal', 'G1'],
      ['monitor', 'tick'],
      ['gate', 'approve', 'Q1'],
      ['todo', 'kill', 'T1'],
      ['evidence', 'run', '--', 'true'],
    ])
      expect([argv.join(' '), await why(request(root, token, argv))]).toEqual([argv.join(' '), 'not_served_verb']);
    expect(await why(request(root, token, ['todo', 'add', '--goal', 'G1', '--title', 'x', '--check', 'true']))).toBe('side_effects');
    expect(await why(request(root, 'not-a-token', ['todo', 'next']))).toBe('unknown_token');
    s.revoke(env);
    expect(await why(request(root, token, ['todo', 'next']))).toBe('unknown_token');
    expect(await why(null)).toBe('malformed');
    expect(s.served).toBe(0);
  });

  test('an agent whose host keeps its shell from the store (Codex: it writes through MCP) is answered its reads, never a write', async () => {
    const root = store();
    const s = await server(root);
    const token = s.grant({ agent: 'codex', turnId: 'R1', shellWrites: false })[RUNNER_TOKEN_ENV] as string;
    const claim = await s.answer(request(root, token, ['todo', 'claim', 'T1', '--json']));
    expect(claim).toEqual({ served: false, why: 'reads_only' });
    for (const argv of [
      ['evidence', 'add', '--todo', 'T1', '--summary', 'x'],
      ['todo', 'add', '--goal', 'G1', '--title', 'x'],
      ['handoff', 'accept', 'H1'],
    ])
      expect([argv.join(' '), await s.answer(request(root, token, argv))]).toEqual([argv.join(' '), { served: false, why: 'reads_only' }]);
    expect(await s.answer(request(root, token, ['todo', 'show', 'T1', '--json']))).toMatchObject({ served: true, code: 0 });
    const k = Kernel.open(root);
    expect(k.db.prepare(`SELECT count(*) AS n FROM events WHERE actor = 'codex'`).get()?.n).toBe(0);
    k.close();
  });

  test('over its socket: one JSON line in, one out; a malformed or oversized request changes nothing', async () => {
    const root = store();
    const s = await server(root);
    expect(lstatSync(s.path).isSocket()).toBe(true);
    expect(statSync(s.path).mode & 0o777).toBe(0o600);
    const token = s.grant({ agent: 'codex', turnId: 'R1', shellWrites: true })[RUNNER_TOKEN_ENV] as string;
    const ask = (text: string) =>
      new Promise<string>((done) => {
        const socket = createConnection(s.path);
        let reply = '';
        socket.on('data', (d) => (reply += d));
        socket.on('error', () => undefined);
        socket.on('close', () => done(reply));
        socket.write(text);
      });
    expect(JSON.parse(await ask(`${JSON.stringify(request(root, token, ['todo', 'next', '--json']))}\n`))).toMatchObject({
      served: true,
      code: 0,
    });
    expect(JSON.parse(await ask('{"v":1}\n'))).toEqual({ served: false, why: 'malformed' });
    expect(await ask('x'.repeat(2 << 20))).toBe(''); // closed without an answer
    expect(s.served).toBe(1);
    s.close();
    expect(() => lstatSync(s.path)).toThrow();
  });

  test('a socket a killed runner left behind is removed by the next runner to listen; a live one’s is kept', async () => {
    const root = store();
    const first = await server(root);
    const folder = dirname(first.path);
    const gone = join(folder, 'r999999999-deadbeef.sock');
    writeFileSync(gone, '');
    const second = await server(root);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(first.path)).toBe(true); // this very process's: alive
    expect(second.path).not.toBe(first.path);
  });

  test('a request is read field by field: anything else is malformed', () => {
    const good = request('/w', 't', ['status']);
    expect(parseVerbRequest(JSON.stringify(good))).toEqual(good);
    for (const bad of [
      'not json',
      '[]',
      'null',
      JSON.stringify({ ...good, v: 2 }),
      JSON.stringify({ ...good, token: 7 }),
      JSON.stringify({ ...good, argv: ['status', 1] }),
      JSON.stringify({ ...good, cwd: 'relative/folder' }),
      JSON.stringify({ ...good, env: { LOOPX_AGENT: 1 } }),
      JSON.stringify({ ...good, env: ['LOOPX_AGENT=codex'] }),
      JSON.stringify({ ...good, tty: 'yes' }),
    ])
      expect([bad, parseVerbRequest(bad)]).toEqual([bad, null]);
  });
});

describe('where the socket lives', () => {
  test('a folder of the person’s own, 0700: never the temp folder (Codex’s sandbox writes it) nor a loopx workspace', () => {
    mkdirSync(SOCKETS, { recursive: true });
    const runtime = join(SOCKETS, 'runtime');
    mkdirSync(runtime, { recursive: true, mode: 0o755 });
    const folder = verbSocketFolder({ XDG_RUNTIME_DIR: runtime, HOME: SOCKETS });
    expect(folder).toBe(join(runtime, 'loopx'));
    expect(statSync(folder as string).mode & 0o777).toBe(0o700);
    // No runtime folder: the cache folder's.
    expect(verbSocketFolder({ HOME: SOCKETS })).toBe(join(SOCKETS, '.cache', 'loopx', 'run'));
    // The temp folder, however it is named, and a workspace: none.
    expect(verbSocketFolder({ HOME: tmpdir() })).toBeNull();
    expect(verbSocketFolder({ XDG_CACHE_HOME: join(tmpdir(), 'c'), HOME: tmpdir() })).toBeNull();
    const root = store();
    expect(verbSocketFolder({ HOME: root })).toBeNull();
    expect(verbSocketFolder({ HOME: join(root, 'home', 'ann') })).toBeNull();
  });
});

describe('what is served', () => {
  const words = (c: { name: string[] }) => c.name.join(' ');
  test('every agent verb that only reads or only writes the store, and nothing else; turn finish reads the host’s files', () => {
    const agentVerbs = new Set(AGENT_VERBS.map((v) => v.words.join(' ')));
    const reads = (c: Command) => c.readOnly === true || c.mutates !== true;
    const expected = CLI_COMMANDS.filter((c) => agentVerbs.has(words(c)) && (reads(c) || c.storeOnly) && words(c) !== 'turn finish');
    expect(SERVED_VERBS.map(words).sort()).toEqual(expected.map(words).sort());
    expect(SERVED_VERBS.filter((c) => c.humanOnly)).toEqual([]);
    for (const c of SERVED_VERBS) expect([words(c), CLI_COMMANDS.includes(c)]).toEqual([words(c), true]);
  });
});
