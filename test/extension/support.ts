import * as vscode from 'vscode';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LoopxApp } from '../../src/extension/app';
import { Kernel } from '../../src/kernel/kernel';
import { runInPty } from '../cli/pty';

export const REPO = resolve(__dirname, '..', '..', '..');

export async function app(): Promise<LoopxApp> {
  const ext = vscode.extensions.getExtension<LoopxApp>('loopx.loopx');
  if (!ext) throw new Error('the loopx extension is not installed in this host');
  const api = ext.isActive ? ext.exports : await ext.activate();
  if (!api) throw new Error('the loopx extension activated without a workspace folder');
  return api;
}

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the tests need a workspace folder');
  return folder.uri.fsPath;
}

/** Another process, as an agent in a terminal would: bin/loopx with the host's Node. */
export function cli(args: string[], agent?: string): { code: number; json: { ok: boolean; data?: unknown; error?: { code: string } } } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.LOOPX_AGENT;
  if (agent) env.LOOPX_AGENT = agent;
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'loopx'), ...args, '--json'], { cwd: workspaceRoot(), env, encoding: 'utf8' });
  return { code: r.status ?? -1, json: JSON.parse(r.stdout || '{"ok":false}') };
}

/** bin/loopx as a person in a terminal: stdin and stdout a pseudo-terminal, `typed` entered at the prompt. */
export function cliInTerminal(
  args: string[],
  typed: string,
): { code: number; json: { ok: boolean; data?: unknown; error?: { code: string } } | null } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.LOOPX_AGENT;
  const run = runInPty([process.execPath, join(REPO, 'bin', 'loopx'), ...args, '--json'], typed, env, workspaceRoot());
  return { code: run.code, json: run.json };
}

/** The person in VS Code (what the extension's own actions run as): goals created by agents start paused. */
export const vscodeHuman = { name: 'ada', kind: 'human', channel: 'vscode' } as const;

/** A second kernel connection, as a separate writer (faster than a process when a test needs many changes). */
export function otherWriter(agent = 'codex'): Kernel {
  return Kernel.open(workspaceRoot(), { actor: { name: agent, kind: 'agent' } });
}

/**
 * Waits for what a test is about, looking every 10 ms. The ceiling is generous on purpose: CI machines are loaded
 * (load 9 to 12 on 2 cores was seen), and a ceiling only decides how long a failure takes to report, never how
 * long a passing wait lasts. Figures are measured separately (recordFigure), never asserted as timings.
 */
export const WAIT_MS = 30_000;

export async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  ms = WAIT_MS,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An input box answered with Enter on whatever it shows (its pre-filled value, or nothing). */
export const ENTER = Symbol('Enter on what the box shows');

type Answers = {
  inputs?: (string | undefined | typeof ENTER)[];
  picks?: ((items: readonly vscode.QuickPickItem[]) => unknown)[];
  warnings?: (string | undefined)[];
  /** Buttons chosen on non-modal warnings (notifications), in order (none: dismissed). */
  notices?: (string | undefined)[];
  /** Buttons chosen on error messages, in order (none: dismissed). */
  errors?: (string | undefined)[];
};

/**
 * Scripts the next input boxes, quick picks and modal answers, restoring the real functions afterwards.
 * Records every prompt shown so tests can assert on what the user was asked; `body` sees them as they come (to wait for
 * a prompt shown by work the code under test does not await).
 */
export async function withAnswers<T>(
  answers: Answers,
  body: (prompts: readonly string[]) => Promise<T>,
): Promise<{ result: T; prompts: string[] }> {
  const w = vscode.window as unknown as Record<string, unknown>;
  const saved = {
    showInputBox: w.showInputBox,
    showQuickPick: w.showQuickPick,
    showWarningMessage: w.showWarningMessage,
    showErrorMessage: w.showErrorMessage,
    showInformationMessage: w.showInformationMessage,
  };
  const prompts: string[] = [];
  const inputs = [...(answers.inputs ?? [])];
  const picks = [...(answers.picks ?? [])];
  const warnings = [...(answers.warnings ?? [])];
  const notices = [...(answers.notices ?? [])];
  const errors = [...(answers.errors ?? [])];
  w.showInputBox = async (o: vscode.InputBoxOptions) => {
    prompts.push(`input: ${o.title ?? ''} ${o.prompt ?? ''}`);
    if (!inputs.length) throw new Error(`unexpected input box: ${o.title} ${o.prompt}`);
    const answer = inputs.shift();
    const value = answer === ENTER ? (o.value ?? '') : answer;
    const problem = value === undefined ? undefined : await o.validateInput?.(value);
    if (problem) {
      // The box would stay open showing the problem; the scripted user then gives up (Escape).
      prompts.push(`refused: ${typeof problem === 'string' ? problem : problem.message}`);
      return undefined;
    }
    return value;
  };
  w.showQuickPick = async (
    items: readonly vscode.QuickPickItem[] | Thenable<readonly vscode.QuickPickItem[]>,
    o?: vscode.QuickPickOptions,
  ) => {
    const list = await items;
    prompts.push(`pick: ${o?.title ?? ''} [${list.map((i) => i.label).join(' | ')}]`);
    const choose = picks.shift();
    if (!choose) throw new Error(`unexpected quick pick: ${o?.title}`);
    return choose(list);
  };
  w.showWarningMessage = async (message: string, ...rest: unknown[]) => {
    const options = typeof rest[0] === 'object' && rest[0] !== null ? (rest[0] as vscode.MessageOptions) : undefined;
    const buttons = rest.filter((r): r is string => typeof r === 'string');
    prompts.push(
      `warning${options?.modal ? ' (modal)' : ''}: ${message}${options?.detail ? ` | ${options.detail}` : ''}${!options?.modal && buttons.length ? ` [${buttons.join(' | ')}]` : ''}`,
    );
    return options?.modal ? warnings.shift() : notices.shift();
  };
  w.showErrorMessage = async (message: string) => {
    prompts.push(`error: ${message}`);
    return errors.shift();
  };
  w.showInformationMessage = async (message: string, ...rest: unknown[]) => {
    const buttons = rest.filter((r): r is string => typeof r === 'string');
    prompts.push(`info: ${message}${buttons.length ? ` [${buttons.join(' | ')}]` : ''}`);
    return undefined;
  };
  try {
    const result = await body(prompts);
    return { result, prompts };
  } finally {
    Object.assign(w, saved);
  }
}

/** Figures measured inside the host, collected by the e2e runner for docs/performance.md. */
export function recordFigure(name: string, value: number, unit: string): void {
  const dir = process.env.LOOPX_E2E_RESULTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'host-figures.json');
  let figures: Record<string, { value: number; unit: string }>;
  try {
    figures = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    figures = {};
  }
  figures[name] = { value: Math.round(value * 10) / 10, unit };
  writeFileSync(file, JSON.stringify(figures, null, 2));
}

/**
 * The names of the terminals opened while `body` ran: those the open event reported and those open now that were not
 * before (a terminal opened and closed at once, or one opened before the event's listener saw it). A count of open
 * terminals before and after would not do: a terminal an earlier test opened may close meanwhile.
 */
export async function terminalsOpenedDuring<T>(body: () => Promise<T>): Promise<{ result: T; opened: string[] }> {
  const before = new Set(vscode.window.terminals);
  const seen = new Set<vscode.Terminal>();
  const watching = vscode.window.onDidOpenTerminal((t) => seen.add(t));
  let result: T;
  try {
    result = await body();
  } finally {
    watching.dispose();
  }
  for (const t of vscode.window.terminals) if (!before.has(t)) seen.add(t);
  return { result, opened: [...seen].filter((t) => !before.has(t)).map((t) => t.name) };
}
