import * as vscode from 'vscode';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BEGIN } from '../runtime/projections/agentsMd';
import { Disposable } from './util/lifecycle';
import type { Folders } from './folders';
import type { FolderServices } from './folderServices';
import { PULSES, PULSE_AFTER_MS, PULSE_KEY, WALKTHROUGH_KEYS, type WalkthroughFacts } from './walkthroughKeys';

/**
 * Get Started's checkmarks, from what is true rather than from which button was pressed: a step ticks when a store
 * has what the step is for (a store, a goal, a connected agent, a turn that ran, a decided gate), through context
 * keys the walkthrough's `onContext:` completion events name. A command that was run and failed ticks nothing.
 *
 * VS Code (1.100 and later) never ticks a step by a condition that is already true when the walkthrough is
 * registered (which happens when the Welcome page or a walkthrough first opens, usually long after the store
 * exists): it notes that condition as seen, and a seen condition never ticks anything later. So each step lists its
 * condition three times, with a "pulse" key that takes the values a, b, c in turn (package.json): the one true at
 * registration is spent, and the next pulse makes another one true, which VS Code does tick. The pulse moves a few
 * seconds after start-up and after a walkthrough opens.
 */
export class WalkthroughProgress extends Disposable {
  private readonly watched = new Set<FolderServices>();
  private last: string | undefined;
  /** What is true now (tests read it). */
  facts: WalkthroughFacts = { hasStore: false, hasGoal: false, agentConnected: false, turnRan: false, gateDecided: false };
  private pulse = 0;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly folders: Folders) {
    super();
    this.register(folders.onDidChange(() => this.follow()));
    // AGENTS.md or CLAUDE.md written by Connect an Agent, `loopx agents-md` or by hand.
    const files = this.register(vscode.workspace.createFileSystemWatcher('**/{AGENTS,CLAUDE}.md'));
    for (const on of [files.onDidCreate, files.onDidChange]) this.register(on(() => this.update()));
    // A walkthrough opening may register ours now: the pulse moves once that is done.
    this.register(
      vscode.window.tabGroups.onDidChangeTabs(({ opened }) => {
        if (opened.some((tab) => /^(Walkthrough: |Welcome$)/.test(tab.label))) this.pulseLater();
      }),
    );
    this.register({ dispose: () => this.timers.forEach((t) => clearTimeout(t)) });
    void vscode.commands.executeCommand('setContext', PULSE_KEY, PULSES[0]);
    this.pulseLater();
    this.follow();
  }

  /** Moves the pulse a little later, twice (the walkthrough may be registering right now). */
  pulseLater(): void {
    for (const ms of PULSE_AFTER_MS) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.pulse = (this.pulse + 1) % PULSES.length;
        void vscode.commands.executeCommand('setContext', PULSE_KEY, PULSES[this.pulse]);
      }, ms);
      this.timers.add(timer);
    }
  }

  private follow(): void {
    for (const f of this.folders.all) {
      if (this.watched.has(f)) continue;
      this.watched.add(f);
      this.register(f.model.onDidChange(() => this.update()));
    }
    this.update();
  }

  update(): void {
    const stores = this.folders.withStore;
    const facts: WalkthroughFacts = {
      hasStore: stores.length > 0,
      hasGoal: stores.some((f) => f.model.goals().length > 0),
      // Taught (the loopx block is in AGENTS.md or CLAUDE.md), or an agent has written to the store (MCP, the CLI).
      agentConnected: stores.some((f) => hasAgentsBlock(f.root) || f.model.agents().some((a) => a.kind !== 'human')),
      turnRan: stores.some((f) => f.model.turnCount() > 0),
      gateDecided: stores.some((f) => f.model.gates().some((g) => g.status !== 'pending')),
    };
    this.facts = facts;
    const key = JSON.stringify(facts);
    if (key === this.last) return;
    this.last = key;
    for (const [name, contextKey] of Object.entries(WALKTHROUGH_KEYS))
      void vscode.commands.executeCommand('setContext', contextKey, facts[name as keyof WalkthroughFacts]);
  }
}

function hasAgentsBlock(root: string): boolean {
  return ['AGENTS.md', 'CLAUDE.md'].some((name) => {
    const path = join(root, name);
    try {
      return existsSync(path) && readFileSync(path, 'utf8').includes(BEGIN);
    } catch {
      return false;
    }
  });
}
