import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { dumpStore, loopx, startGoal, workspace } from './harness';
import { loopxTty } from './pty';

const ws = workspace();
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
const agent = (args: string[]) => cli(args, { LOOPX_AGENT: 'codex' });
beforeAll(() => {
  cli(['init']);
  cli(['goal', 'create', '--title', 'g']);
  startGoal(ws.root);
  cli(['todo', 'add', '--goal', 'G1', '--title', 'a']);
});
afterAll(() => ws.dispose());

test('backup, an agent ships, restore (a human in a terminal) brings the backup back and saves what it replaced; restoring that undoes it', () => {
  const backup = cli(['backup', '--json']);
  expect(backup.code).toBe(0);
  const path = (backup.json.data as { path: string }).path;
  expect(existsSync(path)).toBe(true);
  expect(cli(['backup']).stdout).toMatch(
    /^Backed up \d+ events to \.loopx\/backups\/loopx-\d+T\d+Z-e\d+\.db \(\d+ KB\), verified\.\nAnchor: \d+:[0-9a-f]{64}\n?$/,
  );

  agent(['todo', 'claim', 'T1']);
  agent(['todo', 'ship', 'T1', '--evidence', 'done']);
  const shipped = dumpStore(ws.root);

  const refusals: [string[], Record<string, string>, number, string][] = [
    [['restore', path, '--json'], {}, 3, 'human_channel_required'],
    [['restore', path, '--yes', '--json'], {}, 3, 'human_channel_required'],
    [['restore', path, '--yes', '--json'], { LOOPX_AGENT: 'codex' }, 3, 'not_allowed'],
    [['restore', '--yes', '--json'], {}, 2, 'invalid_usage'],
  ];
  for (const [args, env, code, error] of refusals) {
    const r = cli(args, env);
    expect([r.code, (r.json.error as { code: string } | undefined)?.code], args.join(' ')).toEqual([
      code,
      expect.stringContaining(error.split('_')[0] as string),
    ]);
    expect(dumpStore(ws.root)).toBe(shipped);
  }

  expect(loopxTty(['restore', `${path}.missing`, '--json'], 'restore', { cwd: ws.root }).json?.error?.code).toBe('not_found');
  expect(loopxTty(['restore', path, '--json'], 'no', { cwd: ws.root }).json?.error?.code).toBe('not_confirmed');
  expect(dumpStore(ws.root)).toBe(shipped);
  const restored = loopxTty(['restore', path, '--yes', '--json'], 'restore', { cwd: ws.root });
  expect(restored.json).toMatchObject({ ok: true, data: { from: path, saved: { path: expect.stringMatching(/-before-restore\.db$/) } } });
  expect(cli(['todo', 'list', '--json']).json.data).toMatchObject([{ id: 'T1', status: 'open' }]);
  expect(cli(['log', 'verify', '--json']).code).toBe(0);
  expect(cli(['doctor', '--json']).code).toBe(0);

  const saved = (restored.json?.data as { saved: { path: string } }).saved.path;
  expect(loopxTty(['restore', saved], 'restore', { cwd: ws.root }).stdout).toContain('restore that file to undo');
  expect(dumpStore(ws.root)).toBe(shipped);
});
