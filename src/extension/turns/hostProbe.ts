import { statSync } from 'node:fs';
import { type HostFacts, type HostVerdict, commandShape, hostFacts, judgeHost } from '../../runtime/hostCheck';
import { findExecutable } from '../../runtime/hosts';

/**
 * The facts about a host for Run Turn and Connect an Agent, gathered without blocking the extension host (Claude
 * Code's --help takes seconds on a cold start), remembered per program, its modification time and the command:
 * an update of the CLI is a new file and is asked again.
 */
const cache = new Map<string, Promise<HostFacts>>();

export async function probeHost(host: string, template: string): Promise<HostVerdict> {
  return judgeHost(host, template, await cachedFacts(host, template));
}

function cachedFacts(host: string, template: string): Promise<HostFacts> {
  const { executable } = commandShape(template);
  const found = findExecutable(executable) ?? null;
  let stamp = '';
  try {
    if (found) stamp = String(statSync(found).mtimeMs);
  } catch {
    /* gone meanwhile: asked again next time */
  }
  const key = `${host}|${found}|${stamp}|${template}`;
  let facts = cache.get(key);
  if (!facts) {
    facts = hostFacts(host, template);
    cache.set(key, facts);
  }
  return facts;
}
