import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { HostStream, loopxCall, renderProgress } from './hostStream';
import { DEFAULT_PRICES, checkPrice, priceFor, readPricesFile } from '../../prices/modelPrices';
import { checkUsage, priced } from './usage';
import { CODEX_DEFAULT_MODEL, TURN_OUTPUT, usageOfTurn } from './turnUsage';
import { dollars, meterMoney, tokenWords, usageWords } from '../../../shared/usageWords';

/** What the real CLIs printed for a turn that ships T1 against the scripted model (test/agents/modelServer.ts). */
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

describe("the hosts' structured output as readable lines, and what the turn used", () => {
  test('Claude Code 2.1.197 stream-json: its messages, the loopx write-backs with their answers, and the cost it reported', () => {
    const stream = new HostStream('claude');
    const lines = [...stream.push(fixture('claude-2.1.197.stream.jsonl')), ...stream.end()];
    expect(lines.map((l) => renderProgress(l, false))).toEqual([
      '● Claude Code 2.1.197 · claude-opus-4-8 · acceptEdits',
      '⇄ loopx todo show T1 --json',
      '  ✓ T1 claimed',
      '⇄ loopx evidence add --todo T1 --kind test --summary "checked by the scripted model" --json',
      '  ✓ recorded: checked by the scripted model',
      '⇄ loopx todo ship T1 --json',
      '  ✓ T1 shipped',
      '› Done: the turn is written back to loopx.',
      '■ Claude Code finished after 4 model calls',
    ]);
    expect(stream.usage).toEqual({
      inputTokens: 400,
      outputTokens: 70,
      cachedTokens: 0,
      costUsd: 0.00375,
      costSource: 'host',
      model: 'claude-opus-4-8',
    });
  });

  test('Codex 0.171.0 exec --json: commands unwrapped from bash -lc, tokens summed, no cost until priced', () => {
    const stream = new HostStream('codex');
    const text = fixture('codex-0.171.0.exec.jsonl');
    // Fed in pieces that split lines, as a pipe delivers them.
    const lines = [
      ...stream.push(text.slice(0, 500)),
      ...stream.push(text.slice(500, 1701)),
      ...stream.push(text.slice(1701)),
      ...stream.end(),
    ];
    expect(lines.map((l) => renderProgress(l, false))).toEqual([
      '● Codex started',
      '✗ Model metadata for `loopx-scripted` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.',
      '⇄ loopx todo show T1 --json',
      '  ✓ T1 claimed',
      '⇄ loopx evidence add --todo T1 --kind test --summary "checked by the scripted model" --json',
      '  ✓ recorded: checked by the scripted model',
      '⇄ loopx todo ship T1 --json',
      '  ✓ T1 shipped',
      '› Done: the turn is written back to loopx.',
      '■ Codex finished',
    ]);
    expect(stream.usage).toEqual({ inputTokens: 400, outputTokens: 80, cachedTokens: 0, costUsd: null, costSource: null, model: null });
  });

  test('OpenCode 1.18.33 run --format json: one line per call with its answer, usage summed over the steps with the cache and reasoning, its cost when it has prices', () => {
    const priced = new HostStream('opencode');
    const lines = [...priced.push(fixture('opencode-1.18.33.priced.jsonl')), ...priced.end()];
    expect(lines.map((l) => renderProgress(l, false))).toEqual([
      '● OpenCode started',
      '⇄ loopx todo ship T1',
      '  ✓ loopx stub ok: todo ship T1',
      '› Done: the turn is finished.',
      '■ OpenCode finished',
    ]);
    // Two steps: input leaves out the cache's 400 each, output leaves out the 7 of reasoning each; cost 0.00267 + 0.002985.
    expect(priced.usage).toEqual({
      inputTokens: 600 + 400 + 700 + 400,
      outputTokens: 43 + 7 + 44 + 7,
      cachedTokens: 800,
      costUsd: expect.closeTo(0.005655, 9),
      costSource: 'host',
      model: null,
    });
    const refused = new HostStream('opencode');
    const refusedLines = [...refused.push(fixture('opencode-1.18.33.refused.jsonl')), ...refused.end()];
    expect(refusedLines.slice(0, 3).map((l) => renderProgress(l, false))).toEqual([
      '● OpenCode started',
      '$ touch proj3_touched.txt',
      expect.stringMatching(/^ {2}✗ The user has specified a rule which prevents you from using this specific tool call/),
    ]);
    // No prices for its model: cost 0 in every step is unknown (the price table decides), not free.
    expect(refused.usage).toMatchObject({ inputTokens: 3300, outputTokens: 153, cachedTokens: 1200, costUsd: null, costSource: null });
  });

  test('Gemini CLI 0.61.0 --output-format stream-json: calls paired with their results, text said once whole, usage from its last line', () => {
    const stream = new HostStream('gemini');
    const lines = [...stream.push(fixture('gemini-0.61.0.stream.jsonl')), ...stream.end()].map((l) => renderProgress(l, false));
    expect(lines.slice(0, 5)).toEqual([
      '● Gemini CLI · model chosen per request',
      '⇄ loopx todo ship T1 --evidence "plain"',
      '  ✓ ok: loopx todo ship T1 --evidence plain',
      '$ touch /tmp/gx01',
      '  ✗ Tool execution denied by policy.',
    ]);
    expect(lines.slice(-2)).toEqual(['› Done: the turn is written back to loopx.', '■ Gemini CLI finished']);
    // Its stats: input_tokens counts the cached ones; two models answered (a router and the main one): no one model.
    expect(stream.usage).toEqual({
      inputTokens: 24531,
      outputTokens: 480,
      cachedTokens: 14400,
      costUsd: null,
      costSource: null,
      model: null,
    });
  });

  test("Gemini CLI's last words are said when its stream ends without a result line (killed, cut short)", () => {
    const stream = new HostStream('gemini');
    const events = [
      { type: 'init', model: 'gemini-2.5-pro' },
      { type: 'tool_use', tool_name: 'write_file', tool_id: 'w1', parameters: { file_path: 'notes.md' } },
      { type: 'message', role: 'assistant', content: 'Wrote the notes; ', delta: true },
      { type: 'message', role: 'assistant', content: 'shipping next.', delta: true },
    ];
    const lines = [...stream.push(events.map((e) => JSON.stringify(e)).join('\n') + '\n'), ...stream.end()];
    expect(lines.map((l) => renderProgress(l, false))).toEqual([
      '● Gemini CLI · gemini-2.5-pro',
      '✎ write_file notes.md',
      '› Wrote the notes; shipping next.',
    ]);
    // Said once: a second end has nothing left to say.
    expect(stream.end()).toEqual([]);
  });

  test('a refused write-back and a failing command say so; text and unknown JSON pass through; nothing throws', () => {
    const stream = new HostStream('codex');
    const events = [
      { type: 'item.started', item: { type: 'command_execution', command: "/bin/bash -lc 'npm test'" } },
      {
        type: 'item.completed',
        item: {
          type: 'command_execution',
          command: "/bin/bash -lc 'npm test'",
          aggregated_output: '3 failing\nmore',
          exit_code: 1,
          status: 'failed',
        },
      },
      {
        type: 'item.completed',
        item: {
          type: 'command_execution',
          command: "/bin/bash -lc 'LOOPX_AGENT=codex /x/loopx todo ship T1'",
          aggregated_output: '{"ok":false,"error":{"code":"evidence_required","message":"add evidence first"}}',
          exit_code: 3,
        },
      },
      { type: 'item.completed', item: { type: 'file_change', changes: [{ path: 'src/a.ts', kind: 'update' }] } },
      { type: 'something.new', item: 5 },
      { type: 'turn.failed', error: { message: 'stream disconnected' } },
    ];
    const text = `${events.map((e) => JSON.stringify(e)).join('\n')}\nplain words from a wrapper\n[1,2]\n{"type":"item.completed","item":null}\n`;
    expect(stream.push(text).map((l) => renderProgress(l, false))).toEqual([
      '$ npm test',
      '  ✗ exit 1: 3 failing',
      '  ✗ evidence_required: add evidence first',
      '✎ update src/a.ts',
      '■ Codex stopped: stream disconnected',
      'plain words from a wrapper',
      '[1,2]',
    ]);
  });

  test('colour only when asked: write-backs bold cyan, refusals red', () => {
    expect(renderProgress({ kind: 'loopx', text: 'loopx todo ship T1' }, true)).toBe('\u001b[1;36m⇄ loopx todo ship T1\u001b[0m');
    expect(renderProgress({ kind: 'answer', ok: false, text: 'no' }, true)).toBe('\u001b[31m  ✗ no\u001b[0m');
    expect(renderProgress({ kind: 'say', text: 'hi' }, true)).toBe('› hi');
  });

  test('loopxCall finds the verb behind any prefix, quoted paths included, and nothing in other commands', () => {
    expect(loopxCall("LOOPX_AGENT=claude '/Users/a b/loopx' todo ship T1")).toBe('loopx todo ship T1');
    expect(loopxCall('loopx status --json')).toBe('loopx status --json');
    expect(loopxCall('npm test && echo loopx')).toBeUndefined();
    expect(loopxCall('ls /tmp/loopxdir')).toBeUndefined();
  });
});

describe('usage reports are checked, never trusted', () => {
  test('missing, negative, fractional, absurd or non-numeric numbers are dropped with a warning, never an error', () => {
    expect(checkUsage(undefined)).toEqual({ usage: null, warnings: [] });
    expect(checkUsage('lots').usage).toBeNull();
    expect(checkUsage({}).warnings).toEqual(['the usage report has no token counts; recorded as unknown']);
    const bad = checkUsage({ inputTokens: -5, outputTokens: 1.5, costUsd: 'free' });
    expect(bad.usage).toBeNull();
    expect(bad.warnings).toHaveLength(3);
    const absurd = checkUsage({ inputTokens: 10, outputTokens: 2e12, costUsd: 1e9 });
    expect(absurd.usage).toBeNull();
    expect(absurd.warnings.join(' ')).toMatch(/more than any turn reads.*more than any turn costs/);
    expect(checkUsage({ inputTokens: 10, cachedTokens: 50 }).usage).toMatchObject({ cachedTokens: 0 });
  });

  test('one bad token count beside good ones makes the usage unknown, not 0, so totals and token caps do not undercount', () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { inputTokens: -5, outputTokens: 300, costUsd: 0.02 },
        "inputTokens -5 is not a whole number of tokens; the turn's usage is recorded as unknown",
      ],
      [
        { inputTokens: 1200, outputTokens: 1.5 },
        "outputTokens 1.5 is not a whole number of tokens; the turn's usage is recorded as unknown",
      ],
      [
        { inputTokens: 2e12, outputTokens: 300 },
        "inputTokens 2000000000000 is more than any turn reads; the turn's usage is recorded as unknown",
      ],
      // JSON's 1e999 parses to Infinity: said as such, not as "null".
      [
        JSON.parse('{"inputTokens": 1e999, "outputTokens": 300}') as Record<string, unknown>,
        "inputTokens Infinity is not a number of tokens; the turn's usage is recorded as unknown",
      ],
      [
        { inputTokens: 1200, outputTokens: 300, cachedTokens: -1 },
        "cachedTokens -1 is not a whole number of tokens; the turn's usage is recorded as unknown",
      ],
    ];
    for (const [report, warning] of cases) expect(checkUsage(report)).toEqual({ usage: null, warnings: [warning] });
  });

  test('a loopx-usage line whose rest is not JSON says so; the last line counts', () => {
    const root = mkdtempSync(join(tmpdir(), 'loopx-usage-line-'));
    const output = (text: string) => {
      mkdirSync(join(root, '.loopx', 'turns', 'R1'), { recursive: true });
      writeFileSync(join(root, '.loopx', 'turns', 'R1', TURN_OUTPUT), text);
      return usageOfTurn(root, '.loopx', { id: 'R1', host: 'custom' });
    };
    try {
      const notJson = { usage: null, warnings: ['the loopx-usage line is not JSON; recorded as unknown'] };
      expect(output('working\nloopx-usage: 1200 tokens, two cents\n')).toEqual(notJson);
      expect(output('loopx-usage: {"inputTokens": 1200,}\n')).toEqual(notJson);
      expect(output('loopx-usage: 42\n')).toEqual({ usage: null, warnings: ['the usage report is not an object; recorded as unknown'] });
      expect(output('loopx-usage: oops\nloopx-usage: {"inputTokens": 1200, "outputTokens": 300, "costUsd": 0.02}\n').usage).toMatchObject({
        inputTokens: 1200,
        costUsd: 0.02,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('a good report is kept as it came', () => {
    expect(checkUsage({ inputTokens: 1200, outputTokens: 300, cachedTokens: 1000, costUsd: 0.02, model: 'gpt-5' })).toEqual({
      usage: { inputTokens: 1200, outputTokens: 300, cachedTokens: 1000, costUsd: 0.02, costSource: 'host', model: 'gpt-5' },
      warnings: [],
    });
  });

  test('words people read: tokens and dollars', () => {
    expect([tokenWords(470), tokenWords(41_230), tokenWords(1_250_000)]).toEqual(['470 tokens', '41.2k tokens', '1.3M tokens']);
    expect([dollars(3.2), dollars(10), dollars(0.05), dollars(0.00375), dollars(0)]).toEqual(['$3.20', '$10', '$0.05', '$0.0038', '$0']);
    expect(usageWords(null)).toBe('usage unknown');
    expect(usageWords({ inputTokens: 400, outputTokens: 70, cachedTokens: 0, costUsd: 0.00375 })).toBe('$0.0038 · 470 tokens');
  });
});

describe('the price table', () => {
  test('a model matches its own entry or the longest entry its name starts with', () => {
    expect(priceFor('gpt-5-codex')?.name).toBe('gpt-5-codex');
    expect(priceFor('gpt-5-2025-08-07')?.name).toBe('gpt-5');
    expect(priceFor('claude-sonnet-4-5[1m]')?.name).toBe('claude-sonnet-4');
    expect(priceFor('loopx-scripted')).toBeUndefined();
    // Another model of the line is not a variant of gpt-5: unpriced until the table has it, never priced as gpt-5.
    expect(priceFor('gpt-5.5')).toBeUndefined();
    expect(priceFor('gpt-6.2-sol-2026-11-17')?.name).toBe('gpt-6.2-sol');
    for (const entry of Object.values(DEFAULT_PRICES)) expect(entry.source).toMatch(/^https:\/\//);
  });

  test('computes a cost when the host reported none: cached input at its own rate', () => {
    const usage = {
      inputTokens: 1_000_000,
      outputTokens: 100_000,
      cachedTokens: 400_000,
      costUsd: null,
      costSource: null,
      model: 'gpt-5',
    } as const;
    // 600k fresh at $1.25/M + 400k cached at $0.125/M + 100k out at $10/M
    expect(priced(usage)).toMatchObject({ costUsd: 0.75 + 0.05 + 1, costSource: 'prices' });
    expect(priced({ ...usage, costUsd: 9, costSource: 'host' }).costUsd).toBe(9);
    expect(priced({ ...usage, model: null }).costUsd).toBeNull();
  });

  test("a person's price is checked in one place: three numbers ≥ 0, a model name, a one-line source, a date", () => {
    const today = '2027-01-02';
    expect(checkPrice(' GPT-5 ', { input: 1, cachedInput: 0.1, output: 2 }, today)).toEqual({
      model: 'gpt-5',
      input: 1,
      cachedInput: 0.1,
      output: 2,
      source: '',
      asOf: today,
    });
    expect(checkPrice('gpt-5', { input: -1, cachedInput: 0, output: 0 }, today)).toMatch(/numbers ≥ 0/);
    expect(checkPrice('gpt-5', { input: 1, cachedInput: Number.NaN, output: 0 }, today)).toMatch(/numbers ≥ 0/);
    expect(checkPrice('gpt-5', { input: '1', cachedInput: 0, output: 0 }, today)).toMatch(/numbers ≥ 0/);
    expect(checkPrice('my model', { input: 1, cachedInput: 0, output: 0 }, today)).toMatch(/not a model name/);
    expect(checkPrice('gpt-5', { input: 1, cachedInput: 0, output: 0, asOf: 'yesterday' }, today)).toMatch(/YYYY-MM-DD/);
    expect(checkPrice('gpt-5', { input: 1, cachedInput: 0, output: 0, source: 'a\nb' }, today)).toMatch(/one line/);
  });

  test("an old prices.json is read only to import it: each entry checked as a person's price, a bad one skipped in words", () => {
    const { entries, problems } = readPricesFile(
      JSON.stringify({ 'loopx-scripted': { input: 1, cachedInput: 0.1, output: 2, asOf: '2026-12-01' }, 'gpt-5': { input: 'cheap' } }),
      '2027-01-02',
    );
    expect(entries).toEqual([
      { model: 'loopx-scripted', input: 1, cachedInput: 0.1, output: 2, source: 'prices.json', asOf: '2026-12-01' },
    ]);
    expect(problems).toEqual([
      'prices.json: gpt-5 needs input, cachedInput and output as numbers ≥ 0, in dollars per million tokens; skipped',
    ]);
    expect(readPricesFile('{', '2027-01-02').problems[0]).toMatch(/not JSON/);
    expect(readPricesFile('[1]', '2027-01-02').problems[0]).toMatch(/should map model names/);
  });
});

describe("a Codex turn's model when its config.toml names none", () => {
  /** A workspace with one finished Codex turn (the real 0.171.0 output) and a CODEX_HOME with this config.toml. */
  function codexTurn(config: string | null) {
    const root = mkdtempSync(join(tmpdir(), 'loopx-codex-model-'));
    mkdirSync(join(root, '.loopx', 'turns', 'R1'), { recursive: true });
    writeFileSync(join(root, '.loopx', 'turns', 'R1', TURN_OUTPUT), fixture('codex-0.171.0.exec.jsonl'));
    mkdirSync(join(root, 'codex-home'));
    if (config !== null) writeFileSync(join(root, 'codex-home', 'config.toml'), config);
    try {
      return usageOfTurn(root, '.loopx', { id: 'R1', host: 'codex' }, { env: { CODEX_HOME: join(root, 'codex-home') } });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  // 400 tokens in at $2/M and 80 out at $10/M: the dated, cited price of Codex's own default model.
  const atDefault = { inputTokens: 400, outputTokens: 80, costUsd: (400 * 2 + 80 * 10) / 1e6, costSource: 'prices', model: 'gpt-6.2-sol' };

  test("priced at Codex 0.171.0's default model (gpt-6.2-sol), with or without a config file", () => {
    expect(CODEX_DEFAULT_MODEL).toBe('gpt-6.2-sol');
    expect(DEFAULT_PRICES[CODEX_DEFAULT_MODEL]).toMatchObject({ source: expect.stringMatching(/^https:\/\//), asOf: '2026-12-01' });
    expect(codexTurn('model_provider = "openai"\ncheck_for_update_on_startup = false\n')).toEqual({
      usage: expect.objectContaining(atDefault),
      warnings: [],
    });
    expect(codexTurn(null).usage).toMatchObject(atDefault);
  });

  test("the config's model wins, and the selected profile's over it; a config Codex would refuse prices nothing", () => {
    expect(codexTurn('model = "gpt-5"\n').usage).toMatchObject({ model: 'gpt-5', costUsd: (400 * 1.25 + 80 * 10) / 1e6 });
    expect(codexTurn('model = "gpt-5"\nprofile = "cheap"\n[profiles.cheap]\nmodel = "gpt-5-nano"\n').usage).toMatchObject({
      model: 'gpt-5-nano',
    });
    expect(codexTurn('model = [oops').usage).toMatchObject({ model: null, costUsd: null });
  });
});

test("a goal's meter shows money against its cap, money without a cap once there is any, else nothing", () => {
  expect(meterMoney({ dollars: 3.2, dollarsPerWindow: 10 })).toBe(' · $3.20/$10');
  expect(meterMoney({ dollars: 0, dollarsPerWindow: 10 })).toBe(' · $0/$10');
  expect(meterMoney({ dollars: 3.2, dollarsPerWindow: null })).toBe(' · $3.20');
  expect(meterMoney({ dollars: 0, dollarsPerWindow: null })).toBe('');
});
