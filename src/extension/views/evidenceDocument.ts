import type { Evidence } from '../../kernel/evidence/evidenceQueries';
import { escapeMarkdown } from '../../kernel/readModels/todoCard';
import { clean, clockTime, oneLine, relativeTime } from '../../protocol/display';
import { runTook } from '../../shared/timeWords';

/** What the evidence is about, for its title: "T2", or "goal G1". */
export function evidenceSubject(e: Pick<Evidence, 'todoId' | 'goalId'>): string {
  return e.todoId ?? `goal ${e.goalId}`;
}

/** The document's title (its file name): what it is about and what it says, never the event number. */
export function evidenceTitle(e: Pick<Evidence, 'todoId' | 'goalId' | 'summary'>): string {
  return `${evidenceSubject(e)} evidence · ${oneLine(e.summary, 40).replace(/[\\/]/g, '-')}`;
}

/**
 * One evidence entry as a person reads it (rendered as a Markdown preview): what was done, by whom and when in the
 * reader's words and clock; what loopx ran itself apart from what someone says; the files. Hashes and the event
 * number are for checking, so they come last and short.
 */
export function renderEvidence(e: Evidence, hash: string, nowMs: number): string {
  const who =
    e.actorKind === 'human' ? `${clean(e.actor)} (a person)` : e.actorKind === 'kernel' ? 'loopx' : `${clean(e.actor)} (an agent)`;
  const sort = e.kind && e.kind !== 'note' ? `${clean(e.kind).replace(/[_-]+/g, ' ')} evidence` : 'Evidence';
  const lines = [
    `# ${escapeMarkdown(evidenceSubject(e))}: ${escapeMarkdown(oneLine(e.summary, 120))}`,
    '',
    `${sort[0]?.toUpperCase()}${sort.slice(1)} added by ${escapeMarkdown(who)}, ${clockTime(e.at, nowMs)} (${relativeTime(e.at, nowMs)}).`,
    '',
  ];
  if (e.run) {
    const took = runTook(e.run.durationMs);
    lines.push(
      '## What loopx ran itself',
      '',
      `loopx ran this command and recorded what it saw (not anyone's word): ${e.run.error ? escapeMarkdown(e.run.error) : `exit code ${e.run.exitCode}`} in ${took}.`,
      '',
      '```',
      clean(e.run.command),
      '```',
      '',
    );
    if (e.run.outputTail?.trim()) lines.push('The end of its output:', '', '```', clean(e.run.outputTail).trimEnd(), '```', '');
  }
  lines.push('## What was done', '', escapeMarkdown(clean(e.summary)), '');
  lines.push('## Files', '');
  if (e.artifacts.length)
    for (const a of e.artifacts) lines.push(`- ${escapeMarkdown(clean(a.path))} (${a.bytes.toLocaleString('en-US')} bytes)`);
  else lines.push('None attached.');
  lines.push(
    '',
    '---',
    '',
    `<small>Kept in the store's tamper-evident log as event ${e.seq} (SHA-256 ${hash.slice(0, 12)}…)` +
      (e.artifacts.length
        ? `; each file was fingerprinted when it was added (${e.artifacts.map((a) => `${escapeMarkdown(a.path)} ${a.sha256.slice(0, 12)}…`).join(', ')}).`
        : '.') +
      '</small>',
    '',
  );
  return lines.join('\n');
}
