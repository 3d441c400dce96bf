import { spawn } from 'node:child_process';
import { VerbServer } from '../src/cli/run/verbServer';

/**
 * The bench's stand-in for a `loopx run` whose turn makes the calls: a separate process listening as a runner does
 * (src/cli/run/verbServer.ts), with one turn's key granted to the bench's agent. The calls timed with its
 * environment are answered the way an agent's are in a turn of `loopx run`; the runner's loop itself is left out
 * (it sleeps while its turn runs).
 */
export async function startBenchRunner(
  script: string,
  root: string,
  agent: string,
): Promise<{ env: Record<string, string>; stop(): void } | null> {
  const child = spawn(process.execPath, [script, '--serve-for-bench', root, agent], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((done) => {
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
      if (text.includes('\n')) done(text.slice(0, text.indexOf('\n')));
    });
    child.on('close', () => done('null'));
  });
  const env = JSON.parse(line) as Record<string, string> | null;
  if (!env) return null;
  return { env, stop: () => child.kill() };
}

/** The runner's side (`bench.js --serve-for-bench ROOT AGENT`): listens, prints the turn's environment, waits. */
export async function serveForBench(root: string, agent: string): Promise<void> {
  const server = await VerbServer.start(root);
  console.log(JSON.stringify(server ? server.grant({ agent, turnId: 'bench', shellWrites: true }) : null));
  if (server) setInterval(() => undefined, 1 << 30);
}

/** The served pass's table: each verb's ratio to bare start-up (and its time) at each store size. */
export function servedTable(sizes: { todos: number; served: { verb: string; ratio: number; ms: number }[] }[]): string {
  const lines = [
    '\nThe same calls in a turn of `loopx run`, answered by its runner (turn start, turn finish, monitor tick run in their own process):\n',
    `| verb | ${sizes.map((s) => `${s.todos} todos`).join(' | ')} |`,
    `| --- | ${sizes.map(() => '---').join(' | ')} |`,
  ];
  for (const verb of sizes[0]?.served.map((v) => v.verb) ?? []) {
    const cells = sizes.map((s) => {
      const f = s.served.find((v) => v.verb === verb);
      return f ? `${f.ratio.toFixed(2)}x (${f.ms.toFixed(1)} ms)` : '';
    });
    lines.push(`| \`loopx ${verb}\` | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
