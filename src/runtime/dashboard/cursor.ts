/**
 * The event stream's id: each project's newest event, as `key.seq` pairs joined by `~` (no secret, no path). A browser
 * that reconnects sends the last one it saw (Last-Event-ID), and is sent only the projects that moved since.
 */
export function encodeCursor(projects: readonly { key: string; seq: number }[]): string {
  return projects
    .map((p) => `${p.key}.${p.seq}`)
    .sort()
    .join('~');
}

/** The cursor a browser sent back; null when it sent none or something that is not one (the whole state is sent). */
export function decodeCursor(text: string): Map<string, number> | null {
  if (!/^[0-9a-f]{12}\.\d{1,15}(~[0-9a-f]{12}\.\d{1,15})*$/.test(text)) return null;
  return new Map(
    text.split('~').map((pair) => {
      const [key, seq] = pair.split('.') as [string, string];
      return [key, Number(seq)];
    }),
  );
}
