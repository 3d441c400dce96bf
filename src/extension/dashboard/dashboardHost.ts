import * as vscode from 'vscode';
import { join } from 'node:path';
import type { Log } from '../util/log';
import { type RunningDashboard, startDashboard } from '../../runtime/dashboard/dashboardServer';

/**
 * Open Dashboard: `loopx dashboard` served from this window (one per window, until it closes) and opened in the
 * person's browser. Its decide links use this editor's scheme (vscode, cursor…), so they come back to this editor.
 */
export class DashboardHost implements vscode.Disposable {
  private running: Promise<RunningDashboard> | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Log,
    /** Where the address goes: the person's browser (tests hand in their own). */
    private readonly openExternal: (uri: vscode.Uri) => Thenable<boolean> = (uri) => vscode.env.openExternal(uri),
  ) {}

  async open(): Promise<string> {
    this.running ??= startDashboard({
      assetsDir: join(this.extensionUri.fsPath, 'dist', 'dashboard'),
      linkScheme: vscode.env.uriScheme,
    }).catch((error: unknown) => {
      this.running = undefined;
      throw error;
    });
    const dashboard = await this.running;
    this.log.info(`the dashboard serves on ${dashboard.url}`);
    // The address as the browser reaches it (a remote window forwards the port, code-server proxies it under a path),
    // then the secret after # (which a forwarder may drop, and never sees).
    const external = await vscode.env.asExternalUri(vscode.Uri.parse(dashboard.url));
    await this.openExternal(external.with({ fragment: dashboard.openUrl.slice(dashboard.openUrl.indexOf('#') + 1) }));
    return dashboard.url;
  }

  dispose(): void {
    void this.running?.then((d) => d.close()).catch(() => undefined);
    this.running = undefined;
  }
}
