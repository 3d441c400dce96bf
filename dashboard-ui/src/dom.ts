import { revealHidden } from '../../src/protocol/display';

/**
 * A tiny element builder, as the board's (webview-ui/src/dom.ts): text always goes in through textContent, so nothing
 * from a store is parsed as HTML, and bidirectional or invisible characters show as <U+202E>.
 */
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, string | number | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (key === 'class') el.className = String(value);
    else if (key === 'text') el.textContent = revealHidden(String(value));
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) if (child) el.append(typeof child === 'string' ? revealHidden(child) : child);
  return el;
}
