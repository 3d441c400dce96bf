import * as vscode from 'vscode';
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

/**
 * A goal's agent, picked (New Goal's last step, Choose Agent… on a goal): the agent CLIs installed here (and the
 * person's own hosts, and a custom command when one is set), or none of them, to choose at each turn (the first item:
 * Enter). The current one is marked. Undefined on Escape, null for none.
 */
export async function pickGoalAgent(
  hosts: { hostSettings(): HostSettings; ownHosts(): PersonHost[] },
  title: string,
  current: string | null,
): Promise<string | null | undefined> {
  const installed = hostChoices(hosts.hostSettings(), hosts.ownHosts()).filter((h) => h.installed || h.id === current);
  const mark = (id: string | null) => (id === current ? ' · now' : '');
  const items = [
    {
      label: 'Choose at each turn',
      description: `Run Turn asks which agent; automatic turns use the loopx.autoRun.host setting${mark(null)}`,
      host: null as string | null,
    },
    ...installed.map((h) => ({
      label: h.name,
      description: `${h.installed ? h.command : 'not installed'}${mark(h.id)}`,
      host: h.id as string | null,
    })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title,
    placeHolder: installed.length
      ? 'Which agent runs its turns? Run Turn offers it first; automatic turns and loopx run --goal use it'
      : 'No agent CLI is installed here: its turns choose at each run',
    ignoreFocusOut: true,
  });
  return picked === undefined ? undefined : picked.host;
}
