import type { AttentionItem } from '../../shared/projectTypes';

/** The extension's id, the authority of its links (package.json publisher.name). */
export const EXTENSION_ID = 'loopx.loopx';

/** The decisions VS Code shows a modal for, by attention kind: what a decide link may ask the editor to open. */
export const LINKED_KINDS = ['gate', 'land', 'check', 'blocked', 'paused'] as const;
export type LinkedKind = (typeof LINKED_KINDS)[number];

/** A store's ids as the kernel makes them (Q1, T12, G3, M4): all a link's id may be. */
const ID = /^[A-Z]{1,3}\d{1,9}$/;

/**
 * `vscode://loopx.loopx/decide?root=…&kind=gate&id=Q1`: opens the project in the editor (a new window when it is not
 * open) and shows that decision's usual modal. It decides nothing itself: the person answers the modal.
 */
export function decideLink(scheme: string | null, root: string, item: Pick<AttentionItem, 'kind' | 'id'>): string | null {
  if (!scheme || !(LINKED_KINDS as readonly string[]).includes(item.kind)) return null;
  const query = new URLSearchParams({ root, kind: item.kind, id: item.id });
  return `${scheme}://${EXTENSION_ID}/decide?${query.toString()}`;
}

export interface DecideRequest {
  root: string;
  kind: LinkedKind;
  id: string;
}

/** A link the editor was handed, checked field by field; null for anything else (links come from anywhere). */
export function parseDecideLink(path: string, query: string): DecideRequest | null {
  if (path !== '/decide') return null;
  const params = new URLSearchParams(query);
  const root = params.get('root') ?? '';
  const kind = params.get('kind') ?? '';
  const id = params.get('id') ?? '';
  if (!root.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(root)) return null;
  if (!(LINKED_KINDS as readonly string[]).includes(kind) || !ID.test(id)) return null;
  return { root, kind: kind as LinkedKind, id };
}
