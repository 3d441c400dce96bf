import { hmacSha256 } from '../nodeCrypto';
import type { HumanKey, KeyLook } from '../humanKey';
import { canonicalJson } from './canonical';
import { type HashedFields, eventBody } from './hashChain';

/**
 * A person's proof on an event: an HMAC-SHA256, under the per-user key (humanKey.ts), of what the chain hashes for the
 * event without the proof (its prevHash and its body: seq, time, actor, kind, ids, data). It is stored in the event's
 * data as `proof: {key, mac}`, so the chain covers it too. The chain alone has no secret: anyone who can write the
 * store can append a well-chained event; only a process that can read the key can prove one.
 */
export interface Proof {
  /** The key's id (keyId): which machine's key made it. */
  key: string;
  mac: string;
}

const DOMAIN = 'loopx decision proof v1\n';

export function proofMac(key: Uint8Array, prevHash: string, body: string): string {
  return hmacSha256(key, `${DOMAIN}${prevHash}\n${body}`);
}

/** The payload with its proof added, for the appender: `fields.data` is the canonical payload without the proof. */
export function withProof<T extends object>(key: HumanKey, prevHash: string, fields: HashedFields, payload: T): T & { proof: Proof } {
  return { ...payload, proof: { key: key.id, mac: proofMac(key.key, prevHash, eventBody(fields)) } };
}

/** A stored event as the proof check reads it: the hashed columns, `data` as stored. */
export interface StoredFields extends HashedFields {
  prevHash: string;
}

/**
 * Whether a stored event's proof holds under this machine's key: `proven`; `none` (no proof, or one made with another
 * key, or this process has no key); `bad` (made with this key, and the event is not what it signed).
 */
export type ProofStatus = 'proven' | 'none' | 'bad';

export function proofStatus(look: KeyLook, e: StoredFields): ProofStatus {
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(e.data) as Record<string, unknown>;
  } catch {
    return 'bad';
  }
  const proof = data?.proof as Partial<Proof> | undefined;
  if (!proof || typeof proof !== 'object' || typeof proof.mac !== 'string') return 'none';
  if (!look.key || proof.key !== look.id) return 'none';
  const { proof: _proof, ...rest } = data;
  const expected = proofMac(look.key, e.prevHash, eventBody({ ...e, data: canonicalJson(rest) }));
  return timingSafeEqualHex(expected, proof.mac) ? 'proven' : 'bad';
}

function timingSafeEqualHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
