import type * as ChildProcess from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { INSTALL_HINTS, LEFT_OUT_HINT, findExecutable, programLeftOut } from './hosts';
import { BUILT_IN_HOSTS, builtInHost, calledAtStart } from '../shared/hostCatalog';
import { personsPath } from '../kernel/personsPath';

/**
 * Hosts change under you: a CLI update drops a flag (Codex's `--full-auto`), an old install lacks one. Before a turn
 * claims anything, and in `loopx doctor`, a host's command is judged against the installed program: is it there,
 * which version, does its command line know every flag the command uses. The facts are gathered by whoever can
 * (a synchronous probe for the CLI, an asynchronous one in VS Code); the judgement is one pure function.
 */
export interface HostFacts {
  /** The program's path, or null when it is not on PATH. */
  found: string | null;
  /** What `--version` printed (null: not asked, or it could not run). */
  versionOutput: string | null;
  /** What the help of the subcommand the command uses printed. */
  helpOutput: string | null;
  /** Where it is on PATH all the same when not found: a folder loopx leaves out (programLeftOut, hosts.ts). */
  leftOut?: string;
}

export interface HostVerdict {
  host: string;
  executable: string;
  found: string | null;
  version: string | null;
  /** ok: runs as configured; warn: runs, but turns will not write back; fail: cannot run as configured. */
  level: 'ok' | 'warn' | 'fail';
  /** missing | too_old | incompatible | needs_permissions | null */
  problem: 'missing' | 'too_old' | 'incompatible' | 'needs_permissions' | null;
  /** One sentence for a person, with the fix. */
  sentence: string;
}

/** The releases loopx is tested with (test/agents): older ones that lack a flag are too old, newer ones changed. */
export const TESTED_VERSIONS: Record<string, string> = Object.fromEntries(BUILT_IN_HOSTS.map((h) => [h.id, h.testedVersion]));
const nameOf = (host: string) => {
  const known = builtInHost(host);
  return known ? calledAtStart(known) : host === 'custom' ? 'The custom host' : `The ${host} host`;
};
const fixFor = (host: string) => {
  const known = builtInHost(host);
  return known ? `use the default command: ${known.command}` : undefined;
};

/** The program a command starts, and the subcommand whose help lists its flags (`codex exec`). */
export function commandShape(template: string): { executable: string; subcommand: string | null; flags: string[] } {
  const words = template.trim().split(/\s+/);
  const executable = (words[0] ?? '').replace(/^['"]|['"]$/g, '');
  const subcommand = words[1] && /^[a-z][a-z-]*$/.test(words[1]) ? words[1] : null;
  const flags = words.filter((w) => /^--?[A-Za-z]/.test(w)).map((w) => w.replace(/=.*$/, ''));
  return { executable, subcommand, flags: [...new Set(flags)] };
}

export function judgeHost(host: string, template: string, facts: HostFacts): HostVerdict {
  const { executable, flags } = commandShape(template);
  const name = nameOf(host);
  const known = builtInHost(host);
  const base = { host, executable, found: facts.found, version: versionIn(facts.versionOutput) };
  const verdict = (level: HostVerdict['level'], problem: HostVerdict['problem'], sentence: string): HostVerdict => ({
    ...base,
    level,
    problem,
    sentence,
  });
  if (!facts.found)
    return verdict(
      'fail',
      'missing',
      facts.leftOut
        ? `${name} is on PATH only at ${facts.leftOut}, in a workspace folder (or a relative one) where agents can write, so loopx does not run it; ${LEFT_OUT_HINT}.`
        : known
          ? `${name} is not installed: "${executable}" is not on PATH; ${INSTALL_HINTS[host]}.`
          : host === 'custom'
            ? `${name} needs "${executable}", which is not on PATH; check the command (setting loopx.hosts.custom.command, or loopx run --command).`
            : `${name} needs "${executable}", which is not on PATH; check its command in your hosts.json.`,
    );
  if (!known || !knownHost(host, executable)) return verdict('ok', null, `${name} runs ${facts.found}.`);
  // A program that fails before it can answer (a Node too old for it) has no version or flags to judge.
  const crash = startFailure(facts.versionOutput) ?? startFailure(facts.helpOutput);
  if (crash)
    return {
      ...verdict(
        'fail',
        'incompatible',
        `${name} (${facts.found}) does not start here: "${crash}"${known.nodeFloor ? `; it needs Node ${known.nodeFloor} or newer as the node on PATH` : ''}.`,
      ),
      version: null,
    };
  const version = base.version;
  const at = version ? ` ${version}` : '';
  if (facts.helpOutput) {
    const missing = flags.filter((f) => !new RegExp(`(^|[\\s,])${escape(f)}([\\s,=<\\[]|$)`, 'm').test(facts.helpOutput ?? ''));
    if (missing.length) {
      const list = missing.join(', ');
      if (version && older(version, known.testedVersion))
        return verdict(
          'fail',
          'too_old',
          `${name}${at} is too old: it does not know ${list}; update it: npm install -g ${known.npmPackage} (loopx is tested with ${known.testedVersion}).`,
        );
      return verdict('fail', 'incompatible', `${name}${at} no longer accepts ${list}; ${fixFor(host)}.`);
    }
  }
  if (known.headlessPermissionWords.length > 0 && !known.headlessPermissionWords.some((word) => template.includes(word)))
    return verdict(
      'warn',
      'needs_permissions',
      `${name}${at} run headless cannot ask anyone, so every loopx call of a turn would be refused ("requires approval"); ${fixFor(host)}.`,
    );
  return verdict('ok', null, `${name}${at} (${facts.found}) accepts the command.`);
}

/** Only the programs loopx knows get their version and flags checked; anything else is the person's own runner. */
function knownHost(host: string, executable: string): boolean {
  const known = builtInHost(host);
  return known !== undefined && basename(executable) === commandShape(known.command).executable;
}

/**
 * The facts: the program on PATH, then its `--version` and its (subcommand's) `--help` at the same time, each with a
 * time limit (Claude Code's help takes seconds on a cold start). A host installed from npm is not asked its version:
 * its package says it (packageVersion), and doctor starts seven fewer agent CLIs at once.
 */
export async function hostFacts(host: string, template: string, path = process.env.PATH ?? ''): Promise<HostFacts> {
  const { executable, subcommand } = commandShape(template);
  const found = findExecutable(executable, path) ?? null;
  if (!found) {
    const leftOut = programLeftOut(executable, path);
    return { found, versionOutput: null, helpOutput: null, ...(leftOut ? { leftOut } : {}) };
  }
  if (!knownHost(host, executable)) return { found, versionOutput: null, helpOutput: null };
  // node:child_process loads node:net and node:stream: only the commands that probe a host pay for it.
  const { execFile } = process.getBuiltinModule('node:child_process') as typeof ChildProcess;
  const run = (args: string[]) =>
    new Promise<string | null>((done) =>
      // The person's PATH (personsPath): a Node host's `#!/usr/bin/env node` must not find a node planted in the workspace.
      execFile(
        found,
        args,
        { encoding: 'utf8', timeout: 15_000, env: { ...process.env, PATH: personsPath(path) } },
        (error, stdout, stderr) => done(error && !stdout && !stderr ? null : `${stdout}${stderr}`),
      ),
    );
  const installed = packageVersion(found, builtInHost(host)?.npmPackage ?? '');
  const [versionOutput, helpOutput] = await Promise.all([
    installed ?? run(['--version']),
    run([...(subcommand ? [subcommand] : []), '--help']),
  ]);
  return { found, versionOutput, helpOutput };
}

/**
 * What npm installed, when the program is the bin of the host's own package: the first package.json with a name above
 * the program's real path names that package and its version (`@google/gemini-cli 0.61.0`). The package is no more the
 * agent's to write than the program itself, and reading it takes no start of a CLI that may need seconds (Gemini CLI
 * relaunches itself to answer --version). null: not from npm, or another package's; the program is asked.
 */
export function packageVersion(program: string, npmPackage: string): string | null {
  if (!npmPackage) return null;
  let dir: string;
  try {
    dir = dirname(realpathSync(program));
  } catch {
    return null;
  }
  for (let up = 0; up < 6; up++, dir = dirname(dir)) {
    let manifest: { name?: unknown; version?: unknown };
    try {
      manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof manifest;
    } catch {
      if (dirname(dir) === dir) return null;
      continue;
    }
    // A package's own folders may hold a manifest without a name ({"type": "module"}): the package is further up.
    if (typeof manifest.name !== 'string') continue;
    return manifest.name === npmPackage && typeof manifest.version === 'string' ? `${npmPackage} ${manifest.version}` : null;
  }
  return null;
}

/**
 * A host that ends at once with its usage message did not run the agent: its command line is wrong for the installed
 * program. Returns the telling line of its output, or null when the output does not look like that.
 */
export function usageProblem(output: string, exitCode: number, runMs: number): string | null {
  if (exitCode === 0 || runMs > 30_000) return null;
  const lines = output.split('\n').map((l) => l.trim());
  const telling = lines.find((l) =>
    /unexpected argument|unknown (option|argument|command)|unrecognized (option|argument)|invalid value .* for|error: .*(option|argument)/i.test(
      l,
    ),
  );
  if (telling) return telling.slice(0, 300);
  return null;
}

/** The line that says a program failed at its start (a syntax or import error, Node's own error codes), or null. */
function startFailure(output: string | null): string | null {
  const line = (output ?? '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => /^(SyntaxError|TypeError|ReferenceError|Error \[ERR_[A-Z_]+\]|Error: Cannot find module)\b/.test(l));
  return line ? line.slice(0, 200) : null;
}

function versionIn(output: string | null): string | null {
  return /(\d+\.\d+\.\d+)/.exec(output ?? '')?.[1] ?? null;
}

/** a < b for dotted versions. */
function older(a: string, b: string): boolean {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return false;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * After a turn that wrote nothing back: was it the host's command line? Reads the turn's output.log (what the host
 * printed) and returns a sentence naming it a host configuration problem with its telling line, or null.
 */
export function hostProblemAfterTurn(host: string, outputLog: string, exitCode: number, runMs: number): string | null {
  let output: string;
  try {
    output = readFileSync(outputLog, 'utf8').slice(-20_000);
  } catch {
    return null;
  }
  const line = usageProblem(output, exitCode, runMs);
  if (!line) return null;
  const fix = fixFor(host) ?? 'check the command in --command or the loopx.hosts settings';
  return `the ${host} host's command line is not what the installed program accepts (a host configuration problem, not the agent's work): "${line}"; ${fix}`;
}
