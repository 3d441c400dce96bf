import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO, cleanEnv, inVsCode, loopx } from '../cli/harness';
import { piBin, qwenBin } from './agentEnv';
import { approveMonitor } from '../../src/kernel/monitors/monitors';
import { setGoalHost } from '../../src/kernel/goals/goalHost';
import { type AgentWorld, startAgentWorld, turnLog, SCRIPTED_TURN_USAGE, REAL_AGENT_TEST } from './agentWorld';
import { claudeMcpSetup, codexMcpSetup } from '../../src/runtime/projections/mcpSetup';
import { DEFAULT_HOSTS, planHost } from '../../src/runtime/hosts';
import { turnBoundary } from '../../src/runtime/hostBoundary';
import { humanKeyDir } from '../../src/kernel/humanKey';
import { holdSandboxStubs } from '../../src/runtime/sandboxStubs';

/**
 * The real Claude Code and Codex CLIs (exact devDependencies) running loopx turns with the default host commands,
 * offline: the model is a script on 127.0.0.1 that reads the prompt and calls the CLI's own shell tool with the
 * prompt's loopx commands (Codex, whose shell loopx keeps read-only to the store, writes back through the loopx MCP
 * tools). Everything lives under one temporary folder whose name has a space, loopx included (agentWorld.ts).
 */
let w: AgentWorld;
/** Qwen Code and Pi on Node 22 (installed into .cache/ on first use: minutes on a fresh clone), for doctor's check. */
let node22Clis: string[] = [];
beforeAll(async () => {
  node22Clis = [qwenBin(REPO), piBin(REPO)];
  w = await startAgentWorld('agents');
}, 300_000);
afterAll(async () => {
  await w?.close();
});

function expectShippedOnce(cli: (args: string[]) => ReturnType<typeof loopx>, agent: string): void {
  expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  expect(cli(['evidence', 'list', '--todo', 'T1', '--json']).json.data).toEqual([
    expect.objectContaining({ actor: agent, source: 'agent', summary: 'checked by the scripted model' }),
  ]);
  expect(cli(['turn', 'list', '--json']).json.data).toEqual([
    expect.objectContaining({ id: 'R1', agent, resultKind: 'validated_completion', spent: true, exitCode: 0 }),
  ]);
  const history = cli(['history', '--goal', 'G1', '--limit', '500', '--json']).json.data as { kind: string }[];
  expect(history.filter((e) => e.kind === 'quota.spent')).toHaveLength(1);
  expect(cli(['quota', 'show', '--goal', 'G1', '--json']).json.data).toMatchObject({ spent: 1 });
}

describe('real agent CLIs with the default host commands, offline', REAL_AGENT_TEST, () => {
  test("loopx run --host claude: Claude Code runs the prompt's loopx commands unasked and ships the todo; quota spent once", async () => {
    const { root, env, cli } = w.setUp();
    const before = w.server.calls.length;
    const r = await w.run(root, env, ['--host', 'claude']);
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.events.find((e) => e.event === 'turn_ended'),
      turnLog(root),
    ).toMatchObject({ resultKind: 'validated_completion', spent: true, exitCode: 0 });
    const calls = w.server.calls.slice(before);
    // The prompt's loopx: the workspace's launcher of this CLI on this Node (a login shell may have no Node on PATH).
    const launcher = join(root, '.loopx', 'bin', 'loopx');
    expect(calls.map((c) => c.command)).toEqual([
      `LOOPX_AGENT=claude '${launcher}' todo show T1 --json`,
      expect.stringContaining(' evidence add --todo T1 '),
      `LOOPX_AGENT=claude '${launcher}' todo ship T1 --json`,
    ]);
    for (const call of calls) expect(call.output).toContain('"ok":true');
    expectShippedOnce(cli, 'claude');
    // What it used, from Claude Code's own report: 4 requests of 100 tokens in; 20 out per tool call, 10 to end.
    const ended = r.events.find((e) => e.event === 'turn_ended') as { usage: Record<string, unknown> };
    expect(ended.usage).toMatchObject({ inputTokens: 400, outputTokens: 70, cachedTokens: 0, costSource: 'host' });
    expect(ended.usage.costUsd).toBeGreaterThan(0);
    expect(cli(['turn', 'list', '--json']).json.data).toMatchObject([{ usage: ended.usage }]);
    // The runner showed the turn as readable lines, the raw stream is in the turn's folder.
    const progress = r.events.filter((e) => e.event === 'output').flatMap((e) => (e.progress as { kind: string; text: string }[]) ?? []);
    expect(progress.filter((p) => p.kind === 'loopx').map((p) => p.text)).toEqual([
      'loopx todo show T1 --json',
      expect.stringContaining('loopx evidence add --todo T1 '),
      'loopx todo ship T1 --json',
    ]);
    expect(w.server.outside).toEqual([]);
    expect(w.server.problems).toEqual([]);
  });

  test("loopx run --host codex: Codex reads in its sandbox, writes back through loopx's MCP tools as codex and ships the todo; quota spent once", async () => {
    const { root, env, cli } = w.setUp();
    const before = w.server.calls.length;
    const r = await w.run(root, env, ['--host', 'codex']);
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.events.find((e) => e.event === 'turn_ended'),
      turnLog(root),
    ).toMatchObject({ resultKind: 'validated_completion', spent: true, exitCode: 0 });
    const calls = w.server.calls.slice(before);
    // The prompt's loopx: the workspace's launcher of this CLI on this Node (a login shell may have no Node on PATH).
    const launcher = join(root, '.loopx', 'bin', 'loopx');
    expect(calls.map((c) => [c.tool, c.command])).toEqual([
      ['exec_command', `LOOPX_AGENT=codex '${launcher}' todo show T1 --json`],
      ['loopx_evidence', JSON.stringify({ todo: 'T1', kind: 'test', summary: 'checked by the scripted model' })],
      ['loopx_ship', JSON.stringify({ todo: 'T1' })],
    ]);
    for (const call of calls) expect(call.output).toContain('"ok":true');
    expectShippedOnce(cli, 'codex');
    // Codex reports tokens, not money: the cost comes from the person's price for its model (config.toml's model).
    const ended = r.events.find((e) => e.event === 'turn_ended') as { usage: Record<string, unknown> };
    expect(ended.usage).toEqual(SCRIPTED_TURN_USAGE);
    // The mount points loopx made for the sandbox (sandboxStubs.ts) are gone with the turn.
    for (const stub of ['opencode.json', '.gemini', '.qwen', '.opencode', '.pi', '.mcp.json', '.cursor'])
      expect(existsSync(join(root, stub)), stub).toBe(false);
    expect(w.server.outside).toEqual([]);
    expect(w.server.problems).toEqual([]);
  });

  test('Claude Code: a command smuggled through an allowed loopx call, or through evidence run, is not run unasked', async () => {
    const { root, env, cli } = w.setUp();
    const marker = (name: string) => join(root, name);
    w.extra = ({ prefix, todo }) => [
      `${prefix} evidence run --todo ${todo} -- touch ${marker('ran-evidence-run')}`,
      `${prefix} todo show ${todo} && node -e "require('fs').writeFileSync('${marker('ran-and')}', '')"`,
      `${prefix} todo show ${todo}; node -e "require('fs').writeFileSync('${marker('ran-semicolon')}', '')"`,
      `${prefix} todo show ${todo} | node -e "require('fs').writeFileSync('${marker('ran-pipe')}', '')"`,
      `${prefix} todo show $(node -e "require('fs').writeFileSync('${marker('ran-substitution')}', '')")`,
      `node -e "require('fs').writeFileSync('${marker('ran-plain')}', '')"`,
    ];
    const before = w.server.calls.length;
    try {
      const r = await w.run(root, env, ['--host', 'claude']);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      w.extra = () => [];
    }
    const smuggled = w.server.calls.slice(before + 1, before + 7);
    expect(smuggled).toHaveLength(6);
    for (const call of smuggled) expect(call.output, call.command).toMatch(/requires approval|command_substitution/);
    for (const name of ['ran-evidence-run', 'ran-and', 'ran-semicolon', 'ran-pipe', 'ran-substitution', 'ran-plain'])
      expect(existsSync(marker(name)), name).toBe(false);
    // Nothing ran: evidence run recorded nothing either; the turn's own commands still did their work.
    expect(cli(['evidence', 'list', '--todo', 'T1', '--json']).json.data).toHaveLength(1);
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  });

  test("Codex: the agent's own shell keeps the workspace's folders on PATH (an activated .venv/bin); nothing outside the sandbox runs from them", async () => {
    const { root, env, cli } = w.setUp();
    // A person's terminal with the project's venv activated: its bin first on PATH. The venv's own tool, and copies of
    // what Codex or loopx could look up on PATH outside the sandbox, each leaving a mark where only an unsandboxed
    // process can write (CODEX_HOME) and then running the real program.
    const venv = join(root, '.venv', 'bin');
    mkdirSync(venv, { recursive: true });
    const mark = (name: string) => join(env.CODEX_HOME as string, `planted ${name} ran`);
    const plant = (name: string, body: string) => {
      writeFileSync(
        join(venv, name),
        `#!/bin/sh
${body}
`,
      );
      chmodSync(join(venv, name), 0o755);
    };
    plant('venv-tool', 'echo "the venv tool ran"');
    const real: Record<string, string> = {
      node: process.execPath,
      bwrap: '/usr/bin/bwrap',
      bash: '/bin/bash',
      sh: '/bin/sh',
      git: '/usr/bin/git',
    };
    for (const [name, path] of Object.entries(real)) plant(name, `touch '${mark(name)}' 2>/dev/null; exec '${path}' "$@"`);
    w.extra = () => ['venv-tool'];
    const before = w.server.calls.length;
    try {
      const r = await w.run(root, { ...env, PATH: `${venv}:${env.PATH}` }, ['--host', 'codex']);
      expect(r.code, r.stderr).toBe(0);
      expect(
        r.events.find((e) => e.event === 'turn_ended'),
        turnLog(root),
      ).toMatchObject({ resultKind: 'validated_completion' });
    } finally {
      w.extra = () => [];
    }
    const ran = w.server.calls.slice(before).find((c) => c.command === 'venv-tool');
    expect(ran?.output, turnLog(root)).toContain('the venv tool ran');
    for (const name of Object.keys(real)) expect(existsSync(mark(name)), `a planted ${name} ran outside the sandbox`).toBe(false);
    expectShippedOnce(cli, 'codex');
  });

  test("VS Code's turn line: the real Codex, started as the terminal's line starts it, gives its agent the terminal's PATH and ships", async () => {
    const { root, env, cli } = w.setUp();
    const venv = join(root, '.venv', 'bin');
    mkdirSync(venv, { recursive: true });
    writeFileSync(join(venv, 'venv-tool'), '#!/bin/sh\necho "the venv tool ran"\n');
    chmodSync(join(venv, 'venv-tool'), 0o755);
    const started = loopx(['turn', 'start', '--goal', 'G1', '--host', 'codex', '--agent', 'codex', '--json'], {
      cwd: root,
      env: { HOME: env.HOME as string },
    }).json.data as { id: string; promptFile: string; env: Record<string, string>; allowedCommands: string[]; cwd: string };
    // The line as the extension makes it: its own PATH (the extension host's: no venv) is the person's; the terminal's
    // shell has the venv first, as the Python extension puts it there.
    const hostPath = process.env.PATH;
    let line: string;
    try {
      process.env.PATH = env.PATH;
      line = planHost('codex', DEFAULT_HOSTS, {
        promptFile: started.promptFile,
        dir: dirname(started.promptFile),
        env: started.env,
        allowedCommands: started.allowedCommands,
        boundary: turnBoundary(started, w.spacedLoopx, humanKeyDir({ env, home: env.HOME })),
      }).commandLine;
    } finally {
      process.env.PATH = hostPath;
    }
    w.extra = () => ['venv-tool'];
    const before = w.server.calls.length;
    // As the extension does before it opens the terminal: the folders Codex's sandbox mounts over, made if missing.
    const releaseStubs = holdSandboxStubs(started.cwd, 'codex');
    try {
      const code = await new Promise<number | null>((done) => {
        const child = spawn('/bin/sh', ['-c', line], {
          cwd: started.cwd,
          env: { ...cleanEnv(env), ...started.env, PATH: `${venv}:${env.PATH}` },
        });
        child.stdin.end('\n'); // the line waits for Enter before the terminal closes
        child.on('close', done);
      });
      expect(code, turnLog(root, started.id)).toBe(0);
    } finally {
      w.extra = () => [];
      releaseStubs();
    }
    const ran = w.server.calls.slice(before).find((c) => c.command === 'venv-tool');
    expect(ran?.output, turnLog(root, started.id)).toContain('the venv tool ran');
    expect(cli(['todo', 'show', 'T1', '--json']).json.data, turnLog(root, started.id)).toMatchObject({ status: 'shipped' });
  });

  test("Codex: the sandbox keeps the agent's own writes in the workspace, and a check it sets through loopx waits for a person", async () => {
    const { root, env, cli } = w.setUp();
    // Outside the workspace and outside /tmp (which Codex's workspace profile lets commands write, as builds need).
    const outside = (name: string) => join(env.CODEX_HOME as string, name);
    w.only = ({ prefix, todo }) => [
      `${prefix} todo show ${todo} --json`,
      `touch '${outside('written by the agent')}'`,
      {
        tool: 'loopx_monitor_add',
        input: {
          todo,
          check: `touch '${outside('written by its check')}' || touch 'its check ran'`,
          every: '10s',
          note: 'waits for the deploy',
        },
      },
    ];
    const before = w.server.calls.length;
    try {
      const r = await w.run(root, env, ['--host', 'codex']);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      w.only = undefined;
    }
    const [, write, add] = w.server.calls.slice(before);
    expect(write?.output).toMatch(/Read-only file system|Permission denied/);
    expect(existsSync(outside('written by the agent'))).toBe(false);
    expect(add?.output).toContain('"approval":"pending"');
    // The runner's next passes and any ticker leave it alone: it waits for a person, and says so.
    const again = await w.run(root, env, ['--host', 'codex']);
    expect(again.code, again.stderr).toBe(0);
    expect(cli(['monitor', 'tick', '--json']).json.data).toMatchObject({ runs: [] });
    expect(existsSync(outside('written by its check'))).toBe(false);
    expect(existsSync(join(root, 'its check ran'))).toBe(false);
    expect(cli(['monitor', 'list']).stdout).toMatch(
      /M1\s+waiting\s+T1: .*\(waits for a person to allow its check \(loopx monitor approve M1\)/,
    );
    // Once a person approves it, loopx runs it, unattended, in the checks' own sandbox (bubblewrap, required in CI):
    // the workspace writable, the disk outside it not (without a sandbox it would have had the person's full access).
    inVsCode(root, (kernel) => approveMonitor(kernel, 'M1'));
    expect(cli(['monitor', 'tick', '--json']).json.data).toMatchObject({
      runs: [expect.objectContaining({ monitorId: 'M1', exitCode: 0 })],
    });
    expect(existsSync(join(root, 'its check ran'))).toBe(true);
    expect(existsSync(outside('written by its check'))).toBe(false);
    expect(w.server.outside).toEqual([]);
  });
});

describe('hosts that change under you, judged against the real CLIs', REAL_AGENT_TEST, () => {
  test('loopx doctor names each installed host with its version and says it accepts the default command', () => {
    const { root, env } = w.setUp();
    const path = [...node22Clis, env.PATH as string].join(':');
    // Copilot CLI unpacks itself into the home's cache on its first start (235 MB: longer than doctor's 15 s probe on a
    // loaded machine, when doctor names no version); a person's first `copilot` does it once.
    spawnSync('copilot', ['--version'], { env: { HOME: env.HOME as string, PATH: path }, timeout: 180_000 });
    const doctor = loopx(['doctor', '--json'], { cwd: root, env: { HOME: env.HOME as string, PATH: path } });
    const checks = (doctor.json.data as { checks: { name: string; level: string; detail: string }[] }).checks;
    // Every built-in host, in the catalog's order (shared/hostCatalog.ts): each installed here (a devDependency, or in .cache/).
    expect(checks.filter((c) => c.name.startsWith('host '))).toEqual([
      {
        name: 'host codex',
        level: 'ok',
        detail: expect.stringMatching(/^The Codex CLI 0\.171\.0 \(.*codex\) accepts the command\.$/),
        host: expect.anything(),
      },
      {
        name: 'host claude',
        level: 'ok',
        detail: expect.stringMatching(/^Claude Code 2\.1\.197 \(.*claude\) accepts the command\.$/),
        host: expect.anything(),
      },
      {
        name: 'host opencode',
        level: 'ok',
        detail: expect.stringMatching(/^OpenCode 1\.18\.33 \(.*opencode\) accepts the command\.$/),
        host: expect.anything(),
      },
      {
        name: 'host gemini',
        level: 'ok',
        detail: expect.stringMatching(/^Gemini CLI 0\.61\.0 \(.*gemini\) accepts the command\.$/),
        host: expect.anything(),
      },
      {
        name: 'host copilot',
        level: 'ok',
        detail: expect.stringMatching(/^Copilot CLI 1\.0\.102 \(.*copilot\) accepts the command\.$/),
        host: expect.anything(),
      },
      {
        name: 'host qwen',
        level: 'ok',
        detail: expect.stringMatching(/^Qwen Code 0\.24\.4 \(.*qwen\) accepts the command\.$/),
        host: expect.anything(),
      },
      {
        name: 'host pi',
        level: 'ok',
        detail: expect.stringMatching(/^Pi 1\.6\.0 \(.*pi\) accepts the command\.$/),
        host: expect.anything(),
      },
    ]);
    // Not installed: said, and a warning only for a host this workspace uses (here G1's agent).
    const none = loopx(['doctor'], { cwd: root, env: { PATH: '/usr/bin:/bin' } });
    expect(none.stdout).toMatch(/ok\s+host codex\s+The Codex CLI is not installed: "codex" is not on PATH; install the Codex CLI/);
    expect(none.code).toBe(0);
    inVsCode(root, (kernel) => setGoalHost(kernel, 'G1', 'codex'));
    const used = loopx(['doctor'], { cwd: root, env: { PATH: '/usr/bin:/bin' } });
    expect(used.stdout).toMatch(/warn\s+host codex\s+The Codex CLI is not installed: .* This workspace uses it: G1's agent\.\n/);
    expect(used.stdout).toMatch(/ok\s+host claude\s+Claude Code is not installed/);
    expect(used.code).toBe(0);
  }, 240_000);

  test('loopx run refuses a command the installed Codex no longer accepts, before anything is claimed, saying what to use', async () => {
    const { root, env, cli } = w.setUp();
    const r = await w.run(root, env, ['--host', 'codex', '--command', 'codex exec --full-auto -']);
    expect(r.code).toBe(2);
    expect(r.events.at(-1)).toMatchObject({
      ok: false,
      error: {
        code: 'host_incompatible',
        message: expect.stringContaining(
          'The Codex CLI 0.171.0 no longer accepts --full-auto; use the default command: codex exec --skip-git-repo-check --json {boundary} -',
        ),
      },
    });
    expect(cli(['turn', 'list', '--json']).json.data).toEqual([]);
  });

  test('a turn whose host exits at once with a usage error is a host configuration problem, with the telling line', async () => {
    const { root, env } = w.setUp();
    const r = await w.run(root, env, ['--host', 'custom', '--command', 'codex exec --full-auto -']);
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.events.find((e) => e.event === 'turn_ended'),
      turnLog(root),
    ).toMatchObject({
      resultKind: 'host_failure',
      exitCode: 2,
      spent: false,
      hostProblem: expect.stringContaining(
        `a host configuration problem, not the agent's work): "error: unexpected argument '--full-auto' found"`,
      ),
    });
  });
});

describe("Connect an Agent's MCP set-up, as copied, with the real CLIs", REAL_AGENT_TEST, () => {
  test('Claude Code: the copied command adds the server; with mcp__loopx allowed, claude -p ships through loopx tools as its agent', async () => {
    const { root, env, cli } = w.setUp();
    const add = spawnSync('/bin/sh', ['-c', claudeMcpSetup(w.spacedLoopx)], { cwd: root, env: { ...cleanEnv(env) }, encoding: 'utf8' });
    expect(add.status, add.stderr).toBe(0);
    const list = spawnSync('claude', ['mcp', 'list'], { cwd: root, env: cleanEnv(env), encoding: 'utf8', timeout: 60_000 });
    expect(list.stdout).toContain(`loopx: ${w.spacedLoopx} mcp - ✔ Connected`);
    const started = loopx(['turn', 'start', '--goal', 'G1', '--host', 'claude', '--agent', 'claude', '--json'], { cwd: root });
    const prompt = (started.json.data as { promptFile: string }).promptFile;
    w.only = ({ todo }) => [
      { tool: 'mcp__loopx__loopx_todo_show', input: { todo } },
      { tool: 'mcp__loopx__loopx_evidence', input: { todo, summary: 'checked by the scripted model', kind: 'test' } },
      { tool: 'mcp__loopx__loopx_ship', input: { todo } },
    ];
    try {
      const r = await new Promise<{ code: number | null; out: string }>((done) => {
        // MCP_TIMEOUT: Claude Code's wait for a server to start. `claude -p` connects its servers in the background and
        // sends its first request after 5 s at most, without the tools of a server still connecting; a model then calls
        // its WaitForMcpServers tool, a script does not, so each scripted call would be "no such tool, still connecting"
        // and the turn would ship nothing (as `loopx mcp` behind the launcher can take on a loaded machine).
        // MCP_CONNECTION_NONBLOCKING=false with MCP_CONNECT_TIMEOUT_MS waits for the server before the first request.
        const child = spawn('/bin/sh', ['-c', `claude -p --allowedTools mcp__loopx < '${prompt}'`], {
          cwd: root,
          env: { ...cleanEnv(env), MCP_TIMEOUT: '60000', MCP_CONNECT_TIMEOUT_MS: '60000', MCP_CONNECTION_NONBLOCKING: 'false' },
        });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        child.on('close', (code) => done({ code, out }));
      });
      expect(r.code, r.out).toBe(0);
      const answers = w.server.calls.filter((c) => c.tool.startsWith('mcp__loopx__')).map((c) => `${c.tool}: ${c.output}`);
      expect(cli(['todo', 'show', 'T1', '--json']).json.data, `${r.out}\n${answers.join('\n')}`).toMatchObject({ status: 'shipped' });
    } finally {
      w.only = undefined;
    }
    expect(cli(['evidence', 'list', '--todo', 'T1', '--json']).json.data).toEqual([
      expect.objectContaining({ actor: 'claude', summary: 'checked by the scripted model' }),
    ]);
  });

  test('Codex: the copied table is what codex reads: the server, its arguments, and LOOPX_AGENT passed through', () => {
    const { root, env } = w.setUp();
    appendFileSync(join(env.CODEX_HOME as string, 'config.toml'), `\n${codexMcpSetup(w.spacedLoopx)}`);
    const list = spawnSync('codex', ['mcp', 'list', '--json'], { cwd: root, env: cleanEnv(env), encoding: 'utf8', timeout: 60_000 });
    expect(list.status, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({
        name: 'loopx',
        enabled: true,
        transport: expect.objectContaining({ command: w.spacedLoopx, args: ['mcp'], env_vars: ['LOOPX_AGENT'] }),
      }),
    ]);
  });
});
