import { execFileSync } from 'node:child_process';
import { createECDH, createPublicKey, randomBytes, verify } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { Agent, createServer, type Server } from 'node:https';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Kernel } from '../../kernel/kernel';
import { askGate } from '../../kernel/gates/gates';
import { createGoal } from '../../kernel/goals/goals';
import { registerProject } from '../../kernel/projects/projectRegistry';
import { kernelStoreId } from '../../kernel/projects/storeIdentity';
import { type RunningDashboard, startDashboard } from './dashboardServer';
import { PUSH_FILE } from './webPush';

// http_ece ships with web-push and has no types: the browser's side of RFC 8291, to read what the server sent.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ece = require('http_ece') as { decrypt(body: Buffer, params: Record<string, unknown>): Buffer };

/**
 * Web Push from `loopx dashboard` to a browser, against a stand-in push service on 127.0.0.1 (HTTPS with a certificate
 * made for the test): the browser's keys made here as a browser makes them, the payload decrypted as a browser would,
 * the VAPID signature checked against the key the page was given.
 */
const made: string[] = [];
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function pushService(dir: string, status = 201) {
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' }); // prettier-ignore
  const received: Received[] = [];
  const waiting: ((r: Received) => void)[] = [];
  const server: Server = createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r = { headers: req.headers, body: Buffer.concat(chunks) };
        received.push(r);
        waiting.shift()?.(r);
        res.writeHead(status).end();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(() => new Promise((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: (id: string) => `https://127.0.0.1:${port}/push/${id}`,
    agent: new Agent({ ca: readFileSync(join(dir, 'cert.pem')) }),
    received,
    next: () => new Promise<Received>((resolve) => waiting.push(resolve)),
  };
}

async function setUp(status?: number, askedBefore?: string) {
  const parent = mkdtempSync(join(tmpdir(), 'loopx-push-'));
  made.push(parent);
  const place = { env: { LOOPX_CONFIG_DIR: join(parent, 'config') } };
  const root = join(parent, 'alpha');
  mkdirSync(root);
  const { kernel } = Kernel.init(root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  createGoal(kernel, { title: 'Release' });
  registerProject(root, 'init', kernelStoreId(kernel), place);
  kernel.close();
  const ask = (question: string) => {
    const codex = Kernel.open(root, { actor: { name: 'codex', kind: 'agent' } });
    askGate(codex, { goalId: 'G1', question });
    codex.close();
  };
  if (askedBefore) ask(askedBefore);
  const service = await pushService(parent, status);
  const dashboard = await startDashboard({ assetsDir: parent, place, secret: 'push-test-secret', pushAgent: service.agent });
  closing.push(() => dashboard.close());
  return { place, root, service, dashboard, ask };
}

/** A browser's subscription: its P-256 key pair and auth secret, made as PushManager makes them. */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return { ecdh, auth, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
}

function call(d: RunningDashboard, method: string, path: string, body?: unknown, cookie = true) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port: d.port,
        path,
        method,
        headers: {
          ...(cookie ? { Cookie: 'loopx_dashboard=push-test-secret' } : {}),
          ...(cookie && method === 'POST' ? { Authorization: 'Bearer push-test-secret' } : {}),
          ...(text ? { 'Content-Type': 'application/json' } : {}),
        },
      },
      (res) => {
        let out = '';
        res.on('data', (c) => (out += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: out }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe('push notifications from the dashboard', () => {
  test('a subscribed browser is sent each new row of what waits, encrypted for it and signed with the key it was given', async () => {
    const { place, service, dashboard, ask } = await setUp();
    const browser = browserKeys();
    const { publicKey } = JSON.parse((await call(dashboard, 'GET', '/api/push/key')).body) as { publicKey: string };
    expect((await call(dashboard, 'POST', '/api/push/subscribe', { endpoint: service.endpoint('b1'), keys: browser.keys })).status).toBe(
      204,
    );
    const file = join(place.env.LOOPX_CONFIG_DIR, PUSH_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      vapid: { publicKey },
      subscriptions: [{ endpoint: service.endpoint('b1') }],
    });

    const delivered = service.next();
    ask('Ship the release today?');
    const push = await delivered;
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    const payload = ece.decrypt(push.body, {
      version: 'aes128gcm',
      privateKey: browser.ecdh,
      authSecret: browser.auth.toString('base64url'),
    });
    expect(JSON.parse(payload.toString('utf8'))).toEqual({
      title: 'LoopX · Gate to decide',
      body: 'alpha: Ship the release today?',
      tag: expect.stringMatching(/^[0-9a-f]{12}:gate:Q1$/),
    });
    // VAPID (RFC 8292): a JWT for this push service, signed with the private half of the key the page subscribed with.
    const [, jwt, k] = /^vapid t=([^,]+), k=(.+)$/.exec(String(push.headers.authorization)) ?? [];
    expect(k).toBe(publicKey);
    const [head, claims, signature] = (jwt ?? '').split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(claims, 'base64url').toString())).toMatchObject({ aud: new URL(service.endpoint('b1')).origin });
    const point = Buffer.from(publicKey, 'base64url');
    const key = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
      format: 'jwk',
    });
    expect(
      verify('sha256', Buffer.from(`${head}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')),
    ).toBe(true);
  });

  test('what was there when it started is not sent; bad subscriptions are refused; one the service says is gone is forgotten', async () => {
    const { place, service, dashboard, ask } = await setUp(410, 'Asked before it started?');
    const browser = browserKeys();
    const good = { endpoint: service.endpoint('b2'), keys: browser.keys };
    for (const [body, cookie] of [
      [{ ...good, endpoint: 'http://127.0.0.1:9/push' }, true], // not a push service's https address
      [{ ...good, endpoint: 'https://push.example/x', keys: { ...good.keys, p256dh: 'short' } }, true],
      ['{not json', true],
      [{ ...good, padding: 'x'.repeat(9000) }, true],
      [good, false], // without the secret
    ] as const)
      expect((await call(dashboard, 'POST', '/api/push/subscribe', body, cookie)).status).toBe(cookie ? 400 : 401);
    // A page on another port of this machine is the same site: the cookie goes with its request, the secret does not.
    const sameSite = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: dashboard.port,
          path: '/api/push/subscribe',
          method: 'POST',
          headers: { Cookie: 'loopx_dashboard=push-test-secret', 'Content-Type': 'text/plain', Origin: 'http://127.0.0.1:3000' },
        },
        (res) => resolve(res.statusCode ?? 0),
      );
      req.on('error', reject);
      req.end(JSON.stringify(good));
    });
    expect(sameSite).toBe(401);
    expect((await call(dashboard, 'POST', '/api/push/subscribe', good)).status).toBe(204);
    const delivered = service.next();
    ask('Rotate the keys?');
    const push = await delivered;
    await dashboard.pushesSettled();
    expect(service.received).toHaveLength(1); // the gate asked before it started was never sent
    const payload = ece.decrypt(push.body, {
      version: 'aes128gcm',
      privateKey: browser.ecdh,
      authSecret: browser.auth.toString('base64url'),
    });
    expect(JSON.parse(payload.toString('utf8'))).toMatchObject({ body: 'alpha: Rotate the keys?' });
    expect(JSON.parse(readFileSync(join(place.env.LOOPX_CONFIG_DIR, PUSH_FILE), 'utf8')).subscriptions).toEqual([]);
  });
});
