/** SQLite's primary result codes, as better-sqlite3 names them and node:sqlite numbers them. */
const SQLITE_CODES: Record<number, string> = {
  3: 'SQLITE_PERM',
  5: 'SQLITE_BUSY',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  26: 'SQLITE_NOTADB',
};

/** The SQLite result code of a driver error (either driver), such as SQLITE_NOTADB. */
export function sqliteCode(error: { code?: unknown; errcode?: unknown }): string | undefined {
  if (typeof error.errcode === 'number') return SQLITE_CODES[error.errcode & 0xff];
  return typeof error.code === 'string' ? error.code : undefined;
}

/** True for a driver error that says another connection holds the lock (SQLITE_BUSY and its extended codes). */
export function isSqliteBusy(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = sqliteCode(error as { code?: unknown; errcode?: unknown }) ?? '';
  return /^SQLITE_BUSY/.test(code) || /^database is locked\b/.test((error as Error).message ?? '');
}
