import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { LOOPX, REPO, cleanEnv, dumpStore, goalsWorkspace } from './harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';

/** Peer review from a terminal (issue 42): a person's setting, agents' verbs, the rounds' gate, runners that review. */
const spaces: { dispose(): void }[] = [];
afterAll(() => spaces.forEach((ws) => ws.dispose()));
const REVIEW_AGENT = join(REPO, 'test', 'cli', 'fixtures', 'reviewAgent.mjs');
const host = (verdict: string, ms = 0) => [`'${process.execPath}'`, REVIEW_AGENT, '{prompt}', verdict, String(ms)].join(' ');

function setUp() {
  const ws = goalsWorkspace([{ title: 'Importer', todos: ['Parse quoted fields'] }]);
  spaces.push(ws);
  const tty = (args: string[], typed: string) => loopxTty(args, typed, { cwd: ws.root });
  return { ...ws, tty };
}

/** `loopx run --once` as a child; its JSON lines. */
function run(root: string, args: string[]): Promise<{ code: number | null; events: Record<string, unknown>[] }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [LOOPX, 'run', '--json', '--once', ...args], { cwd: root, env: cleanEnv() });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) =>
      done({
        code,
        events: out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      }),
    );
  });
}

describe.skipIf(!PTY_AVAILABLE)(`peer review at a terminal${PTY_AVAILABLE ? '' : ` (${PTY_SKIP_REASON})`}`, () => {
  test('a person turns review on at a terminal; an agent or a script cannot change it, and nothing changes', () => {
    const { root, cli, tty } = setUp();
    const on = tty(['goal', 'set-review', 'G1', '--reviewer-host', 'codex', '--rounds', '2', '--json'], 'G1');
    expect(on.code, on.stdout).toBe(0);
    expect(on.json?.data).toMatchObject({ review: { reviewerHost: 'codex', maxRounds: 2, otherHost: true, blocking: ['P0', 'P1', 'P2'] } });
    const before = dumpStore(root);
    const asAgent = cli(['goal', 'set-review', 'G1', '--off', '--json'], { LOOPX_AGENT: 'claude' });
    expect([asAgent.code, asAgent.json.error?.code]).toEqual([3, 'not_allowed']);
    const script = cli(['goal', 'set-review', 'G1', '--off', '--json']); // no terminal to confirm at
    expect(script.code).toBe(3);
    // Odd input at a terminal is judged before anything is asked.
    for (const args of [
      ['--rounds', '0'],
      ['--rounds', 'x'],
      ['--blocking', 'P7'],
      ['--off', '--rounds', '2'],
      ['--off', '--auto-land'],
      ['--reviewer-host', 'Co dex'],
    ]) {
      const odd = tty(['goal', 'set-review', 'G1', ...args, '--json'], 'G1');
      expect(odd.code, args.join(' ')).toBe(2);
    }
    expect(dumpStore(root)).toBe(before);
    // Landing approved changes on their own is the person's setting too.
    const landing = tty(['goal', 'set-review', 'G1', '--reviewer-host', 'codex', '--auto-land', '--json'], 'G1');
    expect(landing.json?.data).toMatchObject({ review: { reviewerHost: 'codex', autoLand: true } });
    expect(landing.stdout).not.toContain('"ok":false');
    expect(tty(['goal', 'set-review', 'G1', '--off', '--json'], 'G1').json?.data).toMatchObject({ review: null });
  });

  test("an agent's ship goes to review; its implementer may not approve it; a reviewer's approval ships it", async () => {
    const { root, cli, tty } = setUp();
    tty(['goal', 'set-review', 'G1', '--json'], 'G1');
    const implemented = await run(root, ['--host', 'custom', '--command', host('approve'), '--agent', 'claude']);
    expect(implemented.events.find((e) => e.event === 'turn_ended')).toMatchObject({ resultKind: 'validated_completion' });
    const shown = cli(['todo', 'show', 'T1', '--json']).json.data;
    expect(shown).toMatchObject({ status: 'in_review', implementer: 'claude', reviewRound: 1 });
    const before = dumpStore(root);
    const self = cli(['review', 'approve', 'T1', '--summary', 'mine is fine', '--json'], { LOOPX_AGENT: 'claude' });
    expect([self.code, self.json.error?.code]).toEqual([3, 'not_allowed']);
    const unclaimed = cli(['review', 'approve', 'T1', '--summary', 'fine', '--json'], { LOOPX_AGENT: 'codex' });
    expect([unclaimed.code, unclaimed.json.error?.code]).toEqual([3, 'not_allowed']);
    expect(cli(['review', 'approve', 'T1', '--json'], { LOOPX_AGENT: 'codex' }).json.error?.code).toBe('invalid_input');
    expect(dumpStore(root)).toBe(before);
    const text = cli(['review', 'show', 'T1']).stdout;
    expect(text).toContain('## Todo T1: Parse quoted fields (review round 1 of 3)');
    expect(text).toContain('> ran the fixtures');
    // The implementer's runner finds nothing: the change waits for a reviewer, never its own.
    const again = await run(root, ['--host', 'custom', '--command', host('approve'), '--agent', 'claude']);
    expect(again.events.find((e) => e.event === 'turn_started')).toBeUndefined();
    const reviewed = await run(root, ['--host', 'custom', '--command', host('approve'), '--agent', 'codex', '--goal', 'G1']);
    expect(reviewed.events.find((e) => e.event === 'turn_started')).toMatchObject({ role: 'review', agent: 'codex', todoId: 'T1' });
    expect(reviewed.events.find((e) => e.event === 'turn_ended')).toMatchObject({ resultKind: 'validated_completion' });
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  });

  test("with --auto-land, the reviewer's approval lands the change on main once its check passed: the kernel's landing, on the person's setting", async () => {
    const { root, cli, tty } = setUp();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'ada@example.com');
    git('config', 'user.name', 'Ada');
    git('add', '-A');
    git('commit', '-qm', 'start');
    expect(tty(['goal', 'set-worktree', 'G1', '--base', 'main', '--json'], 'G1').code).toBe(0);
    expect(tty(['goal', 'set-check', 'G1', '--check', 'test -f T1.txt', '--json'], 'G1').code).toBe(0);
    expect(tty(['goal', 'set-review', 'G1', '--auto-land', '--json'], 'G1').json?.data).toMatchObject({ review: { autoLand: true } });
    const implemented = await run(root, ['--host', 'custom', '--command', host('approve'), '--agent', 'claude']);
    expect(implemented.events.find((e) => e.event === 'turn_ended')).toMatchObject({ resultKind: 'validated_completion' });
    expect(git('log', '--format=%s', 'main')).toBe('start');
    const reviewed = await run(root, ['--host', 'custom', '--command', host('approve'), '--agent', 'codex']);
    expect(reviewed.events.find((e) => e.event === 'turn_ended')).toMatchObject({ resultKind: 'validated_completion' });
    // The approved file, committed on the branch for claude, is on main now, and the landing is the kernel's.
    expect(readFileSync(join(root, 'T1.txt'), 'utf8')).toBe('the change\n');
    expect(git('log', '-1', '--format=%an|%s', 'main')).toBe('claude (via loopx)|T1: Parse quoted fields');
    expect(cli(['worktree', 'list', '--json']).json.data).toEqual([expect.objectContaining({ todoId: 'T1', status: 'merged' })]);
    const events = cli(['history', '--todo', 'T1', '--json']).json.data as { kind: string; actor: string }[];
    expect(events.filter((e) => e.kind === 'worktree.landed').map((e) => e.actor)).toEqual(['kernel']);
  });

  test('past the rounds a gate asks the person with both sides; approving it at a terminal approves the change', async () => {
    const { root, cli, tty } = setUp();
    tty(['goal', 'set-review', 'G1', '--rounds', '1', '--json'], 'G1');
    await run(root, ['--host', 'custom', '--command', host('approve'), '--agent', 'claude']);
    const asked = await run(root, ['--host', 'custom', '--command', host('request-changes'), '--agent', 'codex']);
    expect(asked.events.find((e) => e.event === 'turn_ended')).toMatchObject({ resultKind: 'user_action_required' });
    const gates = cli(['gate', 'list', '--json']).json.data as { id: string; question: string; askedBy: string }[];
    expect(gates).toHaveLength(1);
    expect(gates[0]?.askedBy).toBe('kernel');
    expect(gates[0]?.question).toMatch(
      /ran 1 round[\s\S]*claude\) says it checked: ran the fixtures[\s\S]*codex\) asks for changes: quotes are not doubled/,
    );
    // Nobody reviews it while the person decides.
    const meanwhile = await run(root, ['--host', 'custom', '--command', host('approve'), '--agent', 'gemini']);
    expect(meanwhile.events.find((e) => e.event === 'turn_started')).toBeUndefined();
    const decided = tty(['gate', 'approve', gates[0]?.id as string, '--json'], gates[0]?.id as string);
    expect(decided.code, decided.stdout).toBe(0);
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
    const brief = cli(['review', 'show', 'T1', '--json']).json.data as { rounds: { verdict: string; byPerson: boolean }[] };
    expect(brief.rounds).toMatchObject([{ verdict: 'approve', byPerson: true }]);
  });

  test('two runners on the reviewer host never review one change twice', async () => {
    const { root, cli, tty } = setUp();
    tty(['goal', 'set-review', 'G1', '--json'], 'G1');
    await run(root, ['--host', 'custom', '--command', host('approve'), '--agent', 'claude']);
    const both = await Promise.all(
      ['rev-1', 'rev-2'].map((agent) => run(root, ['--host', 'custom', '--command', host('approve', 1500), '--agent', agent])),
    );
    const started = both.flatMap((r) => r.events.filter((e) => e.event === 'turn_started'));
    expect(started).toHaveLength(1);
    expect(readFileSync(join(root, 'reviews.log'), 'utf8').trim().split('\n')).toHaveLength(1);
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  });
});
