import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { LOOPX, cleanEnv, goalsWorkspace } from './harness';
import { agentCommand } from './runner';

/** `loopx turn show`: what a turn was, and the config its host started with, recorded by its launcher. */
const spaces: { dispose(): void }[] = [];
afterAll(() => spaces.forEach((ws) => ws.dispose()));

function setUp() {
  const ws = goalsWorkspace([{ title: 'Nightly', todos: ['Step 1', 'Step 2'] }]);
  spaces.push(ws);
  return ws;
}

type Shown = {
  id: string;
  launchedBy: string | null;
  boundary: string | null;
  config: { command: string; commandSha256: string; files: { path: string; sha256: string }[] } | null;
};

describe('loopx turn show', () => {
  test("a runner's turn: its command (a secret-named value masked) and its prompt by hash; a shell's turn: none recorded", () => {
    const { root, cli } = setUp();
    const command = `env LOOPX_DEMO_API_KEY=sk-not-for-the-log ${agentCommand('ship')}`;
    const run = spawnSync(process.execPath, [LOOPX, 'run', '--host', 'custom', '--command', command, '--agent', 'bot', '--once'], {
      cwd: root,
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 50_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const shown = cli(['turn', 'show', 'R1', '--json']).json.data as Shown;
    expect(shown).toMatchObject({ id: 'R1', launchedBy: 'runner', boundary: 'none' });
    expect(shown.config?.command).toContain('env LOOPX_DEMO_API_KEY=… ');
    expect(JSON.stringify(cli(['history', '--json']).json)).not.toContain('sk-not-for-the-log');
    expect(readFileSync(join(root, '.loopx', 'loopx.db')).includes('sk-not-for-the-log')).toBe(false);
    expect(shown.config?.commandSha256).toMatch(/^[0-9a-f]{64}$/);
    const prompt = readFileSync(join(root, '.loopx', 'turns', 'R1', 'prompt.md'));
    expect(shown.config?.files).toEqual([{ path: '.loopx/turns/R1/prompt.md', sha256: createHash('sha256').update(prompt).digest('hex') }]);
    const text = cli(['turn', 'show', 'R1']).stdout;
    expect(text).toContain('launched by: loopx run; boundary: none');
    expect(text).toContain('command: env LOOPX_DEMO_API_KEY=… ');
    expect(text).toContain('.loopx/turns/R1/prompt.md');

    // A turn its agent starts from a shell records no config.
    expect(cli(['turn', 'start', '--goal', 'G1', '--host', 'custom'], { LOOPX_AGENT: 'shell-bot' }).code).toBe(0);
    const own = cli(['turn', 'show', 'R2', '--json']).json.data as Shown;
    expect(own).toMatchObject({ launchedBy: null, boundary: null, config: null });
    expect(cli(['turn', 'show', 'R2']).stdout).toContain('config: not recorded');
  });

  test('a turn that does not exist, or a word that is not a turn id, is refused with the right code', () => {
    const { cli } = setUp();
    const missing = cli(['turn', 'show', 'R9', '--json']);
    expect(missing.code).toBe(4);
    expect(missing.json).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const odd = cli(['turn', 'show', 'T1', '--json']);
    expect(odd.code).toBe(2);
    expect(odd.json).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });
});
