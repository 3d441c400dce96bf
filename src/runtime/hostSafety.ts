import { readdirSync } from 'node:fs';
import { EXIT, LoopxError } from '../kernel/errors';
import { builtInHost } from '../shared/hostCatalog';
import { opencodePlugins } from './opencodeBoundary';
import { type HostVerdict, hostFacts, judgeHost } from './hostCheck';

/** Where Gemini CLI reads system policies; any there makes it ignore `--admin-policy` (measured with 0.61.0). */
export const GEMINI_SYSTEM_POLICIES = '/etc/gemini-cli/policies';

/**
 * Why a turn on `host` must not start in `root`, though its command keeps {boundary}: something the host loads
 * whatever the turn's own config says would run outside the permissions loopx gives it. OpenCode imports a project's
 * plugins; Gemini CLI ignores the turn's policy when the machine has system policies. null: nothing stands in the way
 * (or the command has no {boundary}, and says so elsewhere). The runner, Run Turn and doctor ask it before anything is
 * claimed.
 */
export function hostRefusal(host: string, template: string, root: string, geminiPolicies = GEMINI_SYSTEM_POLICIES): LoopxError | null {
  if (!template.includes('{boundary}')) return null;
  const kind = builtInHost(host)?.boundary;
  if (kind === 'opencode-config') {
    const plugins = opencodePlugins(root);
    if (plugins.length > 0)
      return new LoopxError(
        'host_unsafe',
        `OpenCode would load this project's plugins (${plugins.join(', ')}), whose code runs outside every permission loopx gives a turn`,
        EXIT.refused,
        'remove them (or move them out of the workspace) to run OpenCode turns here',
      );
  }
  if (kind === 'gemini-policy') {
    const policies = tomlFiles(geminiPolicies);
    if (policies.length > 0)
      return new LoopxError(
        'host_unsafe',
        `Gemini CLI would ignore the turn's permissions: this machine has system policies (${policies.join(', ')}), and with them it skips the policy loopx gives a turn`,
        EXIT.refused,
        `run Gemini CLI turns on a machine without ${geminiPolicies}, or through a custom command`,
      );
  }
  return null;
}

function tomlFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.toml'))
      .map((f) => `${dir}/${f}`);
  } catch {
    return [];
  }
}

/**
 * A host as this machine has it, for `loopx doctor` and `loopx ready`: the installed program judged against its command
 * (hostCheck.ts), whether its turns are refused in the workspace at `root` (asked only when it is installed), and the
 * sentence that says both.
 */
export async function hostStanding(
  host: string,
  command: string,
  path: string,
  root: string,
): Promise<{ verdict: HostVerdict; refusal: LoopxError | null; sentence: string }> {
  const verdict = judgeHost(host, command, await hostFacts(host, command, path));
  const refusal = verdict.found ? hostRefusal(host, command, root) : null;
  return { verdict, refusal, sentence: refusal ? `${verdict.sentence} Its turns are refused here: ${refusal.message}.` : verdict.sentence };
}
