import * as vscode from 'vscode';
import { HOOK_TRIGGERS, type HookTrigger } from '../../kernel/hooks/hookEventSchemas';
import { HOOK_TIMEOUT, addHook as addHookOp, listHooks, removeHook as removeHookOp } from '../../kernel/hooks/hooks';
import { oneLine } from '../../protocol/display';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';

/** What each hook event means, in words, for the pick. */
export const TRIGGER_WORDS: Record<HookTrigger, string> = {
  'gate.asked': 'an agent asks a gate (a decision waits for you)',
  'todo.blocked': 'a todo is blocked',
  'monitor.fired': 'a monitor fired (its todo is ready again)',
  'monitor.expired': 'a monitor expired without its condition holding',
  'turn.failed': 'a turn failed (the agent did not run, or wrote nothing back)',
  'budget.spent': "a goal's budget of turns is spent",
  'runner.stopped': 'a loopx run runner stopped',
};

/**
 * Add Hook…: a command of the person's choosing that loopx runs when something happens they must hear about (a
 * desktop notification, a webhook through curl, a chat message). It runs unattended, outside any sandbox, so it is
 * the person's decision: made here (channel vscode) or at a terminal, never by an agent.
 */
export const addHook: CommandDefinition = {
  id: COMMANDS.addHook,
  async run(ctx) {
    const kernel = kernelOf(ctx);
    const picked = await vscode.window.showQuickPick(
      HOOK_TRIGGERS.map((t) => ({
        label: TRIGGER_WORDS[t],
        description: t,
        trigger: t,
        picked: t === 'gate.asked' || t === 'todo.blocked',
      })),
      { title: 'LoopX: Add Hook (1/2): run it when…', canPickMany: true, placeHolder: 'The events you want to hear about' },
    );
    if (!picked?.length) return undefined;
    const command = await vscode.window.showInputBox({
      title: 'LoopX: Add Hook (2/2): the command to run',
      prompt: `Runs with the shell from your home folder (LOOPX_ROOT names the workspace), with LOOPX_TITLE, LOOPX_SUMMARY and the event as JSON on stdin; killed after ${HOOK_TIMEOUT.default} s.`,
      value: 'notify-send "$LOOPX_TITLE" "$LOOPX_SUMMARY"',
      validateInput: (v) => (v.trim() ? undefined : 'Type the command to run'),
    });
    if (!command?.trim()) return undefined;
    const choice = await vscode.window.showWarningMessage(
      'Run this command whenever one of these happens?',
      {
        modal: true,
        detail: `${command}\n\nOn: ${picked.map((p) => p.trigger).join(', ')}\n\nLoopX runs it unattended in whichever runner or window sees the event first (in VS Code only for trusted workspaces), once per event.`,
      },
      'Add Hook',
    );
    if (choice !== 'Add Hook') return undefined;
    const hook = addHookOp(kernel, { command, on: picked.map((p) => p.trigger) });
    void vscode.window.showInformationMessage(`LoopX: hook ${hook.id} added: it runs on ${hook.on.join(', ')}.`);
    return hook;
  },
};

/** Remove Hook…: pick a hook; it runs for no later event (a person's decision too). */
export const removeHook: CommandDefinition = {
  id: COMMANDS.removeHook,
  async run(ctx, arg) {
    const kernel = kernelOf(ctx);
    const hooks = kernel.read((db) => listHooks(db));
    const given = typeof arg === 'string' ? hooks.find((h) => h.id === arg.toUpperCase()) : undefined;
    const hook =
      given ??
      (
        await vscode.window.showQuickPick(
          hooks.map((h) => ({ label: `${h.id} ${oneLine(h.command, 70)}`, description: h.on.join(', '), hook: h })),
          { title: 'LoopX: Remove Hook', placeHolder: hooks.length ? 'A hook' : 'No hooks' },
        )
      )?.hook;
    if (!hook) return undefined;
    const choice = await vscode.window.showWarningMessage(`Remove hook ${hook.id}?`, { modal: true, detail: hook.command }, 'Remove');
    if (choice !== 'Remove') return undefined;
    return removeHookOp(kernel, hook.id);
  },
};
