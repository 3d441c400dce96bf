import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { HostStream, renderProgress } from './hostStream';

test("Pi's JSON events read as progress (its loopx MCP calls with loopx's answers, each refusal of loopx's guard with its reason, an edit, its words, the end) and its usage sums its requests (Pi 1.6.0's own stream, less its last agent_end, which repeats every message)", () => {
  const stream = new HostStream('pi');
  const text = readFileSync(join(__dirname, 'fixtures', 'pi-1.6.0.json.jsonl'), 'utf8');
  const lines = [...stream.push(text), ...stream.end()].map((l) => renderProgress(l, false));
  expect(lines).toEqual([
    '● Pi started',
    '⇄ loopx_todo_show T1',
    '  ✓ T1 open',
    '$ touch /work/space/ran-bash',
    '  ✗ Tool bash not found',
    '✎ write /work/space/.loopx/x',
    "  ✗ loopx: /work/space/.loopx/x is loopx's; this turn may not change it",
    '✎ write innocent.txt',
    "  ✗ loopx: innocent.txt is loopx's; this turn may not change it",
    '· read /etc/hostname',
    '  ✗ loopx: /etc/hostname is outside the workspace',
    '✎ write notes.md',
    '⇄ loopx_claim T1',
    '  ✗ loopx: this turn has no mcp__loopx__loopx_claim',
    '✎ write ../escape.txt',
    '  ✗ loopx: ../escape.txt is outside the workspace',
    '› Done: the turn is written back to loopx.',
    '■ Pi finished',
  ]);
  // Nine model requests of 100 tokens in and 20 out; Pi has no price for the scripted model (cost 0): the table decides.
  expect(stream.usage).toEqual({
    inputTokens: 900,
    outputTokens: 180,
    cachedTokens: 0,
    costUsd: null,
    costSource: null,
    model: 'loopx-scripted',
  });

  // Its input leaves out what the cache served: loopx counts all of it, the cached part apart; its own price is kept.
  const cached = new HostStream('pi');
  const usage = { input: 200, output: 30, cacheRead: 800, cacheWrite: 100, cost: { total: 0.0042 } };
  cached.push(`${JSON.stringify({ type: 'message_end', message: { role: 'assistant', model: 'm', usage, content: [] } })}\n`);
  expect(cached.usage).toEqual({
    inputTokens: 1100,
    outputTokens: 30,
    cachedTokens: 800,
    cacheWriteTokens: 100,
    costUsd: 0.0042,
    costSource: 'host',
    model: 'm',
  });
});
