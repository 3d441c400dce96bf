import * as vscode from 'vscode';
import { openTurns, type Turn } from '../../kernel/turns/turnQueries';
import { endOverdue, launcherState } from '../../runtime/launchers';
import { Disposable, toDisposable } from '../util/lifecycle';
import type { Log } from '../util/log';
import type { StoreSession } from '../store/storeModel';
import { terminalPrefix, type TurnRunner } from './turnRunner';

/** How long after start-up a restored terminal may take to appear before its turn counts as orphaned. */
export const RESTORE_GRACE_MS = 5000;

export type Recovery = { turnId: string; action: 'finished' | 'adopted' | 'left'; why: string };

/**
 * Turns outlive windows: a reload keeps a turn's terminal running (VS Code restores it) but loses the code watching
 * it, and a crash or quit ends both. After start-up this looks at the open turns a VS Code window or a `loopx run`
 * launched (they carry a launcher marker; turns started by hand through `turn start` do not and are left alone), by
 * the kernel's rule (runtime/launchers.ts), the same one a runner uses:
 * - its window or runner is alive: leave it, that process finishes it;
 * - its command already ended (the exit code file is there): finish it with that code;
 * - its terminal was restored: watch it again, as if this window had started it;
 * - otherwise nobody is running it: finish it now (exit -1), judged by what the agent wrote back, so its claim and
 *   the goal's concurrency are not held until the lease lapses, and progress it made is counted.
 */
export class TurnRecovery extends Disposable {
  constructor(
    private readonly session: StoreSession,
    private readonly runner: TurnRunner,
    private readonly log: Log,
    graceMs = RESTORE_GRACE_MS,
  ) {
    super();
    const timer = setTimeout(() => this.recover(), graceMs);
    this.register(toDisposable(() => clearTimeout(timer)));
  }

  recover(): Recovery[] {
    const kernel = this.session.kernel;
    if (!kernel) return [];
    const results: Recovery[] = [];
    for (const turn of kernel.read((db) => openTurns(db))) {
      if (this.runner.isWatching(turn.id)) continue;
      const result = this.recoverOne(turn);
      if (result) {
        this.log.info(`turn recovery: ${turn.id} ${result.action} (${result.why})`);
        results.push(result);
      }
    }
    const finished = results.filter((r) => r.action === 'finished');
    if (finished.length) {
      void vscode.window.showInformationMessage(
        `LoopX: ${finished.map((r) => r.turnId).join(', ')} ${finished.length === 1 ? 'was' : 'were'} left open by a window that is gone; ` +
          'finished now and judged by what was written back (details in the LoopX output).',
      );
    }
    return results;
  }

  private recoverOne(turn: Turn): Recovery | undefined {
    const found = launcherState(this.session.root, turn.id);
    if (found.state === 'unmanaged') return undefined;
    // A live window or runner finishes its own turns (even one whose command just ended): never race it.
    if (found.state === 'alive') {
      const who = found.launcher.runner
        ? `runner ${found.launcher.runner} (pid ${found.launcher.pid})`
        : `window process ${found.launcher.pid}`;
      return { turnId: turn.id, action: 'left', why: `${who} still runs it` };
    }
    // A killed runner's agent still runs: the next `loopx run` adopts it; past its deadline nobody may let it run on.
    if (found.state === 'orphaned') {
      if (turn.deadlineAt && turn.deadlineAt <= new Date().toISOString()) {
        void endOverdue(this.session.requireKernel(), turn, found.launcher).then((settled) => settled && this.runner.settled(settled.turn));
        return { turnId: turn.id, action: 'finished', why: `its runner is gone and its agent ran past the turn's deadline: ended` };
      }
      return { turnId: turn.id, action: 'left', why: `its runner is gone but its agent still runs (a loopx run adopts it)` };
    }
    if (found.exitCode !== undefined) {
      this.runner.settle(turn.id, found.exitCode);
      return { turnId: turn.id, action: 'finished', why: `its command had ended with exit code ${found.exitCode}` };
    }
    const terminal = found.launcher.runner ? undefined : vscode.window.terminals.find((t) => t.name.startsWith(terminalPrefix(turn.id)));
    if (terminal) {
      void this.runner.watch(turn, terminal);
      return { turnId: turn.id, action: 'adopted', why: 'its terminal was restored' };
    }
    this.runner.settle(turn.id, -1);
    return {
      turnId: turn.id,
      action: 'finished',
      why: found.launcher.runner ? `runner ${found.launcher.runner} is gone` : 'its window and terminal are gone',
    };
  }
}
