import type { ErrorBody } from './errors';

/** The CLI's JSON contract: with --json, stdout is exactly one of these objects. */
export type Envelope<T = unknown> = { ok: true; data: T } | { ok: false; error: ErrorBody; data?: unknown };

export function success<T>(data: T): Envelope<T> {
  return { ok: true, data };
}

export function failure(error: ErrorBody, data?: unknown): Envelope<never> {
  return data === undefined ? { ok: false, error } : { ok: false, error, data };
}
