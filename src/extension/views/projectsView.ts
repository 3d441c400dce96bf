import * as vscode from 'vscode';
import { Disposable } from '../util/lifecycle';
import type { Log } from '../util/log';
import { COMMANDS } from '../commands/commandIds';
import { describeError } from '../../runtime/describeError';
import { clean } from '../../protocol/display';
import { byWhatWaits } from '../../protocol/projectWords';
import { forgetProject, listProjectEntries, projectName, projectRoot, renameProject } from '../../kernel/projects/projectRegistry';
import { type ProjectSummary, summarizeProject } from '../../kernel/readModels/projectSummary';
import { type ProjectNode, ProjectsTreeProvider } from './projectsTree';
import type { DashboardHost } from '../dashboard/dashboardHost';

/** While the view is visible its counts are read again this often (other windows' and agents' writes). */
const REFRESH_MS = 60_000;

const isNode = (arg: unknown): arg is ProjectNode => (arg as ProjectNode | undefined)?.kind === 'project';

/**
 * The Projects view: the person's other projects and what waits in each, read when the view shows, when the window
 * gains focus (the person comes back from another window) and each minute while it is visible, one project at a time
 * so the window never waits on twenty stores at once. Renaming and forgetting are the person's (this window is their
 * channel); opening one opens its folder in a new window. Open Dashboard shows them all in the browser.
 */
export class ProjectsView extends Disposable {
  readonly tree = this.register(new ProjectsTreeProvider());
  readonly view: vscode.TreeView<ProjectNode>;
  private reading: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly ownRoots: () => readonly string[],
    private readonly log: Log,
    dashboard: DashboardHost,
  ) {
    super();
    this.view = this.register(vscode.window.createTreeView('loopx.projects', { treeDataProvider: this.tree }));
    this.register(this.view.onDidChangeVisibility(({ visible }) => visible && this.refresh()));
    this.register(vscode.window.onDidChangeWindowState(({ focused }) => focused && this.view.visible && this.refresh()));
    const timer = setInterval(() => this.view.visible && this.refresh(), REFRESH_MS);
    this.register({ dispose: () => clearInterval(timer) });
    this.register(vscode.commands.registerCommand(COMMANDS.refreshProjects, () => this.refresh()));
    this.register(vscode.commands.registerCommand(COMMANDS.openProject, (arg: unknown) => this.open(arg)));
    this.register(vscode.commands.registerCommand(COMMANDS.renameProject, (arg: unknown) => this.rename(arg)));
    this.register(vscode.commands.registerCommand(COMMANDS.forgetProject, (arg: unknown) => this.forget(arg)));
    this.register(dashboard);
    this.register(vscode.commands.registerCommand(COMMANDS.openDashboard, () => this.openDashboard(dashboard)));
    if (this.view.visible) void this.refresh();
  }

  /** Reads the list and each project again; a refresh asked for while one runs runs once more after it. */
  refresh(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.read().finally(() => {
      this.reading = undefined;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    const own = new Set(this.ownRoots().map((root) => projectRoot(root)));
    let entries;
    try {
      entries = listProjectEntries().filter((e) => !own.has(e.root));
    } catch (error) {
      this.tree.show([]);
      this.view.message = describeError(error, 'person').body.message;
      return;
    }
    const projects: ProjectSummary[] = [];
    for (const entry of entries) {
      await new Promise((done) => setImmediate(done)); // one store at a time: the window stays responsive
      projects.push(summarizeProject(entry));
    }
    projects.sort(byWhatWaits);
    this.tree.show(projects);
    const waiting = this.tree.waitingProjects();
    this.view.description = waiting > 0 ? `${waiting} waiting on you` : undefined;
    this.view.message =
      projects.length === 0 ? 'Your other LoopX projects show here: each folder LoopX initialises or opens for you.' : undefined;
  }

  /** Every project in the browser: served from this window, opened where the person's links open. */
  private async openDashboard(dashboard: DashboardHost): Promise<string | undefined> {
    try {
      return await dashboard.open();
    } catch (error) {
      const { body } = describeError(error, 'person');
      this.log.warn(`the dashboard did not start: ${body.message}`);
      void vscode.window.showErrorMessage(`LoopX: the dashboard did not start: ${body.message}`);
      return undefined;
    }
  }

  private async open(arg: unknown): Promise<void> {
    if (!isNode(arg)) return;
    await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(arg.project.root), { forceNewWindow: true });
  }

  private async rename(arg: unknown): Promise<void> {
    if (!isNode(arg)) return;
    const name = await vscode.window.showInputBox({
      title: `LoopX: rename ${clean(arg.project.name)}`,
      value: arg.project.name,
      prompt: 'The name this project has in your list (its folder is not renamed)',
      validateInput: (value) => {
        try {
          projectName(value);
          return undefined;
        } catch (error) {
          return (error as Error).message;
        }
      },
    });
    if (name === undefined) return;
    await this.change(() => renameProject(arg.project.root, name));
  }

  private async forget(arg: unknown): Promise<void> {
    if (!isNode(arg)) return;
    const choice = await vscode.window.showWarningMessage(
      `Take ${clean(arg.project.name)} off your projects?`,
      { modal: true, detail: `Its folder and its store are not touched: ${clean(arg.project.root)}. Opening it again lists it again.` },
      'Forget',
    );
    if (choice !== 'Forget') return;
    await this.change(() => forgetProject(arg.project.root));
  }

  private async change(fn: () => unknown): Promise<void> {
    try {
      fn();
    } catch (error) {
      const { body } = describeError(error, 'person');
      this.log.warn(`projects: ${body.message}`);
      void vscode.window.showErrorMessage(`LoopX: ${body.message}${body.hint ? ` (${body.hint})` : ''}`);
    }
    await this.refresh();
  }
}
