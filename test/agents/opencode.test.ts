import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AgentWorld, startAgentWorld, turnLog } from './agentWorld';
import { OPENCODE_TURN_CONFIG } from '../../src/kernel/turns/usage/turnUsage';

/**
 * The real OpenCode CLI (opencode-ai, an exact devDependency) running loopx turns with its default host command,
 * offline: the person's own OpenCode config names the scripted model on 127.0.0.1 as an OpenAI-compatible provider,
 * and each turn runs on a config of its own in the turn's folder (runtime/opencodeBoundary.ts), with that model carried
 * over and nothing else of the person's or the repository's.
 */
let w: AgentWorld;
beforeAll(async () => {
  w = await startAgentWorld('opencode');
});
afterAll(async () => {
  await w?.close();
});

function turnConfig(root: string): { permission: { bash: Record<string, string>; edit: Record<string, string> }; model: string } {
  return JSON.parse(readFileSync(join(root, '.loopx', 'turns', 'R1', OPENCODE_TURN_CONFIG), 'utf8'));
}

describe('OpenCode with the default host command, offline', () => {
  test("loopx run --host opencode: OpenCode runs the prompt's loopx commands and ships the todo; usage summed over its steps and priced", async () => {
    const { root, env, cli } = w.setUp();
    const before = w.server.calls.length;
    const r = await w.run(root, env, ['--host', 'opencode']);
    expect(r.code, r.stderr).toBe(0);
    const ended = r.events.find((e) => e.event === 'turn_ended') as { usage: Record<string, unknown> };
    expect(ended, turnLog(root)).toMatchObject({ resultKind: 'validated_completion', spent: true, exitCode: 0 });
    const launcher = join(root, '.loopx', 'bin', 'loopx');
    const calls = w.server.calls.slice(before);
    expect(calls.map((c) => [c.api, c.tool, c.command])).toEqual([
      ['chat', 'bash', `LOOPX_AGENT=opencode '${launcher}' todo show T1 --json`],
      ['chat', 'bash', expect.stringContaining(' evidence add --todo T1 ')],
      ['chat', 'bash', `LOOPX_AGENT=opencode '${launcher}' todo ship T1 --json`],
    ]);
    for (const call of calls) expect(call.output).toContain('"ok":true');
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
    expect(cli(['evidence', 'list', '--todo', 'T1', '--json']).json.data).toEqual([
      expect.objectContaining({ actor: 'opencode', source: 'agent', summary: 'checked by the scripted model' }),
    ]);
    // Four model requests of 100 tokens in and 20 out (OpenCode's step_finish events, summed); OpenCode knows no price
    // for the scripted model, so the person's price for it decides.
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
    // The turn's config: the person's model and provider, not their permissive permissions.
    const config = turnConfig(root);
    expect(config.model).toBe('scripted/loopx-scripted');
    expect(config.permission.bash['*']).toBe('deny');
    expect(config.permission.edit['.loopx/**']).toBe('deny');
    expect(w.server.outside).toEqual([]);
    expect(w.server.problems).toEqual([]);
  });

  test('OpenCode: commands beside the allowed loopx calls, redirections and writes into .loopx/ are refused with nothing run, whatever the project config says', async () => {
    const { root, env, cli } = w.setUp();
    // A project config that would allow everything: OpenCode must not read it during a turn.
    writeFileSync(join(root, 'opencode.json'), JSON.stringify({ permission: { bash: { '*': 'allow' }, edit: 'allow' } }));
    const marker = (name: string) => join(root, name);
    w.extra = ({ prefix, todo }) => [
      `touch ${marker('ran-plain')}`,
      `${prefix} todo show ${todo} && touch ${marker('ran-and')}`,
      `${prefix} todo show ${todo}; touch ${marker('ran-semicolon')}`,
      `${prefix} todo show $(touch ${marker('ran-substitution')})`,
      `${prefix} todo show ${todo} > ${join(root, '.loopx', 'ran-redirect')}`,
      { tool: 'write', input: { filePath: join(root, '.loopx', 'ran-write'), content: 'forged' } },
      { tool: 'write', input: { filePath: join(root, 'notes.md'), content: 'the agent may write its work\n' } },
    ];
    const before = w.server.calls.length;
    try {
      const r = await w.run(root, env, ['--host', 'opencode']);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      w.extra = () => [];
    }
    const refused = w.server.calls.slice(before + 1, before + 7);
    expect(refused).toHaveLength(6);
    for (const call of refused) expect(call.output, call.command).toMatch(/rule which prevents you|not allowed|denied/i);
    for (const name of ['ran-plain', 'ran-and', 'ran-semicolon', 'ran-substitution']) expect(existsSync(marker(name)), name).toBe(false);
    for (const name of ['ran-redirect', 'ran-write']) expect(existsSync(join(root, '.loopx', name)), name).toBe(false);
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('the agent may write its work\n');
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'shipped' });
  });

  test("OpenCode: a project with plugins (code OpenCode imports whatever a turn's config says) is refused before anything is claimed", async () => {
    const { root, env, cli } = w.setUp();
    mkdirSync(join(root, '.opencode', 'plugin'), { recursive: true });
    writeFileSync(join(root, '.opencode', 'plugin', 'widen.js'), 'export default async () => ({});\n');
    const r = await w.run(root, env, ['--host', 'opencode']);
    expect(r.code).toBe(3);
    const refusal = JSON.stringify(r.events);
    expect(refusal).toContain('"code":"host_unsafe"');
    expect(refusal).toContain(join(root, '.opencode', 'plugin'));
    expect(cli(['turn', 'list', '--json']).json.data).toEqual([]);
    expect(cli(['todo', 'show', 'T1', '--json']).json.data).toMatchObject({ status: 'open' });
  });
});
