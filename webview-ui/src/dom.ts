/** A tiny element builder. Text always goes in through textContent: nothing from the store is parsed as HTML. */
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
    else if (key === 'text') el.textContent = String(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

export function icon(name: string, label?: string): HTMLElement {
  return h('span', { class: `codicon codicon-${name}`, 'aria-hidden': label ? undefined : 'true', title: label, role: label ? 'img' : undefined, 'aria-label': label });
}

/** "12m", "1h 5m", "lapsed": a lease countdown (or a check's: "due" once its time came). */
export function countdown(isoTime: string, nowMs: number, past = 'lapsed'): string {
  const seconds = Math.round((Date.parse(isoTime) - nowMs) / 1000);
  if (seconds <= 0) return past;
  if (seconds < 90) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 90 ? `${minutes}m` : `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
