import * as vscode from 'vscode';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BEGIN } from '../kernel/projections/agentsMd';
import { Disposable } from './util/lifecycle';
import type { Folders } from './folders';
import type { FolderServices } from './folderServices';

/**
 * Get Started's checkmarks, from what is true rather than from which button was pressed: a step ticks when a store
 * has what the step is for (a goal, a connected agent, a turn that ran, a decided gate), through context keys the
 * walkthrough's `onContext:` completion events name. A command that was run and failed ticks nothing.
 */
export const WALKTHROUGH_KEYS = {
  hasGoal: 'loopx.walkthrough.hasGoal',
  agentConnected: 'loopx.walkthrough.agentConnected',
  turnRan: 'loopx.walkthrough.turnRan',
  gateDecided: 'loopx.walkthrough.gateDecided',
} as const;

export type WalkthroughFacts = Record<keyof typeof WALKTHROUGH_KEYS, boolean>;

export class WalkthroughProgress extends Disposable {
  private readonly watched = new Set<FolderServices>();
  private last: string | undefined;
  /** What the keys say now (tests read it). */
  facts: WalkthroughFacts = { hasGoal: false, agentConnected: false, turnRan: false, gateDecided: false };

  constructor(private readonly folders: Folders) {
    super();
    this.register(folders.onDidChange(() => this.follow()));
    // AGENTS.md or CLAUDE.md written by Connect an Agent, `loopx agents-md` or by hand.
    const files = this.register(vscode.workspace.createFileSystemWatcher('**/{AGENTS,CLAUDE}.md'));
    for (const on of [files.onDidCreate, files.onDidChange]) this.register(on(() => this.update()));
    this.follow();
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
      hasGoal: stores.some((f) => f.model.goals().length > 0),
      // Taught (the loopx block is in AGENTS.md or CLAUDE.md), or an agent has written to the store (MCP, the CLI).
      agentConnected: stores.some((f) => hasAgentsBlock(f.root) || f.model.agents().some((a) => a.kind !== 'human')),
      turnRan: stores.some((f) => f.model.turnCount() > 0),
      gateDecided: stores.some((f) => f.model.gates().some((g) => g.status !== 'pending')),
    };
    const key = JSON.stringify(facts);
    if (key === this.last) return;
    this.last = key;
    this.facts = facts;
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
