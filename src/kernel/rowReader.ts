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

/** Methods live on the prototype: reading thousands of rows allocates one small object per row, no closures. */
class RowReader {
  constructor(
    private readonly table: string,
    private readonly row: Row,
  ) {}

  private fail(column: string, expected: string): never {
    throw new RowShapeError(this.table, column, this.row[column], expected);
  }

  text(column: string): string {
    const v = this.row[column];
    return typeof v === 'string' ? v : this.fail(column, 'text');
  }

  maybeText(column: string): string | null {
    const v = this.row[column];
    return v === null || v === undefined ? null : typeof v === 'string' ? v : this.fail(column, 'text or null');
  }

  int(column: string): number {
    const raw = this.row[column];
    const v = typeof raw === 'bigint' ? Number(raw) : raw;
    return typeof v === 'number' && Number.isInteger(v) ? v : this.fail(column, 'an integer');
  }

  maybeInt(column: string): number | null {
    const v = this.row[column];
    return v === null || v === undefined ? null : this.int(column);
  }

  num(column: string): number {
    const v = this.row[column];
    return typeof v === 'number' && Number.isFinite(v) ? v : this.fail(column, 'a number');
  }

  oneOf<T extends string>(column: string, allowed: readonly T[]): T {
    const v = this.row[column];
    return allowed.includes(v as T) ? (v as T) : this.fail(column, allowed.join(' | '));
  }

  /** A JSON array of strings stored as text. */
  stringList(column: string): string[] {
    const v = this.row[column];
    if (typeof v === 'string') {
      try {
        const parsed: unknown = JSON.parse(v);
        if (Array.isArray(parsed) && parsed.every((x) => typeof x === 'string')) return parsed;
      } catch {
        /* reported below */
      }
    }
    return this.fail(column, 'a JSON array of strings');
  }

  /** A JSON object stored as text, or null. */
  maybeJson<T extends object>(column: string): T | null {
    const v = this.maybeText(column);
    if (v === null) return null;
    try {
      const parsed: unknown = JSON.parse(v);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as T;
    } catch {
      /* reported below */
    }
    return this.fail(column, 'a JSON object or null');
  }

  /** A comma-joined list, empty or null for none. */
  csv(column: string): string[] {
    const v = this.maybeText(column);
    return v ? v.split(',') : [];
  }
}

export function rowReader(table: string, row: Row): RowReader {
  return new RowReader(table, row);
}
