import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import * as ours from './pgScramCrypto';

// pg's own functions (Web Crypto), which the bundled pg's are held to: the same bytes for the same inputs.
const theirs = createRequire(__filename)('pg/lib/crypto/utils') as Record<keyof typeof ours, (...args: unknown[]) => Promise<unknown>>;
const bytes = (value: unknown) => Buffer.from(value as ArrayBuffer).toString('hex');

describe("pg's SCRAM and MD5 steps on Node's crypto", () => {
  test('each step gives what pg computes with Web Crypto', async () => {
    const salt = Buffer.from('c2FsdHNhbHRzYWx0c2FsdA==', 'base64');
    const salted = await ours.deriveKey('pencil ü', salt, 4096);
    expect(bytes(salted)).toBe(bytes(await theirs.deriveKey('pencil ü', salt, 4096)));
    expect(bytes(await ours.hmacSha256(salted, 'Client Key'))).toBe(bytes(await theirs.hmacSha256(salted, 'Client Key')));
    expect(bytes(await ours.sha256(salted))).toBe(bytes(await theirs.sha256(salted)));
    for (const name of ['SHA-256', 'SHA-384', 'SHA-512'])
      expect(bytes(await ours.hashByName(name, salted)), name).toBe(bytes(await theirs.hashByName(name, salted)));
    expect(await ours.md5('password')).toBe(await theirs.md5('password'));
    expect(await ours.postgresMd5PasswordHash('ada', 'secret', Buffer.from([1, 2, 3, 4]))).toBe(
      await theirs.postgresMd5PasswordHash('ada', 'secret', Buffer.from([1, 2, 3, 4])),
    );
    expect(ours.randomBytes(18)).toHaveLength(18);
  });
});
