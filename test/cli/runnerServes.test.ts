import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { LOOPX, loopx, startGoal, workspace } from './harness';
import { type RunnerChild, startRunner } from './runner';
import { AGENT_VERBS } from '../../src/cli/agentCommands';
import { SERVED_VERBS } from '../../src/cli/run/servedVerbs';

/**
 * `loopx run` answers its turns' agents' calls (src/cli/run/verbServer.ts): through the real bin/loopx, each call made
 * both ways by a scripted agent (test/cli/fixtures/servedAgent.mjs) gives the same output and exit code.
 */
const spaces: { root: string; dispose(): void }[] = [];
const children: RunnerChild[] = [];
afterAll(() => {
  for (const r of children) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  for (const ws of spaces) ws.dispose();
});

const SERVED_AGENT = join(__dirname, 'fixtures', 'servedAgent.mjs');

function setUp(): { root: string; cli: (args: string[], env?: Record<string, string>) => ReturnType<typeof loopx> } {
  const ws = workspace();
  spaces.push(ws);
  const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
  cli(['init']);
  cli(['goal', 'create', '--title', 'Nightly']);
  startGoal(ws.root);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Step 1']);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Step 2']);
  return { root: ws.root, cli };
}

type Call = { code: number; stdout: string; stderr: string; bundle?: string };

/** Output with the instants a call reads from the clock (`at`, `now`) left out: two calls a moment apart differ only there. */
function steady(text: string): unknown {
  const drop = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(drop)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([k]) => k !== 'at' && k !== 'now')
              .map(([k, x]) => [k, drop(x)]),
          )
        : v;
  try {
    return drop(JSON.parse(text));
  } catch {
    return text;
  }
}

describe('a runner answers its turns’ agents’ calls', () => {
  test('each call gives the same output and exit code from the runner as from its own process; the writes land under the agent’s name', async () => {
    const { root, cli } = setUp();
    const runner = startRunner(root, ['--host', 'custom', '--command', `'${process.execPath}' '${SERVED_AGENT}'`, '--once']);
    children.push(runner);
    const { code } = await runner.exited;
    expect(code).toBe(0);
    const summary = runner.events.at(-1) as { ok: boolean; data: { callsAnswered: number; turnsRun: number } };
    const served = JSON.parse(readFileSync(join(root, 'served.json'), 'utf8')) as {
      pairs: { args: string[]; served: Call; own: Call }[];
      evidence: Call;
      ship: Call;
    };
    for (const { args, served: a, own: b } of served.pairs) {
      const call = args.join(' ');
      // An unknown verb has no bundle of its own: its first word's bundle says so, in its own process, never asking the runner.
      expect([call, a.bundle]).toEqual([call, call === 'todo frobnicate' ? join('command', 'todo.js') : 'runner']);
      expect([call, b.bundle]).not.toEqual([call, 'runner']);
      expect([call, a.code, steady(a.stdout), a.stderr]).toEqual([call, b.code, steady(b.stdout), b.stderr]);
    }
    // Refusals among them, as an agent meets them: not found, no evidence yet, a bad flag, an unknown verb.
    const codes = Object.fromEntries(served.pairs.map((p) => [p.args.join(' '), p.served.code]));
    expect(codes).toMatchObject({
      'todo show T99 --json': 4,
      'todo claim T99': 4,
      'todo ship T1 --json': 3,
      'todo renew T1 --lease nonsense': 2,
      'todo frobnicate': 2,
    });
    expect([served.evidence.bundle, served.evidence.code, served.ship.bundle, served.ship.code]).toEqual(['runner', 0, 'runner', 0]);
    // Every call made with the turn's key but the unknown verb's was the runner's.
    expect(summary.data).toMatchObject({ turnsRun: 1, callsAnswered: served.pairs.length - 1 + 2 });
    const shown = cli(['todo', 'show', 'T1', '--json']).json.data as { status: string; owner: string | null };
    expect(shown.status).toBe('shipped');
    expect(cli(['history', '--todo', 'T1', '--json']).stdout).toContain('"actor":"custom"');
    expect(cli(['log', 'verify', '--json']).json.ok).toBe(true);
  });

  test('with --no-serve every call runs in its own process', async () => {
    const { root } = setUp();
    const runner = startRunner(root, ['--host', 'custom', '--command', `'${process.execPath}' '${SERVED_AGENT}'`, '--once', '--no-serve']);
    children.push(runner);
    expect((await runner.exited).code).toBe(0);
    const served = JSON.parse(readFileSync(join(root, 'served.json'), 'utf8')) as { pairs: { served: Call }[]; ship: Call };
    expect(served.pairs.filter((p) => p.served.bundle === 'runner')).toEqual([]);
    expect(served.ship.code).toBe(0);
    expect((runner.events.at(-1) as { data: { callsAnswered: number } }).data.callsAnswered).toBe(0);
  });
});

describe('a call whose runner is not there', () => {
  test('a runner that stopped (no socket): the call runs in its own process', () => {
    const { root, cli } = setUp();
    const gone = cli(['todo', 'claim', 'T1', '--json'], {
      LOOPX_AGENT: 'codex',
      LOOPX_RUNNER_SOCKET: join(root, 'no-such.sock'),
      LOOPX_RUNNER_TOKEN: 'old',
      LOOPX_TIMING: '1',
    });
    expect(gone.code).toBe(0);
    expect(gone.json.data).toMatchObject({ id: 'T1', owner: 'codex' });
    expect(gone.stderr).toContain('"bundle":"agent/todo-claim.js"');
  });

  test('a runner that stops after the call was sent and before it answered: said, and the call is not made a second time', async () => {
    const { root, cli } = setUp();
    const dir = mkdtempSync(join(tmpdir(), 'loopx-gone-'));
    const path = join(dir, 'r.sock');
    // Reads the request, then goes away without a word (a runner killed mid-call).
    const server = createServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise<void>((done) => server.listen(path, done));
    try {
      const result = await new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = spawn(process.execPath, [LOOPX, 'todo', 'add', '--goal', 'G1', '--title', 'Once only'], {
          cwd: root,
          env: { ...process.env, LOOPX_AGENT: 'codex', LOOPX_RUNNER_SOCKET: path, LOOPX_RUNNER_TOKEN: 't', NO_COLOR: '1' },
        });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) => done({ code, stderr }));
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('stopped before it answered; whether the call took effect is unknown');
      expect((cli(['todo', 'list', '--json']).json.data as { title: string }[]).map((t) => t.title)).toEqual(['Step 1', 'Step 2']);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('what bin/loopx asks a runner', () => {
  test("only a verb a runner serves: its list of the others is agentVerbs.json's rest", () => {
    const words = (c: { name: string[] }) => c.name.join(' ');
    const listed = /const NEVER_SERVED = \[([^\]]*)\]/.exec(readFileSync(LOOPX, 'utf8'))?.[1] ?? '';
    const neverServed = [...listed.matchAll(/'([a-z-]+)\.js'/g)].map((m) => m[1]);
    const served = new Set(SERVED_VERBS.map(words));
    const rest = AGENT_VERBS.filter((v) => !served.has(v.words.join(' '))).map((v) => v.words.join('-'));
    expect(neverServed.sort()).toEqual(rest.sort());
  });
});
