import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BOARD_VIEW_TYPE } from '../protocol/boardProtocol';
import { COMMANDS } from './commands/commandIds';
import { ALL_CONTEXT_VALUES } from './views/contextValues';
import { WALKTHROUGH_KEYS, completionEvents } from './walkthroughKeys';

// The manifest and the code must agree (vscode-pull-request-github's check-commands.js, as a test).
const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));
const contributes = pkg.contributes;
const ids = Object.values(COMMANDS) as string[];

describe('package.json ↔ code', () => {
  test('every contributed command is registered by the code, and every registered command is contributed', () => {
    const contributed = contributes.commands.map((c: { command: string }) => c.command);
    expect([...contributed].sort()).toEqual([...ids].sort());
  });

  test('menus only name known commands, views and viewItem contextValues', () => {
    const views = Object.values(contributes.views)
      .flat()
      .map((v) => (v as { id: string }).id);
    for (const [menu, entries] of Object.entries(contributes.menus) as [string, { command: string; when?: string }[]][]) {
      for (const entry of entries) {
        expect(ids, `${menu} names ${entry.command}`).toContain(entry.command);
        for (const [, view] of (entry.when ?? '').matchAll(/view == ([\w.]+)/g)) expect(views, `${menu}: ${entry.when}`).toContain(view);
        const equal = /viewItem == ([\w:]+)/.exec(entry.when ?? '');
        if (equal) expect(ALL_CONTEXT_VALUES, entry.when).toContain(equal[1]);
        const regex = /viewItem =~ \/(.+)\//.exec(entry.when ?? '');
        if (regex)
          expect(
            ALL_CONTEXT_VALUES.some((v) => new RegExp(regex[1] as string).test(v)),
            `${entry.when} matches nothing`,
          ).toBe(true);
      }
    }
  });

  test('a board left open comes back after a reload: its panel type activates the extension', () => {
    expect(pkg.activationEvents).toContain(`onWebviewPanel:${BOARD_VIEW_TYPE}`);
  });

  test('a command that asks before it acts says so with "…" (and one that acts at once does not)', () => {
    // Each of these opens an input box, a pick or a modal before anything happens, from a view item too.
    const asks = [
      COMMANDS.newGoal,
      COMMANDS.newGoalFromPreset,
      COMMANDS.addTodo,
      COMMANDS.releaseTodo,
      COMMANDS.shipTodo,
      COMMANDS.blockTodo,
      COMMANDS.unblockTodo,
      COMMANDS.killTodo,
      COMMANDS.askGate,
      COMMANDS.approveGate,
      COMMANDS.rejectGate,
      COMMANDS.addEvidence,
      COMMANDS.runTurn,
      COMMANDS.cancelMonitor,
      COMMANDS.restoreBackup,
      COMMANDS.connectAgent,
      COMMANDS.showTurns,
      COMMANDS.markGoalDone,
      COMMANDS.chooseGoalAgent,
      COMMANDS.approveReview,
      COMMANDS.requestChanges,
      COMMANDS.setGoalReview,
      COMMANDS.filterTodos,
      COMMANDS.approveMonitor,
      COMMANDS.allowChecks,
      COMMANDS.addHook,
      COMMANDS.removeHook,
      COMMANDS.setModelPrice,
      COMMANDS.mergeBranch,
      COMMANDS.openPullRequest,
      COMMANDS.discardBranch,
      COMMANDS.renameProject,
      COMMANDS.forgetProject,
    ];
    for (const c of contributes.commands as { command: string; title: string }[])
      expect(c.title.endsWith('…'), `${c.command}: "${c.title}"`).toBe((asks as string[]).includes(c.command));
  });

  test("Get Started's steps complete on the walkthrough keys, once per pulse (VS Code spends a condition true at registration)", () => {
    const steps = contributes.walkthroughs[0].steps as { id: string; completionEvents: string[] }[];
    const keyOf: Record<string, string> = {
      initialize: WALKTHROUGH_KEYS.hasStore,
      newGoal: WALKTHROUGH_KEYS.hasGoal,
      connectAgent: WALKTHROUGH_KEYS.agentConnected,
      runTurn: WALKTHROUGH_KEYS.turnRan,
      decideGate: WALKTHROUGH_KEYS.gateDecided,
    };
    for (const step of steps) expect(step.completionEvents, step.id).toEqual(completionEvents(keyOf[step.id] as string));
    // None ticks on a command: a command that ran and failed must tick nothing.
    expect(steps.flatMap((s) => s.completionEvents).filter((e) => e.startsWith('onCommand:'))).toEqual([]);
  });

  test('a paused goal has Resume on its row, where a running one has Run Turn', () => {
    const inline = (contributes.menus['view/item/context'] as { command: string; when: string; group: string }[]).filter((m) =>
      m.group.startsWith('inline'),
    );
    expect(inline).toContainEqual(
      expect.objectContaining({ command: COMMANDS.resumeGoal, when: expect.stringContaining('loopx:goal:paused') }),
    );
  });

  test('every command has a LoopX category and a title; icons are codicons', () => {
    for (const c of contributes.commands as { title: string; category: string; icon?: string }[]) {
      expect(c.category).toBe('LoopX');
      expect(c.title.length).toBeGreaterThan(2);
      if (c.icon) expect(c.icon).toMatch(/^\$\([a-z-]+\)$/);
    }
  });
});
