import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Agent as HttpsAgent } from 'node:https';
import { byWhatWaits } from '../../protocol/projectWords';
import { NewAttention, attentionNotice } from '../../protocol/attentionNotice';
import { PushStore, subscriptionSchema } from './webPush';
import type { KeyPlace } from '../../kernel/humanKey';
import type { DashboardSnapshot } from '../../shared/projectTypes';
import { ProjectSources, type SourcesEvent } from './projectSources';
import { decodeCursor, encodeCursor } from './cursor';
import { dashboardPage } from './dashboardPage';
import { iso } from '../../kernel/time';

/**
 * `loopx dashboard`: a local web console over every registered project, on Node's own HTTP server.
 *
 * Who may read it: whoever holds this launch's secret. The address printed and opened carries it in the URL's
 * fragment (never sent to a server, never in a log); the page trades it once, in an Authorization header, for an
 * HttpOnly SameSite=Strict cookie, and every API call and the event stream then go with that cookie. No API call
 * takes the secret in a query string. Every request must name this server as its Host (a DNS-rebinding page cannot)
 * and, when it says where it comes from, this server as its Origin. It only reads: a decision is made where a person
 * decides (VS Code or a terminal), never by a request an agent holding the secret could send (docs/dashboard.md).
 */
export interface DashboardOptions {
  /** 0: any free port. */
  port?: number;
  /** The built page (dist/dashboard: app.js, app.css, sw.js, the manifest and icons). */
  assetsDir: string;
  place?: KeyPlace;
  /** A fixed secret (tests); by default 32 random bytes for this launch. */
  secret?: string;
  /** The editor's URL scheme its decide links use (`vscode`, `cursor`); null for no links. Default `vscode`. */
  linkScheme?: string | null;
  /** How push notifications reach push services (a proxy, a certificate authority of one's own); Node's default else. */
  pushAgent?: HttpsAgent;
}

export interface RunningDashboard {
  url: string;
  /** The address a browser opens: `url` with the secret in its fragment. */
  openUrl: string;
  port: number;
  server: Server;
  sources: ProjectSources;
  /** Resolves once the push notifications sent so far are delivered or given up (tests; a clean stop). */
  pushesSettled(): Promise<void>;
  close(): Promise<void>;
}

const COOKIE = 'loopx_dashboard';
/** The names this machine's loopback goes by, with a port: the only Host a request may name. */
const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/;
const LOOPBACK_ORIGIN = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/;
const HEARTBEAT_MS = 25_000;

const STATIC: Record<string, [file: string, type: string]> = {
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/app.css': ['app.css', 'text/css; charset=utf-8'],
  '/sw.js': ['sw.js', 'text/javascript; charset=utf-8'],
  '/manifest.webmanifest': ['manifest.webmanifest', 'application/manifest+json'],
  '/icon.svg': ['icon.svg', 'image/svg+xml'],
  '/icon.png': ['icon.png', 'image/png'],
};

/** Headers every answer carries: nothing framed, sniffed or referred. */
const BASE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  const secret = options.secret ?? randomBytes(32).toString('base64url');
  const sources = new ProjectSources(options.place, options.linkScheme === undefined ? 'vscode' : options.linkScheme).start();
  const clients = new Set<ServerResponse>();

  const snapshot = (): DashboardSnapshot => ({ at: iso(Date.now()), projects: sources.projects().sort(byWhatWaits) });
  const cursor = () => encodeCursor(sources.projects());

  const send = (res: ServerResponse, event: string, data: unknown) => {
    res.write(`id: ${cursor()}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  // Web Push: each new row of what waits on the person, to every browser that turned notifications on.
  const push = new PushStore(options.place);
  const fresh = new NewAttention();
  for (const project of sources.projects()) fresh.take(project);
  const pushing = new Set<Promise<unknown>>();
  const unlisten = sources.onEvent((event: SourcesEvent) => {
    for (const res of clients) send(res, event.type, event.type === 'project' ? event.project : { key: event.key });
    if (event.type !== 'project') return;
    for (const item of fresh.take(event.project).slice(0, 3)) {
      const sent = push.send(attentionNotice(event.project, item), options.pushAgent).catch(() => []);
      pushing.add(sent);
      void sent.finally(() => pushing.delete(sent));
    }
  });

  const server = createServer((req, res) => {
    try {
      route(req, res);
    } catch (error) {
      reply(res, 500, 'text/plain; charset=utf-8', `the dashboard could not answer: ${(error as Error).message}`);
    }
  });

  function route(req: IncomingMessage, res: ServerResponse): void {
    // A page elsewhere that made its own name resolve to 127.0.0.1 (DNS rebinding) still sends its own name as Host. Any
    // port: an editor's port forwarding (VS Code remote) serves it on another port of the person's own machine.
    const host = req.headers.host ?? '';
    if (!LOOPBACK_HOST.test(host)) return reply(res, 421, 'text/plain; charset=utf-8', 'not this server');
    // A request that says where it comes from comes from this machine (a proxy such as code-server's forwards another
    // port of it): never from another site. Loopback pages elsewhere cannot read an answer (no CORS headers here).
    const origin = req.headers.origin;
    if (origin !== undefined && !LOOPBACK_ORIGIN.test(origin))
      return reply(res, 403, 'text/plain; charset=utf-8', 'another site may not use the dashboard');
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (req.method === 'GET' && (path === '/' || path === '/index.html')) {
      const nonce = randomBytes(16).toString('base64');
      const { html, csp } = dashboardPage(nonce);
      return reply(res, 200, 'text/html; charset=utf-8', html, { 'Content-Security-Policy': csp, 'Cache-Control': 'no-store' });
    }
    const asset = STATIC[path];
    if (req.method === 'GET' && asset) {
      const headers: Record<string, string> = { 'Cache-Control': 'no-cache' };
      if (path === '/sw.js') headers['Service-Worker-Allowed'] = '/';
      return reply(res, 200, asset[1], readFileSync(join(options.assetsDir, asset[0])), headers);
    }
    if (!path.startsWith('/api/')) return reply(res, 404, 'text/plain; charset=utf-8', 'not found');
    if (path === '/api/session' && req.method === 'POST') {
      if (!matches(bearer(req), secret))
        return reply(res, 401, 'application/json', JSON.stringify({ error: 'the secret is missing or wrong' }));
      return reply(res, 204, 'text/plain', '', {
        'Set-Cookie': `${COOKIE}=${secret}; HttpOnly; SameSite=Strict; Path=/`,
        'Cache-Control': 'no-store',
      });
    }
    if (!matches(cookie(req) ?? bearer(req), secret))
      return reply(res, 401, 'application/json', JSON.stringify({ error: 'open the address loopx dashboard printed' }));
    if (path === '/api/snapshot' && req.method === 'GET') {
      return reply(res, 200, 'application/json', JSON.stringify(snapshot()), { 'Cache-Control': 'no-store' });
    }
    if (path === '/api/events' && req.method === 'GET') return events(req, res);
    if (path === '/api/push/key' && req.method === 'GET') {
      void push.publicKey().then(
        (publicKey) => reply(res, 200, 'application/json', JSON.stringify({ publicKey }), { 'Cache-Control': 'no-store' }),
        (error: unknown) => reply(res, 500, 'application/json', JSON.stringify({ error: (error as Error).message })),
      );
      return;
    }
    if ((path === '/api/push/subscribe' || path === '/api/push/unsubscribe') && req.method === 'POST') {
      // A change, so the secret itself, in the header: a cookie goes with a request a page on another port of this
      // machine makes (the same site), and such a page could otherwise subscribe its own push address.
      if (!matches(bearer(req), secret))
        return reply(res, 401, 'application/json', JSON.stringify({ error: 'a change needs the secret in its Authorization header' }));
      void readJson(req).then(
        async (body) => {
          const parsed = subscriptionSchema.safeParse(body);
          if (!parsed.success)
            return reply(res, 400, 'application/json', JSON.stringify({ error: parsed.error.issues.map((i) => i.message).join('; ') }));
          if (path === '/api/push/subscribe') await push.subscribe(parsed.data);
          else push.unsubscribe(parsed.data.endpoint);
          return reply(res, 204, 'text/plain', '');
        },
        (error: unknown) => reply(res, 400, 'application/json', JSON.stringify({ error: (error as Error).message })),
      );
      return;
    }
    return reply(res, 404, 'application/json', JSON.stringify({ error: 'no such call' }));
  }

  /** Server-sent events: the whole state first, or after a reconnect only what changed since its Last-Event-ID. */
  function events(req: IncomingMessage, res: ServerResponse): void {
    // no-transform and X-Accel-Buffering: a proxy in between (code-server's, nginx) passes each event on at once
    // instead of compressing or buffering the stream.
    res.writeHead(200, {
      ...BASE_HEADERS,
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store, no-transform',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    res.write('retry: 2000\n\n');
    const since = decodeCursor(String(req.headers['last-event-id'] ?? ''));
    if (!since) send(res, 'snapshot', snapshot());
    else {
      const now = sources.projects();
      for (const project of now) if (since.get(project.key) !== project.seq || project.state !== 'ok') send(res, 'project', project);
      for (const key of since.keys()) if (!now.some((p) => p.key === key)) send(res, 'removed', { key });
    }
    clients.add(res);
    const beat = setInterval(() => res.write(': still here\n\n'), HEARTBEAT_MS);
    req.on('close', () => {
      clearInterval(beat);
      clients.delete(res);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    openUrl: `${url}#secret=${secret}`,
    port,
    server,
    sources,
    pushesSettled: async () => {
      while (pushing.size > 0) await Promise.all([...pushing]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        unlisten();
        for (const res of clients) res.end();
        clients.clear();
        sources.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function reply(res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': type, ...headers });
  res.end(body);
}

/** A small JSON body (a push subscription): at most 8 KB, else refused. */
function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    let tooLarge = false;
    req.on('data', (chunk: string) => {
      if (tooLarge) return; // the rest is read and dropped, so the answer reaches the sender
      body += chunk;
      if (body.length > 8192) {
        tooLarge = true;
        reject(new Error('the body is larger than 8 KB'));
      }
    });
    req.on('end', () => {
      if (tooLarge) return;
      try {
        resolve(JSON.parse(body));
      } catch {
        reject(new Error('the body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization ?? '';
  return header.startsWith('Bearer ') ? header.slice(7) : undefined;
}

function cookie(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

/** Compared in constant time: how long a wrong secret takes to refuse says nothing about the right one. */
function matches(given: string | undefined, secret: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
