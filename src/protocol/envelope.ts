/** The CLI's JSON contract: with --json, stdout is exactly one of these objects. */
export interface ErrorBody {
  code: string;
  message: string;
  hint: string | null;
}

/**
 * `more`: a list answer (`todo list`) that left items out says how many; absent when nothing was left out.
 */
export type Envelope<T = unknown> = { ok: true; data: T; more?: number } | { ok: false; error: ErrorBody; data?: unknown };

/** Exit codes agents branch on. */
export const EXIT = {
  ok: 0,
  internal: 1,
  invalidInput: 2,
  refused: 3,
  notFound: 4,
  noStore: 5,
  /** The store or its disk cannot be used as it is: not a loopx store, damaged, read-only, disk full. */
  storeUnusable: 6,
} as const;

export function success<T>(data: T, more?: number): Envelope<T> {
  return more ? { ok: true, data, more } : { ok: true, data };
}

export function failure(error: ErrorBody, data?: unknown): Envelope<never> {
  return data === undefined ? { ok: false, error } : { ok: false, error, data };
}
