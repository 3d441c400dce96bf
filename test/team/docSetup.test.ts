import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO, loopx, startGoal } from '../cli/harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from '../cli/pty';
import { findPostgresServers } from '../support/findPostgres.mjs';
import { install, teamSuite } from './teamKit';

/**
 * docs/team.md's set-up, run word for word: the block between `<!-- setup:begin -->` and `<!-- setup:end -->` is read
 * from the doc and each of its commands runs against a real PostgreSQL as the person (or machine) its section names;
 * only `db.example:5432` becomes the test server's address. The doc's ~/.pgpass lines are each machine's ~/.pgpass,
 * and the server asks those logins for a password, so the set-up works as written only if every login the doc makes
 * can connect the doc's way. Issue 38: the owner the doc set up could not push (not a member of loopx_humans), and
 * every command using ~/.pgpass printed pg's DeprecationWarning on stderr.
 */

/**
 * Debian's PostgreSQL (15 on bookworm) and the newer majors npm installs (16, and 18, the newest in Debian's unstable):
 * the doc's words must hold on each; PostgreSQL 16 changed what CREATEROLE may grant. The client tools the doc runs
 * (`createuser`, `createdb`) are Debian's on every server, as a person's machine would have them.
 */
const servers = findPostgresServers();

interface Section {
  heading: string;
  /** The ~/.pgpass line the heading gives, if any. */
  pgpass: string | null;
  commands: string[];
}

/** The doc's set-up block, in sections: each `# …` comment line starts one, and the command lines under it are its. */
function setupBlock(): Section[] {
  const doc = readFileSync(join(REPO, 'docs', 'team.md'), 'utf8');
  const block = /<!-- setup:begin -->\s*```sh\n([\s\S]*?)```\s*<!-- setup:end -->/.exec(doc)?.[1];
  if (!block) throw new Error('docs/team.md has no set-up block between <!-- setup:begin --> and <!-- setup:end -->');
  const sections: Section[] = [];
  for (const line of block.split('\n').map((l) => l.trim())) {
    if (!line) continue;
    if (line.startsWith('#')) sections.push({ heading: line, pgpass: /has: (\S+)$/.exec(line)?.[1] ?? null, commands: [] });
    else sections.at(-1)?.commands.push(line);
  }
  return sections;
}

/** A command line's words, as sh splits them (single and double quotes; no expansions are used in the block). */
function words(line: string): string[] {
  const out: string[] = [];
  let word: string | null = null;
  let quote: '"' | "'" | null = null;
  for (const c of line) {
    if (quote) {
      if (c === quote) quote = null;
      else word = (word ?? '') + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word = word ?? '';
    } else if (c === ' ') {
      if (word !== null) out.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (word !== null) out.push(word);
  return out;
}

describe.skipIf(!install || !PTY_AVAILABLE).each(servers.map((server) => ({ server, major: /\d+/.exec(server.version)?.[0] })))(
  "docs/team.md's set-up, word for word, on PostgreSQL $major",
  ({ server, major }) => {
    const suite = teamSuite('docsetup', server);
    test('createuser, createdb, team init, team push as the owner, logins, a join from a second workspace, an agent writes', async () => {
      const { cluster } = suite;
      const address = `127.0.0.1:${cluster.port}`;
      const here = (text: string) => text.replaceAll('db.example:5432', address);
      // The logins the doc gives a ~/.pgpass line are asked for their password (scram), as on a real server.
      const sections = setupBlock();
      const withPasswords = sections.flatMap((s) => (s.pgpass ? [s.pgpass.split(':')[3] as string] : []));
      expect(withPasswords).toEqual(['bob', 'ci_agents']);
      const hba = join(cluster.socketDir, 'data', 'pg_hba.conf');
      writeFileSync(hba, `host all ${withPasswords.join(',')} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
      await cluster.sql('postgres', 'SELECT pg_reload_conf()');

      // The workspace with the history: a goal, a person's start, a todo (what ada has before she reads the doc).
      const folder = (name: string) => {
        const path = join(suite.work, name);
        mkdirSync(path, { recursive: true });
        return path;
      };
      const history = folder('ada-workspace');
      const adaHome = folder('ada-home');
      loopx(['init'], { cwd: history });
      loopx(['goal', 'create', '--title', 'Shared goal'], { cwd: history, env: { HOME: adaHome } });
      startGoal(history);
      loopx(['todo', 'add', '--goal', 'G1', '--title', 'first'], { cwd: history, env: { HOME: adaHome } });

      // Who runs each section: the superuser on the server, ada in her workspace, bob and the agents' machine in theirs.
      const machines = [
        { match: /superuser/, cwd: folder('server'), human: 'postgres', home: folder('server-home') },
        { match: /As ada/, cwd: history, human: 'ada', home: adaHome },
        { match: /bob's machine/, cwd: folder('bob-workspace'), human: 'bob', home: folder('bob-home') },
        { match: /agents' machine/, cwd: folder('ci-workspace'), human: 'carol', home: folder('ci-home') },
      ];
      const superuser = { PGHOST: '127.0.0.1', PGPORT: String(cluster.port), PGUSER: 'loopx_admin' };
      const outputs: string[] = [];
      expect(sections.map((s) => machines.findIndex((m) => m.match.test(s.heading)))).toEqual([0, 1, 2, 3]);
      for (const [index, section] of sections.entries()) {
        const who = machines[index] as (typeof machines)[number];
        if (section.pgpass) {
          writeFileSync(join(who.home, '.pgpass'), `${here(section.pgpass)}\n`);
          chmodSync(join(who.home, '.pgpass'), 0o600);
        }
        for (const line of section.commands) {
          const argv = words(here(line));
          const env: Record<string, string> = { HOME: who.home, LOOPX_HUMAN: who.human };
          while (/^[A-Z_]+=/.test(argv[0] ?? '')) {
            const [name, ...value] = (argv.shift() as string).split('=');
            env[name as string] = value.join('=');
          }
          const [command, ...args] = argv as [string, ...string[]];
          let run: { code: number; stdout: string; stderr: string };
          if (command === 'loopx') run = env.LOOPX_AGENT ? loopx(args, { cwd: who.cwd, env }) : loopxTty(args, '', { cwd: who.cwd, env });
          else {
            const tool = spawnSync(join(install?.bin as string, command), args, {
              cwd: who.cwd,
              env: { ...process.env, ...(index === 0 ? superuser : {}), ...env },
              encoding: 'utf8',
            });
            run = { code: tool.status ?? -1, stdout: tool.stdout, stderr: tool.stderr };
          }
          expect(run.code, `${line}\n${run.stdout}\n${run.stderr}`).toBe(0);
          // No warning of any kind, pg's pgpass DeprecationWarning included (bob's and the agents' machine use ~/.pgpass).
          if (command === 'loopx') expect(run.stderr, line).toBe('');
          outputs.push(run.stdout);
        }
      }

      // team init said ada is a member of loopx_humans; her push then moved the history with its person's decisions. On 15
      // team init grants it; from 16 on, the server itself makes the role that creates loopx_humans its member (with
      // ADMIN OPTION), so she already is one.
      const membership = major === '15' ? /ada is now a member of loopx_humans \(granted just now\)/ : /ada is a member of loopx_humans/;
      expect(outputs.join('\n')).toMatch(membership);
      const log = await cluster.sql('loopx', 'SELECT seq, kind, actor, written_by FROM loopx.events ORDER BY seq');
      const kinds = log.rows.map((r) => `${r.kind} ${r.written_by}`);
      expect(kinds).toContain('goal.created ada');
      expect(kinds).toContain('team.pushed ada');
      // bob's join is recorded by bob (a person's login); the agents' login joined without a record; codex claimed.
      expect(kinds).toContain('team.joined bob');
      expect(log.rows.filter((r) => r.kind === 'team.joined')).toHaveLength(1);
      expect(log.rows.at(-1)).toMatchObject({ kind: 'todo.claimed', actor: 'codex', written_by: 'ci_agents' });
      // The password really is asked for: bob without his ~/.pgpass is refused by the server.
      const bob = machines[2] as (typeof machines)[number];
      const without = loopx(['team', 'status', '--json'], { cwd: bob.cwd, env: { HOME: folder('empty-home') } });
      expect(without.json).toMatchObject({ ok: false, data: { reachable: false } });
    }, 180_000);

    test('an owner that may not grant itself loopx_humans is told the exact GRANT a superuser runs; once run, it is a member', async () => {
      const { cluster } = suite;
      // The roles already exist in the cluster, made by someone else; dora owns her database but may not create roles.
      await cluster.sql(
        'postgres',
        `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'loopx_humans') THEN CREATE ROLE loopx_humans NOLOGIN; END IF;
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'loopx_agents') THEN CREATE ROLE loopx_agents NOLOGIN; END IF; END $$`,
      );
      await cluster.sql('postgres', 'CREATE ROLE dora LOGIN');
      await cluster.sql('postgres', 'CREATE DATABASE dora_store OWNER dora');
      const root = join(suite.work, 'dora');
      mkdirSync(root);
      const init = () =>
        loopxTty(['team', 'init', '--database', cluster.url('dora_store', 'dora'), '--json'], '', {
          cwd: root,
          env: { LOOPX_HUMAN: 'dora' },
        });
      const first = init();
      expect(first.code, first.stdout + first.stderr).toBe(0);
      expect(first.json).toMatchObject({
        ok: true,
        data: { role: 'dora', owner: { humans: 'grant_needed', grant: 'GRANT loopx_humans TO dora;' } },
      });
      const said = loopxTty(['team', 'init', '--database', cluster.url('dora_store', 'dora')], '', {
        cwd: root,
        env: { LOOPX_HUMAN: 'dora' },
      });
      expect(said.stdout).toMatch(
        /dora may not grant itself loopx_humans, so it cannot push a store or decide gates yet\. A superuser runs, in psql on this database's server: {2}GRANT loopx_humans TO dora;/,
      );
      await cluster.sql('postgres', 'GRANT loopx_humans TO dora');
      expect(init().json).toMatchObject({ ok: true, data: { owner: { humans: 'member' } } });
    }, 60_000);
  },
);

test('the set-up is tried on PostgreSQL 15, 16 and 18 here', () => {
  // The npm servers are optional dependencies (linux-x64 builds): on this platform, all three must be here to try.
  const majors = servers.map((s) => /\d+/.exec(s.version)?.[0]);
  if (process.platform === 'linux' && process.arch === 'x64') expect(majors).toEqual(['15', '16', '18']);
  else expect(majors.length).toBeGreaterThan(0);
});

if (!PTY_AVAILABLE) test.skip(PTY_SKIP_REASON, () => {});
