import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { HostStream, renderProgress } from './hostStream';
import { COPILOT_USAGE_FILE, copilotUsage } from './turnUsage';

const fixtures = join(__dirname, 'fixtures');
const folders: string[] = [];
afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));
const turnFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), 'loopx-copilot-usage-'));
  folders.push(folder);
  return folder;
};

describe("Copilot CLI's output and usage", () => {
  test("its JSON events read as progress: the model, a loopx call with loopx's answer, a refused command, an edit, its words, the end (Copilot CLI 1.0.102's own stream)", () => {
    const stream = new HostStream('copilot');
    const text = readFileSync(join(fixtures, 'copilot-1.0.102.json.jsonl'), 'utf8');
    const lines = [...stream.push(text), ...stream.end()].map((l) => renderProgress(l, false));
    expect(lines).toEqual([
      '● Copilot CLI · loopx-scripted',
      '⇄ loopx todo ship T1 --json',
      '  ✓ T1 shipped',
      '$ touch /work/space/x',
      expect.stringMatching(/^ {2}✗ Permission denied because no interactive user response was available/),
      '✎ create /work/space/notes.md',
      '› Done: the turn is written back to loopx.',
      '■ Copilot CLI finished',
    ]);
    // Its events carry no tokens: the usage file does.
    expect(stream.usage).toBeNull();
  });

  test('usage is read from the file it writes at the end, summed over its models; none when there is no file', () => {
    const folder = turnFolder();
    expect(copilotUsage(folder)).toBeNull();
    copyFileSync(join(fixtures, 'copilot-1.0.102.usage.json'), join(folder, COPILOT_USAGE_FILE));
    expect(copilotUsage(folder)).toEqual({
      inputTokens: 400,
      outputTokens: 80,
      cachedTokens: 0,
      costUsd: null,
      costSource: null,
      model: 'loopx-scripted',
    });
    const usage = (n: number, cached: number, written: number) => ({
      requests: { count: 1, cost: 1 },
      usage: { inputTokens: n, outputTokens: n / 10, cacheReadTokens: cached, cacheWriteTokens: written },
    });
    writeFileSync(
      join(folder, COPILOT_USAGE_FILE),
      JSON.stringify({ currentModel: 'big', modelMetrics: { big: usage(1000, 400, 100), small: usage(200, 0, 0) } }),
    );
    expect(copilotUsage(folder)).toEqual({
      inputTokens: 1200,
      outputTokens: 120,
      cachedTokens: 400,
      cacheWriteTokens: 100,
      costUsd: null,
      costSource: null,
      model: 'big',
    });
    writeFileSync(join(folder, COPILOT_USAGE_FILE), '{"modelMetrics": {}}');
    expect(copilotUsage(folder)).toBeNull();
    writeFileSync(join(folder, COPILOT_USAGE_FILE), 'not json');
    expect(copilotUsage(folder)).toBeNull();
  });
});
