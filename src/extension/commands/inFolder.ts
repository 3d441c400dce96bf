/**
 * Command arguments that name their workspace folder: in a multi-root workspace "Q3" or "T12" alone is ambiguous,
 * so buttons and the board pass `inFolder(root, 'Q3')` and the command registry unwraps it.
 */
export interface InFolder {
  loopxFolder: string;
  args: unknown[];
}

export function inFolder(root: string, ...args: unknown[]): InFolder {
  return { loopxFolder: root, args };
}

export function isInFolder(arg: unknown): arg is InFolder {
  return (
    typeof arg === 'object' && arg !== null && typeof (arg as InFolder).loopxFolder === 'string' && Array.isArray((arg as InFolder).args)
  );
}
