import * as vscode from 'vscode';

/** The "LoopX" output channel. Every action and failure is logged here; errors offer "Show Logs". */
export class Log implements vscode.Disposable {
  readonly channel = vscode.window.createOutputChannel('LoopX', { log: true });

  trace(message: string): void {
    this.channel.trace(message);
  }
  info(message: string): void {
    this.channel.info(message);
  }
  warn(message: string): void {
    this.channel.warn(message);
  }
  error(message: string, error?: unknown): void {
    this.channel.error(error instanceof Error ? `${message}: ${error.stack ?? error.message}` : message);
  }
  show(): void {
    this.channel.show(true);
  }
  dispose(): void {
    this.channel.dispose();
  }
}
