import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { DEFAULT_PROFILE, codeServerBin, nodeBin, profileEnv, profileNamed } from './profiles';

/**
 * The offline "real VS Code" harness: code-server on 127.0.0.1 only, driven by Debian's chromium through
 * playwright-core. LOOPX_E2E_PROFILE picks the VS Code build (profiles.ts). Everything it writes stays under .cache/e2e.
 */
/** The checkout: the nearest folder above this bundle whose package.json is loopx's (bundles live at various depths). */
export const REPO = findRepo(__dirname);

function findRepo(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'loopx') return dir;
    if (dirname(dir) === dir) throw new Error(`no loopx checkout above ${from}`);
  }
}
export const HOME = join(REPO, '.cache', 'e2e');
// One person's key for everything an e2e run does: the scenarios' seeding (in this process) and code-server's window
// (which inherits this environment) prove and verify a person's decisions with the same key, as one person's machine
// does; never the real ~/.config/loopx.
process.env.LOOPX_CONFIG_DIR ??= join(HOME, 'xdg', 'config', 'loopx');
export const PROFILE = profileNamed();
export const CODE_SERVER = codeServerBin(HOME, PROFILE);
export const CHROMIUM = process.env.LOOPX_CHROMIUM ?? '/usr/bin/chromium';
/** Screenshots and figures: test-results/ for the default build (the newest), a subfolder for the others. */
export const RESULTS = PROFILE.name === DEFAULT_PROFILE ? join(REPO, 'test-results') : join(REPO, 'test-results', PROFILE.name);

const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'terminal.integrated.gpuAcceleration': 'off',
  'git.enabled': false,
  'chat.commandCenter.enabled': false,
  // VS Code 1.10x+ opens a Chat side bar by default; it would squeeze the editor (and the board) in every run.
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.colorTheme': 'Default Dark Modern',
  // Less for chromium to draw while nothing is looked at (the host part alone: 221 → 193 CPU s here; the window's size
  // made no difference, what it costs is the workbench's own work).
  'workbench.reduceMotion': 'on',
  'editor.minimap.enabled': false,
  'editor.cursorBlinking': 'solid',
};

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

export interface CodeServer {
  port: number;
  /** The user settings file; VS Code applies edits to it live (used to switch themes). */
  settingsFile: string;
  process: ChildProcess;
  /** The workbench on a folder, or on a .code-workspace file. */
  url(folder: string, payload?: [string, string][]): string;
  devPayload(testsPath?: string): [string, string][];
  stop(): Promise<void>;
  log: string;
}

/** Starts code-server in its own process group (so stop() also ends the extension host and pty host). */
export async function startCodeServer(
  options: {
    env?: Record<string, string>;
    settings?: Record<string, unknown>;
    runDir?: string;
    port?: number;
    extensionsDir?: string;
    /**
     * Node options for code-server's processes: its extension host inherits the server's execArgv (VS Code drops
     * NODE_OPTIONS from the host's environment, so that cannot be used). Runs code-server's entry script with them.
     */
    nodeArgs?: string[];
    /** The workbench will load the checkout from its payload (devPayload): the extension-host suites. */
    development?: boolean;
  } = {},
): Promise<CodeServer> {
  const run = options.runDir ?? mkdtempSync(join(HOME, 'run-'));
  const ud = join(run, 'ud');
  mkdirSync(join(ud, 'User'), { recursive: true });
  writeFileSync(join(ud, 'User', 'settings.json'), JSON.stringify({ ...USER_SETTINGS, ...options.settings }, null, 2));
  const port = options.port ?? (await freePort());
  const configFile = join(run, 'config.yaml');
  writeFileSync(configFile, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const tmp = join(HOME, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const [command, ...prefix] = options.nodeArgs
    ? [nodeBin(REPO, PROFILE.node), ...options.nodeArgs, realpathSync(CODE_SERVER)]
    : [CODE_SERVER];
  const child: ChildProcess = spawn(
    command as string,
    [
      ...prefix,
      '--config',
      configFile,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--user-data-dir',
      ud,
      '--extensions-dir',
      options.extensionsDir ?? join(run, 'exts'),
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
      ...(options.development ? PROFILE.developmentArgs : []),
    ],
    {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // PORT too: code-server lets the PORT variable override --bind-addr, and `PORT=0 npm start` means "any free port".
      env: {
        ...process.env,
        ...profileEnv(REPO, PROFILE),
        XDG_DATA_HOME: join(HOME, 'xdg', 'data'),
        XDG_CONFIG_HOME: join(HOME, 'xdg', 'config'),
        TMPDIR: tmp,
        LOOPX_E2E_PROFILE: PROFILE.name,
        ...options.env,
        PORT: String(port),
      },
    },
  );
  const server: CodeServer = {
    port,
    settingsFile: join(ud, 'User', 'settings.json'),
    process: child,
    log: '',
    url(folder, payload) {
      // A .code-workspace file opens as a (multi-root) workspace, anything else as a folder.
      const key = folder.endsWith('.code-workspace') ? 'workspace' : 'folder';
      const q = `${key}=${encodeURIComponent(folder)}${payload ? `&payload=${encodeURIComponent(JSON.stringify(payload))}` : ''}`;
      return `http://127.0.0.1:${port}/?${q}`;
    },
    devPayload(testsPath) {
      const remote = (p: string) => `vscode-remote://127.0.0.1:${port}${p}`;
      const payload: [string, string][] = [
        ['extensionDevelopmentPath', remote(REPO)],
        ['skipWelcome', 'true'],
      ];
      if (testsPath) payload.push(['extensionTestsPath', remote(testsPath)]);
      return payload;
    },
    async stop() {
      if (child.exitCode !== null || child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return;
      }
      await new Promise<void>((done) => {
        const timer = setTimeout(() => {
          try {
            process.kill(-(child.pid as number), 'SIGKILL');
          } catch {
            /* already gone */
          }
          done();
        }, 5000);
        child.once('exit', () => {
          clearTimeout(timer);
          done();
        });
      });
    },
  };
  child.stdout?.on('data', (d) => (server.log += d));
  child.stderr?.on('data', (d) => (server.log += d));
  // Three minutes: on a busy 2-core machine a first start (extensions scanned, caches built) can take over one.
  const started = Date.now();
  const deadline = started + 180_000;
  let told = false;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) break;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null) throw new Error(`code-server exited early:\n${server.log}`);
    if (Date.now() > deadline) {
      await server.stop(); // detached: it would outlive this process otherwise
      throw new Error(`code-server did not answer /healthz within 180 s:\n${server.log}`);
    }
    if (!told && Date.now() - started > 15_000) {
      told = true;
      console.error('waiting for code-server to start (the machine is busy)…');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return server;
}

export async function launchBrowser(options: { colorScheme?: 'dark' | 'light' } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const profile = mkdtempSync(join(HOME, 'chrome-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1400, height: 900 },
    colorScheme: options.colorScheme ?? 'dark',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page };
}
