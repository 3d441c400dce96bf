/** Positions are zero-based lines and UTF-16 characters, as LSP counts them; people see them one-based. */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export type Severity = 'error' | 'warning' | 'information';

export interface GoalFileDiagnostic {
  severity: Severity;
  range: Range;
  message: string;
  /** Stable code for tools and quick fixes (tooltips, JSON); never shown as the message. */
  code: string;
  /** A replacement a quick fix may offer (did-you-mean). */
  suggestion?: string;
}

/** `file:line:column: message`, the form compilers use, which editors and terminals turn into links. */
export function formatDiagnostic(file: string, d: GoalFileDiagnostic): string {
  return `${file}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.severity}: ${d.message}`;
}

/** The closest candidate within a small edit distance, for "did you mean …?". */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}
