import * as vscode from 'vscode';
import { Disposable } from '../util/lifecycle';

/** The context key that shows "Clear Filter" in the Goals view's title bar. */
export const CONTEXT_GOALS_FILTERED = 'loopx.goalsFiltered';

/**
 * Filter Todos…: the Goals view shows only todos whose id or title contains the text, in every folder. One filter
 * for the window (a view has one title bar); each folder's tree reads it.
 */
export class GoalsFilter extends Disposable {
  private value = '';
  private readonly changed = this.register(new vscode.EventEmitter<string>());
  readonly onDidChange = this.changed.event;

  /** The filter as typed ('' when none). */
  get text(): string {
    return this.value;
  }

  set(text: string): void {
    const next = text.trim();
    if (next === this.value) return;
    this.value = next;
    void vscode.commands.executeCommand('setContext', CONTEXT_GOALS_FILTERED, next !== '');
    this.changed.fire(next);
  }
}
