import * as vscode from 'vscode';
import type { CommandDefinition } from './context';
import { COMMANDS } from './commandIds';

/** The walkthrough package.json contributes (publisher.name#id). */
export const WALKTHROUGH_ID = 'loopx.loopx#loopx.gettingStarted';
/** How often, and how many times, Get Started looks whether VS Code showed its own walkthrough instead of ours. */
const LOOK_EVERY_MS = 500;
const LOOKS = 24;
/** Ours in front this many looks in a row: VS Code did not put its own over it. */
const STEADY_LOOKS = 6;
const MAX_ASKS = 4;

export const getStarted: CommandDefinition = {
  id: COMMANDS.getStarted,
  async run() {
    const open = () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID);
    await open();
    // VS Code shows its own first-run walkthrough the first time the Welcome page opens in a profile, whatever was
    // asked ("Walkthrough: Setup VS Code Web" in 1.105), and on a loaded machine its page takes seconds to come up. So:
    // look at the active tab; while it is a Welcome or walkthrough page that does not name ours, close it and ask again
    // (an ask made while such a page is in front opens ours behind it, unseen). VS Code's can also come after ours was
    // shown (when its page first renders): ours counts once it stayed in front a while.
    let asks = 1;
    let oursFor = 0;
    for (let look = 0; look < LOOKS && oursFor < STEADY_LOOKS; look++) {
      await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
      const label = tab?.label ?? '';
      oursFor = /loopx/i.test(label) ? oursFor + 1 : 0;
      if (oursFor > 0 || asks >= MAX_ASKS || !/welcome|walkthrough/i.test(label)) continue;
      // Asked while a Welcome page is in front, VS Code opens ours behind it: close that page first.
      if (tab) await vscode.window.tabGroups.close(tab);
      await open();
      asks++;
    }
  },
};
