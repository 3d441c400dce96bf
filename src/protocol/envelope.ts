import type { ErrorBody } from './errors';

/**
 * The CLI's JSON contract: with --json, stdout is exactly one of these objects. `more`: a list answer (`todo list`)
 * that left items out says how many; absent when nothing was left out.
 */
export type Envelope<T = unknown> = { ok: true; data: T; more?: number } | { ok: false; error: ErrorBody; data?: unknown };

export function success<T>(data: T, more?: number): Envelope<T> {
  return more ? { ok: true, data, more } : { ok: true, data };
}

export function failure(error: ErrorBody, data?: unknown): Envelope<never> {
  return data === undefined ? { ok: false, error } : { ok: false, error, data };
}
