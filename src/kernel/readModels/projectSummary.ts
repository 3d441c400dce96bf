import { existsSync, statSync } from 'node:fs';
import { Kernel } from '../kernel';
import { chooseDriver, openDb } from '../db/openDb';
import { snapshot, type SqliteDb } from '../db/sqliteDb';
import { SCHEMA_VERSION, schemaVersion } from '../db/migrate';
import { inTeamMode, teamReplicaPath } from '../team/teamPointer';
import { type StatusReport, statusReport } from './status';
import { setAsideEvents } from '../events/setAside';
import { newestEvent } from '../events/anchor';
import { openTurns } from '../turns/turnQueries';
import { listWorktreeRows, waitsToLand } from '../worktrees/worktreeRows';
import type { ProjectEntry } from '../projects/projectRegistry';
import type { WaitingCounts } from '../../shared/projectTypes';

/** Why a listed project cannot be read (its folder gone, its store gone, its store unreadable), or `ok`. */
export const PROJECT_STATES = ['missing', 'no_store', 'unreadable', 'ok'] as const;
export type ProjectState = (typeof PROJECT_STATES)[number];

export interface ProjectSummary extends ProjectEntry {
  state: ProjectState;
  /** `local`: the workspace's own store; `team`: a team store, read through this machine's replica. */
  store: 'local' | 'team' | null;
  problem: string | null;
  waiting: WaitingCounts | null;
  /** Turns started and not finished. */
  running: number | null;
  /** The time of the store's newest event. */
  lastActivity: string | null;
  goals: { active: number; total: number } | null;
}

/** What waits on a person, counted from a status report and the two counts it does not carry; `total` adds them up. */
export function waitingCounts(report: StatusReport, more: Pick<WaitingCounts, 'setAside' | 'toLand'>): WaitingCounts {
  const parts = {
    gates: report.pendingGates.length,
    blocked: report.blocked.length,
    lapsedLeases: report.lapsedLeases.length,
    failing: report.failing.length,
    heldOpen: report.heldOpen.length,
    pausedGoals: report.goals.filter((g) => g.waitsForPerson).length,
    ...more,
  };
  return { total: Object.values(parts).reduce((a, b) => a + b, 0), ...parts };
}

function counts(db: SqliteDb, nowMs: number): Pick<ProjectSummary, 'waiting' | 'running' | 'lastActivity' | 'goals'> {
  return snapshot(db, () => {
    const report = statusReport(db, nowMs);
    const waiting = waitingCounts(report, {
      setAside: setAsideEvents(db).filter((e) => !e.handled).length,
      toLand: listWorktreeRows(db).filter(waitsToLand).length,
    });
    return {
      waiting,
      running: openTurns(db).length,
      lastActivity: newestEvent(db)?.at ?? null,
      goals: { active: report.goals.filter((g) => g.status === 'active').length, total: report.goals.length },
    };
  });
}

const nothing = { waiting: null, running: null, lastActivity: null, goals: null };

export type ProjectPlace =
  { state: 'missing' | 'no_store'; store: null; problem: string } | { state: 'ok'; store: 'local' | 'team'; problem: null };

/** Whether a listed project's folder and store are there, and which store it is, without opening it. */
export function projectPlace(root: string): ProjectPlace {
  const folder = (() => {
    try {
      return statSync(root).isDirectory();
    } catch {
      return false;
    }
  })();
  if (!folder) return { state: 'missing', store: null, problem: 'its folder is gone (moved or deleted)' };
  if (!Kernel.hasStore(root)) return { state: 'no_store', store: null, problem: 'its folder has no loopx store any more' };
  return { state: 'ok', store: inTeamMode(root) ? 'team' : 'local', problem: null };
}

/**
 * What a listed project holds, read from this machine only: a local store read-only, a team store through this
 * machine's replica (no server is asked: a list of twenty projects must not wait on a network). Never throws: a folder
 * gone, a store gone or unreadable is the project's `state` and `problem`, in words.
 */
export function summarizeProject(entry: ProjectEntry, nowMs = Date.now()): ProjectSummary {
  const place = projectPlace(entry.root);
  if (place.state !== 'ok') return { ...entry, ...place, ...nothing };
  try {
    return { ...entry, ...place, ...(place.store === 'team' ? teamCounts(entry.root, nowMs) : localCounts(entry.root, nowMs)) };
  } catch (error) {
    return { ...entry, state: 'unreadable', store: place.store, problem: (error as Error).message, ...nothing };
  }
}

function localCounts(root: string, nowMs: number) {
  // Opened as `status` opens it: read-only, an older schema migrated where it may write, a newer one refused in words.
  const kernel = Kernel.open(root, { readOnly: true, actor: { name: 'projects', kind: 'kernel' } });
  try {
    return counts(kernel.db, nowMs);
  } finally {
    kernel.close();
  }
}

function teamCounts(root: string, nowMs: number) {
  const path = teamReplicaPath(root);
  if (!existsSync(path)) throw new Error('this machine has no copy of its team store yet (open the folder to make one)');
  const db = openDb(path, chooseDriver(), { readOnly: true });
  try {
    const version = schemaVersion(db);
    if (version !== SCHEMA_VERSION)
      throw new Error(
        version > SCHEMA_VERSION
          ? 'its team store was written by a newer loopx: update loopx to read it'
          : "this machine's copy of its team store is from an older loopx (open the folder to bring it up to date)",
      );
    return counts(db, nowMs);
  } finally {
    db.close();
  }
}
