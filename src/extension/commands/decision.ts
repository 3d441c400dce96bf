import * as vscode from 'vscode';
import { ask } from './pickers';

/**
 * A person's decision (approve, reject, unblock) is one modal that shows what is decided, with two buttons: the
 * decision, and the decision with a note. The click is the decision: the note box comes after it, and closing that
 * box keeps the decision without a note. Undefined only when the modal itself was dismissed.
 */
export async function decideInModal(options: {
  verb: 'Approve' | 'Reject' | 'Unblock';
  message: string;
  detail: string;
  noteTitle: string;
  notePrompt: string;
}): Promise<{ note: string } | undefined> {
  const { verb } = options;
  const withNote = `${verb} with a Note…`;
  const choice = await vscode.window.showWarningMessage(options.message, { modal: true, detail: options.detail }, verb, withNote);
  if (choice === verb) return { note: '' };
  if (choice !== withNote) return undefined;
  const note = await ask({ title: options.noteTitle, prompt: `${options.notePrompt} (Escape: ${verb.toLowerCase()} without a note)` });
  return { note: note ?? '' };
}
