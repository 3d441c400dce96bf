import * as vscode from 'vscode';
import type { CommandDefinition } from './context';
import { COMMANDS } from './commandIds';

/** The walkthrough package.json contributes (publisher.name#id). */
export const WALKTHROUGH_ID = 'loopx.loopx#loopx.gettingStarted';

export const getStarted: CommandDefinition = {
  id: COMMANDS.getStarted,
  async run() {
    // The Welcome page already open: it has shown its first-run walkthrough before, so one ask is enough.
    if (isWelcome()) return void (await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID));
    const welcomeShown = welcomeTabShown(10_000);
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID);
    // VS Code shows its own first-run walkthrough the first time the Welcome page opens in a profile, whatever was
    // asked; asking again once the page is up shows ours (and is a no-op where the first ask worked). "Once the page
    // is up" is waited for, not guessed: on a loaded machine it can take seconds.
    await welcomeShown;
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID);
  },
};

const isWelcome = () => /welcome|walkthrough/i.test(vscode.window.tabGroups.activeTabGroup.activeTab?.label ?? '');

/** Resolves when the active tab is the Welcome page (or after `ceilingMs`, whichever comes first). */
function welcomeTabShown(ceilingMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      listener.dispose();
      // The tab appears before its content settles; the page takes our second ask once it has rendered.
      setTimeout(resolve, 300);
    };
    const timer = setTimeout(done, ceilingMs);
    const listener = vscode.window.tabGroups.onDidChangeTabs(() => {
      if (isWelcome()) done();
    });
  });
}
