import { isAgentName } from '../kernel/validate';
import { nodeOs } from '../kernel/nodeOs';

/**
 * The person's name in events: LOOPX_HUMAN, else the login, else "human" (the first that is a valid name). One
 * rule for the CLI and VS Code, so the same person is the same actor in both.
 */
export function humanName(env: NodeJS.ProcessEnv = process.env): string {
  return [env.LOOPX_HUMAN, login(), 'human'].find((n) => n !== undefined && isAgentName(n)) as string;
}

function login(): string | undefined {
  try {
    return nodeOs().userInfo().username;
  } catch {
    return undefined;
  }
}
