import type { AttentionItem, DashboardProject } from '../shared/projectTypes';
import { ATTENTION_WORDS } from './projectWords';

/** A notification of a new row in what waits on a person: the server's push and the open page's alike. */
export function attentionNotice(
  project: Pick<DashboardProject, 'key' | 'name'>,
  item: AttentionItem,
): { title: string; body: string; tag: string } {
  return {
    title: `LoopX · ${ATTENTION_WORDS[item.kind]}`,
    body: `${project.name}: ${item.title}`,
    tag: `${project.key}:${item.kind}:${item.id}`,
  };
}

/**
 * Which rows of what waits on a person are new since the last look, per project: the first look at a project only
 * learns what is there (a dashboard started on a busy morning does not ring twenty times).
 */
export class NewAttention {
  private readonly seen = new Map<string, Set<string>>();

  take(project: DashboardProject): AttentionItem[] {
    const ids = new Set(project.attention.map((a) => `${a.kind}:${a.id}`));
    const before = this.seen.get(project.key);
    this.seen.set(project.key, ids);
    if (!before) return [];
    return project.attention.filter((a) => !before.has(`${a.kind}:${a.id}`));
  }
}
