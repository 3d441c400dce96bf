import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CODE_SERVER, HOME, PROFILE, REPO } from './harness';
import { profileEnv } from './profiles';

/**
 * The extension as users get it: `npm run package:vsix`'s .vsix, installed with code-server's `--install-extension`
 * (the flag `code` and `cursor` take). The Playwright scenarios drive this installed extension, not the checkout:
 * what they click is what a user installs. (VS Code 1.13x loads an extension under development from the workbench's
 * payload only with its smoke-test driver on, which also hides every notification toast the scenarios read; the
 * extension-host suites, which read no toasts, still run the checkout that way.)
 */
export const VSIX = process.env.LOOPX_E2E_VSIX ?? join(REPO, 'dist', 'loopx.vsix');

/**
 * `npm test` packages the .vsix itself (`npm run package:vsix`, from the same build) and names a copy kept apart from
 * dist/ in LOOPX_E2E_VSIX: its process suites package dist/loopx.vsix again while this e2e runs beside them.
 */
let packaged = Boolean(process.env.LOOPX_E2E_VSIX);
/** Packages the .vsix from the bundles of this run's build, once per run. */
export function packageVsix(): string {
  if (packaged && !existsSync(VSIX)) throw new Error(`LOOPX_E2E_VSIX names ${VSIX}, which does not exist`);
  if (!packaged) {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
    execFileSync('npm', ['run', '--silent', 'package:vsix'], { cwd: REPO, env, stdio: ['ignore', 'ignore', 'inherit'] });
    packaged = true;
  }
  return VSIX;
}

/**
 * Runs code-server's extension CLI (`args`, e.g. `--install-extension loopx.vsix`, from `cwd`) on a new extensions
 * folder and user data; returns the folder, the installed extension's folder in it, and what the CLI printed.
 */
export function installVsix(args: string[] = ['--install-extension', VSIX], cwd = dirname(VSIX)) {
  packageVsix();
  const run = mkdtempSync(join(HOME, 'run-'));
  const extensions = join(run, 'exts');
  const output = execFileSync(CODE_SERVER, ['--extensions-dir', extensions, '--user-data-dir', join(run, 'ud'), ...args], {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      ...profileEnv(REPO, PROFILE),
      XDG_DATA_HOME: join(HOME, 'xdg', 'data'),
      XDG_CONFIG_HOME: join(HOME, 'xdg', 'config'),
    },
  });
  if (!/was successfully installed/.test(output)) throw new Error(`--install-extension said: ${output}`);
  const folder = readdirSync(extensions).find((name) => name.startsWith('loopx.loopx-'));
  if (!folder) throw new Error(`nothing named loopx.loopx-* in ${extensions}: ${readdirSync(extensions).join(', ')}`);
  return { extensions, extension: join(extensions, folder), output };
}

let shared: string | undefined;
/** One installed copy for the scenarios of this run (each starts code-server with fresh user data on it). */
export function installedExtensions(): string {
  shared ??= installVsix().extensions;
  return shared;
}
