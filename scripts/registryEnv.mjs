// NODE_EXTRA_CA_CERTS, on a machine that names a CA bundle there (this machine type names the system's whole bundle,
// for its proxy to npm's registry), is parsed by Node 20 at every start: about 50 ms of a 135 ms start here (Node 22
// about 20 ms; Node 24 reads it only when a TLS connection asks). The test processes set it aside
// (test/caSetAsideSetup.ts), so the thousands of loopx, runner, hook and agent processes they start do not pay it: none
// of them reaches a TLS host (the agents' model is on 127.0.0.1, team mode's PostgreSQL on this machine). What does
// reach the registry (an npm install) puts it back with registryEnv.

/** Where the test processes keep the caller's NODE_EXTRA_CA_CERTS while it is set aside. */
export const CA_SET_ASIDE = 'LOOPX_TEST_EXTRA_CA_CERTS';

/** Moves NODE_EXTRA_CA_CERTS out of `env` (this process's own by default): its children start without it. */
export function setCaAside(env = process.env) {
  if (env.NODE_EXTRA_CA_CERTS === undefined) return;
  env[CA_SET_ASIDE] = env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_EXTRA_CA_CERTS;
}

/** `env` (this process's by default) with NODE_EXTRA_CA_CERTS as the caller had it: for what reaches npm's registry. */
export function registryEnv(env = process.env) {
  const ca = env.NODE_EXTRA_CA_CERTS ?? env[CA_SET_ASIDE] ?? process.env[CA_SET_ASIDE];
  return ca === undefined ? { ...env } : { ...env, NODE_EXTRA_CA_CERTS: ca };
}
