import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ModelServer, Step } from './modelServer';
import { readTurnPrompt } from '../../src/kernel/turns/turnCommands';
import { builtInHost } from '../../src/shared/hostCatalog';
// @ts-expect-error: a plain .mjs script (nodeRelease.mjs uses it too), without type declarations
import { registryEnv } from '../../scripts/registryEnv.mjs';

/**
 * The environment the real agent CLIs run in for a test: offline against the scripted model on 127.0.0.1, with a
 * home of the test's own (never the person's ~/.claude or ~/.codex), no telemetry, no update checks, and the model
 * server as the HTTP(S) proxy for anything else, so an attempt to reach the internet is recorded (`outside`) and
 * refused instead of leaving the machine.
 */
export function agentEnv(server: ModelServer, home: string, bin: string): Record<string, string> {
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
  writeFileSync(join(home, '.config', 'opencode', 'opencode.json'), opencodeConfig(server));
  // Gemini CLI: the person's settings name the key as their way in and the scripted model; a turn carries both over.
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      model: { name: 'loopx-scripted' },
      tools: { allowed: ['run_shell_command'] },
    }),
  );
  const codexHome = codexHomeFor(bin);
  writeFileSync(join(codexHome, 'config.toml'), codexConfig(server));
  return {
    HOME: home,
    PATH: `${bin}:${opencodeBin(dirname(dirname(bin)))}:${copilotBin(dirname(dirname(bin)))}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    // Claude Code: the Messages API on 127.0.0.1, a dummy key, its own config folder, nothing non-essential.
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'loopx-test-dummy-key',
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    // Gemini CLI: its API on 127.0.0.1 with a dummy key.
    GEMINI_API_KEY: 'loopx-test-dummy-key',
    GOOGLE_GEMINI_BASE_URL: server.url,
    // Copilot CLI: offline, a provider of the person's own on 127.0.0.1 (no GitHub sign-in), the scripted model.
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${server.url}/v1`,
    COPILOT_PROVIDER_API_KEY: 'loopx-test-dummy-key',
    COPILOT_MODEL: 'loopx-scripted',
    // Codex: its config (below) names the provider; the key is read from this variable.
    CODEX_HOME: codexHome,
    LOOPX_TEST_MODEL_KEY: 'loopx-test-dummy-key',
    ...proxyEnv(server),
  };
}

/**
 * A Codex home for a test outside the temporary folder: under a permission profile Codex starts its sandbox helper
 * through aliases it makes in its home, and refuses to make them under /tmp ("Refusing to create helper binaries under
 * temporary dir"), after which no command runs. A folder of the checkout's `.cache/` (ignored by git), one per test.
 */
function codexHomeFor(bin: string): string {
  const base = join(dirname(dirname(bin)), '.cache', 'codex-homes');
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, 'home '));
}

/**
 * The person's own OpenCode config in a test: the scripted model as an OpenAI-compatible provider on 127.0.0.1 (built
 * into OpenCode, nothing fetched). A turn carries its model and provider over into the turn's config
 * (runtime/opencodeBoundary.ts); the permissive `permission` here must not be carried.
 */
export function opencodeConfig(server: ModelServer): string {
  return JSON.stringify({
    model: 'scripted/loopx-scripted',
    provider: {
      scripted: {
        npm: '@ai-sdk/openai-compatible',
        name: 'scripted model on 127.0.0.1',
        options: { baseURL: `${server.url}/v1`, apiKey: 'loopx-test-dummy-key' },
        models: { 'loopx-scripted': { name: 'loopx-scripted', tool_call: true } },
      },
    },
    permission: { bash: 'allow', edit: 'allow' },
  });
}

/** Everything not for 127.0.0.1 goes to the model server, which records and refuses it. */
export function proxyEnv(server: ModelServer): Record<string, string> {
  const proxy = server.url;
  const none = '127.0.0.1,localhost';
  return {
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    ALL_PROXY: proxy,
    https_proxy: proxy,
    http_proxy: proxy,
    all_proxy: proxy,
    NO_PROXY: none,
    no_proxy: none,
  };
}

/**
 * Codex's config for a test: a custom provider speaking the Responses API on 127.0.0.1, no update check, and the
 * features that reach the network at start-up switched off (the plugin marketplace clones a git repository and asks
 * chatgpt.com; apps ask chatgpt.com). /tmp is not writable inside the sandbox, so a write outside the workspace is
 * refused there as it would be in a home folder.
 */
export function codexConfig(server: ModelServer, extra = ''): string {
  return [
    'model = "loopx-scripted"',
    'model_provider = "scripted"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.scripted]',
    'name = "scripted model on 127.0.0.1"',
    `base_url = "${server.url}/v1"`,
    'wire_api = "responses"',
    'env_key = "LOOPX_TEST_MODEL_KEY"',
    '',
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'plugin_sharing = false',
    'apps = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    '[sandbox_workspace_write]',
    'exclude_slash_tmp = true',
    'exclude_tmpdir_env_var = true',
    '',
    extra,
  ].join('\n');
}

/**
 * An agent CLI installed from the npm registry into the checkout's `.cache/` on first use (as Node 22 and the
 * code-servers are): OpenCode and Copilot CLI cannot be devDependencies, because each package lists a binary package
 * per platform as optional, this registry has only Linux x64's, and `npm ci` refuses a lock file without the others.
 * Made in a folder of its own and renamed into place whole, so two test files asking at once never see half of it.
 * A failed install fails the test.
 */
function cachedCliBin(repo: string, npmPackage: string, version: string, program: string): string {
  const dir = join(repo, '.cache', `${npmPackage.replace(/^@/, '').replace('/', '-')}-${version}`);
  const bin = join(dir, 'node_modules', '.bin');
  if (existsSync(join(bin, program))) return bin;
  mkdirSync(join(repo, '.cache'), { recursive: true });
  const temp = mkdtempSync(`${dir}.installing-`);
  try {
    writeFileSync(join(temp, 'package.json'), JSON.stringify({ private: true, allowScripts: { [npmPackage]: true } }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `${npmPackage}@${version}`], {
      cwd: temp,
      stdio: 'pipe',
      env: registryEnv(),
    });
    renameSync(temp, dir);
  } catch (error) {
    if (!existsSync(join(bin, program))) throw error;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return bin;
}

/** OpenCode at the catalog's tested release (opencode-ai). */
export function opencodeBin(repo: string): string {
  return cachedCliBin(repo, 'opencode-ai', builtInHost('opencode')?.testedVersion as string, 'opencode');
}

/** Copilot CLI at the catalog's tested release (@github/copilot; a native binary, so it runs on Node 20). */
export function copilotBin(repo: string): string {
  return cachedCliBin(repo, '@github/copilot', builtInHost('copilot')?.testedVersion as string, 'copilot');
}

/**
 * An agent CLI whose package asks for Node 22 (Qwen Code, Pi): installed into `.cache/` as the others, and a launcher of
 * the tests' own that runs it on Node 22 from `.cache/` (scripts/nodeRelease.mjs installs it on first use), whatever
 * Node the tests run on. Returns the launcher's folder, for PATH.
 */
function onNode22(repo: string, host: string, program: string): string {
  const known = builtInHost(host);
  if (!known) throw new Error(`no built-in host ${host}`);
  const installed = join(cachedCliBin(repo, known.npmPackage, known.testedVersion, program), program);
  const node22 = execFileSync(process.execPath, [join(repo, 'scripts', 'nodeRelease.mjs'), '22'], { encoding: 'utf8' }).trim();
  const dir = join(repo, '.cache', `${host}-on-node22-${known.testedVersion}`);
  mkdirSync(dir, { recursive: true });
  const launcher = join(dir, program);
  const temp = `${launcher}.${process.pid}.tmp`;
  writeFileSync(temp, `#!/bin/sh\nexec '${node22}' '${installed}' "$@"\n`, { mode: 0o755 });
  renameSync(temp, launcher);
  return dir;
}

/** Qwen Code at the catalog's tested release (@qwen-code/qwen-code), on Node 22. */
export const qwenBin = (repo: string): string => onNode22(repo, 'qwen', 'qwen');

/** Pi at the catalog's tested release (@earendil-works/pi-coding-agent; Node 22.19 or newer), on Node 22. */
export const piBin = (repo: string): string => onNode22(repo, 'pi', 'pi');

/** The real CLIs, installed as exact devDependencies: a test that needs one and cannot find it fails, never skips. */
export function agentBin(repo: string): string {
  const bin = join(repo, 'node_modules', '.bin');
  for (const name of ['claude', 'codex', 'gemini']) {
    if (!existsSync(join(bin, name))) throw new Error(`${name} is not installed in ${bin}: run npm ci (it is a devDependency)`);
  }
  return bin;
}

/** The turn's todo and exact loopx prefix, read from its prompt (turnCommands.ts: the same home as the prompt). */
export const readTurn = readTurnPrompt;

/**
 * What a model that follows the prompt does: reads its todo, records evidence, ships. Through the shell's loopx
 * commands, or, where the prompt says the shell cannot write (Codex under loopx's boundary), reads in the shell and
 * writes through the loopx MCP tools.
 */
export function shipScript(prompt: string): Step[] {
  const turn = readTurn(prompt);
  if (!turn) return [];
  const { prefix, todo } = turn;
  // No shell at all (Qwen Code under loopx's boundary): the todo is read through the MCP tools too.
  if (turn.mcp && !prefix)
    return [
      { tool: 'loopx_todo_show', input: { todo } },
      { tool: 'loopx_evidence', input: { todo, kind: 'test', summary: 'checked by the scripted model' } },
      { tool: 'loopx_ship', input: { todo } },
    ];
  if (turn.mcp)
    return [
      `${prefix} todo show ${todo} --json`,
      { tool: 'loopx_evidence', input: { todo, kind: 'test', summary: 'checked by the scripted model' } },
      { tool: 'loopx_ship', input: { todo } },
    ];
  return [
    `${prefix} todo show ${todo} --json`,
    `${prefix} evidence add --todo ${todo} --kind test --summary "checked by the scripted model" --json`,
    `${prefix} todo ship ${todo} --json`,
  ];
}
