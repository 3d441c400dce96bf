import * as vscode from 'vscode';
import { clean, oneLine } from '../protocol/display';
import { Disposable } from './util/lifecycle';
import type { StoreModel } from './store/storeModel';
import { COMMANDS } from './commands/commandIds';
import { inFolder } from './commands/inFolder';
import { loopxSetting } from './loopxSettings';

/** A gate that becomes pending raises a notification with Approve / Reject / Show (once per gate; setting loopx.notifyOnNewGates). */
export class GateNotifier extends Disposable {
  private known: Set<string> | undefined;
  /** Gate ids notified so far (tests read it). */
  readonly notified: string[] = [];

  constructor(
    private readonly model: StoreModel,
    private readonly root: string,
  ) {
    super();
    this.register(model.onDidChange(() => this.check()));
    this.check();
  }

  private check(): void {
    const status = this.model.status();
    if (!status) return;
    const pending = status.pendingGates;
    if (this.known === undefined) {
      // Gates already pending when the window opened are shown by the views, not as a burst of notifications.
      this.known = new Set(pending.map((g) => g.id));
      return;
    }
    const enabled = loopxSetting<boolean>('loopx.notifyOnNewGates') ?? true;
    for (const gate of pending) {
      if (this.known.has(gate.id)) continue;
      this.known.add(gate.id);
      if (!enabled) continue;
      this.notified.push(gate.id);
      const on = gate.todoId ? `todo ${gate.todoId}` : `goal ${gate.goalId}`;
      void vscode.window
        .showInformationMessage(
          `LoopX: ${clean(gate.askedBy)} asks (gate ${gate.id} on ${on}): ${oneLine(gate.question, 200)}`,
          'Approve',
          'Reject',
          'Show',
        )
        .then((choice) => {
          if (choice === 'Approve') return vscode.commands.executeCommand(COMMANDS.approveGate, inFolder(this.root, gate.id));
          if (choice === 'Reject') return vscode.commands.executeCommand(COMMANDS.rejectGate, inFolder(this.root, gate.id));
          if (choice === 'Show') return vscode.commands.executeCommand('loopx.gates.focus');
          return undefined;
        });
    }
  }
}
