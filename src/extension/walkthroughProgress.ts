import * as vscode from 'vscode';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BEGIN } from '../kernel/projections/agentsMd';
import { Disposable } from './util/lifecycle';
import type { Folders } from './folders';
import type { FolderServices } from './folderServices';

/**
 * Get Started's checkmarks, from what is true rather than from which button was pressed: a step ticks when a store
 * has what the step is for (a store, a goal, a connected agent, a turn that ran, a decided gate), through context
 * keys the walkthrough's `onContext:` completion events name. A command that was run and failed ticks nothing.
 *
 * VS Code (1.100 and later) never ticks a step whose `onContext` expression is already true when the walkthrough is
 * registered: it notes the event as seen and moves on, and a seen event does not tick later either. The walkthrough
 * is registered when the Welcome page or a walkthrough first opens, usually long after the store exists. So the keys
 * stay false until the walkthrough can have been registered (ARM_MS after start-up, and again after a walkthrough
 * tab opens), then turn true: a change VS Code does tick.
 */
export const ARM_MS = 6000;

export const WALKTHROUGH_KEYS = {
  hasStore: 'loopx.walkthrough.hasStore',
  hasGoal: 'loopx.walkthrough.hasGoal',
  agentConnected: 'loopx.walkthrough.agentConnected',
  turnRan: 'loopx.walkthrough.turnRan',
  gateDecided: 'loopx.walkthrough.gateDecided',
} as const;

export type WalkthroughFacts = Record<keyof typeof WALKTHROUGH_KEYS, boolean>;

export class WalkthroughProgress extends Disposable {
  private readonly watched = new Set<FolderServices>();
  private last: string | undefined;
  /** What is true now (tests read it); the keys say it once armed. */
  facts: WalkthroughFacts = { hasStore: false, hasGoal: false, agentConnected: false, turnRan: false, gateDecided: false };
  private armed = false;
  private armTimer: NodeJS.Timeout | undefined;

  constructor(private readonly folders: Folders) {
    super();
    this.register(folders.onDidChange(() => this.follow()));
    // AGENTS.md or CLAUDE.md written by Connect an Agent, `loopx agents-md` or by hand.
    const files = this.register(vscode.workspace.createFileSystemWatcher('**/{AGENTS,CLAUDE}.md'));
    for (const on of [files.onDidCreate, files.onDidChange]) this.register(on(() => this.update()));
    // A walkthrough opening may register ours now: the keys go false, then true once it is registered.
    this.register(
      vscode.window.tabGroups.onDidChangeTabs(({ opened }) => {
        if (opened.some((tab) => /^(Walkthrough: |Welcome$)/.test(tab.label))) this.arm();
      }),
    );
    this.register({ dispose: () => this.armTimer && clearTimeout(this.armTimer) });
    this.arm();
    this.follow();
  }

  private arm(): void {
    this.armed = false;
    this.publish();
    if (this.armTimer) clearTimeout(this.armTimer);
    this.armTimer = setTimeout(() => {
      this.armed = true;
      this.publish();
    }, ARM_MS);
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
    this.publish();
  }

  private publish(): void {
    const shown = Object.fromEntries(Object.entries(this.facts).map(([name, value]) => [name, this.armed && value])) as WalkthroughFacts;
    const key = JSON.stringify(shown);
    if (key === this.last) return;
    this.last = key;
    for (const [name, contextKey] of Object.entries(WALKTHROUGH_KEYS))
      void vscode.commands.executeCommand('setContext', contextKey, shown[name as keyof WalkthroughFacts]);
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
