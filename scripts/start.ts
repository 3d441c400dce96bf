import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { seedDemo } from './demoSeed';
import { CODE_SERVER, HOME, PROFILE, REPO, startCodeServer } from '../test/e2e/harness';
import { ensureCodeServer, profileEnv } from '../test/e2e/profiles';

/**
 * `npm start`: the product running. Packages the extension, installs the .vsix into a local code-server
 * (127.0.0.1 only; VS Code 1.139 on Node 24 unless LOOPX_E2E_PROFILE names another) and opens a demo workspace whose store has a goal, todos in every state, a pending gate and
 * evidence. Ctrl-C stops everything.
 */
const DEMO = join(HOME, 'demo');
const WORKSPACE = join(DEMO, 'workspace');

async function main(): Promise<void> {
  console.log('npm start: building and packaging the extension…');
  for (const step of ['build', 'package:vsix'])
    execFileSync('npm', ['run', '--silent', step], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
  await ensureCodeServer(REPO, HOME, PROFILE);
  seedDemo(WORKSPACE);
  // A fresh VS Code profile too: the old one's workspace state remembers the previous demo store's log (the log
  // witness would rightly say the new one lacks those events).
  rmSync(join(DEMO, 'ud'), { recursive: true, force: true });
  const exts = join(DEMO, 'exts');
  rmSync(exts, { recursive: true, force: true });
  execFileSync(
    CODE_SERVER,
    ['--extensions-dir', exts, '--user-data-dir', join(DEMO, 'ud'), '--install-extension', join(REPO, 'dist', 'loopx.vsix')],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        ...profileEnv(REPO, PROFILE),
        XDG_DATA_HOME: join(HOME, 'xdg', 'data'),
        XDG_CONFIG_HOME: join(HOME, 'xdg', 'config'),
      },
    },
  );
  const port = Number(process.env.PORT ?? 0) || undefined;
  const server = await startCodeServer({ runDir: DEMO, port, extensionsDir: exts });
  const url = server.url(WORKSPACE);
  console.log(
    `\nLoopX is running in VS Code ${PROFILE.name.slice(7)} (code-server ${PROFILE.codeServerVersion}), on this machine only:\n\n  ${url}\n`,
  );
  console.log(`Demo workspace: ${WORKSPACE}`);
  console.log(
    `Act as an agent from another terminal:\n  cd ${WORKSPACE} && LOOPX_AGENT=codex ${join(REPO, 'bin', 'loopx')} todo claim --next\n`,
  );
  console.log('Press Ctrl-C to stop.');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping code-server…');
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  server.process.on('exit', (code) => {
    if (!stopping) {
      console.error(`code-server exited (${code}):\n${server.log.slice(-2000)}`);
      process.exit(1);
    }
  });
}

main().catch((error: unknown) => {
  // A failure here is the environment's (a port, a busy machine, a missing package): say what, without a stack.
  console.error(`\nnpm start could not start VS Code: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
