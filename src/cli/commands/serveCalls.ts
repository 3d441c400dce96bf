import type { Command } from '../command';
import { InvalidInputError } from '../../kernel/errors';
import { parseAgentName } from '../../kernel/validate';
import { locateRoot } from '../../runtime/locate';
import { type Grant, VerbServer } from '../run/verbServer';
import { RUNNER_TOKEN_ENV } from '../../runtime/verbSocket';

/** A token as a window makes one: 24 random bytes in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** One line of the starter's stdin: a turn's token granted, or revoked. Null for anything else (ignored). */
export function parseServeLine(line: string): { grant: Grant & { token: string } } | { revoke: string } | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { grant, revoke } = value as { grant?: unknown; revoke?: unknown };
  if (typeof revoke === 'string') return TOKEN.test(revoke) ? { revoke } : null;
  if (typeof grant !== 'object' || grant === null) return null;
  const g = grant as Record<string, unknown>;
  if (typeof g.token !== 'string' || !TOKEN.test(g.token) || typeof g.agent !== 'string' || typeof g.turnId !== 'string') return null;
  if (typeof g.shellWrites !== 'boolean') return null;
  try {
    parseAgentName(g.agent);
  } catch {
    return null;
  }
  return { grant: { token: g.token, agent: g.agent, turnId: g.turnId, shellWrites: g.shellWrites } };
}

/**
 * What `loopx run` does for its own turns, for the turns a VS Code window starts: the window starts this once, names
 * the socket (in the person's own folder, verbSocketFolder) and grants each turn's token on stdin as its terminal
 * opens, and revokes it when the turn ends. Until then the turn's agent's loopx calls are answered here (verbServer.ts),
 * with the same output and exit codes. Its stdin is its starter's alone: nobody else can grant a token. It ends when
 * its stdin does (the window closed).
 */
export const serveCalls: Command = {
  name: ['serve-calls'],
  summary: 'answer the loopx calls of the turns a VS Code window runs (the LoopX extension starts it; tokens on stdin)',
  description: [
    'Started by the LoopX extension, once per window and store: it listens on --socket (a path in your own runtime',
    'or cache folder) and reads JSON lines on stdin: {"grant":{token,agent,turnId,shellWrites}} as a turn\'s terminal',
    'opens, {"revoke":token} when it ends (answered with {"revoked":token,"answered":N}). It prints {"listening":path}',
    'first, or {"notServing":why} and ends (a team store, no private folder). It ends when stdin ends.',
  ].join('\n'),
  flags: {
    socket: { type: 'string', value: 'PATH', description: "the socket's path, in the folder loopx keeps them (required)" },
  },
  async run(ctx) {
    const at = ctx.args.str('socket');
    if (!at) throw new InvalidInputError('--socket names the path to listen on', 'the LoopX extension starts this command');
    if (process.stdin.isTTY)
      throw new InvalidInputError(
        'loopx serve-calls reads its turns from its starter on stdin',
        'the LoopX extension starts it; nothing to type here',
      );
    // Found as any call finds its store (--root, LOOPX_ROOT, the nearest .loopx/), without opening it: a team store is
    // not served, and opening one would reach its server first.
    const root = locateRoot({ root: ctx.args.str('root'), envRoot: ctx.env.LOOPX_ROOT, cwd: ctx.cwd });
    const server = await VerbServer.start(root, ctx.env, at);
    if (!server) {
      ctx.out(`${JSON.stringify({ notServing: 'cannot listen safely here (a team store, or no private folder for the socket)' })}\n`);
      return { data: { serving: false }, text: '' };
    }
    ctx.out(`${JSON.stringify({ listening: server.path })}\n`);
    await new Promise<void>((done) => {
      let pending = '';
      process.stdin.setEncoding('utf8');
      process.stdin.on('data', (chunk: string) => {
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf('\n')) !== -1) {
          const line = parseServeLine(pending.slice(0, end));
          pending = pending.slice(end + 1);
          if (!line) continue;
          if ('grant' in line) {
            const { token, ...grant } = line.grant;
            server.admit(token, grant);
          } else {
            const answered = server.revoke({ [RUNNER_TOKEN_ENV]: line.revoke });
            ctx.out(`${JSON.stringify({ revoked: line.revoke, answered })}\n`);
          }
        }
        if (pending.length > 64_000) pending = '';
      });
      process.stdin.on('end', done);
      process.stdin.on('error', done);
      process.once('SIGTERM', done);
    });
    server.close();
    return { data: { serving: true, answered: server.served }, text: '' };
  },
};
