import * as vscode from 'vscode';
import { cancelMonitor as cancelOp } from '../../kernel/monitors/monitors';
import { type Monitor, getMonitor } from '../../kernel/monitors/monitorQueries';
import { parseId } from '../../kernel/validate';
import { oneLine, relativeTime } from '../../protocol/display';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { ask } from './pickers';
import { parseArg } from './args';

/** Cancel a waiting monitor: from the Monitors view (inline), the board's card menu, or the palette (pick one). */
export const cancelMonitor: CommandDefinition = {
  id: COMMANDS.cancelMonitor,
  async run(ctx, arg) {
    let monitor: Monitor | undefined;
    const given = parseArg(arg);
    if (given.kind === 'monitor') monitor = given.monitor;
    else if (given.kind === 'id') monitor = kernelOf(ctx).read((db) => getMonitor(db, parseId('monitor', given.id)));
    else {
      const waiting = ctx.model.monitors().filter((m) => m.status === 'waiting');
      const pick = await vscode.window.showQuickPick(
        waiting.map((m) => ({
          label: `${m.id} ${m.kind === 'timer' ? 'timer' : oneLine(m.check, 70)}`,
          description: `${m.todoId}${m.nextCheckAt ? ` · ${m.kind === 'timer' ? 'fires' : 'next check'} ${relativeTime(m.nextCheckAt, Date.now())}` : ''}`,
          monitor: m,
        })),
        { title: 'LoopX: Cancel Monitor', placeHolder: waiting.length ? 'Waiting monitor' : 'No monitor is waiting' },
      );
      monitor = pick?.monitor;
    }
    if (!monitor) return undefined;
    const reason = await ask({ title: `LoopX: cancel ${monitor.id}`, prompt: `Why (optional; ${monitor.todoId}'s next turn reads it)` });
    if (reason === undefined) return undefined;
    const cancelled = cancelOp(kernelOf(ctx), monitor.id, reason);
    ctx.log.info(`cancelled monitor ${monitor.id}`);
    return cancelled;
  },
};

/** Runs every due check now, as `loopx monitor tick` would; only in a trusted workspace. */
export const checkMonitorsNow: CommandDefinition = {
  id: COMMANDS.checkMonitorsNow,
  async run(ctx) {
    const ticker = ctx.monitors;
    const state = ticker.state;
    if (!state.ticking) {
      // The way forward as a button: trust the workspace, or turn the setting back on.
      const action =
        state.why === 'untrusted'
          ? { title: 'Manage Workspace Trust', run: () => vscode.commands.executeCommand('workbench.trust.manage') }
          : state.why === 'off'
            ? {
                title: 'Open Settings',
                run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'loopx.monitors.runChecks'),
              }
            : undefined;
      void vscode.window
        .showWarningMessage(`LoopX: ${state.message}`, ...(action ? [action.title] : []))
        .then((choice) => (choice && action ? action.run() : undefined));
      return undefined;
    }
    const result = await ticker.tickNow();
    if (!result) return undefined;
    const ran = result.runs.length;
    const parts = [`${ran} check${ran === 1 ? '' : 's'} ran`];
    if (result.fired.length) parts.push(`fired: ${result.fired.join(', ')}`);
    if (result.expired.length) parts.push(`expired: ${result.expired.join(', ')}`);
    void vscode.window.showInformationMessage(`LoopX: ${parts.join('; ')}.`);
    return result;
  },
};
