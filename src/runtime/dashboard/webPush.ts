import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Agent } from 'node:https';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { humanKeyDir, type KeyPlace } from '../../kernel/humanKey';
import type * as WebPushLib from 'web-push';
import { iso } from '../../kernel/time';

/**
 * Web Push for the dashboard: a browser that turned notifications on is told of each new row in what waits on the
 * person while `loopx dashboard` runs, even with no page open. The VAPID keys and the browsers' subscriptions are kept
 * in the person's loopx config folder (`dashboard-push.json`, mode 0600: a subscription's keys let anyone who holds
 * them send to that browser). Payloads are encrypted for the browser (RFC 8291, by the web-push library).
 */
export const PUSH_FILE = 'dashboard-push.json';

/**
 * A browser's subscription as PushManager gives it; its endpoint must be a push service's https address. zod/mini, as
 * every schema the CLI carries: the full zod (its 64 languages of messages and JSON Schema) is 450 KB, a third of
 * dist/cli.js, which every command that is not an agent verb loads.
 */
export const subscriptionSchema = z.looseObject(
  {
    endpoint: z.url({ error: 'the endpoint is not an address' }).check(
      z.maxLength(2000, 'the endpoint is longer than 2000 characters'),
      z.refine((u) => u.startsWith('https://'), 'a push service is reached over https'),
    ),
    keys: z.strictObject(
      {
        p256dh: z.string('the p256dh key is text').check(z.regex(/^[A-Za-z0-9_-]{86,88}={0,2}$/, 'a P-256 public key, base64url')),
        auth: z.string('the auth key is text').check(z.regex(/^[A-Za-z0-9_-]{21,24}={0,2}$/, 'a 16-byte secret, base64url')),
      },
      'keys holds p256dh and auth, nothing else',
    ),
  },
  'a subscription is an object with an endpoint and keys',
);
export type PushSubscription = z.infer<typeof subscriptionSchema>;

interface PushFile {
  vapid: { publicKey: string; privateKey: string };
  subscriptions: { endpoint: string; keys: { p256dh: string; auth: string }; addedAt: string }[];
}

/** web-push (and its ASN.1 and JWS code) loads on the first push, not with every CLI command (esbuild.mjs). */
type WebPushCalls = Pick<typeof WebPushLib, 'generateVAPIDKeys' | 'sendNotification'>;
let lib: WebPushCalls | undefined;
async function webPush(): Promise<WebPushCalls> {
  const loaded = await import('web-push');
  lib ??= { generateVAPIDKeys: loaded.generateVAPIDKeys, sendNotification: loaded.sendNotification };
  return lib;
}

/** The keys and subscriptions, read on each use (another dashboard may have added one), written whole. */
export class PushStore {
  constructor(private readonly place: KeyPlace = {}) {}

  private path(): string {
    return join(humanKeyDir(this.place), PUSH_FILE);
  }

  private read(): PushFile | null {
    try {
      return JSON.parse(readFileSync(this.path(), 'utf8')) as PushFile;
    } catch {
      return null;
    }
  }

  private write(file: PushFile): void {
    mkdirSync(humanKeyDir(this.place), { recursive: true, mode: 0o700 });
    const temp = `${this.path()}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(file, null, 1)}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, this.path());
  }

  /** The application server's public key the browser subscribes with, made on first need. */
  async publicKey(): Promise<string> {
    const found = this.read();
    if (found?.vapid) return found.vapid.publicKey;
    const vapid = (await webPush()).generateVAPIDKeys();
    this.write({ vapid, subscriptions: [] });
    return vapid.publicKey;
  }

  async subscribe(subscription: PushSubscription): Promise<void> {
    await this.publicKey();
    const file = this.read()!;
    const others = file.subscriptions.filter((s) => s.endpoint !== subscription.endpoint);
    this.write({
      ...file,
      subscriptions: [...others, { endpoint: subscription.endpoint, keys: subscription.keys, addedAt: iso(Date.now()) }],
    });
  }

  unsubscribe(endpoint: string): void {
    const file = this.read();
    if (file) this.write({ ...file, subscriptions: file.subscriptions.filter((s) => s.endpoint !== endpoint) });
  }

  subscriptions(): PushFile['subscriptions'] {
    return this.read()?.subscriptions ?? [];
  }

  /**
   * Sends one notification to every subscribed browser. A subscription its push service says is gone (404, 410) is
   * forgotten; any other failure is returned in words and the subscription kept.
   */
  async send(payload: { title: string; body: string; tag: string }, agent?: Agent): Promise<string[]> {
    const file = this.read();
    if (!file || file.subscriptions.length === 0) return [];
    const push = await webPush();
    const problems: string[] = [];
    const gone: string[] = [];
    await Promise.all(
      file.subscriptions.map(async (s) => {
        try {
          await push.sendNotification({ endpoint: s.endpoint, keys: s.keys }, JSON.stringify(payload), {
            vapidDetails: { subject: 'mailto:loopx@localhost', publicKey: file.vapid.publicKey, privateKey: file.vapid.privateKey },
            TTL: 3600,
            timeout: 10_000,
            ...(agent ? { agent } : {}),
          });
        } catch (error) {
          const status = (error as { statusCode?: number }).statusCode;
          if (status === 404 || status === 410) gone.push(s.endpoint);
          else problems.push(`${new URL(s.endpoint).host}: ${(error as Error).message}`);
        }
      }),
    );
    for (const endpoint of gone) this.unsubscribe(endpoint);
    return problems;
  }
}
