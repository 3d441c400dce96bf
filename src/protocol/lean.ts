/**
 * Lean JSON for output that grows with the store (`todo list`, `goal show`, `todo show`): a field that is unset
 * (null) or empty ('' or []) is left out, and a field that is set has the same key and value as before. Readers
 * take an absent field as unset or empty. Shallow: nested objects are the caller's to make lean.
 */
export type Lean<T> = { [K in keyof T]?: T[K] };

export function lean<T extends object>(value: T): Lean<T> {
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const v: unknown = value[key];
    if (v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    out[key] = v;
  }
  return out as Lean<T>;
}
