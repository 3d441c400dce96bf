import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openBetterSqlite } from '../../src/kernel/db/betterSqliteDriver';
import { openNodeSqlite } from '../../src/kernel/db/nodeSqliteDriver';
import { chooseDriver, openDb } from '../../src/kernel/db/openDb';
import { Kernel } from '../../src/kernel/kernel';
import { SCHEMA_VERSION } from '../../src/kernel/db/migrate';
import { MIGRATIONS } from '../../src/kernel/db/migrationSql';
import { APPLICATION_ID } from '../../src/kernel/storeFile';
import { LOOPX, cleanEnv, dumpStore, loopx, startGoal, workspace } from './harness';

let ws: ReturnType<typeof workspace>;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
const storePath = () => Kernel.storePath(ws.root);
beforeEach(() => {
  ws = workspace();
});
afterEach(() => ws.dispose());

/** A bare connection (no pragmas, nothing written) with the driver this pass uses. */
const rawOpen = (path: string) => (chooseDriver() === 'node:sqlite' ? openNodeSqlite(path, 1000) : openBetterSqlite(path, 1000));

function applicationId(path: string): number {
  const db = rawOpen(path);
  try {
    return Number(db.prepare('PRAGMA application_id').get()?.application_id);
  } finally {
    db.close();
  }
}

describe('only a loopx store is opened; anything else is named and left untouched', () => {
  test('init marks the store with its application_id', () => {
    expect(cli(['init']).code).toBe(0);
    expect(applicationId(storePath())).toBe(APPLICATION_ID);
  });

  test('a zero-byte loopx.db is not silently recreated: every command, init included, refuses it (exit 6 not_a_store)', () => {
    mkdirSync(join(ws.root, '.loopx'));
    writeFileSync(storePath(), '');
    for (const args of [['status'], ['log', 'verify'], ['todo', 'list'], ['init'], ['todo', 'add', '--goal', 'G1', '--title', 'x']]) {
      const run = cli([...args, '--json']);
      expect([run.code, run.json.error?.code], args.join(' ')).toEqual([6, 'not_a_store']);
      expect(run.json.error?.message).toContain('empty file');
    }
    const doctor = cli(['doctor', '--json']);
    expect(doctor.code).toBe(3);
    expect(doctor.json.data).toMatchObject({
      ok: false,
      checks: [
        { name: 'store', level: 'fail', detail: expect.stringContaining('not_a_store') },
        expect.objectContaining({ name: 'loopx on PATH' }),
        expect.objectContaining({ name: 'host codex' }),
        expect.objectContaining({ name: 'host claude' }),
        expect.objectContaining({ name: 'host opencode' }),
        expect.objectContaining({ name: 'host gemini' }),
        expect.objectContaining({ name: 'host copilot' }),
        expect.objectContaining({ name: 'host qwen' }),
        expect.objectContaining({ name: 'host pi' }),
        expect.objectContaining({ name: 'check sandbox' }),
        expect.objectContaining({ name: 'agent reach' }),
        expect.objectContaining({ name: 'PATH' }),
      ],
    });
    expect(statSync(storePath()).size).toBe(0);
    expect(existsSync(`${storePath()}-wal`)).toBe(false);
  });

  test("another program's SQLite file is refused, not converted (no loopx tables, not switched to WAL)", () => {
    mkdirSync(join(ws.root, '.loopx'));
    const foreign = rawOpen(storePath());
    foreign.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
    foreign.close();
    const bytes = readFileSync(storePath());
    for (const args of [['status'], ['todo', 'list'], ['init'], ['goal', 'create', '--title', 'g']]) {
      const run = cli([...args, '--json']);
      expect([run.code, run.json.error?.code], args.join(' ')).toEqual([6, 'not_a_store']);
      expect(run.json.error?.message).toMatch(/another program's SQLite database/);
    }
    expect(readFileSync(storePath()).equals(bytes)).toBe(true);
    expect(existsSync(`${storePath()}-wal`)).toBe(false);
  });

  test('a directory where the store should be, and a file of random bytes, are named (exit 6), never "a loopx bug"', () => {
    mkdirSync(storePath(), { recursive: true });
    const dir = cli(['status', '--json']);
    expect([dir.code, dir.json.error?.code]).toEqual([6, 'not_a_store']);
    expect(dir.json.error?.message).toContain('directory');
    ws.dispose();
    ws = workspace();
    mkdirSync(join(ws.root, '.loopx'));
    writeFileSync(storePath(), Buffer.alloc(8192, 7));
    for (const args of [['status'], ['todo', 'list'], ['log', 'verify']]) {
      const run = cli([...args, '--json']);
      expect([run.code, run.json.error?.code], args.join(' ')).toEqual([6, 'store_damaged']);
      expect(run.json.error?.hint).toMatch(/loopx restore/);
    }
    const doctor = cli(['doctor']);
    expect(doctor.code).toBe(3);
    expect(doctor.stdout).toMatch(/FAIL\s+store .*damaged/);
    expect(doctor.stderr).not.toMatch(/internal|loopx bug/);
  });

  test('a store from before the mark is recognised by its schema and marked once (by a command that may write)', () => {
    cli(['init']);
    cli(['goal', 'create', '--title', 'g']);
    const db = openDb(storePath());
    db.exec('PRAGMA application_id = 0');
    db.close();
    expect(cli(['status']).code).toBe(0); // read-only: recognised, not written
    expect(applicationId(storePath())).toBe(0);
    expect(cli(['goal', 'list', '--json']).json).toMatchObject({ ok: true, data: [{ id: 'G1' }] });
    expect(applicationId(storePath())).toBe(APPLICATION_ID);
  });

  test('a store a newer loopx migrated: every command refuses it naming that loopx (exit 3), the file unchanged; doctor names the writer', () => {
    cli(['init']);
    cli(['goal', 'create', '--title', 'Ours', '--json']);
    const version = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
    expect(cli(['doctor', '--json']).json?.data).toMatchObject({
      checks: expect.arrayContaining([
        expect.objectContaining({
          name: 'schema',
          level: 'ok',
          detail: `version ${SCHEMA_VERSION}, written by loopx ${version} (this loopx, ${version}, knows ${SCHEMA_VERSION})`,
        }),
      ]),
    });
    const db = openDb(storePath());
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.exec("UPDATE store_meta SET value = '9.9.9' WHERE key = 'schema_written_by'");
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.close();
    const before = readFileSync(storePath());
    for (const args of [['status'], ['todo', 'next', '--json'], ['doctor'], ['goal', 'create', '--title', 'x']]) {
      const r = cli(args, { LOOPX_AGENT: 'codex' });
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(3);
      expect(`${r.stdout}${r.stderr}`).toContain(
        `this store has schema version ${SCHEMA_VERSION + 1}, written by loopx 9.9.9; this loopx (${version}) only knows versions up to ${SCHEMA_VERSION}`,
      );
      expect(`${r.stdout}${r.stderr}`).toContain('install loopx 9.9.9 or newer');
    }
    expect(readFileSync(storePath()).equals(before), 'the store file is unchanged').toBe(true);
  });

  test('a store of an older schema is migrated by a reading command too (doctor stays green after an upgrade)', () => {
    cli(['init']);
    // A store as schema 2 left it: the first two migrations only, unmarked, no events yet.
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${storePath()}${suffix}`, { force: true });
    const db = openDb(storePath());
    for (const sql of MIGRATIONS.slice(0, 2)) db.exec(sql);
    db.exec('PRAGMA user_version = 2');
    db.close();
    const doctor = cli(['doctor', '--json']);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(cli(['log', 'verify']).code).toBe(0);
    const after = openDb(storePath());
    expect(Number(after.prepare('PRAGMA user_version').get()?.user_version)).toBe(SCHEMA_VERSION);
    after.close();
  });
});

const ROOT = process.getuid?.() === 0;
const SETPRIV = ROOT && spawnSync('setpriv', ['--version']).status === 0;
const asNobody = (args: string[], env: Record<string, string> = {}) => {
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, LOOPX, ...args], {
    cwd: ws.root,
    env: cleanEnv(env),
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json: args.includes('--json') ? JSON.parse(r.stdout) : null };
};
const noSetprivReason = 'needs root and setpriv to run the CLI as another user (nobody)';
if (!SETPRIV) console.warn(`SKIPPED: a store owned by another user: ${noSetprivReason}`);

describe.skipIf(!SETPRIV)(`a store another user owns${SETPRIV ? '' : ` — SKIPPED: ${noSetprivReason}`}`, () => {
  test('status, log verify and doctor read it; a write is refused as store_read_only (exit 6), not as a bug', () => {
    cli(['init']);
    cli(['goal', 'create', '--title', 'g']);
    startGoal(ws.root);
    chmodSync(ws.root, 0o755);
    const before = dumpStore(ws.root);
    expect(asNobody(['status', '--json'])).toMatchObject({ code: 0, json: { ok: true } });
    // Another user has no key of this person's: the chain reads intact, the person's decisions are named as ones this
    // user cannot confirm (exit 3), never an error about the file.
    const verify = asNobody(['log', 'verify', '--json']);
    expect([verify.code, verify.json.error.code]).toEqual([3, 'unproven_decision']);
    const doctor = asNobody(['doctor', '--json']);
    expect(doctor.code).toBe(3);
    const failed = (doctor.json.data.checks as { name: string; level: string }[]).filter((c) => c.level === 'fail').map((c) => c.name);
    expect(failed).toEqual(["people's decisions"]);
    const write = asNobody(['todo', 'add', '--goal', 'G1', '--title', 'x', '--json'], { LOOPX_AGENT: 'codex' });
    expect([write.code, write.json.error.code]).toEqual([6, 'store_read_only']);
    expect(write.json.error.hint).toMatch(/permissions/);
    expect(dumpStore(ws.root)).toBe(before);
  });

  test('a .loopx/ that user cannot read is said as such (exit 6), never "no store found" (which invites init over it)', () => {
    cli(['init']);
    chmodSync(ws.root, 0o755);
    chmodSync(join(ws.root, '.loopx'), 0o700);
    const before = dumpStore(ws.root);
    for (const args of [
      ['status', '--json'],
      ['todo', 'list', '--json'],
      ['status', '--root', ws.root, '--json'],
    ]) {
      const run = asNobody(args);
      expect([run.code, run.json.error.code], args.join(' ')).toEqual([6, 'store_unopenable']);
      expect(run.json.error.message).toMatch(/cannot read .*\.loopx: permission denied/);
    }
    expect(dumpStore(ws.root)).toBe(before);
  });
});

function tryMount(dir: string, options: string): boolean {
  mkdirSync(dir, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]).status === 0;
}
const MOUNT_DIR = join(process.env.TMPDIR ?? '/tmp', `loopx-mount-${process.pid}`);
const CAN_MOUNT = ROOT && tryMount(MOUNT_DIR, 'size=1m') && spawnSync('umount', [MOUNT_DIR]).status === 0;
const noMountReason = 'needs root with permission to mount a tmpfs (for a full disk and a read-only mount)';
if (!CAN_MOUNT) console.warn(`SKIPPED: disk full and read-only mount: ${noMountReason}`);

describe.skipIf(!CAN_MOUNT)(`disk full and a read-only mount (tmpfs)${CAN_MOUNT ? '' : ` — SKIPPED: ${noMountReason}`}`, () => {
  const mounted = (options: string, fn: (root: string) => void) => {
    expect(tryMount(MOUNT_DIR, options)).toBe(true);
    try {
      fn(MOUNT_DIR);
    } finally {
      spawnSync('umount', ['-l', MOUNT_DIR]);
    }
  };
  const at = (root: string, args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env });

  test('a full disk is disk_full (exit 6) and changes nothing', () => {
    mounted('size=2m', (root) => {
      at(root, ['init']);
      at(root, ['goal', 'create', '--title', 'g']);
      // Fill the disk: write until it refuses.
      spawnSync('sh', ['-c', `dd if=/dev/zero of=${join(root, 'filler')} bs=4096 2>/dev/null; true`]);
      let full: ReturnType<typeof at> | undefined;
      let added = 0;
      for (let i = 0; i < 50 && !full; i++) {
        const run = at(
          root,
          ['todo', 'add', '--goal', 'G1', '--title', `todo ${i} ${'x'.repeat(150)}`, '--detail', 'y'.repeat(9000), '--json'],
          { LOOPX_AGENT: 'codex' },
        );
        if (run.code !== 0) full = run;
        else added++;
      }
      expect(full, 'the disk never filled up').toBeDefined();
      expect([full?.code, full?.json.error?.code]).toEqual([6, 'disk_full']);
      expect(full?.json.error?.hint).toMatch(/free space/);
      // Space freed: the store holds exactly the acknowledged writes and its chain verifies.
      rmSync(join(root, 'filler'));
      expect((at(root, ['todo', 'list', '--all', '--json']).json.data as unknown[]).length).toBe(added);
      expect(at(root, ['log', 'verify']).code).toBe(0);
    });
  });

  test('on a read-only mount, reading works and a write is store_read_only (exit 6)', () => {
    mounted('size=4m', (root) => {
      at(root, ['init']);
      at(root, ['goal', 'create', '--title', 'g']);
      expect(spawnSync('mount', ['-o', 'remount,ro', root]).status).toBe(0);
      for (const args of [['status'], ['log', 'verify'], ['doctor']]) {
        const run = at(root, [...args, '--json']);
        expect([run.code, run.json.ok], args.join(' ')).toEqual([0, true]);
      }
      const write = at(root, ['goal', 'create', '--title', 'h', '--json']);
      expect([write.code, write.json.error?.code]).toEqual([6, 'store_read_only']);
    });
  });
});
