import type { Command } from '../command';
import { InvalidInputError } from '../../kernel/errors';
import { HostStream, hostFormat, renderProgress } from '../../kernel/turns/usage/hostStream';

/** Listed for help; the entry point streams stdin through renderTurnProgress (a command here returns one result). */
export const turnProgress: Command = {
  name: ['turn', 'progress'],
  summary: "a host's structured output on stdin as readable lines: what the agent says, runs and writes back to loopx",
  description:
    "For Claude Code's --output-format stream-json and Codex's exec --json: the agent's messages, the commands it runs, its " +
    'loopx write-backs (highlighted) with their answers, and how the turn ended. Lines it does not know pass through as ' +
    'they are. VS Code pipes a turn through it; the raw stream stays in the turn folder (output.log).',
  flags: { host: { type: 'string', value: 'HOST', required: true, description: 'claude or codex (any other host passes through)' } },
  examples: ['claude -p --output-format stream-json --verbose < prompt.md | loopx turn progress --host claude'],
  run() {
    throw new InvalidInputError('loopx turn progress reads a host’s output on stdin; pipe it in');
  },
};

/** Reads stdin to its end, writing readable lines as they complete; never exits early (the host writes into the pipe). */
export function renderTurnProgress(argv: readonly string[], color: boolean): void {
  const at = argv.indexOf('--host');
  const format = hostFormat(at >= 0 ? (argv[at + 1] ?? '') : '');
  const stream = format ? new HostStream(format) : undefined;
  const write = (lines: string[]) => lines.length && process.stdout.write(`${lines.join('\n')}\n`);
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    if (!stream) return void process.stdout.write(chunk);
    write(stream.push(chunk).map((line) => renderProgress(line, color)));
  });
  process.stdin.on('end', () => stream && write(stream.end().map((line) => renderProgress(line, color))));
  // A terminal closed under us: nothing to show any more, but keep reading so the host never gets SIGPIPE.
  process.stdout.on('error', () => {});
}
