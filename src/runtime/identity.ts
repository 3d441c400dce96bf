import type * as Os from 'node:os';
import { isAgentName } from '../kernel/validate';

/**
 * The person's name in events: LOOPX_HUMAN, else the login, else "human" (the first that is a valid name). One
 * rule for the CLI and VS Code, so the same person is the same actor in both.
 */
export function humanName(env: NodeJS.ProcessEnv = process.env): string {
  return [env.LOOPX_HUMAN, login(), 'human'].find((n) => n !== undefined && isAgentName(n)) as string;
}

function login(): string | undefined {
  try {
    // node:os is loaded here, not at start-up: only a person's calls need the login.
    return (process.getBuiltinModule('node:os') as typeof Os).userInfo().username;
  } catch {
    return undefined;
  }
}
