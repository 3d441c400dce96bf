import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '../kernel/errors';
import { humanKeyDir } from '../kernel/humanKey';
import { HOST_ID, HOST_IDS } from '../shared/hostCatalog';
import { HOSTS_FILE, checkPromptCacheSection } from '../kernel/promptCache';

/**
 * Hosts a person adds without code: `hosts.json` in their loopx config folder (beside the key that proves their
 * decisions, which no bounded agent may read or write), e.g.
 *
 *   { "hosts": { "aider": { "name": "Aider", "command": "aider --yes --message-file {prompt}" } } }
 *
 * Each is a command like a custom host's (the same placeholders, the prompt on stdin without {prompt}), offered by
 * `loopx run --host aider`, Run Turn and `loopx doctor`. loopx cannot bound what such a host's agent writes, and says
 * so as for a custom command; usage comes from its `loopx-usage:` line.
 */
export const PERSON_HOSTS_FILE = HOSTS_FILE;

/** Names the built-in hosts, the custom command and VS Code's sample agent already take. */
const TAKEN = new Set([...HOST_IDS, 'sample']);

const hostSchema = z
  .object({
    name: z.string().trim().min(1).max(60).optional(),
    command: z.string().trim().min(1).max(4000),
  })
  .strict();

const fileSchema = z
  .object({
    hosts: z.record(
      z
        .string()
        .regex(HOST_ID, 'a host name is lowercase letters, digits and hyphens, starting with a letter (at most 32)')
        .refine((id) => !TAKEN.has(id), 'that name is a built-in host'),
      hostSchema,
    ),
    /** Prompt-cache windows a person sets (kernel/turns/promptCache.ts reads them). */
    promptCache: z
      .unknown()
      .superRefine((section, ctx) => {
        const checked = section === undefined ? {} : checkPromptCacheSection(section);
        if (typeof checked === 'string') ctx.addIssue({ code: 'custom', message: checked });
      })
      .optional(),
  })
  .strict();

export interface PersonHost {
  id: string;
  name: string;
  command: string;
}

/** The file's path: in the config folder of the person's key (humanKey.ts). */
export function personHostsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(humanKeyDir({ env }), PERSON_HOSTS_FILE);
}

/**
 * The person's hosts, in the file's order; none when there is no file. A file that is not JSON or not of this shape
 * is refused in words naming the file and what is wrong (invalid_input), never taken in part.
 */
export function personHosts(env: NodeJS.ProcessEnv = process.env): PersonHost[] {
  const path = personHostsPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new InvalidInputError(`${path} cannot be read: ${(error as Error).message}`, 'check the file and its permissions');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`${path} is not JSON: ${(error as Error).message}`, FIX);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    // A bad name comes wrapped ("Invalid key in record"): its own words are inside.
    const inner =
      issue && 'issues' in issue && Array.isArray(issue.issues) ? (issue.issues[0] as { message?: string } | undefined) : undefined;
    throw new InvalidInputError(`${path}${where}: ${inner?.message ?? issue?.message ?? 'not a hosts file'}`, FIX);
  }
  return Object.entries(parsed.data.hosts).map(([id, h]) => ({ id, name: h.name ?? id, command: h.command }));
}

const FIX = 'write it as {"hosts": {"name": {"command": "your-agent {prompt}"}}}';
