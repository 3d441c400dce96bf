import { boardTime, boardTimeTitle } from '../../src/protocol/boardText';
import { revealHidden } from '../../src/protocol/display';

/**
 * A tiny element builder. Text always goes in through textContent: nothing from the store is parsed as HTML, and
 * bidirectional or invisible characters are shown as <U+202E> so a question reads as what it says.
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

export function icon(name: string, label?: string): HTMLElement {
  return h('span', {
    class: `codicon codicon-${name}`,
    'aria-hidden': label ? undefined : 'true',
    title: label,
    role: label ? 'img' : undefined,
    'aria-label': label,
  });
}

/** A time as the board shows it everywhere: relative in text, the exact time in the tooltip (kept current by tickTimes). */
export function timeEl(isoTime: string, nowMs: number): HTMLElement {
  return h('time', { datetime: isoTime, title: boardTimeTitle(isoTime), text: boardTime(isoTime, nowMs) });
}

/** Brings every relative time under root up to date (called every second; only texts that changed are touched). */
export function tickTimes(root: HTMLElement, nowMs: number): void {
  for (const el of root.querySelectorAll<HTMLTimeElement>('time[datetime]')) {
    const text = boardTime(el.dateTime, nowMs);
    if (el.textContent !== text) el.textContent = text;
  }
}
