import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** One process under the install: what it runs and where. */
export interface Proc {
  pid: number;
  ppid: number;
  args: string;
  cwd: string;
}

/** The package a folder belongs to: the last `node_modules/<name>` (or `@scope/name`) in its path. */
export function packageOf(cwd: string): string | undefined {
  const match = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(cwd);
  return match?.[1];
}

/**
 * What an `npm install` is doing now, in words, from the processes under it: the newest descendant that says the
 * most (a compiler beats the make that runs it, which beats npm). Undefined when nothing under it says anything.
 */
export function describeActivity(procs: readonly Proc[], root: number): string | undefined {
  const children = new Map<number, Proc[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const under: Proc[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      under.push(child);
      walk(child.pid);
    }
  };
  walk(root);
  const rank = (p: Proc) =>
    /\b(cc1plus|cc1|g\+\+|c\+\+|clang)\b/.test(p.args)
      ? 4
      : /\bnode-gyp\b|\bmake\b/.test(p.args)
        ? 3
        : /\btar\b|\bgit\b/.test(p.args)
          ? 2
          : 1;
  const best = [...under].sort((a, b) => rank(b) - rank(a) || b.pid - a.pid)[0];
  if (!best) return undefined;
  const pkg = packageOf(best.cwd);
  switch (rank(best)) {
    case 4:
    case 3:
      return `building ${pkg ?? 'a native module'} from source (a C++ compile; the slowest part, a few minutes)`;
    case 2:
      return `unpacking ${pkg ?? 'packages'}`;
    default:
      return pkg ? `running ${pkg}'s install script` : `running ${best.args.split(' ')[0]?.split('/').pop() ?? 'npm'}`;
  }
}

/** Every process on this machine, from /proc (Linux); empty elsewhere, where the heartbeat says only the size. */
export function processes(): Proc[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const out: Proc[] = [];
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        /* another user's process */
      }
      out.push({ pid: Number(pid), ppid, args, cwd });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}
