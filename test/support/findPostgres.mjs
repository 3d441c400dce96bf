// Where Debian's PostgreSQL binaries are: plain JavaScript, so vitest.config.mts can ask too (it decides whether the
// team-conformance project runs) without loading TypeScript through Vite's config loader. test/support/postgres.ts
// starts clusters from what this finds.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

/**
 * Debian's PostgreSQL binaries and their version, or null when the package is not installed.
 * @returns {{ bin: string, version: string } | null}
 */
export function findPostgres(env = process.env) {
  // LOOPX_PG_BIN=none: behave as on a machine without PostgreSQL (to see what the suites then say).
  if (env.LOOPX_PG_BIN === 'none') return null;
  const candidates = [...BIN_DIRS, ...(env.LOOPX_PG_BIN ? [env.LOOPX_PG_BIN] : [])];
  for (const bin of candidates.reverse()) {
    if (!existsSync(join(bin, 'postgres')) || !existsSync(join(bin, 'initdb'))) continue;
    const version = execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
    return { bin, version };
  }
  return null;
}

/** The PostgreSQL servers npm installs for the tests (optionalDependencies `pg-server-NN`: linux-x64 builds). */
const NPM_SERVERS = ['pg-server-16', 'pg-server-18'];

/**
 * Every PostgreSQL server the tests can start here: Debian's (its distribution's version) and the newer majors npm
 * installs, so a test of what the docs promise "on 15, 16 and the newest" runs on each. The npm builds ship only the
 * server (`postgres`, `initdb`, `pg_ctl`); client tools (`createuser`, `psql`) come from Debian's install.
 * The server runs as an unprivileged OS user when the tests run as root (postgres.ts), and that user may not reach a
 * checkout under a private home: each npm build is copied once into the temp folder, where it can.
 * @returns {{ bin: string, version: string }[]}
 */
export function findPostgresServers(env = process.env) {
  const debian = findPostgres(env);
  const servers = debian ? [debian] : [];
  if (env.LOOPX_PG_BIN === 'none') return servers;
  for (const name of NPM_SERVERS) {
    const root = installedPackage(name);
    if (!existsSync(join(root, 'native', 'bin', 'postgres'))) continue; // another platform: optional, skipped
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const copy = join(tmpdir(), `loopx-pg-server-${version}`);
    if (!existsSync(join(copy, 'bin', 'postgres'))) {
      const building = mkdtempSync(join(tmpdir(), 'loopx-pg-server-copy-'));
      cpSync(join(root, 'native'), building, { recursive: true, verbatimSymlinks: true });
      // The package's own postinstall makes the libraries' version links; npm runs no install script it was not
      // allowed to (package.json allowScripts), so they are made here, from the package's list.
      for (const { source, target } of JSON.parse(readFileSync(join(root, 'native', 'pg-symlinks.json'), 'utf8'))) {
        const link = join(building, target.replace(/^native\//, ''));
        if (!existsSync(link)) symlinkSync(basename(source), link);
      }
      chmodSync(building, 0o755);
      try {
        renameSync(building, copy); // several suites at once: the first rename wins
      } catch (error) {
        rmSync(building, { recursive: true, force: true });
        if (!existsSync(join(copy, 'bin', 'postgres'))) throw error;
      }
    }
    const bin = join(copy, 'bin');
    const said = execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
    servers.push({ bin, version: said });
  }
  return servers;
}

/**
 * Where npm installed `name`, from the working folder up (the tests and benches run from the checkout). Not resolved
 * through `require`: the package's exports do not include its package.json; and not from `import.meta.url`, which
 * the CommonJS bundles that include this file (the e2e's, `npm start`'s) do not have.
 */
function installedPackage(name, from = process.cwd()) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(candidate) || dirname(dir) === dir) return candidate;
  }
}
