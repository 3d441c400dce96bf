import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Kernel } from '../../kernel/kernel';
import { askGate } from '../../kernel/gates/gates';
import { createGoal } from '../../kernel/goals/goals';
import { registerProject } from '../../kernel/projects/projectRegistry';
import { kernelStoreId } from '../../kernel/projects/storeIdentity';
import type { DashboardProject, DashboardSnapshot } from '../../shared/projectTypes';
import { type RunningDashboard, startDashboard } from './dashboardServer';
import { decodeCursor } from './cursor';

const person = { name: 'ada', kind: 'human', channel: 'vscode' } as const;
const agent = { name: 'codex', kind: 'agent' } as const;
const made: string[] = [];
const running: RunningDashboard[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Two projects of a person's, one with a gate waiting, and the dashboard over them. */
async function setUp() {
  const parent = mkdtempSync(join(tmpdir(), 'loopx-dashboard-'));
  made.push(parent);
  const place = { env: { LOOPX_CONFIG_DIR: join(parent, 'config') } };
  const project = (name: string) => {
    const root = join(parent, name);
    mkdirSync(root);
    const { kernel } = Kernel.init(root, { actor: person });
    const goal = createGoal(kernel, { title: `${name} goal` });
    registerProject(root, 'init', kernelStoreId(kernel), place);
    kernel.close();
    return { root, goal: goal.id };
  };
  const alpha = project('alpha');
  const beta = project('beta');
  const ask = (root: string, question: string) => {
    const kernel = Kernel.open(root, { actor: agent });
    askGate(kernel, { goalId: 'G1', question });
    kernel.close();
  };
  ask(alpha.root, 'Ship on Friday?');
  const dashboard = await startDashboard({ assetsDir: join(parent, 'no-assets'), place, secret: 's3cret-for-this-test-only' });
  running.push(dashboard);
  return { parent, place, alpha, beta, ask, dashboard };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(d: RunningDashboard, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: d.port, path, method, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads an event stream until `enough` says so (or 10 s pass), then closes it. */
function stream(d: RunningDashboard, headers: Record<string, string>, enough: (events: SseEvent[]) => boolean, onOpen?: () => void) {
  return new Promise<SseEvent[]>((resolve, reject) => {
    const events: SseEvent[] = [];
    const req = request({ host: '127.0.0.1', port: d.port, path: '/api/events', headers }, (res) => {
      let buffer = '';
      onOpen?.();
      const timer = setTimeout(() => finish(), 10_000);
      const finish = () => {
        clearTimeout(timer);
        req.destroy();
        resolve(events);
      };
      res.on('data', (chunk) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const field = (name: string) =>
            block
              .split('\n')
              .find((l) => l.startsWith(`${name}: `))
              ?.slice(name.length + 2);
          if (field('event')) events.push({ id: field('id') ?? '', event: field('event')!, data: JSON.parse(field('data') ?? 'null') });
        }
        if (enough(events)) finish();
      });
    });
    req.on('error', reject);
    req.end();
  });
}
type SseEvent = { id: string; event: string; data: unknown };

describe('the dashboard server', () => {
  test('without the secret every call is refused; the secret goes once in a header, for an HttpOnly cookie', async () => {
    const { dashboard } = await setUp();
    expect((await call(dashboard, '/api/snapshot')).status).toBe(401);
    expect((await call(dashboard, '/api/snapshot?secret=s3cret-for-this-test-only')).status).toBe(401); // never in a query string
    expect((await call(dashboard, '/api/snapshot', { Cookie: 'loopx_dashboard=wrong' })).status).toBe(401);
    expect((await call(dashboard, '/api/session', { Authorization: 'Bearer wrong' }, 'POST')).status).toBe(401);
    const session = await call(dashboard, '/api/session', { Authorization: 'Bearer s3cret-for-this-test-only' }, 'POST');
    expect(session.status).toBe(204);
    const cookie = String(session.headers['set-cookie']);
    expect(cookie).toMatch(/^loopx_dashboard=s3cret-for-this-test-only; HttpOnly; SameSite=Strict; Path=\//);
    const answer = await call(dashboard, '/api/snapshot', { Cookie: 'loopx_dashboard=s3cret-for-this-test-only' });
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    const snapshot = JSON.parse(answer.body) as DashboardSnapshot;
    expect(snapshot.projects.map((p) => [p.name, p.waiting?.total])).toEqual([
      ['alpha', 1],
      ['beta', 0],
    ]);
    expect(snapshot.projects[0]?.attention).toEqual([
      expect.objectContaining({
        kind: 'gate',
        title: 'Ship on Friday?',
        command: expect.stringMatching(/^loopx gate approve Q1 --root '.*alpha'$/),
      }),
    ]);
  });

  test('another site is refused: a Host that is not this server (DNS rebinding), an Origin that is not this page', async () => {
    const { dashboard } = await setUp();
    const auth = { Authorization: 'Bearer s3cret-for-this-test-only' };
    expect((await call(dashboard, '/api/snapshot', { ...auth, Host: `evil.example:${dashboard.port}` })).status).toBe(421);
    expect((await call(dashboard, '/', { Host: `evil.example:${dashboard.port}` })).status).toBe(421);
    expect((await call(dashboard, '/api/snapshot', { ...auth, Origin: 'http://evil.example' })).status).toBe(403);
    expect((await call(dashboard, '/api/snapshot', { ...auth, Origin: `http://127.0.0.1:${dashboard.port}` })).status).toBe(200);
    expect((await call(dashboard, '/api/snapshot', { ...auth, Host: `localhost:${dashboard.port}` })).status).toBe(200);
    // Another port of this machine (an editor's port forwarding, code-server's proxy): still this machine.
    const forwarded = { ...auth, Host: 'localhost:41234' };
    expect((await call(dashboard, '/api/snapshot', { ...forwarded, Origin: 'http://127.0.0.1:8080' })).status).toBe(200);
    expect((await call(dashboard, '/api/snapshot', { ...forwarded, Origin: 'http://127.0.0.1.evil.example:8080' })).status).toBe(403);
    expect((await call(dashboard, '/api/snapshot', { ...forwarded, Origin: 'null' })).status).toBe(403);
    expect((await call(dashboard, '/api/snapshot', { ...auth, Host: `127.0.0.1.evil.example:${dashboard.port}` })).status).toBe(421);
  });

  test('the page is served under a strict policy with a fresh nonce, and nothing else is in it', async () => {
    const { dashboard } = await setUp();
    const [first, second] = [await call(dashboard, '/'), await call(dashboard, '/')];
    const csp = String(first.headers['content-security-policy']);
    expect(csp).toMatch(/^default-src 'none'; script-src 'nonce-[^']+'; style-src 'self' 'nonce-[^']+';/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toBe(String(second.headers['content-security-policy']));
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(first.body).toContain(`<script src="app.js" nonce="${nonce}"></script>`);
    expect(first.body).not.toMatch(/<script>|\son\w+=/);
    expect(first.headers['x-frame-options']).toBe('DENY');
  });

  test('the stream sends the whole state, then each change as it lands; a reconnect gets only what moved since', async () => {
    const { dashboard, alpha, beta, ask } = await setUp();
    const auth = { Cookie: 'loopx_dashboard=s3cret-for-this-test-only' };
    const live = await stream(
      dashboard,
      auth,
      (events) => events.some((e) => e.event === 'project' && (e.data as DashboardProject).name === 'beta'),
      () => setTimeout(() => ask(beta.root, 'Merge the docs?'), 200),
    );
    expect(live[0]).toMatchObject({ event: 'snapshot' });
    expect((live[0]?.data as DashboardSnapshot).projects).toHaveLength(2);
    const change = live.find((e) => e.event === 'project')!;
    expect((change.data as DashboardProject).attention.map((a) => a.title)).toEqual(['Merge the docs?']);
    const lastId = change.id;
    expect(decodeCursor(lastId)?.get((change.data as DashboardProject).key)).toBe((change.data as DashboardProject).seq);

    // Away for a while: alpha changes; back with the id it last saw, it is sent alpha alone, not the whole state.
    ask(alpha.root, 'Rotate the keys?');
    await new Promise((r) => setTimeout(r, 300));
    const back = await stream(dashboard, { ...auth, 'Last-Event-ID': lastId }, (events) => events.length > 0);
    expect(back.map((e) => [e.event, (e.data as DashboardProject).name])).toEqual([['project', 'alpha']]);
    expect((back[0]?.data as DashboardProject).attention.map((a) => a.title)).toEqual(['Ship on Friday?', 'Rotate the keys?']);
  });

  test('a project listed while it runs joins the stream; a folder gone is said in words and the rest still serve', async () => {
    const { dashboard, parent, place, beta } = await setUp();
    const auth = { Cookie: 'loopx_dashboard=s3cret-for-this-test-only' };
    const events = await stream(
      dashboard,
      auth,
      (all) => all.some((e) => e.event === 'project' && (e.data as DashboardProject).name === 'gamma'),
      () => {
        const root = join(parent, 'gamma');
        mkdirSync(root);
        const { kernel } = Kernel.init(root, { actor: person });
        registerProject(root, 'init', kernelStoreId(kernel), place);
        kernel.close();
      },
    );
    expect(events.find((e) => e.event === 'project')?.data).toMatchObject({ name: 'gamma', state: 'ok', store: 'local' });
    rmSync(beta.root, { recursive: true });
    dashboard.sources.checkAll(); // what its look each half minute does: the open store still reads, the folder is gone
    const snapshot = JSON.parse((await call(dashboard, '/api/snapshot', auth)).body) as DashboardSnapshot;
    expect(snapshot.projects.map((p) => [p.name, p.state])).toEqual(
      expect.arrayContaining([
        ['alpha', 'ok'],
        ['beta', 'missing'],
        ['gamma', 'ok'],
      ]),
    );
  });
});
