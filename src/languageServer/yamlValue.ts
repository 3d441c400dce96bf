import { stringify } from 'yaml';
import { formatDuration } from '../kernel/time';
import type { PathSegment } from '../goalFile/parse';

/** A store value as the YAML text a goal file holds for that field (durations as 24h, lists in flow style). */
export function formatFieldValue(path: readonly PathSegment[], value: unknown): string {
  const field = path[path.length - 1];
  if (field === 'window' && typeof value === 'number') return formatDuration(value * 3600);
  if (field === 'cooldown' && typeof value === 'number') return value === 0 ? '0' : formatDuration(value);
  if (Array.isArray(value)) return `[${value.map((v) => scalar(v)).join(', ')}]`;
  return scalar(value);
}

/** Plain when that stays one unambiguous line, else double-quoted (JSON is valid YAML): safe to drop in place. */
function scalar(value: unknown): string {
  if (typeof value === 'string' && !/^[A-Za-z0-9][\w .,()/-]*$/.test(value)) return JSON.stringify(value);
  return stringify(value, { lineWidth: 0 }).trimEnd();
}
