import { sha256 } from '../../kernel/nodeCrypto';
import { existsSync, watch as fsWatch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { Kernel, STORE_DIR } from '../../kernel/kernel';
import { describeError } from '../describeError';
import { StoreWatcher } from '../watch';
import { listProjectEntries, projectsPath, type ProjectEntry } from '../../kernel/projects/projectRegistry';
import { humanKeyDir, type KeyPlace } from '../../kernel/humanKey';
import { projectPlace, summarizeProject } from '../../kernel/readModels/projectSummary';
import { dashboardView } from '../../kernel/readModels/dashboardView';
import type { DashboardProject } from '../../shared/projectTypes';
import { shellQuote } from '../hosts';
import { inTeamMode } from '../../kernel/team/teamPointer';
import { decideLink } from './decideLink';

/** A project that could not be opened is tried again this often (a folder back, a team server back). */
export const RETRY_MS = 30_000;
/** Every open project is looked at this often besides its watchers (two file checks and a version read each). */
const LOOK_MS = 10_000;
/** A store that went away while open is looked at again this soon: its folder may have been on its way out too. */
const GONE_SETTLE_MS = 1000;
/** Changes that come together (an agent's claim and its evidence) are sent once. */
const SETTLE_MS = 40;

/** A project's name in the page and the event stream: not its path (which the page shows, but never keys on). */
export const projectKey = (root: string): string => sha256(root).slice(0, 12);

/**
 * One registered project, kept open while the dashboard runs: its store read-only (a team store through its team
 * kernel, which catches its replica up and hears the server's NOTIFY), a watcher that says when another process
 * wrote, and its view rebuilt on each change. A project that cannot be opened is its summary's words, tried again
 * every RETRY_MS; it never stops the others.
 */
class ProjectSource {
  private kernel: Kernel | undefined;
  private watcher: StoreWatcher | undefined;
  private folderWatch: FSWatcher | undefined;
  private retry: NodeJS.Timeout | undefined;
  private settle: NodeJS.Timeout | undefined;
  view: DashboardProject;

  constructor(
    readonly entry: ProjectEntry,
    private readonly changed: (source: ProjectSource) => void,
    private readonly scheme: string | null,
  ) {
    this.view = this.open();
  }

  get key(): string {
    return projectKey(this.entry.root);
  }

  private base() {
    return { key: this.key, name: this.entry.name, root: this.entry.root };
  }

  private open(): DashboardProject {
    const place = projectPlace(this.entry.root);
    if (place.state !== 'ok') return this.unreadable(place.state, place.problem, null);
    try {
      const kernel = Kernel.open(this.entry.root, { readOnly: true, actor: { name: 'dashboard', kind: 'kernel' } });
      this.kernel = kernel;
      this.watcher = new StoreWatcher(kernel.engine.changeSignal(), () => this.soon()).start();
      // The folder deleted or its store moved away: its open file still reads, so the folder's own events say it.
      this.folderWatch = fsWatch(join(this.entry.root, STORE_DIR), { persistent: false }, () => {
        if (!Kernel.hasStore(this.entry.root)) this.check();
      });
      this.folderWatch.on('error', () => undefined);
      return this.read();
    } catch (error) {
      this.close();
      // A team server that does not answer: what this machine's copy holds, said as such, until it answers again.
      const message = describeError(error, 'person').body.message;
      return this.unreadable('unreadable', message, place.store, place.store === 'team' ? summarizeProject(this.entry) : undefined);
    }
  }

  private unreadable(
    state: DashboardProject['state'],
    problem: string | null,
    store: DashboardProject['store'],
    known?: { waiting: DashboardProject['waiting']; lastActivity: string | null },
  ): DashboardProject {
    if (!this.retry) this.reopenIn(RETRY_MS);
    return {
      ...this.base(),
      store,
      state,
      problem,
      seq: 0,
      lastActivity: known?.lastActivity ?? null,
      waiting: known?.waiting ?? null,
      attention: [],
      goals: [],
      turns: [],
      agents: [],
      handoffs: [],
    };
  }

  private read(): DashboardProject {
    const kernel = this.kernel!;
    const store = inTeamMode(this.entry.root) ? 'team' : 'local';
    const view = kernel.read((db, now) => dashboardView(db, now, { ...this.base(), store }));
    const root = shellQuote(this.entry.root);
    return {
      ...view,
      attention: view.attention.map((a) => ({
        ...a,
        command: `${a.command} --root ${root}`,
        link: decideLink(this.scheme, this.entry.root, a),
      })),
    };
  }

  private soon(): void {
    if (this.settle) return;
    this.settle = setTimeout(() => {
      this.settle = undefined;
      try {
        this.view = this.read();
      } catch (error) {
        this.close();
        this.view = this.unreadable('unreadable', describeError(error, 'person').body.message, this.view.store);
      }
      this.changed(this);
    }, SETTLE_MS);
  }

  /**
   * Looks now: a folder or store gone while it was open (its open file still reads, so only a look sees it), or a
   * change the store's watcher missed (a file system without events).
   */
  check(): void {
    if (this.kernel && !Kernel.hasStore(this.entry.root)) {
      this.close();
      this.view = this.open();
      this.changed(this);
      // Seen mid-removal (the store gone, the folder not yet): looked at again in a moment, not in RETRY_MS.
      this.reopenIn(GONE_SETTLE_MS);
      return;
    }
    this.watcher?.check();
  }

  /** Opens the project again in `ms` (replacing a reopen already due), and says what it then holds. */
  private reopenIn(ms: number): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.view = this.open();
      this.changed(this);
    }, ms);
    this.retry.unref();
  }

  close(): void {
    this.watcher?.stop();
    this.watcher = undefined;
    this.folderWatch?.close();
    this.folderWatch = undefined;
    try {
      this.kernel?.close();
    } catch {
      /* already closed */
    }
    this.kernel = undefined;
    if (this.retry) clearTimeout(this.retry);
    if (this.settle) clearTimeout(this.settle);
    this.retry = undefined;
    this.settle = undefined;
  }
}

export type SourcesEvent = { type: 'project'; project: DashboardProject } | { type: 'removed'; key: string };

/**
 * Every registered project as a source, following the registry: a project listed or forgotten while the dashboard
 * runs (an `init` in another terminal) joins or leaves within a moment.
 */
export class ProjectSources {
  private readonly sources = new Map<string, ProjectSource>();
  private registryWatcher: FSWatcher | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<(event: SourcesEvent) => void>();
  private stopLooking = () => {};

  /** `linkScheme`: the editor's URL scheme for decision links (vscode, cursor…); null for none. */
  constructor(
    private readonly place: KeyPlace = {},
    private readonly linkScheme: string | null = 'vscode',
  ) {}

  start(): this {
    this.reload();
    const look = setInterval(() => this.checkAll(), LOOK_MS);
    look.unref();
    this.stopLooking = () => clearInterval(look);
    try {
      // The folder, not the file: the list is created on the first registration, and SQLite writes beside it.
      this.registryWatcher = fsWatch(humanKeyDir(this.place), { persistent: false }, (_event, file) => {
        if (file && !String(file).startsWith('projects.db')) return;
        this.reloadSoon();
      });
      this.registryWatcher.on('error', () => undefined);
    } catch {
      /* no config folder yet: the list is read again on each page load */
    }
    return this;
  }

  onEvent(listener: (event: SourcesEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  projects(): DashboardProject[] {
    return [...this.sources.values()].map((s) => s.view);
  }

  /** The registry read again: new projects opened, forgotten ones closed, renamed ones renamed. */
  reload(): void {
    let entries: ProjectEntry[];
    try {
      entries = existsSync(projectsPath(this.place)) ? listProjectEntries(this.place) : [];
    } catch {
      return; // a damaged list: the projects already shown stay, the page says nothing new
    }
    const wanted = new Map(entries.map((e) => [projectKey(e.root), e]));
    for (const [key, source] of this.sources) {
      const entry = wanted.get(key);
      if (entry && entry.name === source.entry.name) continue;
      source.close();
      this.sources.delete(key);
      if (!entry) this.emit({ type: 'removed', key });
    }
    for (const [key, entry] of wanted) {
      if (this.sources.has(key)) continue;
      const source = new ProjectSource(entry, (s) => this.emit({ type: 'project', project: s.view }), this.linkScheme);
      this.sources.set(key, source);
      this.emit({ type: 'project', project: source.view });
    }
  }

  private reloadSoon(): void {
    if (this.reloadTimer) return;
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      this.reload();
    }, 100);
  }

  private emit(event: SourcesEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  checkAll(): void {
    for (const source of this.sources.values()) source.check();
  }

  close(): void {
    this.stopLooking();
    this.registryWatcher?.close();
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    for (const source of this.sources.values()) source.close();
    this.sources.clear();
    this.listeners.clear();
  }
}
