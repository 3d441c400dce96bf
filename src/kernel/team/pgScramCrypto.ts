import { createHash, createHmac, pbkdf2Sync, randomBytes as nodeRandomBytes } from 'node:crypto';

/**
 * What `pg` computes SCRAM and MD5 authentication with (its lib/crypto/utils.js), on Node's own hashes and HMACs
 * instead of Web Crypto: the bundled pg (dist/pg.js, esbuild.mjs) resolves its `./crypto/utils` here. The same
 * functions with the same results (pgScramCrypto.test.ts holds them to pg's); what changes is the cost of a one-shot
 * call's connection: Web Crypto's first use loads its module and queues each step on the thread pool, about 3 ms of a
 * 110 ms agent call on Node 20 (docs/team.md#figures), where a connection is opened for every call. pg awaits each
 * function, so a value where it expects a promise is the same to it.
 */

export function randomBytes(length: number): Buffer {
  return nodeRandomBytes(length);
}

/** PBKDF2-HMAC-SHA-256, 32 bytes: SCRAM's SaltedPassword. */
export async function deriveKey(password: string, salt: Uint8Array, iterations: number): Promise<Buffer> {
  return pbkdf2Sync(password, salt, iterations, 32, 'sha256');
}

export async function hmacSha256(key: Uint8Array | ArrayBuffer, message: string): Promise<Buffer> {
  return createHmac('sha256', Buffer.from(key as ArrayBuffer))
    .update(message, 'utf8')
    .digest();
}

export async function sha256(data: Uint8Array | ArrayBuffer): Promise<Buffer> {
  return createHash('sha256')
    .update(Buffer.from(data as ArrayBuffer))
    .digest();
}

/** A digest by Web Crypto's name (`SHA-256`, `SHA-384`, `SHA-512`): channel binding's certificate hash. */
export async function hashByName(name: string, data: Uint8Array | ArrayBuffer): Promise<Buffer> {
  return createHash(name.replace('-', '').toLowerCase())
    .update(Buffer.from(data as ArrayBuffer))
    .digest();
}

export async function md5(text: string | Uint8Array): Promise<string> {
  return createHash('md5').update(text).digest('hex');
}

/** AuthenticationMD5Password's answer: 'md5' + md5(md5(password + user) + salt). */
export async function postgresMd5PasswordHash(user: string, password: string, salt: Uint8Array): Promise<string> {
  const inner = await md5(password + user);
  return `md5${await md5(Buffer.concat([Buffer.from(inner), salt]))}`;
}
