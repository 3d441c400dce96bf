import { userInfo } from 'node:os';
import type { Actor } from '../../kernel/events/eventTypes';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;

/** Actions taken in the UI are human actions, in the name of the person at the keyboard. */
export function humanActor(env: NodeJS.ProcessEnv = process.env): Actor {
  let login: string | undefined;
  try {
    login = userInfo().username;
  } catch {
    login = undefined;
  }
  const name = [env.LOOPX_HUMAN, login, 'human'].find((n) => n !== undefined && NAME.test(n)) as string;
  return { name, kind: 'human', channel: 'vscode' };
}
