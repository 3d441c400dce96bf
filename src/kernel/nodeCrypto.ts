import type * as Crypto from 'node:crypto';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { hmac as nobleHmac } from '@noble/hashes/hmac.js';

/**
 * node:crypto costs several milliseconds to load (it pulls in streams). A write hashes an event or two with
 * @noble/hashes' SHA-256 (audited, plain JavaScript, nothing to load); node:crypto is loaded by what needs more:
 * a lease token (claims, handoffs), verifying a long log, hashing artifacts, running commands.
 */
let loaded: typeof Crypto | undefined;
export function nodeCrypto(): typeof Crypto {
  return (loaded ??= process.getBuiltinModule('node:crypto') as typeof Crypto);
}

/**
 * A random version 4 UUID from node:crypto (audited; OpenSSL's generator). A UUID built from /dev/urandom by hand
 * saved loading it, within 5% of a claim on Node 20 and 22 (about 15% on Node 24); @noble/hashes' randomBytes goes
 * through WebCrypto and cost more than node:crypto (the A/B: bench/cliAb.ts, figures in docs/performance.md).
 */
export function randomToken(): string {
  return nodeCrypto().randomUUID();
}

/** SHA-256 of a text's UTF-8 bytes as hex, in plain JavaScript (@noble/hashes): no node:crypto to load. */
export function sha256Js(text: string): string {
  return Buffer.from(nobleSha256(Buffer.from(text, 'utf8'))).toString('hex');
}

/**
 * SHA-256 of a text as hex. Once node:crypto is loaded (the extension, log verification), its one-shot hash (Node
 * >= 20.12); before that, @noble/hashes', which gives the same digest without loading it.
 */
export function sha256(text: string): string {
  const c = loaded;
  if (!c) return sha256Js(text);
  return typeof c.hash === 'function' ? c.hash('sha256', text, 'hex') : c.createHash('sha256').update(text).digest('hex');
}

/**
 * HMAC-SHA256 of a text's UTF-8 bytes as hex: node:crypto's once it is loaded (checking a long log's decisions loads
 * it), else @noble/hashes' (a person's one decision signs without loading it). The same MAC either way.
 */
export function hmacSha256(key: Uint8Array, text: string): string {
  const c = loaded;
  if (c) return c.createHmac('sha256', key).update(text, 'utf8').digest('hex');
  return Buffer.from(nobleHmac(nobleSha256, key, Buffer.from(text, 'utf8'))).toString('hex');
}
