import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { Kernel } from '../../src/kernel/kernel';
import { dumpStore, loopx, seededWorkspace, startGoal } from './harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from './pty';

let ws: ReturnType<typeof seededWorkspace>;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: ws.root, env });
const agent = (args: string[]) => cli(args, { LOOPX_AGENT: 'codex' });
const tty = (args: string[], typed: string, env: Record<string, string> = {}) => loopxTty(args, typed, { cwd: ws.root, env });

beforeEach(() => {
  ws = seededWorkspace('a todo an agent claimed and asked a gate on', (root) => {
    const made = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env });
    made(['init']);
    made(['goal', 'create', '--title', 'g']);
    startGoal(root);
    made(['todo', 'add', '--goal', 'G1', '--title', 'a']);
    made(['todo', 'claim', 'T1'], { LOOPX_AGENT: 'codex' });
    made(['gate', 'ask', '--todo', 'T1', '--question', 'Drop the legacy table?'], { LOOPX_AGENT: 'codex' });
  });
});
afterEach(() => ws.dispose());

describe('an agent cannot make itself the human', () => {
  test.each([
    ['--agent ""', ['gate', 'approve', 'Q1', '--agent', '', '--json'], { LOOPX_AGENT: 'codex' }],
    ['--agent=', ['gate', 'approve', 'Q1', '--agent=', '--json'], { LOOPX_AGENT: 'codex' }],
    ['LOOPX_AGENT=""', ['gate', 'approve', 'Q1', '--json'], { LOOPX_AGENT: '' }],
    ['LOOPX_AGENT=" "', ['todo', 'unblock', 'T1', '--json'], { LOOPX_AGENT: ' ' }],
  ])('an explicitly empty identity (%s) is invalid input, not "no agent"', (_name, args, env) => {
    const before = dumpStore(ws.root);
    const run = cli(args, env);
    expect([run.code, run.json.error?.code]).toEqual([2, 'invalid_input']);
    expect(run.json.error?.message).toMatch(/empty/);
    expect(dumpStore(ws.root)).toBe(before);
  });

  test('an agent named in LOOPX_AGENT cannot act under another name with --agent (appended to a call its host allows); the same name is fine', () => {
    const before = dumpStore(ws.root);
    for (const verb of [
      ['evidence', 'add', '--todo', 'T1', '--summary', 'not mine'],
      ['todo', 'release', 'T1'],
    ]) {
      const run = cli([...verb, '--agent', 'intruder', '--json'], { LOOPX_AGENT: 'codex' });
      expect([run.code, run.json.error?.code], verb.join(' ')).toEqual([2, 'invalid_input']);
      expect(run.json.error?.message).toContain('an agent cannot act under another name');
    }
    expect(dumpStore(ws.root)).toBe(before);
    const same = cli(['evidence', 'add', '--todo', 'T1', '--summary', 'mine', '--agent', 'codex', '--json'], { LOOPX_AGENT: 'codex' });
    expect(same.json.data).toMatchObject({ actor: 'codex' });
  });

  test.each([
    ['gate approve', ['gate', 'approve', 'Q1']],
    ['gate reject', ['gate', 'reject', 'Q1']],
    ['todo unblock', ['todo', 'unblock', 'T1']],
    ['restore --yes', ['restore', 'backup.db', '--yes']],
  ])(
    'without an interactive terminal, %s as a "human" (LOOPX_AGENT unset, any LOOPX_HUMAN) is refused: human_channel_required',
    (_name, args) => {
      const before = dumpStore(ws.root);
      for (const env of [{}, { LOOPX_HUMAN: 'alice' }] as Record<string, string>[]) {
        const run = cli([...args, '--json'], env);
        expect([run.code, run.json.error?.code]).toEqual([3, 'human_channel_required']);
        expect(run.json.error?.hint).toMatch(/VS Code/);
        const text = cli(args, env);
        expect(text.stderr).toMatch(/needs VS Code or an interactive terminal/);
      }
      expect(dumpStore(ws.root)).toBe(before);
    },
  );

  test('an agent may not unblock its own block, resume a goal a human paused, or kill a todo to escape its gate', () => {
    const before = dumpStore(ws.root);
    const kill = agent(['todo', 'kill', 'T1', '--reason', 'escape', '--json']);
    expect([kill.code, kill.json.error?.code]).toEqual([3, 'not_allowed']);
    expect(cli(['todo', 'kill', 'T1', '--reason', 'escape', '--json']).json.error?.code).toBe('human_channel_required');
    expect(dumpStore(ws.root)).toBe(before);

    cli(['todo', 'add', '--goal', 'G1', '--title', 'b']);
    agent(['todo', 'claim', 'T2']);
    expect(agent(['todo', 'block', 'T2', '--reason', 'needs a key']).code).toBe(0);
    expect(agent(['todo', 'unblock', 'T2', '--json']).json.error?.code).toBe('not_allowed');

    expect(cli(['goal', 'pause', 'G1']).code).toBe(0); // pausing is safe for anyone
    const resume = agent(['goal', 'resume', 'G1', '--json']);
    expect([resume.code, resume.json.error?.code]).toEqual([3, 'not_allowed']);
    expect(cli(['goal', 'resume', 'G1', '--json']).json.error?.code).toBe('human_channel_required');
  });

  test("an agent's goal (with any budget) starts paused: a proposal a human starts", () => {
    const created = agent(['goal', 'create', '--title', 'mine', '--turns', '100000', '--json']);
    expect(created.json).toMatchObject({ ok: true, data: { id: 'G2', status: 'paused', policy: { turnsPerWindow: 100000 } } });
    expect(agent(['goal', 'resume', 'G2', '--json']).json.error?.code).toBe('not_allowed');
    expect(cli(['goal', 'create', '--title', 'bare']).stdout).toContain('paused until a human starts it');
  });
});

describe.skipIf(!PTY_AVAILABLE)(`the terminal channel (a pseudo-terminal)${PTY_AVAILABLE ? '' : ` — SKIPPED: ${PTY_SKIP_REASON}`}`, () => {
  test('approve shows the question on stderr, asks for the id; stdout stays one JSON object; the channel is recorded and shown', () => {
    const run = tty(['gate', 'approve', 'q1', '--json'], 'q1');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Drop the legacy table?');
    expect(run.stderr).toContain('Type Q1 to confirm: ');
    expect(run.json).toMatchObject({ ok: true, data: { id: 'Q1', status: 'approved', decidedBy: 'ada' } });
    expect(run.stdout.split(/\r?\n/).filter((l) => l.startsWith('{'))).toHaveLength(1);
    const history = cli(['history', '--todo', 'T1', '--json']).json.data as { kind: string; data: { channel?: string } }[];
    expect(history.find((e) => e.kind === 'gate.decided')?.data.channel).toBe('tty');
    expect(cli(['history', '--todo', 'T1']).stdout).toMatch(/gate\.decided .* ada \(human via tty\)/);
    expect(cli(['review-packet']).stdout).toMatch(/Q1 approved by ada in a terminal/);
  });

  test('typing anything but the id changes nothing (exit 3 not_confirmed)', () => {
    const before = dumpStore(ws.root);
    for (const typed of ['Q2', 'yes', '']) {
      const run = tty(['gate', 'reject', 'Q1', '--json'], typed);
      expect([run.code, run.json?.error?.code]).toEqual([3, 'not_confirmed']);
    }
    expect(dumpStore(ws.root)).toBe(before);
  });

  test('an agent identity is refused even at a terminal', () => {
    const run = tty(['gate', 'approve', 'Q1', '--json'], 'Q1', { LOOPX_AGENT: 'codex' });
    expect(run.json?.error?.code).toBe('not_allowed');
  });

  test('unblock, killing a gated todo and resuming a paused goal go through the typed id', () => {
    cli(['todo', 'add', '--goal', 'G1', '--title', 'b']);
    agent(['todo', 'claim', 'T2']);
    agent(['todo', 'block', 'T2', '--reason', 'needs a key']);
    const unblock = tty(['todo', 'unblock', 'T2', '--json'], 'T2');
    expect(unblock.stderr).toContain('needs a key');
    expect(unblock.json).toMatchObject({ ok: true, data: { status: 'open' } });

    expect(tty(['todo', 'kill', 'T1', '--reason', 'obsolete', '--json'], 'T1').json).toMatchObject({
      ok: true,
      data: { status: 'killed' },
    });
    expect(cli(['gate', 'list', '--json']).json.data).toMatchObject([{ id: 'Q1', status: 'cancelled' }]);

    cli(['goal', 'pause', 'G1']);
    const resume = tty(['goal', 'resume', 'G1', '--json'], 'G1');
    expect(resume.stderr).toContain('budget: 20 turns per 24 h');
    expect(resume.json).toMatchObject({ ok: true, data: { status: 'active' } });
  });

  test('goal create at a terminal asks to start the goal at once; Enter leaves it paused', () => {
    expect(tty(['goal', 'create', '--title', 'now', '--json'], 'G2').json).toMatchObject({
      ok: true,
      data: { id: 'G2', status: 'active' },
    });
    const later = tty(['goal', 'create', '--title', 'later', '--json'], '');
    expect([later.code, later.json?.data]).toMatchObject([0, { id: 'G3', status: 'paused' }]);
  });
});

describe('text that deceives the approver', () => {
  test.each([
    ['U+202E', '\u202e'],
    ['U+200B', '\u200b'],
    ['U+061C', '\u061c'],
    ['U+2028', '\u2028'],
    ['U+2066', '\u2066'],
  ])('%s in a title, question, note or reason is invalid input naming its code point', (point, char) => {
    const before = dumpStore(ws.root);
    for (const args of [
      ['todo', 'add', '--goal', 'G1', '--title', `Ship ${char}it`],
      ['gate', 'ask', '--todo', 'T1', '--question', `Keep ${char}data?`],
      ['todo', 'release', 'T1', '--note', `n${char}n`],
      ['evidence', 'add', '--todo', 'T1', '--summary', `s${char}s`],
    ]) {
      const run = agent([...args, '--json']);
      expect([run.code, run.json.error?.code], args.join(' ')).toEqual([2, 'invalid_input']);
      expect(run.json.error?.message).toContain(point);
    }
    expect(dumpStore(ws.root)).toBe(before);
  });

  test('text already stored with such characters is shown escaped, never raw', () => {
    const db = Kernel.open(ws.root);
    db.db.prepare(`UPDATE gates SET question = ? WHERE id = 'Q1'`).run('Approve \u202ethe deletion');
    db.close();
    const text = cli(['gate', 'list']).stdout;
    expect(text).toContain('Approve <U+202E>the deletion');
    expect(text).not.toContain('\u202e');
    const json = cli(['gate', 'list', '--json']);
    expect(json.stdout).toContain('\\u202e');
    expect(json.json.data).toMatchObject([{ question: 'Approve \u202ethe deletion' }]);
  });
});

test('quota turn ids are case-insensitive like other ids: R7 and r7 spend once', () => {
  expect(agent(['quota', 'spend', '--goal', 'G1', '--turn', 'R7', '--json']).json).toMatchObject({ ok: true, data: { spent: true } });
  expect(agent(['quota', 'spend', '--goal', 'G1', '--turn', 'r7', '--json']).json).toMatchObject({
    ok: true,
    data: { spent: false, alreadySpent: true, quota: { spent: 1 } },
  });
});
