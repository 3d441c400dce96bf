import { closeSync, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { EXIT, InvalidInputError, LoopxError, NotFoundError } from '../kernel/errors';
import type { GoalSpec } from '../kernel/goals/goalSpec/spec';
import { type GoalFileDiagnostic, formatDiagnostic } from './diagnostics';
import { MAX_GOAL_FILE_BYTES, parseGoalFile } from './parse';

/** A goal file with errors: exit 2, each problem with its line and column (in `data.diagnostics`, one-based too). */
export class GoalFileError extends LoopxError {
  constructor(path: string, diagnostics: GoalFileDiagnostic[]) {
    const errors = diagnostics.filter((d) => d.severity === 'error');
    const lines = errors.slice(0, 20).map((d) => formatDiagnostic(path, d));
    const more = errors.length > 20 ? `\n… and ${errors.length - 20} more` : '';
    super(
      'invalid_goal_file',
      `${path} has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${lines.join('\n')}${more}`,
      EXIT.invalidInput,
      'fix the file and apply again; the store was not changed',
      { path, diagnostics: diagnostics.map(oneBased) },
    );
  }
}

function oneBased(d: GoalFileDiagnostic) {
  return { ...d, line: d.range.start.line + 1, column: d.range.start.character + 1 };
}

/** The workspace-relative posix path of a file that must lie inside the workspace. */
export function workspaceRelative(root: string, file: string, options: { mustExist: boolean }): string {
  const realRoot = realpathSync(root);
  let absolute = resolve(file);
  if (options.mustExist) {
    try {
      absolute = realpathSync(absolute);
    } catch {
      throw new NotFoundError('goal file', file, 'give the path of a *.goal.md file');
    }
  }
  const rel = relative(realRoot, absolute);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new InvalidInputError(`${file} is outside the workspace`, `goal files live under ${realRoot}`);
  }
  const posix = sep === '/' ? rel : rel.split(sep).join('/');
  if (posix === '.loopx' || posix.startsWith('.loopx/')) throw new InvalidInputError('a goal file does not live inside .loopx/');
  return posix;
}

/** Reads a goal file (refusing anything over the size limit before reading it) and returns its spec or throws. */
export function readGoalFile(absolutePath: string, shownPath: string): { spec: GoalSpec; warnings: GoalFileDiagnostic[] } {
  let fd: number;
  try {
    fd = openSync(absolutePath, 'r');
  } catch (error) {
    throw environmentError(error, shownPath);
  }
  let text: string;
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_GOAL_FILE_BYTES) {
      throw new GoalFileError(shownPath, [
        {
          severity: 'error',
          code: 'too_large',
          message: `the file is ${(size / 1048576).toFixed(1)} MB; a goal file may be at most 1 MB`,
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        },
      ]);
    }
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    text = buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
  return goalSpecFromText(text, shownPath);
}

/** A goal file's text (read from disk, or an editor's document as it is shown) as a spec, or throws its errors. */
export function goalSpecFromText(text: string, shownPath: string): { spec: GoalSpec; warnings: GoalFileDiagnostic[] } {
  const parsed = parseGoalFile(text);
  if (!parsed.spec) throw new GoalFileError(shownPath, parsed.diagnostics);
  return { spec: parsed.spec, warnings: parsed.diagnostics.filter((d) => d.severity !== 'error') };
}

function environmentError(error: unknown, path: string): LoopxError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new NotFoundError('goal file', path, 'give the path of a *.goal.md file');
  if (code === 'EACCES' || code === 'EPERM')
    return new InvalidInputError(`cannot read ${path}: permission denied`, "check the file's permissions");
  if (code === 'EISDIR') return new InvalidInputError(`${path} is a directory, not a goal file`);
  return new InvalidInputError(`cannot read ${path}: ${(error as Error).message}`);
}
