import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AgentWorld, startAgentWorld, turnLog } from './agentWorld';

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

describe('Gemini CLI with the default host command, offline', () => {
  test("loopx run --host gemini: Gemini CLI runs the prompt's loopx commands and ships the todo; usage from its result, priced", async () => {
    const { root, env, cli } = w.setUp();
    const before = w.server.calls.length;
    const r = await w.run(root, env, ['--host', 'gemini']);
    expect(r.code, r.stderr).toBe(0);
    const ended = r.events.find((e) => e.event === 'turn_ended') as { usage: Record<string, unknown> };
    expect(ended, turnLog(root)).toMatchObject({ resultKind: 'validated_completion', spent: true, exitCode: 0 });
    const launcher = join(root, '.loopx', 'bin', 'loopx');
    const calls = w.server.calls.slice(before);
    expect(calls.map((c) => [c.api, c.tool, c.command])).toEqual([
      ['gemini', 'run_shell_command', `LOOPX_AGENT=gemini '${launcher}' todo show T1 --json`],
      ['gemini', 'run_shell_command', expect.stringContaining(' evidence add --todo T1 ')],
      ['gemini', 'run_shell_command', `LOOPX_AGENT=gemini '${launcher}' todo ship T1 --json`],
    ]);
    for (const call of calls) expect(call.output).toContain('"ok":true');
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
    expect(cli(['evidence', 'list', '--todo', 'T1', '--json']).json.data).toEqual([
      expect.objectContaining({ actor: 'gemini', source: 'agent', summary: 'checked by the scripted model' }),
    ]);
    // Four model requests of 100 tokens in and 20 out, in Gemini CLI's last line; no cost of its own: the person's price.
    expect(ended.usage).toEqual({
      inputTokens: 400,
      outputTokens: 80,
      cachedTokens: 0,
      costUsd: (400 * 2 + 80 * 8) / 1_000_000,
      costSource: 'prices',
      model: 'loopx-scripted',
    });
    const progress = r.events.filter((e) => e.event === 'output').flatMap((e) => (e.progress as { kind: string; text: string }[]) ?? []);
    expect(progress.filter((p) => p.kind === 'loopx').map((p) => p.text)).toEqual([
      'loopx todo show T1 --json',
      expect.stringContaining('loopx evidence add --todo T1 '),
      'loopx todo ship T1 --json',
    ]);
    expect(w.server.outside).toEqual([]);
    expect(w.server.problems).toEqual([]);
  });

  test("Gemini CLI: commands beside the allowed loopx calls, redirections and writes into .loopx/ are refused with nothing run, whatever the project's settings say", async () => {
    const { root, env, cli } = w.setUp();
    // Project settings that would allow every command and run a hook: never merged into an untrusted turn.
    mkdirSync(join(root, '.gemini'));
    writeFileSync(
      join(root, '.gemini', 'settings.json'),
      JSON.stringify({
        tools: { allowed: ['run_shell_command'] },
        hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `touch ${join(root, 'ran-hook')}` }] }] },
      }),
    );
    const marker = (name: string) => join(root, name);
    w.extra = ({ prefix, todo }) => [
      `touch ${marker('ran-plain')}`,
      `${prefix} todo show ${todo} && touch ${marker('ran-and')}`,
      `${prefix} todo show ${todo}; touch ${marker('ran-semicolon')}`,
      `${prefix} todo show $(touch ${marker('ran-substitution')})`,
      `${prefix} todo show ${todo} > ${join(root, '.loopx', 'ran-redirect')}`,
      { tool: 'write_file', input: { file_path: join(root, '.loopx', 'ran-write'), content: 'forged' } },
      { tool: 'write_file', input: { file_path: join(root, 'notes.md'), content: 'the agent may write its work\n' } },
    ];
    const before = w.server.calls.length;
    try {
      const r = await w.run(root, env, ['--host', 'gemini']);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      w.extra = () => [];
    }
    const refused = w.server.calls.slice(before + 1, before + 7);
    expect(refused).toHaveLength(6);
    for (const call of refused) expect(call.output, call.command).toMatch(/denied by policy|requires user confirmation/);
    for (const name of ['ran-plain', 'ran-and', 'ran-semicolon', 'ran-substitution', 'ran-hook'])
      expect(existsSync(marker(name)), name).toBe(false);
    for (const name of ['ran-redirect', 'ran-write']) expect(existsSync(join(root, '.loopx', name)), name).toBe(false);
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('the agent may write its work\n');
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  });
});
