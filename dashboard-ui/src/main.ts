import type { AttentionItem, DashboardGoal, DashboardProject, DashboardSnapshot, GoalPhase } from '../../src/shared/projectTypes';
import { ATTENTION_WORDS, byWhatWaits, waitingWords } from '../../src/protocol/projectWords';
import { NewAttention, attentionNotice } from '../../src/protocol/attentionNotice';
import { countOf } from '../../src/shared/countWords';
import { relativeTime } from '../../src/protocol/display';
import { TODO_STATUS_WORDS } from '../../src/protocol/todoWords';
import { turnOutcomeWords } from '../../src/shared/turnOutcomeWords';
// The board's element builder: text only ever through textContent, hidden characters shown as <U+202E>.
import { h } from '../../webview-ui/src/dom';

/**
 * The dashboard's page: what waits on a person across every project first, then each project's goals, turns and
 * agents. State comes from the server's event stream (the whole state, then each project as it changes; a reconnect
 * resumes from the last event id). Everything from a store goes in as text (dom.ts). It decides nothing: each row
 * says where a person decides it.
 */
const projects = new Map<string, DashboardProject>();
type Connection = 'connecting' | 'live' | 'retrying' | 'stopped' | 'locked';
let connection: Connection = 'connecting';
/** Which rows are new since this page last heard of their project (for its own notifications). */
const fresh = new NewAttention();

const PHASES: [GoalPhase, string][] = [
  ['running', 'Running'],
  ['scheduled', 'Scheduled'],
  ['waiting', 'Waiting'],
  ['stopped', 'Stopped'],
  ['done', 'Done'],
];

const app = document.getElementById('app') as HTMLElement;

const SECRET_KEY = 'loopx-dashboard-secret';
/** The headers of a change: its JSON and this tab's secret (a cookie alone is not enough for one). */
const changeHeaders = () => ({ 'Content-Type': 'application/json', Authorization: `Bearer ${sessionStorage.getItem(SECRET_KEY) ?? ''}` });

async function start(): Promise<void> {
  const secret = new URLSearchParams(location.hash.slice(1)).get('secret');
  if (secret) {
    // Traded once for an HttpOnly cookie (what reads send), kept for this tab only for changes (turning notifications
    // on or off sends it in a header), then taken out of the address bar (and of the history).
    await fetch('api/session', { method: 'POST', headers: { Authorization: `Bearer ${secret}` } }).catch(() => undefined);
    sessionStorage.setItem(SECRET_KEY, secret);
    history.replaceState(null, '', location.pathname);
  }
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('sw.js').catch(() => undefined);
  listen();
  setInterval(tickTimes, 30_000);
}

function listen(): void {
  const stream = new EventSource('api/events');
  stream.addEventListener('open', () => setConnection('live'));
  stream.addEventListener('snapshot', (e) => {
    const snapshot = JSON.parse((e as MessageEvent<string>).data) as DashboardSnapshot;
    projects.clear();
    for (const p of snapshot.projects) {
      projects.set(p.key, p);
      fresh.take(p); // what is there already is learnt, not announced
    }
    render();
  });
  stream.addEventListener('project', (e) => {
    const project = JSON.parse((e as MessageEvent<string>).data) as DashboardProject;
    projects.set(project.key, project);
    notify(project, fresh.take(project));
    render();
  });
  stream.addEventListener('removed', (e) => {
    projects.delete((JSON.parse((e as MessageEvent<string>).data) as { key: string }).key);
    render();
  });
  stream.addEventListener('error', () => {
    // Why it broke, asked once: the server gone (the browser keeps retrying; the page says so meanwhile), or this
    // page refused (no secret: retrying cannot help).
    const closed = stream.readyState === EventSource.CLOSED;
    fetch('api/snapshot')
      .then((res) => {
        if (res.status === 401) {
          stream.close();
          setConnection('locked');
        } else if (closed) setTimeout(listen, 3000);
        else setConnection('retrying');
      })
      .catch(() => {
        setConnection('stopped');
        if (closed) setTimeout(listen, 5000);
      });
  });
}

function setConnection(state: Connection): void {
  connection = state;
  render();
}

const CONNECTION_WORDS: Record<Connection, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  retrying: 'Reconnecting…',
  stopped: 'The loopx dashboard is not running: start it again with loopx dashboard. What is shown may be out of date.',
  locked: 'This page needs the address loopx dashboard printed (it carries this launch’s secret): open that address.',
};

function render(): void {
  const list = [...projects.values()].sort(byWhatWaits);
  const attention = list
    .flatMap((p) => p.attention.map((item) => ({ item, project: p })))
    .sort((a, b) => a.item.since.localeCompare(b.item.since));
  const waitingProjects = list.filter((p) => (p.waiting?.total ?? 0) > 0).length;
  const open = new Set([...app.querySelectorAll('details[open]')].map((d) => d.id));
  app.replaceChildren(
    h(
      'header',
      { class: 'top' },
      h('h1', { text: 'LoopX' }),
      h('p', {
        class: 'summary',
        text: `${countOf(list.length, 'project')}${waitingProjects ? `, ${waitingProjects} waiting on you` : ''}`,
      }),
      h('p', { class: `connection ${connection}`, role: 'status', text: CONNECTION_WORDS[connection] }),
      notifyButton(),
    ),
    h(
      'section',
      { class: 'attention', 'aria-labelledby': 'attention-title' },
      h('h2', { id: 'attention-title', text: attention.length ? `Waiting on you (${attention.length})` : 'Nothing waits on you' }),
      attention.length
        ? h('ol', { class: 'items' }, ...attention.map(({ item, project }) => attentionRow(item, project)))
        : h('p', { class: 'quiet', text: 'Gates, blocked todos, changes to land and checks to allow show here, oldest first.' }),
      h('p', {
        class: 'why',
        text: 'The dashboard only shows: each decision is made in VS Code or at a terminal, where a person is asked.',
      }),
    ),
    h(
      'section',
      { class: 'projects', 'aria-label': 'Projects' },
      ...(list.length
        ? list.map(projectCard)
        : [h('p', { class: 'quiet', text: 'No projects yet: loopx init in a workspace, or opening it in VS Code, lists it here.' })]),
    ),
  );
  for (const id of open) (document.getElementById(id) as HTMLDetailsElement | null)?.setAttribute('open', '');
}

function attentionRow(item: AttentionItem, project: DashboardProject): HTMLElement {
  return h(
    'li',
    { class: `item ${item.kind}`, 'data-kind': item.kind },
    h('span', { class: 'kind', text: ATTENTION_WORDS[item.kind] }),
    h('span', { class: 'title', text: item.title }),
    h('span', { class: 'where', text: `${project.name}${item.todoId ? ` · ${item.todoId}` : item.goalId ? ` · ${item.goalId}` : ''}` }),
    item.detail ? h('span', { class: 'detail', text: item.detail }) : null,
    timeEl(item.since),
    h('code', { class: 'command', text: item.command }),
    h(
      'span',
      { class: 'actions' },
      item.link ? h('a', { class: 'decide', href: item.link, text: `Decide in ${editorName(item.link)}` }) : null,
      copyButton(item.command),
    ),
  );
}

/** The editor a decide link opens, by its scheme. */
function editorName(link: string): string {
  const scheme = link.slice(0, link.indexOf(':'));
  return (
    { vscode: 'VS Code', 'vscode-insiders': 'VS Code Insiders', 'code-oss': 'VS Code', cursor: 'Cursor', vscodium: 'VSCodium' }[scheme] ??
    'your editor'
  );
}

function copyButton(text: string): HTMLElement {
  const button = h('button', { type: 'button', class: 'copy', text: 'Copy command' });
  button.addEventListener('click', () => {
    void navigator.clipboard?.writeText(text).then(
      () => (button.textContent = 'Copied'),
      () => (button.textContent = 'Copy it by hand'),
    );
  });
  return button;
}

function projectCard(p: DashboardProject): HTMLElement {
  const facts = [
    p.store === 'team' ? 'team store' : p.store === 'local' ? 'local store' : null,
    p.lastActivity ? `last change ${relativeTime(p.lastActivity, Date.now())}` : null,
  ].filter(Boolean) as string[];
  return h(
    'article',
    { class: `project ${p.state}`, id: `project-${p.key}`, 'data-key': p.key },
    h('h2', { text: p.name }),
    h('p', { class: 'path', text: p.root }),
    h('p', { class: 'facts', text: facts.join(' · ') }),
    p.problem ? h('p', { class: 'problem', role: 'note', text: p.problem }) : null,
    p.waiting ? h('p', { class: p.waiting.total ? 'waits' : 'quiet', text: waitingWords(p.waiting) }) : null,
    ...PHASES.map(([phase, title]) => phaseList(p, phase, title)),
    p.turns.length ? turnsBlock(p) : null,
    p.agents.length ? agentsBlock(p) : null,
    p.handoffs.length ? handoffsBlock(p) : null,
  );
}

function phaseList(p: DashboardProject, phase: GoalPhase, title: string): HTMLElement | null {
  const goals = p.goals.filter((g) => g.phase === phase);
  if (goals.length === 0) return null;
  return h('div', { class: `phase ${phase}` }, h('h3', { text: `${title} (${goals.length})` }), ...goals.map((g) => goalBlock(p, g)));
}

function goalBlock(p: DashboardProject, g: DashboardGoal): HTMLElement {
  const c = g.counts;
  const counts = `${c.shipped} shipped, ${c.claimed} at work, ${c.in_review ? `${c.in_review} in review, ` : ''}${c.open} open${c.blocked ? `, ${c.blocked} blocked` : ''}`;
  return h(
    'details',
    { class: 'goal', id: `goal-${p.key}-${g.id}` },
    h(
      'summary',
      {},
      h('span', { class: 'id', text: g.id }),
      h('span', { class: 'title', text: g.title }),
      h('span', { class: 'counts', text: counts }),
      g.nextWakeAt ? h('span', { class: 'wake' }, 'next wake ', timeEl(g.nextWakeAt)) : null,
    ),
    h(
      'ul',
      { class: 'todos' },
      ...g.todos.map((t) =>
        h(
          'li',
          { class: `todo ${t.status}` },
          h('span', { class: 'id', text: t.id }),
          h('span', { class: 'status', text: TODO_STATUS_WORDS[t.status as keyof typeof TODO_STATUS_WORDS] ?? t.status }),
          h('span', { class: 'title', text: t.title }),
          t.owner ? h('span', { class: 'owner', text: t.owner }) : null,
          t.reason ? h('span', { class: 'detail', text: t.reason }) : null,
        ),
      ),
      g.moreTodos ? h('li', { class: 'more', text: `… ${g.moreTodos} more` }) : null,
    ),
  );
}

/** A folded list in a project's card (its turns, agents, handoffs), its id kept so a redraw leaves it open. */
function foldedList<T>(p: DashboardProject, kind: string, title: string, items: T[], row: (item: T) => Node[]): HTMLElement {
  return h(
    'details',
    { class: kind, id: `${kind}-${p.key}` },
    h('summary', { text: `${title} (${items.length})` }),
    h('ul', {}, ...items.map((item) => h('li', {}, ...row(item)))),
  );
}

function turnsBlock(p: DashboardProject): HTMLElement {
  return foldedList(p, 'turns', 'Recent turns', p.turns, (t) =>
    [
      h('span', { class: 'id', text: t.id }),
      h('span', { text: `${t.agent} on ${t.todoId ?? t.goalId}` }),
      h('span', { class: 'result', text: t.endedAt ? turnOutcomeWords(t.result) : 'running now' }),
      t.costUsd !== null ? h('span', { class: 'cost', text: `$${t.costUsd.toFixed(2)}` }) : null,
      t.evidence ? h('span', { class: 'evidence', text: `${t.evidence} evidence` }) : null,
      t.branch ? h('span', { class: 'branch', text: `branch ${t.branch}` }) : null,
      timeEl(t.startedAt),
    ].filter((n): n is HTMLElement => n !== null),
  );
}

function agentsBlock(p: DashboardProject): HTMLElement {
  return foldedList(p, 'agents', 'Agents', p.agents, (a) => [
    h('span', { class: 'name', text: a.name }),
    a.claims.length
      ? h(
          'span',
          {},
          'holds ',
          ...a.claims.flatMap((c, i) => [
            i ? ', ' : '',
            `${c.todoId} ${c.title}`,
            ...(c.leaseExpiresAt ? [' (lease ', timeEl(c.leaseExpiresAt), ')'] : []),
          ]),
        )
      : h('span', { text: 'holds nothing' }),
    h('span', { class: 'seen' }, 'seen ', timeEl(a.lastSeen)),
  ]);
}

function handoffsBlock(p: DashboardProject): HTMLElement {
  return foldedList(p, 'handoffs', 'Handoffs', p.handoffs, (x) => [
    h('span', { text: `${x.from} → ${x.to} on ${x.todoId} (${x.status})` }),
    h('span', { class: 'detail', text: x.summary }),
  ]);
}

function timeEl(iso: string): HTMLElement {
  return h('time', { datetime: iso, title: new Date(iso).toLocaleString(), text: relativeTime(iso, Date.now()) });
}

function tickTimes(): void {
  for (const el of app.querySelectorAll<HTMLTimeElement>('time[datetime]')) el.textContent = relativeTime(el.dateTime, Date.now());
}

/** The page's own notifications (where the browser has no push service), for new rows while the page is hidden. */
function notify(project: DashboardProject, rows: AttentionItem[]): void {
  if (!notificationsOn() || document.visibilityState === 'visible') return;
  for (const item of rows.slice(0, 3)) {
    const { title, body, tag } = attentionNotice(project, item);
    void navigator.serviceWorker?.ready
      .then((reg) => reg.showNotification(title, { body, tag }))
      .catch(() => new Notification(title, { body }));
  }
}

/** `push`: the server pushes (a page need not be open); `page`: this page notifies while open (no push service here). */
type NotifyMode = 'push' | 'page' | 'off';
const notifyMode = (): NotifyMode =>
  typeof Notification !== 'undefined' && Notification.permission === 'granted'
    ? ((localStorage.getItem('notify') as NotifyMode | null) ?? 'off')
    : 'off';
const notificationsOn = () => notifyMode() === 'page';

const MODE_WORDS: Record<NotifyMode, string> = {
  push: 'Notifications on: loopx dashboard tells this browser, even with no page open',
  page: 'Notifications on while this page is open (this browser has no push service to reach it otherwise)',
  off: 'Get a notification when something new waits on you',
};

function notifyButton(): HTMLElement | null {
  if (typeof Notification === 'undefined') return null;
  const mode = notifyMode();
  const button = h('button', {
    type: 'button',
    class: 'notify',
    'aria-pressed': mode !== 'off' ? 'true' : 'false',
    title: MODE_WORDS[mode],
    text: mode !== 'off' ? 'Notifications on' : 'Notify me',
  });
  button.addEventListener('click', () => void (mode === 'off' ? turnOn() : turnOff()).then(render));
  return button;
}

async function turnOn(): Promise<void> {
  if ((await Notification.requestPermission()) !== 'granted') return localStorage.setItem('notify', 'off');
  try {
    const registration = await navigator.serviceWorker.ready;
    const { publicKey } = (await (await fetch('api/push/key')).json()) as { publicKey: string };
    const subscription = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: fromBase64Url(publicKey),
    });
    const saved = await fetch('api/push/subscribe', {
      method: 'POST',
      headers: changeHeaders(),
      body: JSON.stringify(subscription),
    });
    localStorage.setItem('notify', saved.ok ? 'push' : 'page');
  } catch {
    localStorage.setItem('notify', 'page');
  }
}

async function turnOff(): Promise<void> {
  localStorage.setItem('notify', 'off');
  const subscription = await (await navigator.serviceWorker?.ready)?.pushManager.getSubscription().catch(() => null);
  if (!subscription) return;
  await fetch('api/push/unsubscribe', {
    method: 'POST',
    headers: changeHeaders(),
    body: JSON.stringify(subscription),
  }).catch(() => undefined);
  await subscription.unsubscribe().catch(() => false);
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const bytes = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bytes, (c) => c.charCodeAt(0));
}

void start();
