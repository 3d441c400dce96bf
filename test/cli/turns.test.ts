import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { dumpStore, loopx, startGoal, workspace } from './harness';

const ws = workspace();
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
beforeAll(() => {
  cli(['init']);
  cli(['goal', 'create', '--title', 'Parser', '--turns', '2']);
  startGoal(ws.root);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Headers']);
});
afterAll(() => ws.dispose());

test('turn start → the agent writes back → turn finish; a failed todo waits for its retry instead of running again at once', () => {
  const start = cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--agent', 'bot', '--json']);
  expect(start.json).toMatchObject({
    ok: true,
    data: { id: 'R1', todoId: 'T1', agent: 'bot', host: 'custom', route: 'ready_for_host', env: { LOOPX_TURN: 'R1' } },
  });
  const prompt = readFileSync((start.json.data as { promptFile: string }).promptFile, 'utf8');
  expect(prompt).toContain('LOOPX_AGENT=bot');
  writeFileSync(`${ws.root}/out.txt`, 'ok');
  expect(cli(['todo', 'ship', 'T1', '--evidence', 'done', '--artifact', 'out.txt', '--json'], { LOOPX_AGENT: 'bot' }).code).toBe(0);
  expect(cli(['turn', 'finish', 'R1', '--exit-code', '0', '--json']).json).toMatchObject({
    ok: true,
    data: { resultKind: 'validated_completion', spent: true },
  });
  cli(['todo', 'add', '--goal', 'G1', '--title', 'Body']);
  cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--agent', 'bot', '--json']);
  expect(cli(['turn', 'finish', 'R2', '--exit-code', '1', '--json']).json).toMatchObject({
    ok: true,
    data: { resultKind: 'host_failure', spent: false },
  });
  const before = dumpStore(ws.root);
  const again = cli(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--agent', 'bot', '--json']);
  expect(again.code).toBe(3);
  expect(again.json).toMatchObject({
    ok: false,
    error: { code: 'should_not_run' },
    data: { route: 'wait', reason: 'no_change', run: false, nextWakeAt: expect.stringMatching(/^\d{4}-/) },
  });
  expect(dumpStore(ws.root)).toBe(before);
  expect(cli(['turn', 'list', '--json']).json.data).toMatchObject([
    { id: 'R2', resultKind: 'host_failure' },
    { id: 'R1', resultKind: 'validated_completion' },
  ]);
  const packet = cli(['review-packet', '--json']).json.data as { markdown: string };
  expect(packet.markdown).toMatch(/### Shipped[\s\S]*T1\*\* Headers[\s\S]*`out.txt` sha256/);
  expect(packet.markdown).toContain('| R2 | T2 | implement | bot | custom |');
});

test('turn commands refuse bad input with exit 2 and unknown turns with exit 4', () => {
  expect(cli(['turn', 'finish', 'R9', '--exit-code', '0', '--json']).code).toBe(4);
  expect(cli(['turn', 'finish', 'R1', '--exit-code', 'zero', '--json']).code).toBe(2);
  expect(cli(['turn', 'start', '--goal', 'G1', '--host', 'My Host', '--json']).code).toBe(2);
});

test('doctor warns about an open turn whose agent no longer holds its todo, and names the way out', () => {
  const own = workspace();
  const run = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: own.root, env });
  try {
    run(['init']);
    run(['goal', 'create', '--title', 'g']);
    startGoal(own.root);
    run(['todo', 'add', '--goal', 'G1', '--title', 'a']);
    run(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--agent', 'bot']);
    const turns = () =>
      (run(['doctor', '--json']).json.data as { checks: { name: string; level: string; detail: string }[] }).checks.find(
        (c) => c.name === 'turns',
      );
    expect(turns()).toMatchObject({ level: 'ok' });
    expect(run(['todo', 'release', 'T1', '--note', 'stepping away'], { LOOPX_AGENT: 'bot' }).code).toBe(0);
    const doctor = run(['doctor', '--json']);
    expect(doctor.code).toBe(0); // a warning, not a failure
    expect(turns()).toMatchObject({
      level: 'warn',
      detail: expect.stringContaining('R1 (bot, T1); finish with: loopx turn finish R1 --exit-code 1'),
    });
    run(['turn', 'finish', 'R1', '--exit-code', '1']);
    expect(turns()).toMatchObject({ level: 'ok' });
  } finally {
    own.dispose();
  }
});

test('turn start reads well in a terminal: who works what, the prompt, the environment, how to finish', () => {
  const own = workspace();
  const run = (args: string[]) => loopx(args, { cwd: own.root });
  try {
    run(['init']);
    run(['goal', 'create', '--title', 'g']);
    startGoal(own.root);
    run(['todo', 'add', '--goal', 'G1', '--title', 'a']);
    const out = run(['turn', 'start', '--goal', 'G1', '--host', 'codex']).stdout.split('\n');
    expect(out[0]).toBe('Started R1: codex works T1 (host codex).');
    expect(out[1]).toMatch(/^Prompt: .*\.loopx\/turns\/R1\/prompt\.md$/);
    expect(out[2]).toMatch(/^Environment for the host: LOOPX_AGENT=codex LOOPX_TURN=R1 /);
    expect(out[3]).toBe('When the host exits: loopx turn finish R1 --exit-code $?');
  } finally {
    own.dispose();
  }
});

test('turn list pages like todo list: --limit, --offset for the next page, --all, and "more" in the envelope', () => {
  const own = workspace();
  const run = (args: string[]) => loopx(args, { cwd: own.root });
  try {
    run(['init']);
    run(['goal', 'create', '--title', 'g', '--turns', '100', '--max-concurrent', '5']);
    startGoal(own.root);
    for (let i = 0; i < 5; i++) run(['todo', 'add', '--goal', 'G1', '--title', `t${i}`]);
    for (let i = 0; i < 5; i++) run(['turn', 'start', '--goal', 'G1', '--host', 'custom', '--agent', `bot-${i}`]);
    const ids = (r: ReturnType<typeof run>) => (r.json.data as { id: string }[]).map((t) => t.id);
    const first = run(['turn', 'list', '--limit', '2', '--json']);
    expect([ids(first), (first.json as { more?: number }).more]).toEqual([['R5', 'R4'], 3]);
    const second = run(['turn', 'list', '--limit', '2', '--offset', '2', '--json']);
    expect([ids(second), (second.json as { more?: number }).more]).toEqual([['R3', 'R2'], 1]);
    const last = run(['turn', 'list', '--limit', '2', '--offset', '4', '--json']);
    expect([ids(last), (last.json as { more?: number }).more]).toEqual([['R1'], undefined]);
    expect(ids(run(['turn', 'list', '--all', '--json']))).toEqual(['R5', 'R4', 'R3', 'R2', 'R1']);
    expect(run(['turn', 'list', '--limit', '2']).stdout).toContain('… 3 more (next page: loopx turn list --offset 2');
    expect(run(['turn', 'list', '--limit', '50000', '--json']).code).toBe(0);
  } finally {
    own.dispose();
  }
});
