import type * as vscode from 'vscode';
import type { BoardReveal } from '../protocol/boardProtocol';
import type { StoreSession, StoreModel } from './store/storeModel';
import type { LogWitness } from './store/logWitness';
import type { Log } from './util/log';
import type { TurnRunner } from './turns/turnRunner';
import type { GoalsTreeProvider } from './views/goalsTree';
import type { MonitorTicker } from './monitors/monitorTicker';
import type { GoalsFilter } from './views/goalsFilter';

/**
 * One workspace folder's services, as commands, the board and turns see them. Built whole, once per folder, by the
 * composition root (FolderServices); nothing in it is filled in later.
 */
export interface Services {
  session: StoreSession;
  model: StoreModel;
  log: Log;
  /** The human at the keyboard (UI actions are human actions). */
  me: string;
  /** Where the extension's own files (dist/webview, media) are. */
  extensionUri: vscode.Uri;
  /** The `loopx` agents in this editor run (a launcher on the editor's runtime; bundledCli.ts). */
  cliCommand: string;
  /** Runs agent turns in terminals. */
  turns: TurnRunner;
  /** The Goals tree, for its paging ("… N more"). */
  goalsTree: GoalsTreeProvider;
  /** Remembers the newest event outside the store, to notice a log cut short. */
  witness: LogWitness;
  /** Runs due monitor checks while the window is open (trusted workspaces only). */
  monitors: MonitorTicker;
  /** The window's one board panel (owned by the app; a folder's Open Board shows this folder's store in it). */
  board: BoardOpener;
  /** The window's goal story panel (beside the board). */
  story: StoryOpener;
  /** The Goals view's filter (Filter Todos…), one for the window. */
  goalsFilter: GoalsFilter;
}

/** What a folder needs of the window's story panel: to show a goal's story from this folder's store. */
export interface StoryOpener {
  show(services: Services, goalId: string | undefined): unknown;
}

/** What a folder needs of the window's board: to show it on this folder's store (and a card or goal on it). */
export interface BoardOpener {
  show(services: Services, reveal?: BoardReveal): unknown;
}
