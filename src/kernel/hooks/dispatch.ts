import { existsSync } from 'node:fs';
import { basename, parse } from 'node:path';
import type { Kernel } from '../kernel';
import type { SqliteDb } from '../db/sqliteDb';
import { randomToken } from '../nodeCrypto';
import { withPersonsPath, workspaceRootOf } from '../personsPath';
import { checkEnv } from '../monitors/tick';
import { type CommandResult, runCommand } from '../run/runCommand';
import { iso } from '../time';
import { type Hook, listHooks } from './hooks';
import { type HookOccasion, candidateRows, hookWants, occasionOf } from './triggers';
import { KERNEL } from '../authority';
import { requireStandingDecision } from '../decisions';
import { nodeOs } from '../nodeOs';

/** What became of one hook run, for the runner's lines and the extension's log. */
export interface HookRunReport {
  hookId: string;
  seq: number;
  trigger: string;
  subject: string;
  summary: string;
  exitCode: number | null;
  durationMs: number;
  timedOut: boolean;
  error: string | null;
}

export interface DispatcherOptions {
  /** Who runs the hooks, as recorded with each run ("loopx run bot-1 (pid 4242)", "VS Code window (pid 77)"). */
  by: string;
  /** The environment hooks start from (minus an agent's identity); default this process's. */
  env?: NodeJS.ProcessEnv;
  /** Events older than this when a dispatcher first looks are not news any more: no hook runs for them. */
  lookBackMs?: number;
  onRun?(report: HookRunReport): void;
  onError?(error: unknown): void;
}

/** A window or runner that starts after a night away still tells a person about the last day, not about last month. */
export const HOOK_LOOK_BACK_MS = 24 * 3600_000;

/**
 * Runs hooks for events a person must hear about, in whichever runner or window sees the event first: each run is
 * claimed in a write transaction (a row per hook and event, like a monitor run's claim token), so no hook runs twice
 * for one event however many runners and windows look. `poke()` never waits for a hook: the claims are quick
 * transactions and the commands run in the background, each killed with its process group at its time limit, so a
 * hook that hangs or fails never holds up the loop that poked it. `settle()` waits for the ones still running.
 */
export class HookDispatcher {
  /** The newest event looked at (undefined until the first look). */
  private cursor: number | undefined;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly kernel: Kernel,
    private readonly o: DispatcherOptions,
  ) {}

  /** Looks at events since the last look and starts the hooks they call for; never throws. */
  poke(): void {
    try {
      for (let more = true; more;) more = this.step();
    } catch (error) {
      this.o.onError?.(error);
    }
  }

  /** Resolves once every hook this dispatcher started has ended and been recorded. */
  async settle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  get busy(): number {
    return this.running.size;
  }

  /** One page of events: true when there may be more. */
  private step(): boolean {
    const page = this.kernel.read((db, now) => {
      const hooks = listHooks(db);
      const head = Number(db.prepare('SELECT coalesce(max(seq), 0) AS n FROM events').get()?.n ?? 0);
      if (hooks.length === 0) return { hooks, due: [] as [Hook, HookOccasion][], cursor: head, more: false };
      const from = this.cursor ?? startCursor(db, hooks, now - (this.o.lookBackMs ?? HOOK_LOOK_BACK_MS));
      const rows = candidateRows(db, from);
      const due: [Hook, HookOccasion][] = [];
      for (const row of rows) {
        const occasion = occasionOf(db, row);
        if (!occasion) continue;
        for (const hook of hooks) if (hookWants(hook, occasion) && !alreadyRun(db, hook.id, occasion.seq)) due.push([hook, occasion]);
      }
      const last = rows.length ? Number(rows[rows.length - 1]?.seq) : head;
      return { hooks, due, cursor: rows.length === 500 ? last : Math.max(last, head), more: rows.length === 500 };
    });
    this.cursor = page.cursor;
    for (const [hook, occasion] of page.due) {
      let token: string | null;
      try {
        token = this.claim(hook, occasion);
      } catch (error) {
        // One hook refused (its person's decision does not stand) holds up no other.
        this.o.onError?.(error);
        continue;
      }
      if (token) this.start(hook, occasion, token);
    }
    return page.more;
  }

  /** Takes the run of `hook` for this event, or null when another runner or window already has it (or it was removed). */
  private claim(hook: Hook, o: HookOccasion): string | null {
    return this.kernel.write((tx) => {
      const active = tx.db.prepare(`SELECT 1 FROM hooks WHERE id = ? AND status = 'active'`).get(hook.id);
      if (!active || alreadyRun(tx.db, hook.id, o.seq)) return null;
      requireHookStanding(tx.db, hook);
      const token = randomToken();
      tx.emit(
        {
          kind: 'hook.run_claimed',
          goalId: null,
          todoId: null,
          data: { id: hook.id, seq: o.seq, trigger: o.trigger, token, by: this.o.by },
        },
        KERNEL,
      );
      return token;
    });
  }

  private start(hook: Hook, o: HookOccasion, token: string): void {
    const run = (async () => {
      const result = await runHook(this.kernel.root, hook, o, this.o.env ?? process.env);
      try {
        this.record(hook, o, token, result);
      } catch (error) {
        this.o.onError?.(error);
      }
      this.o.onRun?.({
        hookId: hook.id,
        seq: o.seq,
        trigger: o.trigger,
        subject: o.subject,
        summary: o.summary,
        exitCode: result.exitCode,
        durationMs: result.durationMs,
        timedOut: result.timedOut,
        error: result.error,
      });
    })();
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  private record(hook: Hook, o: HookOccasion, token: string, r: CommandResult): void {
    this.kernel.write((tx) => {
      const row = tx.db.prepare('SELECT token, ended_at FROM hook_runs WHERE hook_id = ? AND event_seq = ?').get(hook.id, o.seq);
      if (row?.token !== token || row.ended_at !== null) return;
      tx.emit(
        {
          kind: 'hook.ran',
          goalId: null,
          todoId: null,
          data: {
            id: hook.id,
            seq: o.seq,
            token,
            exitCode: r.exitCode,
            durationMs: r.durationMs,
            outputTail: r.outputTail.slice(-500),
            timedOut: r.timedOut,
            error: r.error ?? (r.exitCode !== 0 ? `exited ${r.exitCode}` : null),
          },
        },
        KERNEL,
      );
    });
  }
}

/**
 * A hook runs a command unattended: the person's `hook.added` that set this very command must stand (decisions.ts),
 * found in the log rather than the hooks table, which anyone who can write the store can edit.
 */
export function requireHookStanding(db: SqliteDb, hook: Pick<Hook, 'id' | 'command'>): void {
  let seq: number | null = null;
  for (const row of db.prepare(`SELECT seq, data FROM events WHERE todo_id IS NULL AND kind = 'hook.added' ORDER BY seq DESC`).all()) {
    const data = JSON.parse(String(row.data)) as { id?: string; command?: string };
    if (data.id !== hook.id) continue;
    seq = data.command === hook.command ? Number(row.seq) : null;
    break;
  }
  requireStandingDecision(db, seq, `hook ${hook.id} (${hook.command})`);
}

function alreadyRun(db: SqliteDb, hookId: string, seq: number): boolean {
  return db.prepare('SELECT 1 FROM hook_runs WHERE hook_id = ? AND event_seq = ?').get(hookId, seq) !== undefined;
}

/** Where a dispatcher starts: after every hook's own event, and not before the look-back. */
function startCursor(db: SqliteDb, hooks: Hook[], sinceMs: number): number {
  const oldestHook = Math.min(...hooks.map((h) => h.sinceSeq));
  const recent = Number(db.prepare('SELECT min(seq) AS n FROM events WHERE at >= ?').get(iso(sinceMs))?.n ?? Number.MAX_SAFE_INTEGER);
  return Math.max(oldestHook, recent - 1);
}

/** The JSON a hook reads on stdin: what happened, in words and as the event itself. */
export function hookPayload(root: string, hook: Pick<Hook, 'id'>, o: HookOccasion): Record<string, unknown> {
  return {
    hook: hook.id,
    trigger: o.trigger,
    title: o.title,
    summary: o.summary,
    subject: o.subject,
    workspace: { root, name: basename(root) },
    goal: o.goal,
    todo: o.todo,
    event: { seq: o.seq, at: o.at, kind: o.kind, actor: o.actor, actorKind: o.actorKind, goalId: o.goalId, todoId: o.todoId, data: o.data },
  };
}

/**
 * Runs a hook's command once: the shell, from the person's home folder (hookFolder), with what happened as LOOPX_*
 * variables and as JSON on stdin, killed with its whole process group at its time limit. Nothing from the store is put
 * into the command line: a hook reads the question or the reason from its environment or its stdin.
 */
export function runHook(
  root: string,
  hook: Pick<Hook, 'id' | 'command' | 'timeoutSeconds'>,
  o: HookOccasion,
  base: NodeJS.ProcessEnv,
): Promise<CommandResult> {
  return runCommand({
    command: hook.command,
    shell: true,
    cwd: hookFolder(base),
    // Outside any sandbox: the programs it names are the person's, never ones planted in a workspace folder on PATH.
    env: withPersonsPath(
      checkEnv(base, {
        LOOPX_ROOT: root,
        LOOPX_WORKSPACE: basename(root),
        LOOPX_HOOK: hook.id,
        LOOPX_EVENT: o.trigger,
        LOOPX_EVENT_KIND: o.kind,
        LOOPX_EVENT_SEQ: String(o.seq),
        LOOPX_EVENT_AT: o.at,
        LOOPX_ACTOR: o.actor,
        LOOPX_SUBJECT: o.subject,
        LOOPX_GOAL: o.goalId ?? '',
        LOOPX_TODO: o.todoId ?? '',
        LOOPX_TITLE: o.title,
        LOOPX_SUMMARY: o.summary,
      }),
    ),
    limitMs: hook.timeoutSeconds * 1000,
    input: `${JSON.stringify(hookPayload(root, hook, o))}\n`,
  });
}

/**
 * Where a hook runs: the person's home folder, as cron runs a job; never the workspace. A hook runs as the person,
 * outside any sandbox, and what its programs find in the folder they start in is theirs to run: `python3 -c` imports a
 * `json.py` there before the standard library's, `node -e` requires from its `node_modules`, `npx` runs its
 * `node_modules/.bin` — in a workspace, files any agent may write (docs/authority.md). When the home folder is itself
 * in a loopx workspace (or missing), the file system's root, which no agent's host lets it write. `LOOPX_ROOT` names the workspace.
 */
export function hookFolder(env: NodeJS.ProcessEnv): string {
  const home = env.HOME || nodeOs().homedir();
  return existsSync(home) && workspaceRootOf(home) === null ? home : parse(home).root;
}

/** `loopx hook dispatch` (cron) and tests: one look, then wait for the hooks it started. */
export async function dispatchHooks(kernel: Kernel, options: DispatcherOptions): Promise<HookRunReport[]> {
  const reports: HookRunReport[] = [];
  const errors: unknown[] = [];
  const dispatcher = new HookDispatcher(kernel, {
    ...options,
    onRun: (r) => {
      reports.push(r);
      options.onRun?.(r);
    },
    onError: (e) => {
      errors.push(e);
      options.onError?.(e);
    },
  });
  dispatcher.poke();
  await dispatcher.settle();
  if (errors.length && !options.onError) throw errors[0];
  return reports;
}
