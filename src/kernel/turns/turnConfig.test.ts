import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo } from '../todos/todos';
import { startTurn } from './turns';
import { finishTurn } from './turnFinish';
import { maskSecrets, recordTurnConfig, recordedTurnConfig, turnConfigOf } from './turnConfig';
import { getTurn } from './turnQueries';
import { checkReplay } from '../replay';
import { verifyChain } from '../events/verify';

let s: TestStore;
beforeEach(() => {
  s = makeStore();
  const goalId = createGoal(s.kernel, { title: 'Ship the parser', turnsPerWindow: 5, maxConcurrent: 3 }).id;
  addTodo(s.kernel, { goalId, title: 'Parse headers' });
  addTodo(s.kernel, { goalId, title: 'Parse body' });
});
afterEach(() => s.dispose());

const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

function started() {
  const turn = startTurn(s.kernel, { goalId: 'G1', host: 'opencode', loopxCommand: '/opt/loopx/bin/loopx' });
  return { turn: turn.turn, dir: dirname(turn.promptFile) };
}

describe("a launched turn's config, recorded as evidence", () => {
  test('names the command with secret-named values masked, its hash as run, and every file in the folder by its hash', () => {
    const { turn, dir } = started();
    writeFileSync(join(dir, 'opencode.json'), '{"permission":{"bash":{"*":"deny"}}}');
    mkdirSync(join(dir, 'home', 'cfg'), { recursive: true });
    writeFileSync(join(dir, 'home', 'cfg', 'settings.json'), '{}');
    symlinkSync('/etc/hostname', join(dir, 'home', 'linked'));
    // Written while the turn runs, not config: left out.
    writeFileSync(join(dir, 'launcher.json'), '{"pid":1}');
    writeFileSync(join(dir, 'output.log'), 'hello');
    const line = `OPENCODE_CONFIG='${dir}/opencode.json' OPENAI_API_KEY=sk-live-123 GH_TOKEN="abc def" opencode run --model m`;
    recordTurnConfig(s.kernel, turn.id, turnConfigOf(line, s.root, dir));

    const config = recordedTurnConfig(s.kernel.db, getTurn(s.kernel.db, turn.id));
    expect(config?.command).toBe(`OPENCODE_CONFIG='${dir}/opencode.json' OPENAI_API_KEY=… GH_TOKEN=… opencode run --model m`);
    expect(config?.commandSha256).toBe(sha(line));
    expect(config?.files).toEqual([
      { path: '.loopx/turns/R1/home/cfg/settings.json', sha256: sha('{}') },
      { path: '.loopx/turns/R1/home/linked', sha256: 'symlink' },
      { path: '.loopx/turns/R1/opencode.json', sha256: sha('{"permission":{"bash":{"*":"deny"}}}') },
      { path: '.loopx/turns/R1/prompt.md', sha256: sha(readFileSync(join(dir, 'prompt.md'))) },
    ]);
    // In the hash-chained log, and replay gives the same state.
    expect(verifyChain(s.kernel.db).ok).toBe(true);
    expect(checkReplay(s.kernel.db).ok).toBe(true);
  });

  test('a secret is masked by its name, whether an assignment or an option; other values stay', () => {
    expect(
      maskSecrets(
        "PATH=/usr/bin KEYBOARD=us OPENAI_API_KEY='sk 1' env GH_TOKEN=ghp_x my-agent --api-key sk-2 --token=t3 --password hunter2 --model gpt-5 --keep -v",
      ),
    ).toBe('PATH=/usr/bin KEYBOARD=us OPENAI_API_KEY=… env GH_TOKEN=… my-agent --api-key … --token=… --password … --model gpt-5 --keep -v');
  });

  test('each turn reads its own config; a turn started from a shell has none', () => {
    const first = started();
    const second = started();
    recordTurnConfig(s.kernel, second.turn.id, turnConfigOf('claude -p two', s.root, second.dir));
    recordTurnConfig(s.kernel, first.turn.id, turnConfigOf('claude -p one', s.root, first.dir));
    expect(recordedTurnConfig(s.kernel.db, getTurn(s.kernel.db, first.turn.id))?.command).toBe('claude -p one');
    expect(recordedTurnConfig(s.kernel.db, getTurn(s.kernel.db, second.turn.id))?.command).toBe('claude -p two');
    addTodo(s.kernel, { goalId: 'G1', title: 'Third' });
    const third = started();
    expect(recordedTurnConfig(s.kernel.db, getTurn(s.kernel.db, third.turn.id))).toBeNull();
  });

  test('recorded once, and never for a finished turn', () => {
    const { turn, dir } = started();
    recordTurnConfig(s.kernel, turn.id, turnConfigOf('codex exec', s.root, dir));
    expect(() => recordTurnConfig(s.kernel, turn.id, turnConfigOf('codex exec --yolo', s.root, dir))).toThrow(/already recorded/);
    const other = started();
    finishTurn(s.kernel, other.turn.id, 0);
    expect(() => recordTurnConfig(s.kernel, other.turn.id, turnConfigOf('codex exec', s.root, other.dir))).toThrow(/already finished/);
    expect(recordedTurnConfig(s.kernel.db, getTurn(s.kernel.db, turn.id))?.command).toBe('codex exec');
  });
});
