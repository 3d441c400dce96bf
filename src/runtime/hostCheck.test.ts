import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { hostFacts, hostProblemAfterTurn, judgeHost, usageProblem } from './hostCheck';
import { DEFAULT_HOSTS } from './hosts';

const dir = mkdtempSync(join(tmpdir(), 'loopx-hostcheck-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The parts of the real help texts (Codex 0.171.0 `exec --help`, Claude Code 2.1.197 `--help`) the verdict reads. */
const CODEX_HELP = `Usage: codex exec [OPTIONS] [PROMPT]\n  -s, --sandbox <SANDBOX_MODE>\n      --skip-git-repo-check\n      --json\n      --dangerously-bypass-approvals-and-sandbox\n`;
const OLD_CODEX_HELP = `Usage: codex exec [OPTIONS] [PROMPT]\n  -s, --sandbox <SANDBOX_MODE>\n      --full-auto\n`;
const CLAUDE_HELP = `Usage: claude [options] [command] [prompt]\n  --allowedTools, --allowed-tools <tools...>\n  --output-format <format>\n  --verbose\n  --permission-mode <mode>   Permission mode\n  -p, --print   Print response and exit\n`;

describe('a host judged against the installed program', () => {
  test('missing: says so with how to install it', () => {
    const v = judgeHost('codex', DEFAULT_HOSTS.codex, { found: null, versionOutput: null, helpOutput: null });
    expect(v).toMatchObject({ level: 'fail', problem: 'missing' });
    expect(v.sentence).toBe('The Codex CLI is not installed: "codex" is not on PATH; install the Codex CLI: npm install -g @openai/codex.');
  });

  test('the defaults pass on the tested releases, with their versions', () => {
    expect(
      judgeHost('codex', DEFAULT_HOSTS.codex, { found: '/bin/codex', versionOutput: 'codex-cli 0.171.0', helpOutput: CODEX_HELP }),
    ).toMatchObject({
      level: 'ok',
      version: '0.171.0',
      problem: null,
    });
    expect(
      judgeHost('claude', DEFAULT_HOSTS.claude, { found: '/bin/claude', versionOutput: '2.1.197 (Claude Code)', helpOutput: CLAUDE_HELP }),
    ).toMatchObject({ level: 'ok', version: '2.1.197' });
  });

  test('a flag the program dropped is incompatible, with the fix; a flag an old program lacks is too old, with the update', () => {
    const dropped = judgeHost('codex', 'codex exec --full-auto -', {
      found: '/bin/codex',
      versionOutput: 'codex-cli 0.171.0',
      helpOutput: CODEX_HELP,
    });
    expect(dropped).toMatchObject({ level: 'fail', problem: 'incompatible' });
    expect(dropped.sentence).toBe(
      'The Codex CLI 0.171.0 no longer accepts --full-auto; use the default command: codex exec --skip-git-repo-check --json {boundary} -.',
    );
    const old = judgeHost('codex', DEFAULT_HOSTS.codex, {
      found: '/bin/codex',
      versionOutput: 'codex-cli 0.12.0',
      helpOutput: OLD_CODEX_HELP,
    });
    expect(old).toMatchObject({ level: 'fail', problem: 'too_old' });
    expect(old.sentence).toMatch(
      /0\.12\.0 is too old: it does not know --skip-git-repo-check, --json; update it: npm install -g @openai\/codex/,
    );
  });

  test('a program that fails at its start (Pi 1.6.0 on Node 20, as it printed) does not start here: its error and the Node it needs, no version read from its paths', () => {
    const crash = [
      'file:///usr/lib/node_modules/@earendil-works/pi-coding-agent-1.6.0/dist/bundle/cli.js:2',
      'import { createRequire, enableCompileCache } from "node:module";',
      '                        ^^^^^^^^^^^^^^^^^^',
      "SyntaxError: The requested module 'node:module' does not provide an export named 'enableCompileCache'",
      '    at ModuleJob._instantiate (node:internal/modules/esm/module_job:123:21)',
      'Node.js v20.20.2',
    ].join('\n');
    const v = judgeHost('pi', DEFAULT_HOSTS.pi, { found: '/usr/bin/pi', versionOutput: crash, helpOutput: crash });
    expect(v).toMatchObject({ level: 'fail', problem: 'incompatible', version: null });
    expect(v.sentence).toBe(
      `Pi (/usr/bin/pi) does not start here: "SyntaxError: The requested module 'node:module' does not provide an export named 'enableCompileCache'"; it needs Node 22.19 or newer as the node on PATH.`,
    );
  });

  test('Claude Code without permission rules would refuse every loopx call in -p mode: a warning with the fix', () => {
    const v = judgeHost('claude', 'claude -p --permission-mode acceptEdits', {
      found: '/bin/claude',
      versionOutput: '2.1.197',
      helpOutput: CLAUDE_HELP,
    });
    expect(v).toMatchObject({ level: 'warn', problem: 'needs_permissions' });
    expect(v.sentence).toMatch(/requires approval.*--allowedTools \{allowedTools\}/);
  });

  test("a custom runner is the person's own: only that it exists is checked", () => {
    expect(judgeHost('custom', 'node agent.js {prompt}', { found: '/usr/bin/node', versionOutput: null, helpOutput: null })).toMatchObject({
      level: 'ok',
    });
  });

  test('a host that ended at once with a usage error: the telling line, named a host configuration problem', () => {
    const codex =
      "error: unexpected argument '--full-auto' found\n\n  tip: to pass '--full-auto' as a value, use '-- --full-auto'\n\nUsage: codex exec [OPTIONS] [PROMPT]\n";
    expect(usageProblem(codex, 2, 300)).toBe("error: unexpected argument '--full-auto' found");
    expect(usageProblem("error: unknown option '--bogus'\n", 1, 900)).toBe("error: unknown option '--bogus'");
    expect(usageProblem('tests failed: 3 of 12\n', 1, 900)).toBeNull();
    expect(usageProblem(codex, 0, 300)).toBeNull();
    const log = join(dir, 'output.log');
    writeFileSync(log, codex);
    expect(hostProblemAfterTurn('codex', log, 2, 400)).toMatch(
      /^the codex host's command line is not what the installed program accepts \(a host configuration problem, not the agent's work\): "error: unexpected argument '--full-auto' found"; use the default command/,
    );
  });
});

test('a host found only in a workspace folder on PATH is missing, and the sentence says where and why', async () => {
  const ws = mkdtempSync(join(tmpdir(), 'loopx-host-left-out-'));
  try {
    mkdirSync(join(ws, '.loopx'));
    mkdirSync(join(ws, '.venv/bin'), { recursive: true });
    writeFileSync(join(ws, '.venv/bin', 'codex'), '#!/bin/sh\n', { mode: 0o755 });
    const facts = await hostFacts('codex', DEFAULT_HOSTS.codex, join(ws, '.venv/bin'));
    expect(facts).toEqual({ found: null, versionOutput: null, helpOutput: null, leftOut: join(ws, '.venv/bin', 'codex') });
    expect(judgeHost('codex', DEFAULT_HOSTS.codex, facts)).toMatchObject({
      level: 'fail',
      problem: 'missing',
      sentence: `The Codex CLI is on PATH only at ${join(ws, '.venv/bin', 'codex')}, in a workspace folder (or a relative one) where agents can write, so loopx does not run it; install it outside the workspace, or name it by its full path in the command.`,
    });
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

describe('a host installed from npm says its version through its package', () => {
  /** A Codex bin inside an npm package folder that records every time it is started, and with which words. */
  function installed(manifest: object): { bin: string; asked: string } {
    const pkg = mkdtempSync(join(dir, 'npm-'));
    const asked = join(pkg, 'asked');
    mkdirSync(join(pkg, 'lib/node_modules/@openai/codex/bin'), { recursive: true });
    writeFileSync(join(pkg, 'lib/node_modules/@openai/codex/package.json'), JSON.stringify(manifest));
    // A folder's own manifest without a name (as bundles ship) is not the package's.
    writeFileSync(join(pkg, 'lib/node_modules/@openai/codex/bin/package.json'), '{"type":"commonjs"}');
    const real = join(pkg, 'lib/node_modules/@openai/codex/bin/codex.js');
    writeFileSync(real, `#!/bin/sh\necho "$*" >> '${asked}'\necho 'codex-cli 9.9.9'\nprintf '%s' '${CODEX_HELP}'\n`, { mode: 0o755 });
    mkdirSync(join(pkg, 'on-path'));
    symlinkSync(real, join(pkg, 'on-path', 'codex'));
    return { bin: join(pkg, 'on-path'), asked };
  }

  test('the version comes from the package, and the program is only asked its help', async () => {
    const { bin, asked } = installed({ name: '@openai/codex', version: '0.171.0' });
    const facts = await hostFacts('codex', DEFAULT_HOSTS.codex, bin);
    expect(facts.versionOutput).toBe('@openai/codex 0.171.0');
    expect(readFileSync(asked, 'utf8')).toBe('exec --help\n');
    expect(judgeHost('codex', DEFAULT_HOSTS.codex, facts)).toMatchObject({ level: 'ok', version: '0.171.0' });
  });

  test("another package's bin is asked its version, as a program outside npm is", async () => {
    const { bin, asked } = installed({ name: 'not-codex', version: '1.0.0' });
    const facts = await hostFacts('codex', DEFAULT_HOSTS.codex, bin);
    expect(judgeHost('codex', DEFAULT_HOSTS.codex, facts).version).toBe('9.9.9');
    expect(readFileSync(asked, 'utf8').split('\n').sort()).toEqual(['', '--version', 'exec --help']);
  });
});
