import * as vscode from 'vscode';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { PRESETS, presetPath } from '../../goalFile/presets';
import type { GoalSpec } from '../../kernel/goals/goalSpec/spec';
import { goalSpecFromText } from '../../goalFile/read';
import { applyGoalSpec } from '../../kernel/goals/goalSpec/apply';
import { toolStatesByProgram } from '../../runtime/neededTools';
import { clean } from '../../protocol/display';

const ADD = 'Add Paused Goal';

/**
 * New Goal from a Preset… (the Goals view's title menu, the palette, the walkthrough): a starter goal file
 * (src/goalFile/presets.ts) written into the repository and opened, then, after a modal saying what it sets, applied
 * as the person through VS Code with its goal paused: it is read before anything runs. A file already there with
 * other text is opened as it is, never overwritten, and nothing is applied.
 */
export const newGoalFromPreset: CommandDefinition = {
  id: COMMANDS.newGoalFromPreset,
  async run(ctx) {
    const kernel = kernelOf(ctx);
    const states = await toolStatesByProgram(
      PRESETS.flatMap((preset) => preset.needs),
      process.env,
      kernel.root,
    );
    const picked = await vscode.window.showQuickPick(
      PRESETS.map((preset) => {
        const problems = preset.needs.flatMap((need) => states.get(need.program)?.problem ?? []);
        return {
          label: preset.title,
          description: problems.length ? `$(warning) needs ${preset.needs.map((n) => n.program).join(', ')}` : presetPath(preset),
          detail: preset.summary,
          preset,
          problems,
        };
      }),
      {
        title: 'LoopX: New Goal from a Preset',
        placeHolder: 'A starter goal, written as a goal file for you to read before anything runs',
      },
    );
    if (!picked) return undefined;
    const { preset, problems } = picked;
    const path = presetPath(preset);
    const file = join(kernel.root, path);
    const existing = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (existing === null) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, preset.text);
    }
    await vscode.window.showTextDocument(vscode.Uri.file(file));
    if (existing !== null && existing !== preset.text) {
      void vscode.window.showWarningMessage(
        `LoopX: ${path} is already there with other text, so it is opened as it is and nothing was added. Apply it when it says what you want.`,
      );
      return undefined;
    }
    const { spec } = goalSpecFromText(preset.text, path);
    const confirmed = await vscode.window.showWarningMessage(
      `Add "${clean(preset.title)}" to the store, paused?`,
      { modal: true, detail: presetDetail(path, spec, problems) },
      ADD,
    );
    if (confirmed !== ADD) return undefined;
    const result = applyGoalSpec(kernel, spec, { path, startPaused: true });
    ctx.log.info(`added ${result.goalId} from the preset ${preset.name} (${path}), paused`);
    void vscode.window
      .showInformationMessage(
        `LoopX: added ${result.goalId} ${clean(preset.title)}, paused. Resume it when ${path} says what you want.`,
        'Open Board',
      )
      .then((choice) => choice && vscode.commands.executeCommand(COMMANDS.openBoard));
    return result;
  },
};

/** What the modal says the preset sets: its budget, the checks it lets agents set, what is missing. */
function presetDetail(path: string, spec: GoalSpec, problems: readonly string[]): string {
  const q = spec.quota;
  const lines = [
    `Read ${path} first and change what is yours (a time, a command, a branch). Nothing runs until you resume the goal.`,
    `Its budget: ${q.turnsPerWindow} turns, ${q.tokensPerWindow?.toLocaleString('en-US')} tokens and $${q.dollarsPerWindow} a day, one turn at a time.`,
  ];
  if (spec.allowedChecks?.length) lines.push(`Checks agents may set that run without asking you: ${spec.allowedChecks.join(', ')}.`);
  if (spec.check) lines.push(`Its acceptance check: ${spec.check}.`);
  return [...lines, ...problems.map((problem) => `${problem[0]?.toUpperCase()}${problem.slice(1)}.`)].join('\n');
}
