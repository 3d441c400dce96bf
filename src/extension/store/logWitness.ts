import * as vscode from 'vscode';
import { clockTime } from '../../protocol/display';
import { type AnchorCheck, type LogAnchor, checkAnchor, formatAnchor, logHead } from '../../kernel/events/anchor';
import { Disposable } from '../util/lifecycle';
import type { Kernel } from '../../kernel/kernel';
import { type VerifyResult, verifyChain } from '../../kernel/events/verify';
import { markBroken } from '../../kernel/logHealth';
import { acceptBrokenLog } from '../../kernel/logDecisions';
import { readRestoreMarker } from '../../kernel/backup';
import type { Log } from '../util/log';
import type { StoreSession } from './storeModel';
import { COMMANDS } from '../commands/commandIds';
import { auditDecisions, decisionWords, peopleWroteAfter } from '../../kernel/decisions';
import { showUnprovenDecisions } from './forgedDecisions';

const KEY = 'loopx.logWitness';
const RESTORE_SEEN_KEY = 'loopx.logWitness.restoreSeen';
export type WitnessProblem = Extract<AnchorCheck, { ok: false }>;

/**
 * Remembers, outside `.loopx/` (in VS Code's workspace state), the newest event this workspace has seen, and raises
 * an alarm when the log no longer holds it. The hash chain shows an event changed in place; only a memory kept
 * elsewhere shows that the newest events were cut off (with the state rolled back to match). One indexed read per
 * store change.
 */
export class LogWitness extends Disposable {
  private current: WitnessProblem | undefined;
  private alarmedFor: string | undefined;
  /** The newest event whose chain this window has verified: each change verifies only the events after it. */
  private verified: LogAnchor | undefined;
  private brokenAlarmedAt: number | undefined;

  constructor(
    private readonly session: StoreSession,
    private readonly memento: vscode.Memento,
    private readonly log: Log,
  ) {
    super();
    this.register(session.onDidChange(() => this.check()));
  }

  /** The event this workspace remembers. */
  get anchor(): LogAnchor | undefined {
    return this.memento.get<LogAnchor>(KEY);
  }

  get problem(): WitnessProblem | undefined {
    return this.current;
  }

  /** Compares the log with the remembered event, then remembers the newest one (unless the log fails the check). */
  check(): WitnessProblem | undefined {
    const kernel = this.session.kernel;
    if (!kernel) return undefined;
    const remembered = this.anchor;
    const { head, result } = kernel.read((db) => ({
      head: logHead(db),
      result: remembered ? checkAnchor(db, remembered) : ({ ok: true } as const),
    }));
    if (!result.ok) {
      const restore = readRestoreMarker(kernel.storeDir);
      const restored = restore?.head ? kernel.read((db) => checkAnchor(db, restore.head as LogAnchor)).ok : false;
      if (restore && restored && this.memento.get<string>(RESTORE_SEEN_KEY) !== restore.at) {
        // `loopx restore` replaced the log on purpose: follow it once per restore, and say so (a forged marker is
        // still seen by a person; an old marker never explains a later cut).
        void this.memento.update(RESTORE_SEEN_KEY, restore.at);
        this.log.warn(`log witness: the store was restored from ${restore.from} at ${restore.at}; following the restored log`);
        void vscode.window.showWarningMessage(
          `LoopX: the store was restored from ${restore.from} (${clockTime(restore.at, Date.now())}); what it replaced is saved at ${restore.saved}. If nobody here did this, restore that file.`,
        );
        void this.memento.update(KEY, head);
        this.current = undefined;
        return undefined;
      }
      this.current = result;
      this.alarm(result);
      return result;
    }
    this.current = undefined;
    if (head && (head.seq !== remembered?.seq || head.hash !== remembered.hash)) void this.memento.update(KEY, head);
    this.verifyNewEvents(head ?? undefined);
    this.checkDecisions(head ?? undefined);
    return undefined;
  }

  /** The seq up to which people's decisions were checked, and the unproven ones already told (each said once). */
  private decisionsCheckedTo: number | undefined;
  private readonly toldUnproven = new Set<number>();

  /**
   * A person's decisions must carry a proof from this computer's key (decisions.ts): all of them once when the store
   * opens, then only when a person's event was appended (one read of the people's-events index per change).
   */
  private checkDecisions(head: LogAnchor | undefined): void {
    const kernel = this.session.kernel;
    if (!kernel || !head) return;
    const from = this.decisionsCheckedTo;
    if (from !== undefined && from >= head.seq) return;
    const unproven = kernel.read((db) => {
      return from === undefined || peopleWroteAfter(db, from) ? auditDecisions(db).unproven : [];
    });
    this.decisionsCheckedTo = head.seq;
    const untold = unproven.filter((d) => !this.toldUnproven.has(d.seq));
    if (untold.length === 0) return;
    for (const d of untold) this.toldUnproven.add(d.seq);
    this.log.error(`log: ${untold.map((d) => `${decisionWords(d)} ${d.why}`).join('; ')}`);
    void showUnprovenDecisions(kernel, unproven);
  }

  /** Verifies the hash chain of the events written since the last check; a break marks the store and says so once. */
  private verifyNewEvents(head: LogAnchor | undefined): void {
    const kernel = this.session.kernel;
    if (!kernel || !head) return;
    // The whole chain is Verify Log's job; from opening on, each change checks just what was appended since.
    if (!this.verified || this.verified.seq > head.seq) {
      this.verified = head;
      return;
    }
    const from = this.verified;
    const result = kernel.read((db) => verifyChain(db, from));
    if (result.ok) {
      this.verified = head;
      return;
    }
    if (this.brokenAlarmedAt === result.firstBadSeq) return;
    this.brokenAlarmedAt = result.firstBadSeq ?? 0;
    this.log.error(`log verify (new events): broken at event ${result.firstBadSeq}: ${result.problem}`);
    markBroken(kernel.storeDir, result, new Date().toISOString());
    void showBrokenLog(kernel, result);
  }

  /** A person decided the log as it is now is the one to trust (a store restored or re-created on purpose). */
  async accept(): Promise<void> {
    const kernel = this.session.kernel;
    const head = kernel?.read((db) => logHead(db)) ?? undefined;
    this.log.warn(
      `log witness: the current log was accepted${head ? ` at ${formatAnchor(head)}` : ''}; it replaces ${this.anchor ? formatAnchor(this.anchor) : 'nothing'}`,
    );
    await this.memento.update(KEY, head);
    // Whatever restore led here has been taken in: its marker must not explain a later cut.
    const restore = kernel ? readRestoreMarker(kernel.storeDir) : undefined;
    if (restore) await this.memento.update(RESTORE_SEEN_KEY, restore.at);
    this.current = undefined;
    this.alarmedFor = undefined;
  }

  /** Says it once per remembered event, with the way out. */
  private alarm(problem: WitnessProblem): void {
    const key = formatAnchor(problem.anchor);
    if (this.alarmedFor === key) return;
    this.alarmedFor = key;
    this.log.error(`log witness: ${problem.message} (remembered ${key})`);
    void showWitnessProblem(problem, true).then((choice) => {
      if (choice === ACCEPT) void this.accept();
      else if (choice === VERIFY) void vscode.commands.executeCommand(COMMANDS.verifyLog);
    });
  }
}

const ACCEPT_BROKEN = 'Accept Log as It Is…';
const RESTORE = 'Restore Backup…';

/** The chain is broken: agents' writes are refused until the person decides (restore a backup, or accept the log). */
export async function showBrokenLog(kernel: Kernel, result: VerifyResult): Promise<void> {
  const choice = await vscode.window.showErrorMessage(
    `LoopX: the event log is broken at event ${result.firstBadSeq} (${result.problem}): events from there on were changed outside LoopX. ` +
      'Agents cannot write until you decide: restore a backup, or accept the log as it is.',
    RESTORE,
    ACCEPT_BROKEN,
  );
  if (choice === RESTORE) await vscode.commands.executeCommand(COMMANDS.restoreBackup);
  if (choice !== ACCEPT_BROKEN) return;
  const sure = await vscode.window.showWarningMessage(
    `Accept the event log as it is, broken at event ${result.firstBadSeq}?`,
    {
      modal: true,
      detail:
        'The acceptance is recorded in the log under your name; agents may write again. A later change to any event before it is a break again.',
    },
    'Accept',
  );
  if (sure === 'Accept') {
    const accepted = acceptBrokenLog(kernel);
    void vscode.window.showInformationMessage(`LoopX: the log was accepted as it is (event ${accepted.seq}); agents may write again.`);
  }
}

export const ACCEPT = 'Accept Current Log';
const VERIFY = 'Verify Log';

export function showWitnessProblem(problem: WitnessProblem, offerVerify = true): Thenable<string | undefined> {
  return vscode.window.showErrorMessage(
    `LoopX: the event log no longer holds event ${problem.anchor.seq} that this workspace saw: ${problem.message}. ` +
      'Someone changed .loopx/ outside LoopX; restore a backup (Restore Backup…), or accept the log as it is if you reset it on purpose.',
    ...(offerVerify ? [VERIFY] : []),
    ACCEPT,
  );
}
