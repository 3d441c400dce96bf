/**
 * Markdown code spans in text from the store (`npm test` in a question, a note, an evidence summary) as people read
 * them where Markdown is not rendered (notifications, tree rows, the review page and packet): in quotes, “npm test”.
 * Plain data in, no imports: the board bundles this file for the browser. Agents read the stored text as it is.
 */
export function quoteCodeSpans(text: string): string {
  return text.replace(/`([^`\n]+)`/g, '“$1”');
}
