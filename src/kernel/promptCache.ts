import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { humanKeyDir } from './humanKey';
import { HOST_ID, builtInHost } from '../shared/hostCatalog';

/** The person's hosts file, in their loopx config folder (runtime/personHosts.ts reads its hosts). */
export const HOSTS_FILE = 'hosts.json';

const MAX_MINUTES = 24 * 60;

/**
 * How long each host's prompt cache keeps a prefix, for cache-aware waking (backoff.ts): the host's published figure
 * (shared/hostCatalog.ts `promptCache`), or a person's own in the `promptCache` section of hosts.json in their loopx
 * config folder (runtime/personHosts.ts reads the rest of that file), e.g. Anthropic's 1-hour cache, or a window for
 * a custom host or one of their own:
 *
 *   { "hosts": {}, "promptCache": { "claude": { "windowMinutes": 60 }, "aider": { "windowMinutes": 5 } } }
 *
 * `windowMinutes: 0` says the host caches nothing loopx should wait for.
 *
 * The section's one check (runtime/personHosts.ts refuses a file that fails it, in these words): each host's window
 * in minutes, from 0 to a day. Hand-written, not zod: this file is in every agent verb's bundle (backoff.ts).
 * Returns the windows by host, or what is wrong.
 */
export function checkPromptCacheSection(section: unknown): Record<string, number> | string {
  if (typeof section !== 'object' || section === null || Array.isArray(section))
    return 'promptCache maps host names to { "windowMinutes": N }';
  const windows: Record<string, number> = {};
  for (const [host, entry] of Object.entries(section)) {
    if (!HOST_ID.test(host))
      return `promptCache.${host}: a host name is lowercase letters, digits and hyphens, starting with a letter (at most 32)`;
    const keys = entry && typeof entry === 'object' ? Object.keys(entry) : [];
    const minutes = (entry as { windowMinutes?: unknown } | null)?.windowMinutes;
    if (keys.length !== 1 || typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes < 0 || minutes > MAX_MINUTES)
      return `promptCache.${host}: write it as { "windowMinutes": N }, N from 0 (no cache) to ${MAX_MINUTES}`;
    windows[host] = minutes;
  }
  return windows;
}

/**
 * The window (seconds) each host's prompt cache keeps a prefix, or null when none is known for it: a lookup that reads
 * the person's hosts.json once, when first asked (a caller timing several retries asks it for each).
 */
export function promptCacheWindows(env: NodeJS.ProcessEnv = process.env): (host: string) => number | null {
  let own: Record<string, number> | undefined;
  return (host) => {
    own ??= personsWindows(env);
    const mine = own[host];
    if (mine !== undefined) return mine > 0 ? mine * 60 : null;
    return builtInHost(host)?.promptCache?.windowSeconds ?? null;
  };
}

/** The smallest prompt a host's provider caches (tokens); 1,024 when the host names none. */
export function promptCacheMinTokens(host: string): number {
  return builtInHost(host)?.promptCache?.minTokens ?? 1024;
}

/**
 * The person's windows, by host. Read only when a retry is being timed (rare), once per lookup, never kept longer:
 * the file may change.
 * A file that is missing, unreadable or not of this shape sets no window (doctor names what is wrong with it).
 */
function personsWindows(env: NodeJS.ProcessEnv): Record<string, number> {
  try {
    const json = JSON.parse(readFileSync(join(humanKeyDir({ env }), HOSTS_FILE), 'utf8')) as { promptCache?: unknown };
    const windows = checkPromptCacheSection(json.promptCache ?? {});
    return typeof windows === 'string' ? {} : windows;
  } catch {
    return {};
  }
}
