import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { type AgentWorld, startAgentWorld, REAL_AGENT_TEST } from './agentWorld';
import { type ShellHost, refusesTheSideDoors, reviewTurnWritesNothing, shipsThroughItsShell } from './hostTurns';

/**
 * The real Gemini CLI (@google/gemini-cli, an exact devDependency) running loopx turns with its default host command,
 * offline: its API on 127.0.0.1 (GOOGLE_GEMINI_BASE_URL), the person's own settings naming the key as their way in and
 * the scripted model; each turn runs with settings and an admin policy of its own in the turn's folder
 * (runtime/geminiBoundary.ts).
 */
let w: AgentWorld;
beforeAll(async () => {
  w = await startAgentWorld('gemini');
});
afterAll(async () => {
  await w?.close();
});

const gemini: ShellHost = {
  host: 'gemini',
  api: 'gemini',
  shellTool: 'run_shell_command',
  writeTool: { name: 'write_file', pathKey: 'file_path' },
  refused: /denied by policy|requires user confirmation/,
};

describe('Gemini CLI with the default host command, offline', REAL_AGENT_TEST, () => {
  test("loopx run --host gemini: Gemini CLI runs the prompt's loopx commands and ships the todo; usage from its result, priced", async () => {
    await shipsThroughItsShell(w, gemini);
  });

  test("Gemini CLI: commands beside the allowed loopx calls, redirections and writes into .loopx/ are refused with nothing run, whatever the project's settings say", async () => {
    // Project settings that would allow every command and run a hook: never merged into an untrusted turn.
    await refusesTheSideDoors(
      w,
      gemini,
      (root) => {
        mkdirSync(join(root, '.gemini'));
        writeFileSync(
          join(root, '.gemini', 'settings.json'),
          JSON.stringify({
            tools: { allowed: ['run_shell_command'] },
            hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `touch ${join(root, 'ran-hook')}` }] }] },
          }),
        );
      },
      ['ran-hook'],
    );
  });

  test("Gemini CLI reviewing a change: its write into the workspace is refused by the turn's policy, its approval through the prompt's command is taken", async () => {
    await reviewTurnWritesNothing(w, {
      host: 'gemini',
      write: (path) => ({ tool: 'write_file', input: { file_path: path, content: 'forged' } }),
      verdictBy: 'shell',
      // A review turn's policy allows no edit at all, so Gemini CLI does not even offer its file-writing tool.
      refused: /write_file\W+ not found/,
    });
  });
});
