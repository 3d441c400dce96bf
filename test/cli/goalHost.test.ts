import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, test } from 'vitest';
import { LOOPX, cleanEnv, goalsWorkspace } from './harness';
import { loopxTty } from './pty';
import { agentCommand } from './runner';

/** `loopx goal set-host`: a person chooses the agent CLI a goal's turns run on; `loopx run` follows it. */
const spaces: { dispose(): void }[] = [];
afterAll(() => spaces.forEach((ws) => ws.dispose()));

function setUp() {
  const ws = goalsWorkspace([
    { title: 'Nightly', todos: ['Step 1'] },
    { title: 'Docs', todos: ['Write the guide'] },
  ]);
  spaces.push(ws);
  const tty = (args: string[], typed: string) => loopxTty(args, typed, { cwd: ws.root });
  const runner = (args: string[]) =>
    spawnSync(process.execPath, [LOOPX, 'run', ...args, '--once', '--json'], {
      cwd: ws.root,
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 50_000,
    });
  return { root: ws.root, cli: ws.cli, tty, runner };
}

const events = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as { event?: string; goalId?: string; goalHost?: string; ok?: boolean; error?: { code: string; message: string } },
    );

describe("a goal's agent", () => {
  test('a person sets it at a terminal; an agent, a script and bad names are refused with nothing changed', () => {
    const { cli, tty } = setUp();
    const count = () => (cli(['history', '--json', '--limit', '1000']).json.data as unknown[]).length;
    const before = count();
    const asAgent = cli(['goal', 'set-host', 'G1', 'custom', '--json'], { LOOPX_AGENT: 'bot' });
    expect(asAgent.code).toBe(3);
    expect(asAgent.json.error?.code).toBe('not_allowed');
    const script = cli(['goal', 'set-host', 'G1', 'custom', '--json']); // no terminal to confirm at
    expect(script.code).toBe(3);
    for (const args of [['G1', 'gpt-5'], ['G1'], ['G1', 'claude', '--clear'], ['G9', 'claude']]) {
      const odd = tty(['goal', 'set-host', ...args, '--json'], args[0] as string); // at a terminal: the input is judged before anything is asked
      expect(odd.code, args.join(' ')).toBe(args[0] === 'G9' ? 4 : 2);
    }
    expect(count()).toBe(before);

    const set = tty(['goal', 'set-host', 'G1', 'claude', '--json'], 'G1');
    expect(set.code, set.stdout).toBe(0);
    expect(cli(['goal', 'show', 'G1', '--json']).json.data).toMatchObject({ host: 'claude' });
    expect(cli(['goal', 'show', 'G1']).stdout).toContain('agent: its turns run on claude');
    const cleared = tty(['goal', 'set-host', 'G1', '--clear', '--json'], 'G1');
    expect(cleared.code, cleared.stdout).toBe(0);
    expect((cli(['goal', 'show', 'G1', '--json']).json.data as { host?: string }).host).toBeUndefined();
  });

  test('loopx run without --host runs the goal on its agent; a runner on another host leaves that goal alone', () => {
    const { cli, tty, runner } = setUp();
    expect(tty(['goal', 'set-host', 'G1', 'custom', '--json'], 'G1').code).toBe(0);
    const ship = ['--command', agentCommand('ship'), '--agent', 'bot'];

    // Without --host: the goals served must name one agent.
    const bare = runner(ship);
    expect(bare.status).toBe(2);
    expect(events(bare.stdout).at(-1)?.error?.message).toContain('give --host: no --goal names the goals to serve');
    const unchosen = runner(['--goal', 'G2', ...ship]);
    expect(unchosen.status).toBe(2);
    expect(events(unchosen.stdout).at(-1)?.error?.message).toContain('no agent was chosen for G2');
    const mixed = runner(['--goal', 'G1', '--goal', 'G2', ...ship]);
    expect(mixed.status).toBe(2);
    expect(events(mixed.stdout).at(-1)?.error?.message).toContain(
      'the goals served run on different agents (G1: custom, G2: chosen at each run)',
    );
    expect(cli(['turn', 'list', '--json']).json.data).toEqual([]);

    const own = runner(['--goal', 'G1', ...ship]);
    expect(own.status, own.stderr).toBe(0);
    expect(cli(['turn', 'list', '--json']).json.data).toMatchObject([{ id: 'R1', goalId: 'G1', host: 'custom' }]);

    // G2's agent is Claude Code: a custom runner serving every goal leaves it alone and says so.
    expect(tty(['goal', 'set-host', 'G2', 'claude', '--json'], 'G2').code).toBe(0);
    cli(['todo', 'add', '--goal', 'G1', '--title', 'Step 2']);
    const other = runner(['--host', 'custom', ...ship]);
    expect(other.status, other.stderr).toBe(0);
    expect(events(other.stdout)).toContainEqual(expect.objectContaining({ event: 'left_alone', goalId: 'G2', goalHost: 'claude' }));
    const turns = cli(['turn', 'list', '--json']).json.data as { goalId: string }[];
    expect(turns.map((t) => t.goalId)).toEqual(['G1', 'G1']);
    // Nor can an agent start one there by hand on another host.
    const byHand = cli(['turn', 'start', '--goal', 'G2', '--host', 'custom', '--json'], { LOOPX_AGENT: 'bot' });
    expect(byHand.code).toBe(3);
    expect(byHand.json.error?.code).toBe('not_allowed');
    expect(cli(['todo', 'show', 'T2', '--json']).json.data).toMatchObject({ status: 'open' });
  });
});
