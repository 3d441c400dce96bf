import { describe, expect, test } from 'vitest';
// @ts-expect-error: a plain .mjs script (nodeRelease.mjs uses it too), without type declarations
import { CA_SET_ASIDE, registryEnv, setCaAside } from './registryEnv.mjs';

describe("the test processes' children start without the machine's CA bundle; an npm install gets it back", () => {
  test('setCaAside moves NODE_EXTRA_CA_CERTS aside, and registryEnv puts it back for one call', () => {
    const env: Record<string, string | undefined> = { NODE_EXTRA_CA_CERTS: '/etc/ca.pem', PATH: '/bin' };
    setCaAside(env);
    expect(env).toEqual({ [CA_SET_ASIDE]: '/etc/ca.pem', PATH: '/bin' });
    setCaAside(env);
    expect(env).toEqual({ [CA_SET_ASIDE]: '/etc/ca.pem', PATH: '/bin' });
    expect(registryEnv(env)).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/ca.pem', [CA_SET_ASIDE]: '/etc/ca.pem', PATH: '/bin' });
    expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined();
  });

  test("registryEnv keeps a caller's own NODE_EXTRA_CA_CERTS, else gives the one this process set aside", () => {
    expect(registryEnv({ NODE_EXTRA_CA_CERTS: '/own.pem' }).NODE_EXTRA_CA_CERTS).toBe('/own.pem');
    const bare = registryEnv({ PATH: '/bin' });
    expect(bare.NODE_EXTRA_CA_CERTS).toBe(process.env[CA_SET_ASIDE]);
  });

  test("this test process's own environment has it set aside (test/caSetAsideSetup.ts ran before this file)", () => {
    expect(process.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
  });
});
