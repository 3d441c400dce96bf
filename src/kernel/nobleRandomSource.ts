/**
 * Stands in for @noble/hashes' random source at build time (esbuild.mjs aliases `@noble/hashes/crypto` here). loopx
 * uses the library only to hash; its own random tokens come from nodeCrypto.ts. The original module loads node:crypto
 * when imported, which is the very cost that hashing with plain JavaScript avoids on every CLI write.
 */
export const crypto = undefined;
