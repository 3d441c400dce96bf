import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parsePgpass, pgClientConnection, pgTarget, pgpassMatch } from './pgpass';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A home folder whose ~/.pgpass holds `text` with `mode`. */
function home(text: string, mode = 0o600): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopx-pgpass-'));
  dirs.push(dir);
  writeFileSync(join(dir, '.pgpass'), text);
  chmodSync(join(dir, '.pgpass'), mode);
  return dir;
}

const env = (HOME: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ HOME, USER: 'osuser', ...extra });

describe('the password file, read as libpq reads it', () => {
  test('fields, escapes, comments and wildcards; the first matching line wins', () => {
    const entries = parsePgpass(
      ['# a comment', 'db.example:5432:loopx:bob:first', 'db.example:*:*:bob:second', 'a\\:b:1:d:u:p\\\\w:with:colons', 'short:line'].join(
        '\n',
      ),
    );
    expect(entries).toEqual([
      { host: 'db.example', port: '5432', database: 'loopx', user: 'bob', password: 'first' },
      { host: 'db.example', port: '*', database: '*', user: 'bob', password: 'second' },
      { host: 'a:b', port: '1', database: 'd', user: 'u', password: 'p\\w:with:colons' },
    ]);
    const target = { host: 'db.example', port: '5432', database: 'loopx', user: 'bob' };
    expect(pgpassMatch(entries, target)).toBe('first');
    expect(pgpassMatch(entries, { ...target, database: 'other' })).toBe('second');
    expect(pgpassMatch(entries, { ...target, user: 'eve' })).toBeNull();
    // A Unix socket's directory matches `localhost`.
    expect(pgpassMatch(parsePgpass('localhost:5432:loopx:bob:sock'), { ...target, host: '/run/postgresql' })).toBe('sock');
  });

  test("the target: the URL's parts, else libpq's variables, else its defaults", () => {
    expect(pgTarget('postgresql://bob@db.example:6000/loopx', {})).toEqual({
      host: 'db.example',
      port: '6000',
      database: 'loopx',
      user: 'bob',
    });
    expect(pgTarget('postgresql:///team?host=/run/pg', { PGUSER: 'ada' })).toEqual({
      host: '/run/pg',
      port: '5432',
      database: 'team',
      user: 'ada',
    });
    expect(pgTarget(undefined, { PGHOST: 'h', PGPORT: '7', PGDATABASE: 'd', PGUSER: 'u' })).toEqual({
      host: 'h',
      port: '7',
      database: 'd',
      user: 'u',
    });
    expect(pgTarget(undefined, { USER: 'osuser' })).toEqual({ host: 'localhost', port: '5432', database: 'osuser', user: 'osuser' });
  });

  test("pg is given the file's password in the URL it connects with (a socket URL too), or beside none", () => {
    const dir = home('db.example:5432:loopx:bob:s3cr:et\nlocalhost:5432:team:bob:sock\n*:*:*:osuser:mine\n');
    const url = pgClientConnection({ connectionString: 'postgresql://bob@db.example:5432/loopx' }, env(dir));
    expect(new URL(url.connectionString as string).searchParams.get('password')).toBe('s3cr:et');
    const socket = pgClientConnection({ connectionString: 'postgresql:///team?host=/run/pg&user=bob' }, env(dir));
    expect(new URL(socket.connectionString as string).searchParams.get('password')).toBe('sock');
    expect(pgClientConnection({}, env(dir))).toEqual({ connectionString: undefined, password: 'mine' });
  });

  test('nothing is looked up when a password is given, nothing matches, or the file is readable by others', () => {
    const dir = home('*:*:*:*:filepw\n');
    const given = 'postgresql://bob:own@db.example/loopx';
    expect(pgClientConnection({ connectionString: given }, env(dir))).toEqual({ connectionString: given });
    expect(pgClientConnection({ connectionString: 'postgresql://bob@h/d' }, env(dir, { PGPASSWORD: 'x' }))).toEqual({
      connectionString: 'postgresql://bob@h/d',
    });
    const open = home('*:*:*:*:filepw\n', 0o644);
    expect(pgClientConnection({ connectionString: 'postgresql://bob@h/d' }, env(open))).toEqual({
      connectionString: 'postgresql://bob@h/d',
    });
    const none = home('other:5432:d:bob:pw\n');
    expect(pgClientConnection({ connectionString: 'postgresql://bob@h/d' }, env(none))).toEqual({
      connectionString: 'postgresql://bob@h/d',
    });
    // PGPASSFILE names another file.
    const elsewhere = home('h:5432:d:bob:fromfile\n');
    expect(
      new URL(
        pgClientConnection({ connectionString: 'postgresql://bob@h/d' }, env(none, { PGPASSFILE: join(elsewhere, '.pgpass') }))
          .connectionString as string,
      ).searchParams.get('password'),
    ).toBe('fromfile');
  });
});
