import type * as ChildProcess from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readTurnPrompt } from '../kernel/turns/turnCommands';

/**
 * LoopX's sample agent: a demo for a person without Codex or Claude Code, so they can watch a turn. No model: it
 * reads the turn's prompt as an agent does, runs the prompt's own loopx commands through the shell (each shown as it
 * runs), records what it did as evidence labelled a demo, and hands the todo back with a note. It never touches
 * the workspace's files and never ships: a demo does no real work. Run by Run Turn as `loopx-sample-agent PROMPT`.
 */
const { execFileSync } = process.getBuiltinModule('node:child_process') as typeof ChildProcess;
const say = (line: string) => process.stdout.write(`${line}\n`);

/** Runs `loopx ARGS` with the prompt's own prefix (the agent's name and the launcher's path), shown as `loopx ARGS`. */
function shell(prefix: string, args: string): { ok: boolean; data: Record<string, unknown> | null; text: string } {
  const command = `${prefix} ${args}`;
  say(`$ loopx ${args}`);
  try {
    const text = execFileSync('/bin/sh', ['-c', command], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const parsed = JSON.parse(text) as { ok: boolean; data: Record<string, unknown> };
    return { ok: parsed.ok, data: parsed.data, text };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    say(`  ${(e.stderr || e.stdout || e.message).trim().split('\n')[0]}`);
    return { ok: false, data: null, text: e.stdout ?? '' };
  }
}

function main(): number {
  const file = process.argv[2] ?? process.env.LOOPX_PROMPT;
  say('LoopX sample agent: a demo with no AI. It works this turn through the loopx CLI the way a real agent would,');
  say('but changes none of your files and ships nothing: it records what it saw and hands the todo back.');
  say('');
  if (!file) {
    say('No prompt file: run it as loopx-sample-agent PROMPT_FILE (Run Turn does).');
    return 2;
  }
  const turn = readTurnPrompt(readFileSync(file, 'utf8'));
  if (!turn) {
    say(`The prompt ${file} names no loopx commands to write back with.`);
    return 2;
  }
  const { prefix, todo } = turn;
  const shown = shell(prefix, `todo show ${todo} --json`);
  if (!shown.ok || !shown.data) return 1;
  const acceptance = (shown.data.acceptance ?? {}) as { detail?: string; check?: string };
  say(`  ${todo}: ${String(shown.data.title)}`);
  say(`  acceptance: ${acceptance.detail || 'not written down'}${acceptance.check ? ` (check: ${acceptance.check})` : ''}`);
  say('');
  const summary = `Sample agent (demo, no AI) read ${todo} and its acceptance; no work was done`;
  if (!shell(prefix, `evidence add --todo ${todo} --kind note --summary '${summary}' --json`).ok) return 1;
  say(`  recorded evidence: ${summary}`);
  const note = 'A sample agent (a demo) looked at this todo and did no work; a real agent picks it up next.';
  if (!shell(prefix, `todo release ${todo} --note '${note}' --json`).ok) return 1;
  say(`  handed ${todo} back with a note for the next turn`);
  say('');
  say('Done. A real agent (Codex, Claude Code) would have done the work and shipped it with evidence.');
  return 0;
}

process.exitCode = main();
