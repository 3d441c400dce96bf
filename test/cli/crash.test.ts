import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Kernel } from '../../src/kernel/kernel';
import { REPO, loopx, workspace } from './harness';

const ws = workspace();
const WRITER = join(REPO, 'dist', 'test', 'writer.js');

beforeAll(() => Kernel.init(ws.root).kernel.close());
afterAll(() => ws.dispose());

/** Starts a writer that commits as fast as it can, lets it run a random while, then SIGKILLs it. */
function killWriterMidFlight(name: string, runMs: number): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [WRITER, ws.root, name], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), runMs));
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? done(name) : fail(new Error(`writer ended without the kill: ${stderr}`))));
  });
}

test('kill -9 of concurrent writers mid-transaction leaves a consistent store', async () => {
  for (let round = 0; round < 4; round++) {
    await Promise.all([0, 1, 2].map((i) => killWriterMidFlight(`w${round}-${i}`, 150 + Math.floor(Math.random() * 350))));
  }
  const kernel = Kernel.open(ws.root);
  try {
    expect(kernel.db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    const events = Number(kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
    expect(events).toBeGreaterThan(100); // the writers really wrote before dying
    // No torn operation: every shipped todo has its claim and evidence, every claim is either live or shipped.
    const torn = kernel.db
      .prepare(
        `SELECT id FROM todos t WHERE status = 'shipped' AND NOT EXISTS (SELECT 1 FROM events e WHERE e.todo_id = t.id AND e.kind = 'evidence')`,
      )
      .all();
    expect(torn).toEqual([]);
  } finally {
    kernel.close();
  }
  const verify = loopx(['log', 'verify', '--json'], { cwd: ws.root });
  expect(verify.json).toMatchObject({ ok: true, data: { ok: true, firstBadSeq: null } });
  const doctor = loopx(['doctor', '--json'], { cwd: ws.root });
  expect(doctor.code).toBe(0);
  expect(doctor.json.data).toMatchObject({
    ok: true,
    checks: expect.arrayContaining([{ name: 'replay', level: 'ok', detail: expect.any(String) }]),
  });
});
