import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { type HostFacts, type HostVerdict, commandShape, judgeHost } from '../../kernel/hostCheck';
import { findExecutable } from '../../kernel/hosts';

/**
 * The facts about a host for Run Turn and Connect an Agent, gathered without blocking the extension host (Claude
 * Code's --help takes seconds on a cold start), remembered per program, its modification time and the command:
 * an update of the CLI is a new file and is asked again.
 */
const cache = new Map<string, Promise<HostFacts>>();

export async function probeHost(host: string, template: string): Promise<HostVerdict> {
  return judgeHost(host, template, await hostFacts(host, template));
}

function hostFacts(host: string, template: string): Promise<HostFacts> {
  const { executable, subcommand } = commandShape(template);
  const found = findExecutable(executable) ?? null;
  if (!found || !(host === 'claude' || host === 'codex')) return Promise.resolve({ found, versionOutput: null, helpOutput: null });
  let stamp = '';
  try {
    stamp = String(statSync(found).mtimeMs);
  } catch {
    /* gone meanwhile: asked again next time */
  }
  const key = `${found}|${stamp}|${template}`;
  let facts = cache.get(key);
  if (!facts) {
    facts = Promise.all([output(found, ['--version']), output(found, [...(subcommand ? [subcommand] : []), '--help'])]).then(
      ([versionOutput, helpOutput]) => ({ found, versionOutput, helpOutput }),
    );
    cache.set(key, facts);
  }
  return facts;
}

function output(file: string, args: string[]): Promise<string | null> {
  return new Promise((done) =>
    execFile(file, args, { timeout: 15_000, encoding: 'utf8' }, (error, stdout, stderr) =>
      done(error && !stdout && !stderr ? null : `${stdout}${stderr}`),
    ),
  );
}
