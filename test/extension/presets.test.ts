import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/extension/commands/commandIds';
import { presetNamed } from '../../src/goalFile/presets';
import { getGoal, listGoals } from '../../src/kernel/goals/goalQueries';
import { app, withAnswers, workspaceRoot } from './support';
import { readinessDetail } from '../../src/extension/commands/checkReadiness';
import type { Readiness } from '../../src/runtime/goalReadiness';

const pick = (title: string) => (items: readonly vscode.QuickPickItem[]) => items.find((item) => item.label === title);

suite('New Goal from a Preset', () => {
  let presetGoal = '';
  const file = () => join(workspaceRoot(), 'loopx', 'daily-triage.goal.md');
  suiteTeardown(() => rmSync(file(), { force: true }));

  test('writes the goal file and opens it, then after a modal saying what it sets adds its goal paused, as the person in VS Code', async () => {
    const loopx = await app();
    const kernel = loopx.session.requireKernel();
    const preset = presetNamed('daily-triage');
    assert.ok(preset);
    rmSync(file(), { force: true });
    const before = kernel.read((db) => listGoals(db)).length;
    const { result, prompts } = await withAnswers({ picks: [pick(preset.title)], warnings: ['Add Paused Goal'] }, async () =>
      vscode.commands.executeCommand<{ goalId: string } | undefined>(COMMANDS.newGoalFromPreset),
    );
    assert.match(
      prompts[0] ?? '',
      /^pick: LoopX: New Goal from a Preset \[Daily triage of new issues \| Changelog draft since the last tag \| Watch a pull request's checks and review \| Keep the tests green, nightly\]$/,
    );
    assert.match(
      prompts[1] ?? '',
      /^warning \(modal\): Add "Daily triage of new issues" to the store, paused\? \| Read loopx\/daily-triage.goal.md first/,
    );
    assert.match(prompts[1] ?? '', /Its budget: 2 turns, 400,000 tokens and \$2 a day, one turn at a time\./);
    assert.match(prompts[1] ?? '', /Checks agents may set that run without asking you: gh issue list \*, gh issue view \*\./);
    assert.equal(readFileSync(file(), 'utf8'), preset.text);
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, file());
    const goalId = result?.goalId ?? '';
    const goal = kernel.read((db) => getGoal(db, goalId));
    assert.equal(goal.status, 'paused', 'paused even though a person added it: read before anything runs');
    assert.equal(goal.title, preset.title);
    assert.equal(kernel.read((db) => listGoals(db)).length, before + 1);
    presetGoal = goalId;
  });

  test("Check Readiness on the preset's goal: not ready while it is paused, said in a modal, sentences first to fix", async () => {
    const { result, prompts } = await withAnswers({}, async () =>
      vscode.commands.executeCommand<Readiness | undefined>(COMMANDS.checkReadiness, presetGoal),
    );
    assert.equal(result?.goalId, presetGoal);
    assert.equal(result?.ready, false);
    assert.equal(result?.reasons.find((r) => r.key === 'goal')?.level, 'fail');
    assert.match(
      prompts[0] ?? '',
      new RegExp(`^info: ${presetGoal} Daily triage of new issues is not ready to be left running \\(\\d+ of 100\\)\\.$`),
    );
    const detail = readinessDetail(result as Readiness);
    assert.match(detail, new RegExp(`^✗ ${presetGoal} is paused: nothing runs until a person resumes it\\.\\n`));
    assert.doesNotMatch(detail, /loopx goal resume|fix:/, 'sentences, not the CLI fixes');
  });

  test('a file already there with other text is opened as it is: not overwritten, nothing added; Escape at the modal adds nothing', async () => {
    const loopx = await app();
    const kernel = loopx.session.requireKernel();
    const preset = presetNamed('daily-triage');
    assert.ok(preset);
    mkdirSync(join(workspaceRoot(), 'loopx'), { recursive: true });
    writeFileSync(file(), '---\ntitle: Mine\ntodos: []\n---\n');
    const before = kernel.read((db) => listGoals(db)).length;
    const taken = await withAnswers({ picks: [pick(preset.title)] }, async () =>
      vscode.commands.executeCommand(COMMANDS.newGoalFromPreset),
    );
    assert.equal(taken.result, undefined);
    assert.match(
      taken.prompts.at(-1) ?? '',
      /daily-triage.goal.md is already there with other text, so it is opened as it is and nothing was added/,
    );
    assert.equal(readFileSync(file(), 'utf8'), '---\ntitle: Mine\ntodos: []\n---\n');
    rmSync(file());
    const declined = await withAnswers({ picks: [pick(preset.title)], warnings: [undefined] }, async () =>
      vscode.commands.executeCommand(COMMANDS.newGoalFromPreset),
    );
    assert.equal(declined.result, undefined);
    assert.equal(existsSync(file()), true, 'the file stays for the person to apply later');
    assert.equal(kernel.read((db) => listGoals(db)).length, before);
  });
});
