import * as vscode from 'vscode';
import { verifyChain } from '../../kernel/events/verify';
import { ACCEPT, showBrokenLog, showWitnessProblem } from '../store/logWitness';
import { markBroken } from '../../kernel/logHealth';
import { type UnprovenDecision, auditDecisions, decisionWords } from '../../kernel/decisions';
import { showUnprovenDecisions } from '../store/forgedDecisions';
import { clean, clockTime } from '../../protocol/display';
import { shouldRunReason } from '../../protocol/shouldRunWords';
import { statusUri } from '../views/virtualDocuments';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';

export const verifyLog: CommandDefinition = {
  id: COMMANDS.verifyLog,
  async run(ctx) {
    const kernel = kernelOf(ctx);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'LoopX: verifying the event log…' },
      async () => kernel.read((db) => verifyChain(db)),
    );
    ctx.log.info(`log verify: ${JSON.stringify(result)}`);
    if (!result.ok) {
      markBroken(kernel.storeDir, result, new Date().toISOString());
      void showBrokenLog(kernel, result);
      return result;
    }
    const cut = ctx.witness.check();
    if (cut) {
      if ((await showWitnessProblem(cut, false)) === ACCEPT) await ctx.witness.accept();
      return {
        ...result,
        ok: false,
        firstBadSeq: cut.problem === 'missing' ? (cut.head?.seq ?? 0) + 1 : cut.anchor.seq,
        problem: cut.message,
      };
    }
    const unproven = kernel.read((db) => auditDecisions(db).unproven);
    if (unproven.length) {
      ctx.log.error(`log verify: ${unproven.length} unproven decisions, the first ${decisionWords(unproven[0] as UnprovenDecision)}`);
      void showUnprovenDecisions(kernel, unproven);
      return { ...result, ok: false, unproven };
    }
    const anchor = ctx.witness.anchor;
    void vscode.window.showInformationMessage(
      `LoopX: log intact, ${result.events} events, hash chain verified${anchor ? `; it still holds event ${anchor.seq}, the newest this workspace has seen` : ''}.`,
    );
    return result;
  },
};

export const showStatus: CommandDefinition = {
  id: COMMANDS.showStatus,
  async run(ctx) {
    const doc = await vscode.workspace.openTextDocument(statusUri(ctx.session.root));
    await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    return vscode.window.showTextDocument(doc, { preview: true });
  },
};

/** The status bar's quick pick: each goal's quota and should-run answer. */
export const showQuota: CommandDefinition = {
  id: COMMANDS.showQuota,
  async run(ctx) {
    const report = ctx.model.status();
    if (!report) return undefined;
    const now = Date.now();
    const items = report.goals.map((g) => ({
      label: `${g.shouldRun.run ? '$(play)' : '$(debug-pause)'} ${g.id} ${clean(g.title)}`,
      description: `${g.quota.spent}/${g.quota.turnsPerWindow} turns in ${g.quota.windowHours} h`,
      detail: g.shouldRun.run
        ? `Ready to run a turn · ${g.quota.remaining} left · next: ${g.nextTodo ? `${g.nextTodo.id} ${clean(g.nextTodo.title)}` : '—'}`
        : `Waits: ${shouldRunReason({ ...g.shouldRun, goalStatus: g.status, ...g.quota, counts: g.counts, me: ctx.me })}${g.shouldRun.nextWakeAt ? ` · can run again at ${clockTime(g.shouldRun.nextWakeAt, now)}` : ' · a person has to act first'}`,
      goalId: g.id,
    }));
    const board = {
      label: '$(project) Open Board',
      description: 'every todo as a card, with what needs you on top',
      detail: undefined,
      goalId: undefined,
    };
    const pick = await vscode.window.showQuickPick([...items, board], {
      title: 'LoopX: budgets and what runs next',
      placeHolder: items.length ? 'Goal' : 'No goals yet',
    });
    if (pick === board) await vscode.commands.executeCommand(COMMANDS.openBoard);
    else if (pick) await vscode.commands.executeCommand('loopx.goals.focus');
    return pick?.goalId;
  },
};

export const refresh: CommandDefinition = {
  id: COMMANDS.refresh,
  run(ctx) {
    ctx.session.tryOpen();
    // Also Retry for a team store that could not be reached: one catch-up asks the server again.
    ctx.session.reach.retry();
    ctx.model.invalidate(true); // branches are read from git again too
  },
};

/** A team store that cannot be reached: show the replica as this window last saw it, marked as possibly stale. */
export const showLastState: CommandDefinition = {
  id: COMMANDS.showLastState,
  run(ctx) {
    ctx.session.reach.showLastState();
  },
};

export const showLogs: CommandDefinition = {
  id: COMMANDS.showLogs,
  run(ctx) {
    ctx.log.show();
  },
};
