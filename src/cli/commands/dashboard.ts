import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Command } from '../command';
import { InvalidInputError, LoopxError, EXIT } from '../../kernel/errors';
import { startDashboard } from '../../runtime/dashboard/dashboardServer';
import { withPersonsPath } from '../../kernel/personsPath';
import { iso } from '../../kernel/time';
import { loopxFolder } from '../loopxFolder';

/** Where the built page is: dist/dashboard in loopx's own folder, whichever bundle runs this. */
const assetsDir = () => join(loopxFolder(), 'dist', 'dashboard');

/** The person's browser, as their desktop opens links ($BROWSER first); nothing happens where there is none. */
function openBrowser(url: string, env: NodeJS.ProcessEnv): void {
  const [command, args] = env.BROWSER
    ? [env.BROWSER, [url]]
    : process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    // The person's PATH (personsPath): an `xdg-open` planted in an activated .venv/bin would run as the person.
    const child = spawn(command, args, { stdio: 'ignore', detached: true, shell: false, env: withPersonsPath(env) });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    /* no browser here: the address is printed */
  }
}

export const dashboard: Command = {
  name: ['dashboard'],
  summary: 'a local web page with every project you have: what waits on you first, live (Ctrl-C stops it)',
  description: [
    'Serves on 127.0.0.1 only. The address it prints and opens carries this launch’s secret after #; the page trades it',
    'for a cookie, and anything without it is refused. The page only shows: decisions stay in VS Code or a terminal.',
    'Projects are those `loopx projects` lists; the page follows their stores as agents write.',
  ].join('\n'),
  flags: {
    port: { type: 'int', value: 'N', min: 0, max: 65_535, description: 'the port to listen on (default: any free one)' },
    'no-open': { type: 'boolean', description: 'print the address without opening a browser' },
  },
  examples: ['loopx dashboard', 'loopx dashboard --port 7788 --no-open'],
  async run(ctx) {
    const port = ctx.args.num('port') ?? 0;
    let running;
    try {
      running = await startDashboard({ port, assetsDir: assetsDir(), place: { env: ctx.env } });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        throw new InvalidInputError(`port ${port} is taken on 127.0.0.1`, 'choose another with --port, or leave it out for any free one');
      if (code === 'EACCES')
        throw new LoopxError('port_not_allowed', `this user may not listen on port ${port}`, EXIT.invalidInput, 'choose a port above 1023');
      throw error;
    }
    const data = { url: running.url, openUrl: running.openUrl, port: running.port, projects: running.sources.projects().length };
    // Said as it starts (a line; with --json one JSON object, as `loopx run` says its events), then it serves.
    if (ctx.json) ctx.out(`${JSON.stringify({ event: 'listening', ...data, at: iso(Date.now()) })}\n`);
    else ctx.out(`LoopX dashboard: ${running.openUrl}\n(${data.projects} projects; Ctrl-C stops it)\n`);
    if (!ctx.args.bool('no-open')) openBrowser(running.openUrl, ctx.env);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        void running.close().then(resolve);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    return { data: { ...data, stopped: true }, text: 'Dashboard stopped.' };
  },
};
