import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { GENESIS_HASH, eventBody, eventHash, type HashedFields } from './hashChain';
import { sha256Js } from '../nodeCrypto';

// The chain's hashes for these events, fixed: a write hashes with the plain-JavaScript SHA-256 and `log verify` of a
// large log with node:crypto's, so both must give exactly these (and so must any implementation that replaces one).
const EVENTS: HashedFields[] = [
  {
    seq: 1,
    at: '2026-01-02T03:04:05.678Z',
    actor: 'ada',
    actorKind: 'human',
    kind: 'goal.created',
    goalId: 'G1',
    todoId: null,
    data: '{"title":"CSV importer"}',
  },
  {
    seq: 2,
    at: '2026-01-02T03:04:06.000Z',
    actor: 'codex',
    actorKind: 'agent',
    kind: 'todo.added',
    goalId: 'G1',
    todoId: 'T1',
    data: `{"title":"Café – naïve 😀 日本語","x":"${'y'.repeat(7)}"}`,
  },
  {
    seq: 3,
    at: '2026-01-02T03:04:07.000Z',
    actor: 'claude',
    actorKind: 'agent',
    kind: 'todo.claimed',
    goalId: 'G1',
    todoId: 'T1',
    data: `{"detail":"${'z'.repeat(10000)}"}`,
  },
  {
    seq: 4,
    at: '2026-01-02T03:04:08.000Z',
    actor: 'ada',
    actorKind: 'human',
    kind: 'log.accepted',
    goalId: null,
    todoId: null,
    data: '{}',
  },
];
const HASHES = [
  '8f16b989d97b811d62bf0d567b422d9f7713ad164411d4e3fa66ce30ef4a4a77',
  '661e5ae76686286568d0a521e04118ee0b24286f06a63d60eb44b575be422689',
  'eaaf37b572bca45af24e141f20faee3860c6e51d9ea4c108fbeb253ee3087e05',
  'b575863dc0fcfa17ade4adb34e49c0637177314a1ef289e3cb3516f064f9acea',
];

describe('the hash chain', () => {
  const chain = (hash: (text: string) => string) => {
    let prev = GENESIS_HASH;
    return EVENTS.map((e) => (prev = hash(`${prev}\n${eventBody(e)}`)));
  };

  test('is the same with the plain-JavaScript SHA-256 and with node:crypto: multi-byte text and a 10 KB event included', () => {
    expect(chain(sha256Js)).toEqual(HASHES);
    expect(chain((text) => createHash('sha256').update(text, 'utf8').digest('hex'))).toEqual(HASHES);
    let prev = GENESIS_HASH;
    expect(EVENTS.map((e) => (prev = eventHash(prev, e)))).toEqual(HASHES);
  });
});
