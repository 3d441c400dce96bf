import type { Command } from './command';
import { GLOBAL_FLAGS, type FlagSpec } from './args';

function flagUsage(name: string, spec: FlagSpec): string {
  const value = spec.type === 'boolean' ? '' : ` ${spec.value ?? 'VALUE'}`;
  const text = `--${name}${value}${spec.repeat ? '...' : ''}`;
  return spec.required ? text : `[${text}]`;
}

export function usageLine(c: Command): string {
  const positionals = (c.positionals ?? []).filter((p) => !p.rest).map((p) => (p.required ? p.name : `[${p.name}]`));
  const rest = (c.positionals ?? []).filter((p) => p.rest).map((p) => `-- ${p.name}`);
  const flags = Object.entries(c.flags ?? {}).map(([n, s]) => flagUsage(n, s));
  return ['loopx', ...c.name, ...positionals, ...flags, ...rest].join(' ');
}

function describeFlags(flags: Record<string, FlagSpec>): string[] {
  return Object.entries(flags).map(([name, spec]) => {
    const left = `  --${name}${spec.type === 'boolean' ? '' : ` ${spec.value ?? 'VALUE'}`}`;
    return `${left.padEnd(28)} ${spec.description}${spec.required ? ' (required)' : ''}`;
  });
}

export function commandHelp(c: Command): string {
  const lines = [`Usage: ${usageLine(c)}`, '', c.summary];
  if (c.description) lines.push('', c.description);
  if (c.needsAgent) lines.push('', 'Acts for an agent: needs --agent NAME or LOOPX_AGENT.');
  if (c.humanOnly)
    lines.push(
      '',
      'Human only: refused (exit 3) when --agent or LOOPX_AGENT is set, and without an interactive terminal (stdin and stdout a TTY), where you type the id it asks for.',
    );
  if (c.positionals?.length) lines.push('', 'Arguments:', ...c.positionals.map((p) => `  ${p.name.padEnd(26)} ${p.description}`));
  if (c.flags && Object.keys(c.flags).length) lines.push('', 'Options:', ...describeFlags(c.flags));
  lines.push('', 'Global options:', ...describeFlags(GLOBAL_FLAGS));
  if (c.examples?.length) lines.push('', 'Examples:', ...c.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

export function overviewHelp(version: string, commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.join(' ').length)) + 2;
  return [
    `loopx ${version}: the local control plane for long-running agent work`,
    '',
    'Usage: loopx COMMAND [options]     (every command takes --json, --root DIR, --agent NAME, --help)',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.join(' ').padEnd(width)} ${c.summary}`),
    '',
    'Exit codes: 0 done · 1 internal error · 2 invalid input · 3 refused or conflict · 4 not found · 5 no .loopx/ store',
    'An agent turn: loopx todo claim --next --json → work → loopx evidence add … → loopx todo ship ID --evidence "…"',
  ].join('\n');
}
