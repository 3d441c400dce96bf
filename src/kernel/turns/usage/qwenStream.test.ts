import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { HostStream, renderProgress } from './hostStream';

test("Qwen Code's stream-json reads as progress (the model, its loopx MCP calls with loopx's answers, a refused shell, an edit, a loopx refusal, the end) and its usage counts the cached input once (Qwen Code 0.24.4's own stream)", () => {
  const stream = new HostStream('qwen');
  const text = readFileSync(join(__dirname, 'fixtures', 'qwen-0.24.4.stream.jsonl'), 'utf8');
  const lines = [...stream.push(text), ...stream.end()].map((l) => renderProgress(l, false));
  expect(lines).toEqual([
    '● Qwen Code 0.24.4 · loopx-scripted',
    '⇄ loopx_todo_show T1',
    '  ✓ T1 open',
    '$ touch x',
    '  ✗ Qwen Code requires permission to use "run_shell_command", but that permission was declined. Matching deny rule: "run_shell_command".',
    '✎ edit /work/space/notes.md',
    '⇄ loopx_ship T1',
    expect.stringMatching(/^ {2}✗ MCP tool 'loopx_ship' reported tool error/),
    '› Done: the turn is written back to loopx.',
    '■ Qwen Code finished',
  ]);
  // Five model requests of 100 tokens in and 20 out; no cost of its own.
  expect(stream.usage).toEqual({
    inputTokens: 500,
    outputTokens: 100,
    cachedTokens: 0,
    costUsd: null,
    costSource: null,
    model: 'loopx-scripted',
  });

  const cached = new HostStream('qwen');
  cached.push(
    `${JSON.stringify({ type: 'result', subtype: 'success', usage: { input_tokens: 1000, output_tokens: 50, cache_read_input_tokens: 800 } })}\n`,
  );
  expect(cached.usage).toMatchObject({ inputTokens: 1000, cachedTokens: 800, outputTokens: 50 });
});
