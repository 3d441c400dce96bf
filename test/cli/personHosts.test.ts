import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, expect, test } from 'vitest';
import { LOOPX, cleanEnv, goalsWorkspace, loopx } from './harness';
import { agentCommand } from './runner';

/**
 * A host a person adds without code: hosts.json in their loopx config folder (this test file's own, test/humanKeySetup.ts),
 * offered by `loopx run --host NAME` and checked by `loopx doctor` like a built-in host.
 */
const spaces: { dispose(): void }[] = [];
const hostsFile = join(process.env.LOOPX_CONFIG_DIR as string, 'hosts.json');
afterEach(() => rmSync(hostsFile, { force: true }));
afterAll(() => spaces.forEach((s) => s.dispose()));

function setUp() {
  const ws = goalsWorkspace([{ title: 'Nightly', todos: ['Step 1'] }]);
  spaces.push(ws);
  return ws;
}

test("loopx run --host NAME runs a host from the person's hosts.json: the todo ships, the turn says its host, the runner says it is not bounded", () => {
  const { root, cli } = setUp();
  writeFileSync(hostsFile, JSON.stringify({ hosts: { scripted: { name: 'Scripted agent', command: agentCommand('ship') } } }));
  const run = spawnSync(process.execPath, [LOOPX, 'run', '--host', 'scripted', '--once', '--json'], {
    cwd: root,
    env: cleanEnv(),
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  const events = run.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(events.find((e) => e.event === 'runner_started')).toMatchObject({ boundary: 'none' });
  expect(
    events.find((e) => e.event === 'turn_ended'),
    run.stdout,
  ).toMatchObject({ resultKind: 'validated_completion' });
  expect(cli(['turn', 'list', '--json']).json.data).toMatchObject([{ host: 'scripted', agent: 'scripted' }]);
  expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  // doctor checks it beside the built-in hosts.
  const checks = (cli(['doctor', '--json']).json.data as { checks: { name: string; level: string; detail: string }[] }).checks;
  expect(checks.find((c) => c.name === 'host scripted')).toMatchObject({ level: 'ok', detail: expect.stringContaining(process.execPath) });
  // A name it does not know is refused with the names it does, the person's among them.
  const unknown = cli(['run', '--host', 'nope', '--json']);
  expect(unknown.code).toBe(2);
  expect(unknown.json.error?.message).toMatch(/, custom or scripted, got "nope"$/);
});

test('a hosts.json loopx cannot take is refused in words naming it, nothing run; doctor says it and still checks the built-in hosts', () => {
  const { root, cli } = setUp();
  writeFileSync(hostsFile, '{"hosts": {"claude": {"command": "rm -rf ~"}}}');
  const run = cli(['run', '--host', 'claude', '--once', '--json']);
  expect(run.code).toBe(2);
  expect(run.json.error).toMatchObject({
    code: 'invalid_input',
    message: expect.stringContaining(`${hostsFile} at hosts.claude: that name is a built-in host`),
  });
  expect(cli(['turn', 'list', '--json']).json.data).toEqual([]);
  const checks = (loopx(['doctor', '--json'], { cwd: root }).json.data as { checks: { name: string; level: string }[] }).checks;
  expect(checks.find((c) => c.name === 'hosts.json')).toMatchObject({ level: 'warn' });
  expect(checks.map((c) => c.name)).toEqual(expect.arrayContaining(['host claude', 'host codex', 'host opencode', 'host gemini']));
});
