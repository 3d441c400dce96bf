import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
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

/** A key the file does not know, by name (zod/mini carries no messages of its own: "Invalid input" says nothing). */
const unknownKeys = (issue: { code?: string; keys?: string[] }) =>
  issue.code === 'unrecognized_keys'
    ? `unknown ${issue.keys?.length === 1 ? 'key' : 'keys'} ${issue.keys?.map((k) => `"${k}"`).join(', ')}`
    : undefined;

const textOf = (what: string, max: number) =>
  z
    .string(`${what} is text`)
    .check(z.trim(), z.minLength(1, `${what} is empty`), z.maxLength(max, `${what} is longer than ${max} characters`));

const hostSchema = z.strictObject(
  { name: z.optional(textOf("the host's name", 60)), command: textOf('the command', 4000) },
  { error: (issue) => unknownKeys(issue) ?? 'each host is an object: {"command": "…"}' },
);

const fileSchema = z.strictObject(
  {
    hosts: z.record(
      z.string().check(
        z.regex(HOST_ID, 'a host name is lowercase letters, digits and hyphens, starting with a letter (at most 32)'),
        z.refine((id) => !TAKEN.has(id), 'that name is a built-in host'),
      ),
      hostSchema,
      'hosts is an object of hosts by name',
    ),
    /** Prompt-cache windows a person sets (kernel/turns/promptCache.ts reads them). */
    promptCache: z.optional(
      z.unknown().check(
        z.check((ctx) => {
          const checked = ctx.value === undefined ? {} : checkPromptCacheSection(ctx.value);
          if (typeof checked === 'string') ctx.issues.push({ code: 'custom', message: checked, input: ctx.value });
        }),
      ),
    ),
  },
  { error: (issue) => unknownKeys(issue) ?? 'the file is an object: {"hosts": {…}}' },
);

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
