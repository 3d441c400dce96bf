import { InvalidInputError } from '../errors';
import { requireText } from '../validate';
import { TEXT_LIMITS } from '../../shared/textLimits';

/**
 * Patterns of monitor checks a person lets agents set for a goal without asking again: the command must match a
 * pattern as a whole, `*` standing for any run of characters except those that make a shell do more than run one
 * program with arguments (`; & | < > $ \` \ ( ) { }` and line breaks). So `gh run view *` lets an agent watch any
 * CI run, and never `gh run view 1; curl … | sh`. What the program itself may do with any arguments is the
 * person's judgement when they allow the pattern.
 */
const WILDCARD = '[^;&|<>$`\\\\(){}\\n\\r]*';
export const MAX_PATTERNS = 50;

export function checkMatches(pattern: string, command: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join(WILDCARD);
  return new RegExp(`^${source}$`).test(command);
}

/** The first of the goal's patterns the command matches, or null. */
export function matchingPattern(patterns: readonly string[], command: string): string | null {
  return patterns.find((p) => checkMatches(p, command)) ?? null;
}

export function parsePatterns(values: readonly string[]): string[] {
  if (values.length > MAX_PATTERNS) throw new InvalidInputError(`at most ${MAX_PATTERNS} patterns`);
  const patterns = values.map((v) => requireText(v, 'pattern', { max: TEXT_LIMITS.short }).trim());
  for (const p of patterns) {
    if (/^[*\s]*$/.test(p))
      throw new InvalidInputError(`the pattern ${JSON.stringify(p)} would allow any command`, 'name the program, e.g. "gh run view *"');
  }
  return [...new Set(patterns)];
}
