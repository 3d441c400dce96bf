import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { checkTeamUrl, describeUrl, readTeamPointer, resolveTeamConnection, writeTeamPointer } from './teamPointer';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'loopx-pointer-'));
  dirs.push(d);
  return d;
}

/** A libpq service file with two services, and an environment that names it (and nothing else of the user's). */
function serviceEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const home = dir();
  const file = join(home, 'services.conf');
  writeFileSync(
    file,
    [
      '# libpq service file',
      '[team]',
      'host=db.example',
      'port=6543',
      'dbname=loopx',
      'user=ci_agents',
      'password=p@ss word',
      'sslmode=require',
      '',
      '[local]',
      'host=/var/run/postgresql',
      'dbname=loopx_local',
    ].join('\n'),
  );
  return { HOME: home, PGSERVICEFILE: file, ...extra };
}

describe('the workspace pointer', () => {
  test('is written whole and read back; a URL with a password is refused and nothing is written', () => {
    const root = dir();
    mkdirSync(join(root, '.loopx'));
    expect(readTeamPointer(root)).toBeNull();
    expect(() => writeTeamPointer(root, 'postgresql://ada:secret@db.example/loopx')).toThrow(/carries a password/);
    expect(() => writeTeamPointer(root, 'postgresql://db.example/loopx?password=secret')).toThrow(/carries a password/);
    expect(readTeamPointer(root)).toBeNull();
    writeTeamPointer(root, ' postgresql://ada@db.example:5432/loopx ');
    expect(readTeamPointer(root)).toEqual({ version: 1, database: 'postgresql://ada@db.example:5432/loopx' });
  });

  test('a damaged pointer is environment trouble (exit 6), each problem named', () => {
    const root = dir();
    mkdirSync(join(root, '.loopx'));
    for (const [content, problem] of [
      ['', /not JSON/],
      ['[]', /not a JSON object/],
      ['{"database":"postgresql://h/d"}', /version undefined/],
      ['{"version":1}', /"database" is not a URL/],
      ['{"version":1,"database":"https://h/d"}', /not PostgreSQL's scheme/],
      ['{"version":1,"database":"postgresql://u:p@h/d"}', /carries a password/],
    ] as const) {
      writeFileSync(join(root, '.loopx', 'team.json'), content);
      expect(() => readTeamPointer(root), content).toThrow(problem);
      try {
        readTeamPointer(root);
      } catch (error) {
        expect(error).toMatchObject({ code: 'team_pointer_damaged', exitCode: 6 });
      }
    }
  });

  test('checkTeamUrl refuses what is not a PostgreSQL URL as invalid input (exit 2)', () => {
    expect(() => checkTeamUrl('')).toThrow(/is empty/);
    expect(() => checkTeamUrl('db.example:5432')).toThrow(/scheme|not a URL/);
    expect(() => checkTeamUrl('postgres://u:p@h/d')).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(checkTeamUrl('postgres://h/d')).toBe('postgres://h/d');
  });
});

describe('the connection', () => {
  test('LOOPX_DATABASE_URL overrides the pointer, which overrides PGSERVICE; libpq decides when nothing is named', () => {
    const env = serviceEnv({ PGSERVICE: 'team' });
    expect(resolveTeamConnection('postgresql://h/p', { ...env, LOOPX_DATABASE_URL: 'postgresql://u:pw@e/x' })).toMatchObject({
      source: 'LOOPX_DATABASE_URL',
      settings: { connectionString: 'postgresql://u:pw@e/x' },
      shown: 'postgresql://u:***@e/x',
    });
    expect(resolveTeamConnection('postgresql://h/p', env)).toMatchObject({
      source: 'pointer',
      settings: { connectionString: 'postgresql://h/p' },
    });
    expect(resolveTeamConnection(undefined, env)).toMatchObject({ source: 'PGSERVICE', shown: 'service=team' });
    expect(resolveTeamConnection(undefined, { HOME: dir() })).toEqual({ source: 'libpq environment', settings: {}, shown: null });
  });

  test('a service is read from the service file with the ini package: host, port, database, user, password, sslmode', () => {
    const url = new URL(resolveTeamConnection(undefined, serviceEnv({ PGSERVICE: 'team' })).settings.connectionString as string);
    expect([url.hostname, url.port, url.pathname, decodeURIComponent(url.username), decodeURIComponent(url.password)]).toEqual([
      'db.example',
      '6543',
      '/loopx',
      'ci_agents',
      'p@ss word',
    ]);
    expect(url.searchParams.get('sslmode')).toBe('require');
    // A socket directory goes where pg reads it: the host parameter.
    const local = new URL(resolveTeamConnection(undefined, serviceEnv({ PGSERVICE: 'local' })).settings.connectionString as string);
    expect(local.searchParams.get('host')).toBe('/var/run/postgresql');
    expect(local.pathname).toBe('/loopx_local');
  });

  test('service= in a URL fills in what the URL leaves out; the URL’s own parts win', () => {
    const env = serviceEnv();
    const parts = (given: string) => {
      const url = new URL(resolveTeamConnection(given, env).settings.connectionString as string);
      return [url.hostname, url.port, url.pathname, url.username, url.searchParams.has('service')];
    };
    expect(parts('postgresql:///other?service=team')).toEqual(['db.example', '6543', '/other', 'ci_agents', false]);
    expect(parts('postgresql://bob@h2/other?service=team')).toEqual(['h2', '6543', '/other', 'bob', false]);
  });

  test('a missing service file or service is said as such (exit 6)', () => {
    expect(() => resolveTeamConnection(undefined, { HOME: dir(), PGSERVICE: 'team' })).toThrow(/no service file/);
    expect(() => resolveTeamConnection(undefined, serviceEnv({ PGSERVICE: 'nope' }))).toThrow(
      expect.objectContaining({ code: 'team_service_unreadable', exitCode: 6 }),
    );
  });

  test('describeUrl never shows a password', () => {
    expect(describeUrl('postgresql://u:secret@h/d?password=x')).toBe('postgresql://u:***@h/d?password=***');
    expect(describeUrl(undefined)).toBeNull();
  });
});
