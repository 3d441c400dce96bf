import { InvalidInputError } from './errors';
import { DECEPTIVE_CHARS, codePoint } from '../shared/hiddenChars';
import { TEXT_LIMITS } from '../shared/textLimits';

/** Input checks shared by every adapter. Each throws InvalidInputError (exit 2) with a message that names the field. */

// C0 controls other than tab/newline, DEL and C1 controls (terminal escapes), and the bidirectional and invisible
// characters that make a title or a question read differently from what it says (shown to the approver).
const CONTROL_CHARS = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f';
const HOSTILE_CHARS = new RegExp(`[${CONTROL_CHARS}${DECEPTIVE_CHARS}]`);

/** Names the first hostile character of a text, or null when it has none. */
export function hostileChar(value: string): string | null {
  const match = HOSTILE_CHARS.exec(value);
  if (!match) return null;
  const char = match[0];
  const kind = new RegExp(`[${DECEPTIVE_CHARS}]`).test(char) ? 'a bidirectional or invisible character' : 'a control character';
  return `${codePoint(char)} (${kind}, at position ${match.index + 1})`;
}

export function requireText(value: string | undefined, field: string, options: { max?: number; multiline?: boolean } = {}): string {
  const max = options.max ?? TEXT_LIMITS.title;
  if (value === undefined) throw new InvalidInputError(`${field} is required`);
  const trimmed = value.trim();
  if (trimmed.length === 0) throw new InvalidInputError(`${field} must not be empty`);
  return checkText(trimmed, field, max, options.multiline ?? false);
}

export function optionalText(value: string | undefined, field: string, options: { max?: number; multiline?: boolean } = {}): string {
  if (value === undefined) return '';
  return checkText(value.trim(), field, options.max ?? TEXT_LIMITS.text, options.multiline ?? true);
}

function checkText(value: string, field: string, max: number, multiline: boolean): string {
  if (value.length > max) throw new InvalidInputError(`${field} is ${value.length} characters; the limit is ${max}`);
  const hostile = hostileChar(value);
  if (hostile) {
    throw new InvalidInputError(
      `${field} contains ${hostile}`,
      'remove it: such characters can make text read differently from what it says',
    );
  }
  if (!multiline && /[\n\t]/.test(value)) throw new InvalidInputError(`${field} must be a single line`);
  return value;
}

const ID_PREFIX = { goal: 'G', todo: 'T', gate: 'Q', handoff: 'H', turn: 'R', monitor: 'M', hook: 'N' } as const;
export type EntityName = keyof typeof ID_PREFIX;

/** Normalises an id (`t12` → `T12`); a malformed id is invalid input, a well-formed unknown one is "not found". */
export function parseId(entity: EntityName, value: string | undefined): string {
  const prefix = ID_PREFIX[entity];
  if (value === undefined || value.trim() === '') throw new InvalidInputError(`a ${entity} id is required`);
  const match = new RegExp(`^${prefix}([1-9][0-9]{0,9})$`, 'i').exec(value.trim());
  if (!match) throw new InvalidInputError(`${JSON.stringify(value)} is not a ${entity} id (expected ${prefix}1, ${prefix}2, …)`);
  return `${prefix}${match[1]}`;
}

export function formatId(entity: EntityName, num: number): string {
  return `${ID_PREFIX[entity]}${num}`;
}

const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;

export function isAgentName(value: string): boolean {
  return AGENT_NAME.test(value);
}

export function parseAgentName(value: string, source = 'agent name'): string {
  if (!AGENT_NAME.test(value)) {
    throw new InvalidInputError(
      `${source} ${JSON.stringify(value)} is not valid`,
      'use 1-64 letters, digits, ".", "_", "@", "+" or "-", starting with a letter or digit',
    );
  }
  return value;
}

export function parsePriority(value: number | undefined): number {
  if (value === undefined) return 2;
  if (!Number.isInteger(value) || value < 0 || value > 3) throw new InvalidInputError('priority must be 0 (highest), 1, 2 or 3');
  return value;
}

export function parseTurnId(value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw new InvalidInputError('a turn id is required');
  const id = value.trim();
  if (id.length > 128 || HOSTILE_CHARS.test(id) || /\s/.test(id)) {
    throw new InvalidInputError('turn id must be 1-128 characters without spaces, control or invisible characters');
  }
  // Like every other id, a turn id is case-insensitive: "R7" and "r7" are one turn (spends compare without case).
  return /^r[1-9][0-9]{0,9}$/i.test(id) ? id.toUpperCase() : id;
}
