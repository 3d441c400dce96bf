import { readFileSync } from 'node:fs';

/**
 * A person's own JSON settings file (a host's global config) as an object, for the few keys a turn carries over; null
 * when it is missing, unreadable or not a JSON object. Only read: loopx never writes the person's files.
 */
export function readJsonObject(path: string): Record<string, unknown> | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
