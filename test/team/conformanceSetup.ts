import { TEAM_TEST_TEMPLATE_ENV, TEAM_TEST_URL_ENV } from '../support/teamTestStore';
import { TEAM_SCHEMA_SQL } from '../../src/kernel/team/teamSchema';
import { postgresOrExplain, startCluster } from '../support/postgres';

const TEMPLATE = 'loopx_conformance';

/**
 * The conformance run's PostgreSQL (vitest project `team-conformance`): one cluster for the whole run (fsync off, as
 * every test cluster), the team schema installed once into a template database; each test store is a copy of it
 * (src/kernel/team/teamTestStore.ts). The test processes inherit the two variables set here. Stopping the cluster
 * deletes its directory with every database in it.
 */
export async function setup(): Promise<(() => Promise<void>) | undefined> {
  // vitest.config.mts queues this project's kernel tests only where PostgreSQL is installed, or in CI, where its
  // absence must fail the run: postgresOrExplain throws there.
  const install = postgresOrExplain();
  if (!install) return undefined;
  const cluster = await startCluster(install);
  try {
    await cluster.sql('postgres', `CREATE DATABASE ${TEMPLATE}`);
    await cluster.sql(TEMPLATE, TEAM_SCHEMA_SQL);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  process.env[TEAM_TEST_URL_ENV] = cluster.url('postgres');
  process.env[TEAM_TEST_TEMPLATE_ENV] = TEMPLATE;
  return () => cluster.stop();
}
