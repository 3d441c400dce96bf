import { AGENT_READ_ONLY } from '../agentReach';
import type * as ChildProcess from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import type { ActorKind } from '../events/eventTypes';
import { humanKeyDir } from '../humanKey';

/**
 * Where a check loopx runs unattended (an acceptance check, a monitor's check) runs: in a bubblewrap sandbox no
 * wider than Codex's workspace-write, or, where none can be had, as it always did, and said so. A check runs code an
 * agent may have changed (`npm test` runs the agent's edited files), so it must not reach what the agent's own host
 * keeps from it: the store (`.loopx/`), other hosts' configuration, the rest of the disk.
 */
export interface CheckSandbox {
  /** `bubblewrap`: the sandbox below; `none`: the check runs with the ticker's (or caller's) full reach. */
  kind: 'bubblewrap' | 'none';
  /** Whether the check can reach the network (always true without a sandbox). */
  network: boolean;
  /** In words: what the sandbox allows, or why there is none. */
  reason: string;
}

/** An acceptance check (`evidence run --check`) or a monitor's check (`monitor tick`). */
export type CheckPurpose = 'acceptance' | 'monitor';

/** Paths under a writable root that stay read-only in the sandbox: the store and the agent hosts' configuration. */
export const PROTECTED_PATHS = AGENT_READ_ONLY;

/** The person's opt-out: `LOOPX_CHECK_SANDBOX=off` in the environment of a process that is not an agent's. */
export const SANDBOX_ENV = 'LOOPX_CHECK_SANDBOX';

export interface SandboxPlan {
  sandbox: CheckSandbox;
  /** The argv that goes before `/bin/sh -c CMD` (bwrap and its options), or none. */
  wrapper?: string[];
  /** The environment the check gets (TMPDIR points into the private /tmp when sandboxed). */
  env: NodeJS.ProcessEnv;
}

let loaded: typeof ChildProcess | undefined;
function childProcess(): typeof ChildProcess {
  return (loaded ??= process.getBuiltinModule('node:child_process') as typeof ChildProcess);
}

/** `bwrap` on the given PATH (an absolute directory only: a relative one would follow the check's cwd), or null. */
export function findBwrap(path: string | undefined): string | null {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const file = join(dir, 'bwrap');
    try {
      if (statSync(file).isFile()) return file;
    } catch {
      /* not here */
    }
  }
  return null;
}

/** Whether a bwrap can make its namespaces here, asked once per process per bwrap (a user namespace may be refused). */
const probes = new Map<string, string | null>();
function probe(bwrap: string): string | null {
  const known = probes.get(bwrap);
  if (known !== undefined) return known;
  const args = [...baseArgs(false), '--', '/bin/sh', '-c', ':'];
  const run = childProcess().spawnSync(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000, encoding: 'utf8' });
  const problem =
    run.status === 0
      ? null
      : `${bwrap} cannot create its namespaces here (${(run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n')[0]})`;
  probes.set(bwrap, problem);
  return problem;
}

/** Isolation and the read-only disk with a private /dev, /proc and /tmp: what every sandboxed check (and the probe) gets. */
function baseArgs(network: boolean): string[] {
  return [...isolation(!network), '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
}

function isolation(unshareNet: boolean): string[] {
  // A new PID namespace: when the time limit kills bwrap's process group, its init dies and the kernel ends
  // everything the check started inside, even what left the group (setsid, double forks). No --new-session: the
  // check has no terminal (its stdio are pipes, and runCommand starts it in its own session).
  return ['--unshare-pid', '--unshare-ipc', '--unshare-uts', ...(unshareNet ? ['--unshare-net'] : []), '--die-with-parent'];
}

/** The sandbox a check of this purpose gets from a process with this environment and actor. */
export function planCheckSandbox(input: {
  purpose: CheckPurpose;
  env: NodeJS.ProcessEnv;
  /** Who runs it: an agent's own process cannot turn the sandbox off (it controls its environment). */
  actorKind: ActorKind;
  /** Writable in the sandbox: the workspace root, and the todo's worktree when the check runs there. */
  writable: readonly string[];
  platform?: NodeJS.Platform;
}): SandboxPlan {
  const { purpose, env } = input;
  const network = purpose === 'monitor';
  const none = (reason: string): SandboxPlan => ({ sandbox: { kind: 'none', network: true, reason }, env });
  const asked = env[SANDBOX_ENV]?.trim().toLowerCase();
  let ignored = '';
  if (asked === 'off') {
    if (input.actorKind !== 'agent') return none(`${SANDBOX_ENV}=off: a person turned the sandbox off`);
    ignored = `; ${SANDBOX_ENV}=off is a person's setting and is ignored in an agent's process`;
  }
  const platform = input.platform ?? process.platform;
  if (platform !== 'linux') return none(`loopx has no sandbox for checks on ${platform}`);
  const bwrap = findBwrap(env.PATH);
  if (!bwrap) return none('bwrap (bubblewrap) was not found on PATH');
  const problem = probe(bwrap);
  if (problem) return none(problem);
  const roots = writableRoots(input.writable);
  const args = baseArgs(network);
  // After the private /tmp, so a workspace under /tmp is bound back in; its protected paths after it, read-only.
  for (const root of roots) args.push('--bind', root, root);
  for (const root of roots) {
    for (const name of PROTECTED_PATHS) {
      const path = join(root, name);
      if (existsSync(path)) args.push('--ro-bind', path, path);
    }
  }
  // The person's key folder empty, last (so even inside a writable root): every built-in host keeps it from its agent's
  // reads, and a check runs code the agent wrote (`npm test`), which could copy the key into the workspace.
  const keyDir = humanKeyDir({ env });
  if (existsSync(keyDir)) args.push('--tmpfs', keyDir);
  const reason =
    `bubblewrap: the disk read-only, ${roots.join(' and ')} writable except ${PROTECTED_PATHS.join(', ')}; a private /tmp; ` +
    `your key folder hidden; ` +
    `${network ? 'the network kept (a monitor check a person allowed may watch CI)' : 'no network'}${ignored}`;
  return { sandbox: { kind: 'bubblewrap', network, reason }, wrapper: [bwrap, ...args, '--'], env: { ...env, TMPDIR: '/tmp' } };
}

/** Real paths, without one that lies inside another (a worktree inside the workspace). */
function writableRoots(paths: readonly string[]): string[] {
  const real = [...new Set(paths.map((p) => (existsSync(p) ? realpathSync(p) : p)))];
  return real.filter((p) => !real.some((q) => q !== p && !relative(q, p).startsWith('..') && !isAbsolute(relative(q, p))));
}

/** One sentence for people: where a check of this process runs, and what that means. */
export function sandboxSentence(sandbox: CheckSandbox): string {
  if (sandbox.kind === 'none') return `Checks run without a sandbox here, with your full access: ${sandbox.reason}.`;
  return `Checks run in a bubblewrap sandbox here: the disk read-only, the workspace writable except ${PROTECTED_PATHS.join(', ')}; ${sandbox.network ? 'the network kept' : 'no network'}.`;
}

/** What a person allowing a monitor check is told about where it will run (VS Code's Allow Monitor Check modal). */
export function sandboxForPeople(sandbox: CheckSandbox): string {
  if (sandbox.kind === 'none') return `It runs without a sandbox, with your access to every file and the network (${sandbox.reason}).`;
  return `It runs in a sandbox (bubblewrap): it may change files in the workspace but not the loopx store or the agent hosts' settings (${PROTECTED_PATHS.join(', ')}), nor anything outside the workspace; it can reach the network.`;
}

/** For tests: forget what the probe found. */
export function forgetSandboxProbes(): void {
  probes.clear();
}
