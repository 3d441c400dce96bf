import { type HostSettings, findExecutable } from '../../runtime/hosts';
import { commandShape } from '../../runtime/hostCheck';
import type { PersonHost } from '../../runtime/personHosts';
import { BUILT_IN_HOSTS } from '../../shared/hostCatalog';
import { HOSTS } from '../turns/turnRunner';

/** One host as Run Turn and New Goal offer it: its name, the command it runs, and whether its program is here. */
export interface HostChoice {
  id: string;
  name: string;
  command: string;
  installed: boolean;
}

const NAMES: Record<string, string> = {
  ...Object.fromEntries(BUILT_IN_HOSTS.map((h) => [h.id, h.name])),
  custom: 'Custom command',
};

/**
 * Every host a turn can run on here, built-in ones first, then the person's own (hosts.json). `installed`: its
 * program is on PATH (a custom host counts when a command is set).
 */
export function hostChoices(settings: HostSettings, own: PersonHost[]): HostChoice[] {
  const commandOf = (h: string) => (settings as unknown as Record<string, string | undefined>)[h] ?? '';
  const names: Record<string, string> = { ...NAMES, ...Object.fromEntries(own.map((h) => [h.id, h.name])) };
  return [...HOSTS, ...own.map((h) => h.id)].map((id) => {
    const command = commandOf(id);
    const installed = command.trim() !== '' && findExecutable(commandShape(command).executable) !== undefined;
    return { id, name: names[id] ?? id, command, installed };
  });
}

/** Whether any agent CLI (a built-in host's program) is installed here. */
export function anyAgentCli(choices: HostChoice[]): boolean {
  return choices.some((c) => c.installed && BUILT_IN_HOSTS.some((h) => h.id === c.id));
}
