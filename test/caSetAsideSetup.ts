// Before every test file: the machine's NODE_EXTRA_CA_CERTS is set aside, so what the tests start (loopx, runners,
// hooks, agents) starts without parsing it (scripts/registryEnv.mjs says why and what puts it back).
// @ts-expect-error: a plain .mjs script (nodeRelease.mjs, which runs before any build, uses it too), without type declarations
import { setCaAside } from '../scripts/registryEnv.mjs';

setCaAside();
