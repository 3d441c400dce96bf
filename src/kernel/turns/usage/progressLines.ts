/** What a host's structured output says, as lines people read (hostStream.ts makes them; terminals show them). */
export type ProgressKind = 'start' | 'say' | 'think' | 'run' | 'loopx' | 'answer' | 'edit' | 'tool' | 'error' | 'end' | 'raw';

export interface ProgressLine {
  kind: ProgressKind;
  text: string;
  /** For answers and ends: did it go well? */
  ok?: boolean;
}

const MARKS: Record<ProgressKind, string> = {
  start: '●',
  say: '›',
  think: '…',
  run: '$',
  loopx: '⇄',
  answer: ' ',
  edit: '✎',
  tool: '·',
  error: '✗',
  end: '■',
  raw: '',
};

/** ANSI colours, used only when the terminal takes them (the caller decides: NO_COLOR, a pipe). */
const COLOURS: Partial<Record<ProgressKind, string>> = { start: '2', think: '2', loopx: '1;36', error: '31', end: '1' };

/** One progress line as the terminal shows it. */
export function renderProgress(line: ProgressLine, color: boolean): string {
  if (line.kind === 'raw') return line.text;
  const mark = line.kind === 'answer' ? (line.ok ? '  ✓' : '  ✗') : MARKS[line.kind];
  const text = `${mark} ${line.text}`;
  const colour = line.kind === 'answer' ? (line.ok ? '32' : '31') : line.kind === 'end' && line.ok === false ? '1;31' : COLOURS[line.kind];
  return color && colour ? `\u001b[${colour}m${text}\u001b[0m` : text;
}
