import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where an exported review page is offered first: the person's Downloads folder (else their home), never the
 * workspace, where an untracked file would appear that nobody asked for. The save dialog lets them pick any place.
 */
export function exportTarget(fileName: string, home = homedir(), exists: (path: string) => boolean = existsSync): string {
  const downloads = join(home, 'Downloads');
  return join(exists(downloads) ? downloads : home, fileName);
}
