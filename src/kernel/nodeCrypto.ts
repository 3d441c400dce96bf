import { closeSync, openSync, readSync } from 'node:fs';
import type * as Crypto from 'node:crypto';
import { sha256Hex } from './sha256';

/**
 * node:crypto costs several milliseconds to load (it pulls in streams): more than the rest of a CLI write. Writes
 * hash an event or two (in plain JavaScript, sha256.ts) and take a lease token from the system's random source;
 * node:crypto is loaded only by what needs more (verifying the whole log, hashing artifacts, running commands) or
 * where there is no /dev/urandom.
 */
let loaded: typeof Crypto | undefined;
export function nodeCrypto(): typeof Crypto {
  return (loaded ??= process.getBuiltinModule('node:crypto') as typeof Crypto);
}

/** 16 bytes from the kernel's random source (what node:crypto itself reads), or null where there is none. */
function urandom(): Buffer | null {
  try {
    const fd = openSync('/dev/urandom', 'r');
    try {
      const bytes = Buffer.alloc(16);
      return readSync(fd, bytes, 0, 16, null) === 16 ? bytes : null;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** A random version 4 UUID (the format of crypto.randomUUID). */
export function randomToken(): string {
  if (loaded) return loaded.randomUUID();
  const b = urandom();
  if (!b) return nodeCrypto().randomUUID();
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** SHA-256 in plain JavaScript (exported for the test that checks it against node:crypto). */
export const sha256Js = sha256Hex;

/**
 * SHA-256 of a text as hex. Once node:crypto is loaded (the extension, log verification), its one-shot hash (Node
 * >= 20.12); before that, the plain-JavaScript one, which gives the same digest without loading it.
 */
export function sha256(text: string): string {
  const c = loaded;
  if (!c) return sha256Js(text);
  return typeof c.hash === 'function' ? c.hash('sha256', text, 'hex') : c.createHash('sha256').update(text).digest('hex');
}
