import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { DEFAULT_HOSTS, planHost, shellQuote } from '../../src/runtime/hosts';

/** A host's command line as a terminal runs it, through the built bin/loopx: so a process suite (it needs dist/). */
const dir = mkdtempSync(join(tmpdir(), 'loopx hosts \' "$(id)"-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const turn = {
  promptFile: join(dir, 'prompt.md'),
  dir,
  env: { LOOPX_TURN: 'R1', LOOPX_TODO: 'T1', LOOPX_GOAL: 'G1', LOOPX_AGENT: 'codex' },
};

test("in a terminal, Claude Code's JSON lines read as sentences through loopx turn progress; the log keeps them raw", () => {
  const fixture = join(__dirname, '..', '..', 'src', 'kernel', 'turns', 'usage', 'fixtures', 'claude-2.1.197.stream.jsonl');
  const loopx = join(__dirname, '..', '..', 'bin', 'loopx');
  writeFileSync(turn.promptFile, 'the prompt'); // the host's stdin
  const plan = planHost('claude', { ...DEFAULT_HOSTS, claude: `cat ${shellQuote(fixture)}` }, { ...turn, progressLoopx: loopx });
  const out = execFileSync('/bin/sh', ['-c', plan.commandLine], {
    encoding: 'utf8',
    input: '\n',
    env: { ...process.env, NO_COLOR: '1' },
  });
  expect(out).toContain('⇄ loopx todo ship T1 --json\n  ✓ T1 shipped\n› Done: the turn is written back to loopx.\n');
  expect(out).not.toContain('"type":"assistant"');
  expect(readFileSync(join(dir, 'output.log'), 'utf8')).toContain(readFileSync(fixture, 'utf8'));
  // Without a loopx to render with (or a host that prints text), the output is shown as it comes.
  expect(planHost('claude', DEFAULT_HOSTS, turn).commandLine).not.toContain('turn progress');
  expect(planHost('custom', { ...DEFAULT_HOSTS, custom: 'x' }, { ...turn, progressLoopx: loopx }).commandLine).not.toContain(
    'turn progress',
  );
});
