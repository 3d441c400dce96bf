import { type Command, findCommand } from './command';

/** A command by its words; its module is evaluated only when a call names it. */
export interface LazyCommand {
  name: readonly string[];
  load(): Promise<Command>;
}

/**
 * The verbs of an agent's turn, which agents call hundreds of times a day: the agent bundle (dist/cli-agent.js)
 * holds these and what they import, and nothing else, and evaluates only the module of the one a call names. Each
 * loads the whole CLI's own command object (registry.ts), so a call behaves the same in either bundle;
 * agentCommands.test.ts holds the two lists together.
 */
export const AGENT_COMMANDS: readonly LazyCommand[] = [
  { name: ['status'], load: async () => (await import('./commands/status')).status },
  { name: ['goal', 'list'], load: async () => (await import('./commands/goalList')).goalList },
  { name: ['goal', 'show'], load: async () => (await import('./commands/goalShow')).goalShow },
  { name: ['todo', 'add'], load: async () => (await import('./commands/todoAdd')).todoAdd },
  { name: ['todo', 'list'], load: async () => (await import('./commands/todoList')).todoList },
  { name: ['todo', 'next'], load: async () => (await import('./commands/todoNext')).todoNext },
  { name: ['todo', 'show'], load: async () => (await import('./commands/todoShow')).todoShow },
  { name: ['todo', 'claim'], load: async () => (await import('./commands/todoClaim')).todoClaim },
  { name: ['todo', 'renew'], load: async () => (await import('./commands/todoRenew')).todoRenew },
  { name: ['todo', 'release'], load: async () => (await import('./commands/todoRelease')).todoRelease },
  { name: ['todo', 'ship'], load: async () => (await import('./commands/todoShip')).todoShip },
  { name: ['todo', 'block'], load: async () => (await import('./commands/todoBlock')).todoBlock },
  { name: ['evidence', 'add'], load: async () => (await import('./commands/evidenceAdd')).evidenceAdd },
  { name: ['evidence', 'list'], load: async () => (await import('./commands/evidenceList')).evidenceList },
  { name: ['gate', 'ask'], load: async () => (await import('./commands/gateAsk')).gateAsk },
  { name: ['gate', 'list'], load: async () => (await import('./commands/gateList')).gateList },
  { name: ['quota', 'show'], load: async () => (await import('./commands/quotaShow')).quotaShow },
  { name: ['quota', 'should-run'], load: async () => (await import('./commands/quotaShouldRun')).quotaShouldRun },
  { name: ['handoff'], load: async () => (await import('./commands/handoff')).handoff },
  { name: ['handoff', 'accept'], load: async () => (await import('./commands/handoffAccept')).handoffAccept },
  { name: ['turn', 'start'], load: async () => (await import('./commands/turnStart')).turnStart },
  { name: ['turn', 'finish'], load: async () => (await import('./commands/turnFinish')).turnFinish },
  { name: ['monitor', 'tick'], load: async () => (await import('./commands/monitor')).monitorTick },
];

/** Whether the agent bundle answers this call: one of its verbs (help and --version belong to the whole CLI). */
export function agentHandles(argv: readonly string[]): boolean {
  return findCommand(argv, AGENT_COMMANDS) !== null;
}
