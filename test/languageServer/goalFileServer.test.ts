import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodeAction, CodeLens, CompletionItem, Diagnostic, DocumentLink, Hover } from 'vscode-languageserver-protocol';
import { LOOPX, dumpStore, loopx, startGoal, workspace } from '../cli/harness';
import { LspClient } from './lspClient';
import { Kernel } from '../../src/kernel/kernel';
import { openDb } from '../../src/kernel/db/openDb';
import { setGoalWorktree } from '../../src/kernel/worktrees/worktreeSetting';

/** The goal-file language server at the protocol level: a real process over stdio, a real store underneath. */
let ws: { root: string; dispose(): void };
let client: LspClient;
const FILE = 'loopx/csv.goal.md';
let uri: string;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });

const TEXT = `---
title: CSV importer
scope: [src/**]
quota:
  turns: 12
todos:
  - key: header
    title: Parse the header row
    priority: 1
  - key: quoted
    title: Quoted fields
    after: [header]
---

Customers send us CSV.
`;

beforeEach(async () => {
  ws = workspace();
  cli(['init']);
  mkdirSync(join(ws.root, 'loopx'));
  mkdirSync(join(ws.root, 'src'));
  writeFileSync(join(ws.root, FILE), TEXT);
  uri = pathToFileURL(join(ws.root, FILE)).href;
  client = new LspClient();
  await client.initialize(ws.root);
});
afterEach(async () => {
  await client.dispose();
  ws.dispose();
});

const at = (line: number, character: number) => ({ textDocument: { uri }, position: { line, character } });
const messages = (d: Diagnostic[]) => d.map((x) => x.message);

describe('diagnostics', () => {
  test('a clean file has none; a bad key gets an error at the key with a did-you-mean quick fix', async () => {
    await client.open(uri, TEXT);
    await client.diagnosticsFor(uri, (d) => d.length === 0);
    await client.change(uri, TEXT.replace('    priority: 1', '    priorty: 1'), 2);
    const diagnostics = await client.diagnosticsFor(uri, (_d, v) => v === 2);
    expect(diagnostics).toMatchObject([
      {
        severity: 1,
        code: 'unknown_key',
        message: "unknown key 'priorty'; did you mean 'priority'?",
        range: { start: { line: 8, character: 4 }, end: { line: 8, character: 11 } },
      },
    ]);
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: diagnostics[0]?.range,
      context: { diagnostics },
    });
    expect(actions).toMatchObject([{ title: "Change to 'priority'", edit: { changes: { [uri]: [{ newText: 'priority' }] } } }]);
  });

  test('unknown after keys, cycles, bad durations and scopes that match nothing', async () => {
    const text = TEXT.replace('after: [header]', 'after: [heder]')
      .replace('turns: 12', 'turns: 12\n  window: soon')
      .replace('scope: [src/**]', 'scope: [src/**, nowhere/**]');
    await client.open(uri, text);
    const diagnostics = await client.diagnosticsFor(uri, (d) => d.length >= 3);
    expect(messages(diagnostics)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/'after' names 'heder'.*did you mean 'header'/),
        expect.stringMatching(/'quota.window' must be a duration/),
      ]),
    );
    const cyclic = TEXT.replace('    priority: 1\n', '    priority: 1\n    after: [quoted]\n');
    await client.change(uri, cyclic, 2);
    expect(messages(await client.diagnosticsFor(uri, (_d, v) => v === 2))).toEqual([
      expect.stringContaining('cycle: header → quoted → header'),
    ]);
    await client.change(uri, TEXT.replace('scope: [src/**]', 'scope: [src/**, nowhere/**]'), 3);
    expect(await client.diagnosticsFor(uri, (_d, v) => v === 3)).toMatchObject([
      { severity: 2, message: "scope 'nowhere/**' matches no file yet: nowhere does not exist in the workspace" },
    ]);
  });

  test('every problem at once: an unknown key does not hide an `after` naming no todo, a bad value or a cycle', async () => {
    const text = TEXT.replace('    priority: 1', '    priorty: 1\n    after: [quoted]')
      .replace('turns: 12', 'turns: many')
      .replace('after: [header]', 'after: [header, heder]');
    await client.open(uri, text);
    const diagnostics = await client.diagnosticsFor(uri, (d) => d.length > 0);
    expect(diagnostics.map((d) => [d.range.start.line, d.code, d.message])).toEqual([
      [4, 'wrong_type', "'quota.turns' should be a whole number, not text"],
      [8, 'unknown_key', "unknown key 'priorty'; did you mean 'priority'?"],
      [12, 'cycle', 'the todos wait for each other in a cycle: header → quoted → header'],
      [12, 'unknown_after', "'after' names 'heder', which is no todo key in this file; did you mean 'header'?"],
    ]);
  });

  test("a quota value goal create refuses is an error at its place, in goal create's words", async () => {
    await client.open(uri, TEXT.replace('turns: 12', 'turns: 12\n  cooldown: 60d'));
    const diagnostics = await client.diagnosticsFor(uri, (d) => d.length > 0);
    expect(diagnostics.map((d) => [d.range.start.line, d.severity, d.code, d.message])).toEqual([
      [5, 1, 'out_of_range', 'cooldown must be a whole number from 0 to 2592000'],
    ]);
    expect(cli(['goal', 'create', '--title', 'x', '--cooldown', '60d', '--json']).json.error?.message).toBe(diagnostics[0]?.message);
  });

  test("a YAML syntax error in one todo leaves the other todos' diagnostics and status lenses standing", async () => {
    expect(cli(['goal', 'apply', FILE]).code).toBe(0);
    const broken = TEXT.replace('title: Parse the header row', 'title: Parse: the: header').replace(
      'after: [header]',
      'after: [header, nope]\n    colour: red',
    );
    await client.open(uri, broken);
    const diagnostics = await client.diagnosticsFor(uri, (d) => d.length > 0);
    expect(diagnostics.map((d) => [d.range.start.line, d.code])).toEqual([
      [7, 'yaml_syntax'],
      [7, 'yaml_syntax'],
      [11, 'unknown_after'],
      [12, 'unknown_key'],
    ]);
    const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    expect(lenses.map((l) => [l.range.start.line, l.command?.title])).toEqual([
      [0, '4 problems to fix before applying'],
      [0, 'Open Board'],
      [0, 'Run Turn'],
      [9, 'T2 · open'],
    ]);
    // Hover on the todo that still parses shows its live state.
    expect(((await client.request<Hover>('textDocument/hover', at(9, 12))).contents as { value: string }).value).toContain('**T2**');
  });

  test('5,000 levels of nesting: a sentence about the file, not the runtime, and the server keeps answering', async () => {
    const deep = TEXT.replace('scope: [src/**]', `scope: ${'['.repeat(5000)}${']'.repeat(5000)}`);
    await client.open(uri, deep);
    const diagnostics = await client.diagnosticsFor(uri, (d) => d.length > 0);
    expect(messages(diagnostics)).toEqual([
      "lists and mappings nest more than 64 levels deep here; a goal file needs 4 (a todo's 'after' list)",
    ]);
    expect(diagnostics[0]?.range.start).toEqual({ line: 2, character: 70 });
    await client.change(uri, TEXT, 2);
    expect(await client.diagnosticsFor(uri, (_d, v) => v === 2)).toEqual([]);
  });

  test("usage caps: a bad one is an error in goal create's words; a cap changed in the store is drift with a quick fix", async () => {
    await client.open(uri, TEXT.replace('turns: 12', 'turns: 12\n  dollars: 0'));
    const bad = await client.diagnosticsFor(uri, (d) => d.length > 0);
    expect(bad.map((d) => [d.range.start.line, d.range.start.character, d.code, d.message])).toEqual([
      [5, 11, 'out_of_range', 'dollars must be an amount above 0 and at most 1000000 per window'],
    ]);
    expect(cli(['goal', 'create', '--title', 'x', '--dollars', '0', '--json']).json.error?.message).toBe(bad[0]?.message);

    const capped = TEXT.replace('turns: 12', 'turns: 12\n  dollars: 10');
    writeFileSync(join(ws.root, FILE), capped);
    expect(cli(['goal', 'apply', FILE]).code).toBe(0);
    await client.change(uri, capped, 2);
    await client.diagnosticsFor(uri, (d, v) => v === 2 && d.length === 0);
    // The goal's hover says what its window used against the cap, and what is left. The file had no error before the
    // apply either, so the wait is on the server having seen the goal the apply created (its watcher, another process).
    const goalHover = async () => ((await client.request<Hover>('textDocument/hover', at(1, 3))).contents as { value: string }).value;
    await waitFor(async () => !(await goalHover()).startsWith('This goal is not in the store yet'));
    expect(await goalHover()).toContain('- used: $0 of $10 · 0 tokens in the last 24 h; $10 left');
    const other = Kernel.open(ws.root, { actor: { name: 'ada', kind: 'human' } });
    other.write((tx) => tx.emit({ kind: 'goal.edited', goalId: 'G1', todoId: null, data: { dollarsPerWindow: 25 } }));
    other.close();
    const drift = await client.diagnosticsFor(uri, (d) => d.some((x) => x.code === 'drift'));
    expect(drift).toMatchObject([{ severity: 3, code: 'drift', range: { start: { line: 5, character: 11 } } }]);
    expect(drift[0]?.message).toMatch(
      /^G1: the store has dollarsPerWindow 25 since ada changed it (just now|\d+s ago); applying the file puts back 10$/,
    );
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: drift[0]?.range,
      context: { diagnostics: drift },
    });
    expect(actions[0]?.edit?.changes?.[uri]).toEqual([
      { range: { start: { line: 5, character: 11 }, end: { line: 5, character: 13 } }, newText: '25' },
    ]);
  });

  test('worktree: hover says what it means; a base changed in the store is drift with a quick fix; a bad setup is an error', async () => {
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: ws.root,
        env: { ...process.env, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@x' },
      });
    git('init', '-q', '-b', 'main');
    git('commit', '-q', '--allow-empty', '-m', 'start');
    git('branch', 'release');
    const text = TEXT.replace('todos:', 'worktree: main\ntodos:');
    writeFileSync(join(ws.root, FILE), text);
    expect(cli(['goal', 'apply', FILE]).code).toBe(0);
    await client.open(uri, text);
    await client.diagnosticsFor(uri, (d) => d.length === 0);
    const hover = await client.request<Hover>('textDocument/hover', at(5, 3));
    expect((hover.contents as { value: string }).value).toMatch(/^`worktree`: Each todo's turns work in their own git worktree/);
    const other = Kernel.open(ws.root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
    setGoalWorktree(other, 'G1', 'release');
    other.close();
    const drift = await client.diagnosticsFor(uri, (d) => d.some((x) => x.code === 'drift'));
    expect(drift).toMatchObject([{ severity: 3, code: 'drift', range: { start: { line: 5, character: 10 } } }]);
    expect(drift[0]?.message).toMatch(
      /^G1: the store has worktree "release" since ada changed it (just now|\d+s ago); applying the file puts back "main"$/,
    );
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: drift[0]?.range,
      context: { diagnostics: drift },
    });
    expect(actions[0]?.edit?.changes?.[uri]).toEqual([
      { range: { start: { line: 5, character: 10 }, end: { line: 5, character: 14 } }, newText: 'release' },
    ]);
    await client.change(uri, text.replace('worktree: main', 'worktree: main\nworktreeSetup: "npm ci \u202e"'), 2);
    const bad = await client.diagnosticsFor(uri, (d, v) => v === 2 && d.some((x) => x.severity === 1));
    expect(bad.filter((d) => d.severity === 1).map((d) => [d.range.start.line, d.message])).toEqual([
      [6, expect.stringMatching(/^worktree setup command contains/)],
    ]);
    // Completion offers both keys where neither is written yet, with what each means.
    await client.change(uri, text.replace('worktree: main\n', '\n'), 3);
    await client.diagnosticsFor(uri, (_d, v) => v === 3);
    const keys = await client.request<CompletionItem[]>('textDocument/completion', at(5, 0));
    expect(keys.map((c) => c.label)).toEqual(expect.arrayContaining(['worktree', 'worktreeSetup']));
    const setup = keys.find((c) => c.label === 'worktreeSetup');
    expect((setup?.documentation as { value: string }).value).toMatch(/run in each new worktree before its agent starts/);
  });

  test('drift shows as information when the store changes after the apply, without the file being touched', async () => {
    expect(cli(['goal', 'apply', FILE]).code).toBe(0);
    await client.open(uri, TEXT);
    await client.diagnosticsFor(uri, (d) => d.length === 0);
    // Someone changes the store after the apply. No adapter in this branch edits a todo's priority yet (the board will):
    // this is the kernel event such an edit appends, written by another process as a person.
    const before = dumpStore(ws.root);
    const other = Kernel.open(ws.root, { actor: { name: 'ada', kind: 'human' } });
    other.write((tx) => tx.emit({ kind: 'todo.edited', goalId: 'G1', todoId: 'T1', data: { priority: 0 } }));
    other.close();
    expect(dumpStore(ws.root)).not.toBe(before);
    const drift = await client.diagnosticsFor(uri, (d) => d.some((x) => x.code === 'drift'));
    expect(drift).toMatchObject([{ severity: 3, code: 'drift', range: { start: { line: 8, character: 14 } } }]);
    expect(drift[0]?.message).toMatch(
      /^T1: the store has priority 0 since ada changed it (just now|\d+s ago); applying the file puts back 1$/,
    );
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: drift[0]?.range,
      context: { diagnostics: drift },
    });
    expect(actions.map((a) => a.title)).toEqual(["Take the store's value into the file", 'Apply the file to the store']);
    expect(actions[0]?.edit?.changes?.[uri]).toEqual([
      { range: { start: { line: 8, character: 14 }, end: { line: 8, character: 15 } }, newText: '0' },
    ]);
    expect(actions[1]?.command).toMatchObject({ command: 'loopx.applyGoalFile', arguments: [{ loopxFolder: ws.root, args: [uri] }] });
  });
});

describe('an edit costs what it changed', () => {
  test('editing one todo of 200 re-parses that todo only and reads nothing from the store until the store changes', async () => {
    const todos = Array.from({ length: 200 }, (_, i) => `  - key: step-${i}\n    title: Step ${i}\n    priority: ${i % 4}\n`).join('');
    const text = (title: string) => `---\ntitle: ${title}\ntodos:\n${todos}---\n\nBackground.\n`;
    writeFileSync(join(ws.root, FILE), text('Steps'));
    expect(cli(['goal', 'apply', FILE]).code).toBe(0);
    await client.open(uri, text('Steps'));
    await client.diagnosticsFor(uri, (d) => d.length === 0);
    type Timings = { changeToDiagnosticsMs: number[]; lastChange: { itemsParsed: number; itemsReused: number; storeReads: number } };
    expect((await client.request<Timings>('loopx/timings', null)).lastChange).toMatchObject({ itemsParsed: 200, itemsReused: 0 });
    await client.change(uri, text('Steps').replace('title: Step 7\n', 'title: Step seven\n'), 2);
    expect(await client.diagnosticsFor(uri, (_d, v) => v === 2)).toEqual([]);
    const after = await client.request<Timings>('loopx/timings', null);
    expect(after.lastChange).toEqual({ itemsParsed: 1, itemsReused: 199, storeReads: 0 });
    expect(after.changeToDiagnosticsMs).toHaveLength(2);
    // The store changes: the watcher drops what the server remembered, and the next check reads it again.
    const other = Kernel.open(ws.root, { actor: { name: 'ada', kind: 'human' } });
    other.write((tx) => tx.emit({ kind: 'todo.edited', goalId: 'G1', todoId: 'T1', data: { priority: 3 } }));
    other.close();
    // (Were the remembered rows kept, the file would still look in sync: no drift.)
    const drift = await client.diagnosticsFor(uri, (d) => d.some((x) => x.code === 'drift'));
    expect(drift.map((d) => d.message)).toEqual([expect.stringMatching(/^T1: the store has priority 3 since ada/)]);
  });
});

describe('completion, hover, code lenses', () => {
  test('completion offers front-matter keys, todo keys and quota keys, and todo keys in after', async () => {
    const text = TEXT.replace('scope: [src/**]\n', 'scope: [src/**]\nob\n').replace('after: [header]', 'after: [');
    await client.open(uri, text);
    await client.diagnosticsFor(uri, () => true);
    const top = await client.request<CompletionItem[]>('textDocument/completion', at(3, 2));
    expect(top.map((c) => c.label)).toEqual(expect.arrayContaining(['objective', 'goal', 'check']));
    expect(top.map((c) => c.label)).not.toContain('title');
    const after = await client.request<CompletionItem[]>('textDocument/completion', at(12, 12));
    // Not 'quoted' itself: a todo cannot come after itself.
    expect(after.map((c) => c.label)).toEqual(['header']);
    const quota = await client.request<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri },
      position: { line: 5, character: 0 },
    });
    expect(quota.map((c) => c.label)).toEqual(expect.arrayContaining(['objective']));
    const scope = await client.request<CompletionItem[]>('textDocument/completion', at(2, 8));
    expect(scope.map((c) => c.label)).toEqual(expect.arrayContaining(['loopx/', 'src/']));
  });

  test('completion under quota offers the caps, tokens and dollars, with what each means; hover explains them', async () => {
    await client.open(uri, TEXT.replace('turns: 12', 'turns: 12\n  tokens: 2000000\n  d'));
    await client.diagnosticsFor(uri, () => true);
    const quota = await client.request<CompletionItem[]>('textDocument/completion', at(6, 3));
    expect(quota.map((c) => c.label)).toEqual(expect.arrayContaining(['dollars', 'window', 'cooldown']));
    const dollars = quota.find((c) => c.label === 'dollars');
    expect((dollars?.documentation as { value: string }).value).toMatch(/US dollars.*`null` removes the cap/);
    const hover = await client.request<Hover>('textDocument/hover', at(5, 4));
    expect((hover.contents as { value: string }).value).toMatch(/^`tokens`: Cap on the tokens \(in and out\)/);
  });

  test("completion in a half-typed after: [ knows the keys the store has (and not the todo's own)", async () => {
    expect(cli(['goal', 'apply', FILE]).code).toBe(0);
    const text = TEXT.replace('after: [header]', 'after: [');
    await client.open(uri, text);
    await client.diagnosticsFor(uri, () => true);
    const after = await client.request<CompletionItem[]>('textDocument/completion', at(11, 12));
    expect(after.map((c) => [c.label, c.detail])).toEqual([['header', 'T1 · open']]);
    // A todo entry still empty (`-` alone, as while typing a new one) does not stop the completion.
    await client.change(uri, text.replace('todos:\n', 'todos:\n  -\n'), 2);
    await client.diagnosticsFor(uri, (_d, v) => v === 2);
    const withEmpty = await client.request<CompletionItem[]>('textDocument/completion', at(12, 12));
    expect(withEmpty.map((c) => c.label)).toEqual(['header']);
  });

  test("after @ in the prose (body, detail) completion offers the store's agents, then the hosts; todo keys offer every and check", async () => {
    expect(cli(['goal', 'apply', FILE]).code).toBe(0);
    expect(cli(['todo', 'add', '--goal', 'G1', '--title', 'Side quest'], { LOOPX_AGENT: 'night-bot' }).code).toBe(0);
    const text = TEXT.replace('    priority: 1\n', '    priority: 1\n    detail: ask @\n    ev\n').replace(
      'Customers send us CSV.',
      'Customers send us CSV. Reviewed by @',
    );
    await client.open(uri, text);
    await client.diagnosticsFor(uri, () => true);
    const inDetail = await client.request<CompletionItem[]>('textDocument/completion', at(9, 17));
    expect(inDetail.map((c) => [c.label, c.detail])).toEqual([
      ['night-bot', expect.stringMatching(/^custom agent, last seen (just now|\d+s ago)$/)],
      ['codex', 'host: codex exec --skip-git-repo-check --json {boundary} -'],
      [
        'claude',
        'host: claude -p --permission-mode acceptEdits --output-format stream-json --verbose {boundary} --allowedTools {allowedTools}',
      ],
      ['opencode', 'host: opencode run --format json --title loopx-turn {boundary}'],
      ['gemini', 'host: gemini --skip-trust --output-format stream-json {boundary}'],
      [
        'copilot',
        'host: copilot --output-format json --no-ask-user --no-auto-update --disable-builtin-mcps --disallow-temp-dir {boundary}',
      ],
      ['qwen', 'host: qwen --bare --output-format stream-json {boundary}'],
      ['pi', 'host: pi -p --mode json --offline --no-approve --no-session --no-skills --no-prompt-templates {boundary}'],
      ['custom', 'host: your own runner (loopx.hosts.custom.command)'],
    ]);
    const inBody = await client.request<CompletionItem[]>('textDocument/completion', at(16, 36));
    expect(inBody.map((c) => c.label)).toEqual(['night-bot', 'codex', 'claude', 'opencode', 'gemini', 'copilot', 'qwen', 'pi', 'custom']);
    const todoKeys = await client.request<CompletionItem[]>('textDocument/completion', at(10, 6));
    expect(todoKeys.map((c) => c.label)).toEqual(expect.arrayContaining(['every', 'at', 'cron', 'tz', 'check']));
  });

  test('hover on a todo key shows its live state; on the title, the goal quota and should-run; lenses say Apply, then In sync', async () => {
    await client.open(uri, TEXT);
    await client.diagnosticsFor(uri, () => true);
    expect((await client.request<Hover>('textDocument/hover', at(6, 12))).contents).toMatchObject({
      value: expect.stringContaining('not in the store yet'),
    });
    let lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    expect(lenses.map((l) => l.command?.title)).toEqual([
      'Apply to store · 3 changes',
      'Open Board',
      'new: Apply to store adds it',
      'new: Apply to store adds it',
    ]);
    expect(lenses[0]?.command).toMatchObject({ command: 'loopx.applyGoalFile', arguments: [{ loopxFolder: ws.root, args: [uri] }] });

    cli(['goal', 'apply', FILE]);
    startGoal(ws.root); // applied outside VS Code and a terminal: the new goal starts paused
    cli(['todo', 'claim', 'T1'], { LOOPX_AGENT: 'codex' });
    cli(['evidence', 'add', '--todo', 'T1', '--summary', 'header fixtures pass'], { LOOPX_AGENT: 'codex' });
    await client.diagnosticsFor(uri, () => true);
    await waitFor(async () =>
      (await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } })).some((l) =>
        l.command?.title.startsWith('T1 · claimed by codex'),
      ),
    );
    lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    expect(lenses.map((l) => l.command?.title)).toEqual([
      'In sync with G1',
      'Open Board',
      'Run Turn',
      expect.stringMatching(/^T1 · claimed by codex \(lease ends in \d+m\)$/),
      'T2 · open',
    ]);
    const todo = await client.request<Hover>('textDocument/hover', at(6, 12));
    expect((todo.contents as { value: string }).value).toMatch(
      /\*\*T1\*\* Parse the header row[\s\S]*status: claimed by codex[\s\S]*evidence: 1 · latest (just now|\d+s ago) by codex: header fixtures pass/,
    );
    const goal = await client.request<Hover>('textDocument/hover', at(1, 3));
    expect((goal.contents as { value: string }).value).toMatch(
      /\*\*G1\*\* CSV importer — active[\s\S]*quota: 0 of 12 turns spent in 24 h · 1 at a time \(held now by codex\)[\s\S]*waits: no todo is ready/,
    );
    const after = await client.request<Hover>('textDocument/hover', at(11, 14));
    expect((after.contents as { value: string }).value).toContain('**T1**');
  });

  test('the server never writes the store: a session of every request leaves it byte-for-byte as it was', async () => {
    cli(['goal', 'apply', FILE]);
    const before = dumpStore(ws.root);
    await client.open(uri, TEXT.replace('priority: 1', 'priority: 3'));
    await client.diagnosticsFor(uri, () => true);
    await client.request('textDocument/hover', at(6, 12));
    await client.request('textDocument/codeLens', { textDocument: { uri } });
    await client.request('textDocument/completion', at(7, 4));
    expect(dumpStore(ws.root)).toBe(before);
  });
});

describe('document links for ids across the workspace', () => {
  test('T1 and G1 in Markdown and in code comments link to Open Todo with their live state; unknown ids and code stay text', async () => {
    cli(['goal', 'apply', FILE]);
    const notes = pathToFileURL(join(ws.root, 'NOTES.md')).href;
    await client.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri: notes, languageId: 'markdown', version: 1, text: 'See T1 and G1; T99 is not a todo.\n' },
    });
    const mdLinks = await client.request<DocumentLink[]>('textDocument/documentLink', { textDocument: { uri: notes } });
    expect(mdLinks.map((l) => [l.range.start.character, l.tooltip])).toEqual([
      [4, 'T1 · open'],
      [11, 'G1 CSV importer'],
    ]);
    const [args] = JSON.parse(decodeURIComponent((mdLinks[0]?.target ?? '').replace('command:loopx.openTodo?', ''))) as [
      { loopxFolder: string; args: string[] },
    ];
    expect(args).toEqual({ loopxFolder: ws.root, args: ['T1'] });
    const hover = await client.request<Hover>('textDocument/hover', { textDocument: { uri: notes }, position: { line: 0, character: 5 } });
    expect((hover.contents as { value: string }).value).toContain('**T1** Parse the header row');

    const code = pathToFileURL(join(ws.root, 'src', 'parse.ts')).href;
    const source = 'const T1 = 1; // header parsing is T1\n';
    await client.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri: code, languageId: 'typescript', version: 1, text: source },
    });
    const codeLinks = await client.request<DocumentLink[]>('textDocument/documentLink', { textDocument: { uri: code } });
    expect(codeLinks.map((l) => l.range.start.character)).toEqual([source.lastIndexOf('T1')]);
    expect(await client.diagnosticsFor(notes, () => true, 1000).catch(() => 'none published')).toBe('none published');
  });
});

describe('other editors (neovim, Helix…): stdio, and lenses without VS Code commands', () => {
  test('`loopx lsp` starts the server on stdio, as an editor configured with the loopx command would (on the Node of the terminal, 20 here)', async () => {
    await client.dispose();
    client = new LspClient(process.env, [LOOPX, 'lsp'], process.execPath);
    const init = (await client.initialize(ws.root, 'other')) as { serverInfo?: { name: string } };
    expect(init.serverInfo?.name).toBe('loopx-goal-files');
    await client.open(uri, TEXT.replace('    priority: 1', '    priorty: 1'));
    expect(messages(await client.diagnosticsFor(uri, (d) => d.length > 0))).toEqual(["unknown key 'priorty'; did you mean 'priority'?"]);
  });

  test('lenses say what is true and what to do, and run no command another editor lacks', async () => {
    await client.dispose();
    client = new LspClient();
    await client.initialize(ws.root, 'other');
    await client.open(uri, TEXT);
    await client.diagnosticsFor(uri, () => true);
    const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    expect(lenses.map((l) => l.command?.title)).toEqual([
      `Not applied · 3 changes: loopx goal apply ${FILE} in a terminal`,
      'new: Apply to store adds it',
      'new: Apply to store adds it',
    ]);
    expect(lenses.every((l) => !l.command?.command)).toBe(true);
  });

  test.each([
    ['not a number', 'abc'],
    ['negative', '-5'],
    ['too small', '10'],
  ])('a frame whose Content-Length is %s is dropped; the server still answers what follows', async (_label, length) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 999, method: 'textDocument/hover', params: at(0, 0) });
    client.sendRaw(`Content-Length: ${length}\r\n\r\n${body}`);
    await client.open(uri, TEXT);
    await client.diagnosticsFor(uri, () => true);
    expect(await client.request('shutdown', null)).toBeNull();
  });
});

describe('the store underneath', () => {
  test('a store an older loopx wrote is not migrated by the server: it says so, and the file is still checked', async () => {
    const db = openDb(Kernel.storePath(ws.root));
    db.exec('PRAGMA user_version = 2');
    db.close();
    await client.open(uri, TEXT.replace('    priority: 1', '    priorty: 1'));
    const diagnostics = await client.diagnosticsFor(uri, (d) => d.length >= 2);
    expect(diagnostics).toMatchObject([
      { code: 'unknown_key' },
      { severity: 2, code: 'store_unavailable', message: expect.stringContaining('schema version 2; this reader needs') },
    ]);
    const check = openDb(Kernel.storePath(ws.root));
    expect(check.prepare('PRAGMA user_version').get()?.user_version).toBe(2);
    check.close();
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
