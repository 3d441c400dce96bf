import * as vscode from 'vscode';
import { checkTeamUrl } from '../kernel/team/teamPointer';
import type { Log } from './util/log';
import { loopxSetting } from './loopxSettings';

export const TEAM_DATABASE_SETTING = 'loopx.team.databaseUrl';
const VARIABLE = 'LOOPX_DATABASE_URL';

/**
 * `loopx.team.databaseUrl` (machine scope: a repository's settings cannot set it) becomes LOOPX_DATABASE_URL for this
 * window's kernel (process.env, which team mode's connection reads: src/kernel/team/teamPointer.ts) and for every
 * terminal the extension's environment reaches (agents' turns and terminals opened by hand). A URL with a password is
 * refused in words and not used: passwords belong in ~/.pgpass or a service file. A change applies to terminals opened
 * afterwards, and `changed` (called after the environment holds the new value) lets the window open its team stores
 * again at the new address.
 */
export function shareTeamDatabaseSetting(
  collection: vscode.GlobalEnvironmentVariableCollection,
  log: Log,
  changed: () => void = () => {},
): vscode.Disposable {
  const inherited = process.env[VARIABLE];
  const apply = () => {
    const raw = (loopxSetting<string>(TEAM_DATABASE_SETTING) ?? '').trim();
    collection.delete(VARIABLE);
    if (inherited === undefined) delete process.env[VARIABLE];
    else process.env[VARIABLE] = inherited;
    if (!raw) return;
    try {
      const url = checkTeamUrl(raw, 'The LoopX team store setting');
      process.env[VARIABLE] = url;
      collection.replace(VARIABLE, url);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      log.warn(why);
      void vscode.window.showWarningMessage(
        `${why[0]?.toUpperCase() ?? ''}${why.slice(1)}. It was not used. Keep the password in ~/.pgpass or a PostgreSQL service file.`,
      );
    }
  };
  apply();
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration(TEAM_DATABASE_SETTING)) return;
    apply();
    changed();
  });
}
