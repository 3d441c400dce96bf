// The CPU seconds each of `npm test`'s steps used, with everything it started: read from a cgroup of its own (Linux,
// as root, as CI runs). CI here is CPU-bound (both cores busy from its fifth minute), so a step's wall time says little
// of what it costs: two steps side by side each take longer. Where no cgroup can be made (not root, not Linux, a
// read-only /sys), each step says nothing of its CPU and the run goes on as before.
import { mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const V1 = '/sys/fs/cgroup/cpuacct';
const TICKS_PER_S = 100; // USER_HZ, cpuacct.stat's unit on Linux

/** A folder for this run's cgroups, or null where none can be made. */
function makeRoot() {
  if (process.platform !== 'linux') return null;
  try {
    // Under this process's own cgroup, so that a run inside another (the stand-in runs of testAll.test.ts, inside npm
    // test's checks lane) still counts to the outer step.
    const own = readFileSync('/proc/self/cgroup', 'utf8').match(/^\d+:(?:[^:]*,)?cpuacct(?:,[^:]*)?:(.*)$/m)?.[1];
    if (own === undefined) return null;
    const parent = join(V1, own);
    sweep(parent);
    const root = join(parent, `loopx-npm-test-${process.pid}`);
    mkdirSync(root, { recursive: true });
    readFileSync(join(root, 'cpuacct.stat'), 'utf8');
    return root;
  } catch {
    return null;
  }
}
const root = makeRoot();

/**
 * Moves `pid` (a step just spawned: nothing of it has forked yet) into a cgroup of its own; what it starts later
 * stays there. Returns a reader of the CPU seconds used so far (null where there is no cgroup), which also removes
 * the cgroup once asked after the step ended.
 */
export function cpuOf(pid, name) {
  if (!root) return () => null;
  const dir = join(root, `${name.replace(/[^\w.-]+/g, '_').slice(0, 80)}-${pid}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'cgroup.procs'), String(pid));
  } catch {
    return () => null;
  }
  return ({ last = false } = {}) => {
    const used = cpuSecondsIn(dir);
    if (last) removeEmpty(dir);
    return used;
  };
}

/** The CPU seconds of every step so far, together (null where there are no cgroups). */
export function allStepsCpu() {
  return root ? cpuSecondsIn(root) : null;
}

/** User and system CPU seconds of a cgroup and its children, or null where it cannot be read. */
function cpuSecondsIn(dir) {
  try {
    const stat = readFileSync(join(dir, 'cpuacct.stat'), 'utf8');
    return Math.round([...stat.matchAll(/^(?:user|system) (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0) / TICKS_PER_S);
  } catch {
    return null;
  }
}

/**
 * Removes this run's folder of cgroups. Only an empty cgroup can go: a step stopped as the run fails may still be
 * exiting, and a process left behind keeps its own; the next run's sweep removes what is left once they are gone.
 */
export function removeCpuGroups() {
  if (root) removeTree(root);
}

/** Removes the cgroups of earlier runs whose process has ended. */
function sweep(parent) {
  for (const entry of readdirSync(parent, { withFileTypes: true })) {
    const pid = Number(entry.name.match(/^loopx-npm-test-(\d+)$/)?.[1]);
    if (!pid || !entry.isDirectory()) continue;
    try {
      process.kill(pid, 0);
    } catch {
      removeTree(join(parent, entry.name));
    }
  }
}

function removeTree(dir) {
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeEmpty(join(dir, entry.name));
  } catch {
    /* gone already */
  }
  removeEmpty(dir);
}

function removeEmpty(dir) {
  try {
    rmdirSync(dir);
  } catch {
    /* a process still in it, or gone already */
  }
}
