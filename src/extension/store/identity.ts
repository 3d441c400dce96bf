import type { Actor } from '../../kernel/events/eventTypes';
import { humanName } from '../../runtime/identity';

/** Actions taken in the UI are human actions, in the name of the person at the keyboard. */
export function humanActor(env: NodeJS.ProcessEnv = process.env): Actor {
  return { name: humanName(env), kind: 'human', channel: 'vscode' };
}
