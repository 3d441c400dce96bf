import { createHash, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { randomToken, sha256, sha256Js } from './nodeCrypto';

const native = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Js (@noble/hashes, with the UTF-8 encoding and hex around it)', () => {
  test('matches node:crypto on the standard vectors and at every padding boundary', () => {
    expect(sha256Js('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Js('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Js('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(sha256Js('a'.repeat(1_000_000))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
    for (let n = 0; n <= 300; n++) expect(sha256Js('x'.repeat(n)), `length ${n}`).toBe(native('x'.repeat(n)));
  });

  test('matches node:crypto on any text, multi-byte characters included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 2000 }), (text) => sha256Js(text) === native(text)),
      { numRuns: 500 },
    );
  });

  test('the kernel hash agrees with node:crypto whichever way it is computed', () => {
    const text = `${'0'.repeat(64)}\n{"kind":"todo.claimed","data":{"owner":"codex"}}`;
    expect(sha256(text)).toBe(native(text));
  });
});

describe('randomToken', () => {
  test('is a version 4 UUID like randomUUID, and never the same twice', () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(randomUUID()).toMatch(uuid);
    const tokens = Array.from({ length: 1000 }, () => randomToken());
    for (const t of tokens) expect(t).toMatch(uuid);
    expect(new Set(tokens).size).toBe(1000);
  });
});
