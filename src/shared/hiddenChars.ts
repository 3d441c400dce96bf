/**
 * Characters that make text read differently from what it says: bidirectional overrides and isolates, zero-width
 * and other invisible characters, line and paragraph separators. Refused at input (kernel/validate.ts) and shown as
 * `<U+202E>` wherever text already stored is displayed. One home for the list, below every layer: the kernel, the
 * protocol (and so the webview), the CLI and the extension import it; it imports nothing.
 */
export const DECEPTIVE_CHARS = '\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff';
const DECEPTIVE = new RegExp(`[${DECEPTIVE_CHARS}]`, 'g');

/** "U+202E" */
export function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Makes deceptive characters visible (`<U+202E>`) in text read back from the store; leaves everything else. */
export function revealHidden(text: string): string {
  return text.replace(DECEPTIVE, (c) => `<${codePoint(c)}>`);
}
