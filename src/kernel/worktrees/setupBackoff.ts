import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Goal } from '../model';

/** A failed setup: the command, failures in a row and when it may run again. */
export interface SetupFailure {
  command: string;
  failures: number;
  retryAt: string;
}

/** The folder of the setups' logs and failure records, in the store's folder. */
export function setupDir(storeDir: string): string {
  return join(storeDir, 'worktree-setup');
}

const FAILED = '.failed.json';

/** Where a failed setup is recorded: beside its log (`T3.log` → `T3.failed.json`). */
export function failureFileFor(logFile: string): string {
  return `${logFile.replace(/\.log$/, '')}${FAILED}`;
}

export function readSetupFailure(file: string): SetupFailure | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<SetupFailure>;
    return typeof parsed.command === 'string' && typeof parsed.retryAt === 'string' && typeof parsed.failures === 'number'
      ? (parsed as SetupFailure)
      : null;
  } catch {
    return null;
  }
}

/**
 * The todos of `goal` whose worktree setup (its current command) failed and may not run unattended yet, with the
 * moment each may: what should-run's plan skips for `loopx run`, VS Code's auto-run and an agent's turn start. A
 * changed command is not waited for (a person's fix runs at once). One directory read, only for goals with a setup.
 */
export function setupWaits(storeDir: string, goal: Goal, nowMs: number): Map<string, string> {
  const waits = new Map<string, string>();
  if (goal.worktreeBase === null || goal.worktreeSetup === null) return waits;
  let names: string[];
  try {
    names = readdirSync(setupDir(storeDir)).filter((n) => n.endsWith(FAILED));
  } catch {
    return waits; // no setup ever ran here
  }
  for (const name of names) {
    const failure = readSetupFailure(join(setupDir(storeDir), name));
    if (failure && failure.command === goal.worktreeSetup && Date.parse(failure.retryAt) > nowMs)
      waits.set(name.slice(0, -FAILED.length), failure.retryAt);
  }
  return waits;
}
