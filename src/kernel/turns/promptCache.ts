import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { humanKeyDir } from '../humanKey';
import { builtInHost } from '../../shared/hostCatalog';

/**
 * How long each host's prompt cache keeps a prefix, for cache-aware waking (backoff.ts): the host's published figure
 * (shared/hostCatalog.ts `promptCache`), or a person's own in the `promptCache` section of hosts.json in their loopx
 * config folder (runtime/personHosts.ts reads the rest of that file), e.g. Anthropic's 1-hour cache, or a window for
 * a custom host or one of their own:
 *
 *   { "hosts": {}, "promptCache": { "claude": { "windowMinutes": 60 }, "aider": { "windowMinutes": 5 } } }
 *
 * `windowMinutes: 0` says the host caches nothing loopx should wait for.
 */
/** The person's hosts file, in their loopx config folder (runtime/personHosts.ts reads its hosts). */
export const HOSTS_FILE = 'hosts.json';

export const PROMPT_CACHE_SECTION = z.record(
  z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'a host name is lowercase letters, digits and hyphens, starting with a letter (at most 32)'),
  z
    .object({
      windowMinutes: z
        .number()
        .min(0)
        .max(24 * 60),
    })
    .strict(),
);

/** The window (seconds) a host's prompt cache keeps a prefix, or null when none is known for it. */
export function promptCacheWindow(host: string, env: NodeJS.ProcessEnv = process.env): number | null {
  const own = personsWindows(env)[host];
  if (own !== undefined) return own > 0 ? own * 60 : null;
  return builtInHost(host)?.promptCache?.windowSeconds ?? null;
}

/** The smallest prompt a host's provider caches (tokens); 1,024 when the host names none. */
export function promptCacheMinTokens(host: string): number {
  return builtInHost(host)?.promptCache?.minTokens ?? 1024;
}

/**
 * The person's windows, by host. Read only when a retry is being timed (rare), never cached: the file may change.
 * A file that is missing, unreadable or not of this shape sets no window (doctor names what is wrong with it).
 */
function personsWindows(env: NodeJS.ProcessEnv): Record<string, number> {
  try {
    const json = JSON.parse(readFileSync(join(humanKeyDir({ env }), HOSTS_FILE), 'utf8')) as { promptCache?: unknown };
    const parsed = PROMPT_CACHE_SECTION.safeParse(json.promptCache ?? {});
    return parsed.success ? Object.fromEntries(Object.entries(parsed.data).map(([id, c]) => [id, c.windowMinutes])) : {};
  } catch {
    return {};
  }
}
