import type { Row } from './db/sqliteDb';

/**
 * Strict, allocation-light readers for rows at the store boundary. A row that does not have the shape the code
 * expects (a hand-edited store, a schema drift) fails loudly here instead of leaking wrong types outward.
 * Chosen over zod for rows because building zod schemas costs milliseconds on every CLI start.
 */
export class RowShapeError extends Error {
  constructor(table: string, column: string, value: unknown, expected: string) {
    super(`store row in ${table} has ${column} = ${JSON.stringify(value)}; expected ${expected}`);
  }
}

export function rowReader(table: string, row: Row) {
  const fail = (column: string, expected: string): never => {
    throw new RowShapeError(table, column, row[column], expected);
  };
  return {
    text(column: string): string {
      const v = row[column];
      return typeof v === 'string' ? v : fail(column, 'text');
    },
    maybeText(column: string): string | null {
      const v = row[column];
      return v === null || v === undefined ? null : typeof v === 'string' ? v : fail(column, 'text or null');
    },
    int(column: string): number {
      const v = typeof row[column] === 'bigint' ? Number(row[column]) : row[column];
      return typeof v === 'number' && Number.isInteger(v) ? v : fail(column, 'an integer');
    },
    num(column: string): number {
      const v = row[column];
      return typeof v === 'number' && Number.isFinite(v) ? v : fail(column, 'a number');
    },
    oneOf<T extends string>(column: string, allowed: readonly T[]): T {
      const v = row[column];
      return allowed.includes(v as T) ? (v as T) : fail(column, allowed.join(' | '));
    },
    /** A JSON array of strings stored as text. */
    stringList(column: string): string[] {
      const v = row[column];
      if (typeof v === 'string') {
        try {
          const parsed: unknown = JSON.parse(v);
          if (Array.isArray(parsed) && parsed.every((x) => typeof x === 'string')) return parsed;
        } catch {
          /* reported below */
        }
      }
      return fail(column, 'a JSON array of strings');
    },
    /** A comma-joined list (group_concat) or null. */
    csv(column: string): string[] {
      const v = this.maybeText(column);
      return v ? v.split(',') : [];
    },
  };
}
