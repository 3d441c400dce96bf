import { describe, expect, test } from 'vitest';
import { type EventData, type EventKind, eventDataSchemas } from '../kernel/events/eventTypes';
import { attentionActionLabel, boardTime, boardTimeTitle, emptyColumnText, eventSentence } from './boardText';
import { COLUMNS, type AttentionItem } from './boardProtocol';

/** One realistic event of every kind the kernel logs (checked against the kernel's own schemas below). */
const SAMPLES: { [K in EventKind]: EventData<K> } = {
  'store.initialized': { schema: 7 },
  'goal.review_set': {
    review: { reviewerHost: 'codex', reviewerAgent: null, otherHost: true, maxRounds: 3, blocking: ['P0', 'P1', 'P2'] },
    from: null,
  },
  'todo.submitted': {
    previousOwner: 'claude',
    round: 1,
    host: 'claude',
    scope: { base: 'a1b2c3d', head: 'e4f5a6b', diffHash: 'ff00', files: ['src/app.ts'] },
    validation: 'npm test passes',
  },
  'todo.review_claimed': { owner: 'codex', leaseToken: 't', leaseExpiresAt: '2026-01-01T12:30:00.000Z', host: 'codex' },
  'todo.review_released': { previousOwner: 'codex', note: null },
  'todo.approved': {
    previousOwner: 'codex',
    round: 1,
    summary: 'looks right',
    findings: [],
    scope: { base: 'a1b2c3d', head: 'e4f5a6b', diffHash: 'ff00', files: ['src/app.ts'] },
    host: 'codex',
    byPerson: false,
  },
  'todo.changes_requested': {
    previousOwner: 'codex',
    round: 1,
    summary: 'one bug',
    findings: [
      { severity: 'P1' as const, confidence: 0.8, file: 'src/app.ts', line: 12, title: 'The retry never stops', body: 'loop has no limit' },
    ],
    scope: { base: 'a1b2c3d', head: 'e4f5a6b', diffHash: 'ff00', files: ['src/app.ts'] },
    host: 'codex',
    byPerson: false,
  },
  'todo.review_unable': { previousOwner: 'codex', round: 1, reason: 'the tests could not run', host: 'codex', escalated: false },
  'runner.started': { pid: 4242, host: 'claude', goals: ['G1'] },
  'log.accepted': { firstBadSeq: 12, problem: 'event 12 does not match its hash', digest: 'ab12' },
  'log.set_aside_handled': { seq: 41, decision: 'a duplicate an agent inserted; nothing to redo' },
  'goal.check_set': { check: 'npm test', from: null },
  'todo.check_set': { check: null, from: 'npm test' },
  'monitor.added': {
    id: 'M1',
    num: 1,
    kind: 'check',
    command: 'gh run view 42',
    everySeconds: 300,
    until: 'exit0',
    runLimitSeconds: 60,
    expiresAt: null,
    nextCheckAt: '2026-01-01T12:05:00.000Z',
    note: 'CI',
  },
  'monitor.run_claimed': { id: 'M1', n: 1, token: 't', until: '2026-01-01T12:06:00.000Z', nextCheckAt: '2026-01-01T12:10:00.000Z' },
  'monitor.checked': {
    id: 'M1',
    n: 1,
    token: 't',
    startedAt: '2026-01-01T12:05:00.000Z',
    exitCode: 1,
    durationMs: 900,
    outputTail: 'pending',
    outputSha256: 'ab',
    timedOut: false,
    error: null,
  },
  'monitor.fired': { id: 'M1', reason: 'exit0', run: 2, result: 'exit 0 after 2 runs', continuation: 'CI is green' },
  'monitor.expired': { id: 'M1', result: 'expired after 6h', continuation: 'CI never finished' },
  'monitor.cancelled': { id: 'M1', result: 'cancelled', continuation: null },
  'monitor.approved': { id: 'M1', command: 'gh run view 1 --exit-status', pattern: null },
  'goal.checks_allowed': { patterns: ['gh run view *'], from: [] },
  'goal.created': {
    id: 'G1',
    num: 1,
    title: 'Ship the CSV importer',
    objective: 'RFC 4180',
    scope: [],
    turnsPerWindow: 20,
    windowHours: 5,
    maxConcurrent: 1,
    cooldownSeconds: 0,
  },
  'goal.status': { status: 'paused', from: 'active' },
  'todo.added': { id: 'T1', num: 1, title: 'Parse quoted fields', detail: '', priority: 1, dependsOn: [] },
  'goal.edited': { title: 'Ship the CSV importer v2', turnsPerWindow: 10 },
  'todo.edited': { priority: 0, dependsOn: ['T2'] },
  'goal.file_applied': { path: 'loopx/csv.goal.md', keys: { 'parse-quoted': 'T1' }, applied: '{}' },
  'todo.claimed': { owner: 'codex', leaseToken: 'tok', leaseExpiresAt: '2026-01-01T12:30:00.000Z', previousOwner: null },
  'todo.renewed': { leaseExpiresAt: '2026-01-01T13:00:00.000Z' },
  'todo.released': { previousOwner: 'codex', note: 'going to lunch' },
  'todo.shipped': { previousOwner: 'codex' },
  'todo.blocked': { reason: 'needs S3 credentials', previousOwner: 'codex' },
  'todo.unblocked': { note: 'credentials in the vault' },
  'todo.killed': { reason: 'nobody needs it', previousOwner: null, cancelledGates: ['Q2'] },
  evidence: { summary: 'quoted fixtures pass (12 tests)', kind: 'test', artifacts: [] },
  'gate.asked': { id: 'Q3', num: 3, question: 'Delete the legacy importer?' },
  'gate.decided': { id: 'Q3', status: 'approved', note: 'yes, drop it' },
  'quota.spent': { turnId: 'codex-run-1' },
  'handoff.offered': {
    id: 'H1',
    num: 1,
    to: 'claude',
    summary: 'half done',
    done: 'parser',
    pending: 'tests',
    permissions: [],
    supersedes: [],
  },
  'handoff.accepted': { id: 'H1', from: 'codex', leaseToken: 'tok', leaseExpiresAt: '2026-01-01T13:00:00.000Z' },
  'turn.started': { id: 'R1', num: 1, agent: 'codex', host: 'codex', promptPath: '.loopx/turns/R1/prompt.md' },
  'turn.configured': {
    id: 'R1',
    command: "opencode run --format json < '.loopx/turns/R1/prompt.md'",
    commandSha256: 'ab12',
    files: [{ path: '.loopx/turns/R1/opencode.json', sha256: 'cd34' }],
  },
  'turn.finished': { id: 'R1', exitCode: 0, resultKind: 'validated_progress', spent: true },
  'runner.stopped': { pid: 4242, host: 'custom', reason: 'idle', turns: 3 },
  'hook.added': { id: 'N1', num: 1, command: 'notify-send "$LOOPX_TITLE"', on: ['gate.asked'], goal: null, timeoutSeconds: 30, note: '' },
  'hook.removed': { id: 'N1' },
  'hook.run_claimed': { id: 'N1', seq: 12, trigger: 'gate.asked', token: 'tok', by: 'loopx run (bot, pid 4242)' },
  'hook.ran': { id: 'N1', seq: 12, token: 'tok', exitCode: 0, durationMs: 40, outputTail: '', timedOut: false, error: null },
  'goal.worktree_set': { base: 'main', from: null },
  'goal.host_set': { host: 'claude', from: null },
  'worktree.created': { branch: 'loopx/T3-parse-csv', base: 'main', baseCommit: 'abc123', path: '/work/app.loopx-worktrees/T3-parse-csv' },
  'worktree.landed': { how: 'merged', branch: 'loopx/T3-parse-csv', head: 'def456', commit: 'def456', mode: 'ff', url: null },
  'worktree.removed': { path: '/work/app.loopx-worktrees/T3-parse-csv', forced: false },
  'team.pushed': { database: 'db.example:5432/loopx', host: 'ada-laptop.local', events: 42 },
  'team.joined': { database: 'db.example:5432/loopx', host: 'ci-runner-3', events: 43 },
  'team.left': { database: 'localhost:5432/ada', host: 'ada-laptop.local', events: 60 },
  'price.set': {
    model: 'gpt-6.2-sol',
    input: 2,
    cachedInput: 0.1,
    output: 10,
    source: 'https://openai.com/api/pricing/',
    asOf: '2026-12-01',
  },
  'price.removed': { model: 'gpt-6.2-sol' },
};
const KINDS = Object.keys(SAMPLES) as EventKind[];
const sentence = (kind: string, data: unknown, actor = 'codex', actorKind = 'agent') => eventSentence({ kind, actor, actorKind, data });

describe('event sentences', () => {
  test('the samples cover every kind the kernel logs, and each is valid event data', () => {
    expect([...KINDS].sort()).toEqual(Object.keys(eventDataSchemas()).sort());
    for (const kind of KINDS) expect(eventDataSchemas()[kind].safeParse(SAMPLES[kind]).success, kind).toBe(true);
  });

  test.each(KINDS)('%s reads as a sentence, never as its code', (kind) => {
    const { text } = sentence(kind, SAMPLES[kind]);
    expect(text).not.toMatch(/[a-z]+[._][a-z]+/); // no todo.shipped, no validated_progress
    expect(text).toMatch(/^[a-z]/);
    if (kind !== 'turn.finished') expect(text).toMatch(/ by codex\b/);
  });

  test.each([
    ['todo.shipped', 'ada', { previousOwner: 'codex' }, 'shipped by ada', ''],
    ['todo.claimed', 'codex', SAMPLES['todo.claimed'], 'claimed by codex', ''],
    ['todo.claimed', 'ada', { ...SAMPLES['todo.claimed'], owner: 'ada', previousOwner: 'codex' }, 'taken over from codex by ada', ''],
    ['todo.released', 'ada', { previousOwner: 'codex', note: null }, "codex's claim released by ada", ''],
    ['todo.released', 'codex', SAMPLES['todo.released'], 'released by codex', 'going to lunch'],
    ['todo.blocked', 'codex', SAMPLES['todo.blocked'], 'blocked by codex', 'needs S3 credentials'],
    ['todo.killed', 'ada', SAMPLES['todo.killed'], 'killed by ada (gate Q2 cancelled)', 'nobody needs it'],
    ['evidence', 'codex', SAMPLES.evidence, 'test evidence added by codex', 'quoted fixtures pass (12 tests)'],
    ['evidence', 'codex', { ...SAMPLES.evidence, kind: 'note' }, 'evidence added by codex', 'quoted fixtures pass (12 tests)'],
    ['evidence', 'codex', { ...SAMPLES.evidence, kind: 'ship' }, 'evidence added by codex', 'quoted fixtures pass (12 tests)'],
    [
      'evidence',
      'codex',
      { ...SAMPLES.evidence, kind: 'load_test' },
      'load test evidence added by codex',
      'quoted fixtures pass (12 tests)',
    ],
    ['gate.asked', 'codex', SAMPLES['gate.asked'], 'gate Q3 asked by codex', 'Delete the legacy importer?'],
    ['gate.decided', 'ada', SAMPLES['gate.decided'], 'gate Q3 approved by ada', 'yes, drop it'],
    ['gate.decided', 'ada', { id: 'Q3', status: 'rejected', note: null }, 'gate Q3 rejected by ada', ''],
    ['goal.status', 'ada', { status: 'active', from: 'paused' }, 'goal resumed by ada', ''],
    ['todo.edited', 'ada', SAMPLES['todo.edited'], 'changed by ada', 'priority, dependencies'],
    ['goal.file_applied', 'ada', SAMPLES['goal.file_applied'], 'goal file applied by ada', 'loopx/csv.goal.md'],
    ['goal.status', 'ada', { status: 'done', from: 'active' }, 'goal marked done by ada', ''],
    ['handoff.offered', 'codex', SAMPLES['handoff.offered'], 'handoff H1 offered to claude by codex', 'half done'],
    ['turn.finished', 'kernel', SAMPLES['turn.finished'], 'turn R1 made progress (counted against the budget)', ''],
    [
      'team.pushed',
      'ada',
      SAMPLES['team.pushed'],
      'this store moved into the team store by ada',
      'db.example:5432/loopx from ada-laptop.local, 42 events',
    ],
    ['price.set', 'ada', SAMPLES['price.set'], 'price of gpt-6.2-sol set by ada', '$2 in, $0.1 cached, $10 out per million tokens'],
    ['price.removed', 'ada', SAMPLES['price.removed'], 'price of gpt-6.2-sol removed by ada', ''],
    ['team.joined', 'ada', SAMPLES['team.joined'], 'a workspace joined the team store by ada', 'db.example:5432/loopx from ci-runner-3'],
    [
      'team.left',
      'ada',
      SAMPLES['team.left'],
      'a workspace moved out of the team store by ada',
      'localhost:5432/ada from ada-laptop.local',
    ],
  ])('%s by %s: "%s"', (kind, actor, data, text, note) => {
    expect(eventSentence({ kind, actor, actorKind: actor === 'kernel' ? 'kernel' : 'agent', data })).toEqual({ text, note });
  });

  test('the kernel acting on its own reads as loopx', () => {
    expect(sentence('todo.released', { previousOwner: 'codex', note: null }, 'kernel', 'kernel').text).toBe(
      "codex's claim released by loopx",
    );
  });

  test('a kind newer than this build still reads as a sentence', () => {
    expect(sentence('todo.teleported', { to: 'mars' })).toEqual({ text: 'recorded by codex', note: '' });
  });

  test('notes are one line, without terminal escapes, and bounded', () => {
    const { note } = sentence('todo.blocked', { reason: `line one\nline two \u001b[31mred\u202e ${'x'.repeat(400)}`, previousOwner: null });
    for (const bad of ['\n', '\u001b', '\u202e']) expect(note).not.toContain(bad);
    expect(note.startsWith('line one line two ?[31mred<U+202E>')).toBe(true);
    expect(note.length).toBeLessThanOrEqual(300);
  });

  test('odd data (null, a string, missing fields) never throws', () => {
    for (const kind of KINDS) {
      for (const data of [null, 'text', {}, { id: 5 }]) expect(() => sentence(kind, data)).not.toThrow();
    }
  });
});

describe('empty columns', () => {
  test.each(COLUMNS)('%s says something, and something else when the filter hides its cards', (column) => {
    const empty = emptyColumnText(column, false);
    expect(empty.length).toBeGreaterThan(8);
    expect(emptyColumnText(column, true)).toBe('No cards match the filter');
  });

  test('In progress invites a drop', () => expect(emptyColumnText('claimed', false)).toBe('Drop a card here to claim it'));
});

describe('attention buttons name what they act on', () => {
  const gate: AttentionItem = {
    kind: 'gate',
    gateId: 'Q3',
    goalId: 'G1',
    todoId: 'T3',
    question: 'Delete the\nlegacy importer?',
    askedBy: 'codex',
    askedAt: '2026-01-01T12:00:00.000Z',
  };
  const goalGate: AttentionItem = { ...gate, todoId: null };
  const blocked: AttentionItem = { kind: 'blocked', todoId: 'T5', title: 'Import from S3', reason: 'needs S3 credentials' };
  const lapsed: AttentionItem = {
    kind: 'lapsed',
    todoId: 'T4',
    title: 'Detect the delimiter',
    owner: 'codex',
    leaseExpiresAt: '2026-01-01T12:00:00.000Z',
  };
  const land: AttentionItem = {
    kind: 'land',
    todoId: 'T3',
    title: 'Parse quoted fields',
    branch: 'loopx/T3-parse-quoted-fields',
    base: 'main',
    size: '2 commits · 3 files +40 −2',
  };

  test.each([
    ['mergeBranch', land, 'Merge loopx/T3-parse-quoted-fields into main (T3): Parse quoted fields'],
    ['showChanges', land, 'Show the changes of loopx/T3-parse-quoted-fields (T3): Parse quoted fields'],
    ['open', land, 'Open T3: Parse quoted fields'],
    ['approve', gate, 'Approve gate Q3 on T3: Delete the legacy importer?'],
    ['reject', gate, 'Reject gate Q3 on T3: Delete the legacy importer?'],
    ['approve', goalGate, 'Approve gate Q3 on goal G1: Delete the legacy importer?'],
    ['open', gate, 'Open T3'],
    ['unblock', blocked, 'Unblock T5: Import from S3'],
    ['open', blocked, 'Open T5: Import from S3'],
    ['release', lapsed, "Release T4 (codex's lease lapsed): Detect the delimiter"],
    ['reassign', lapsed, "Reassign T4 to another agent (codex's lease lapsed): Detect the delimiter"],
  ] as const)('%s on a %o', (action, item, label) => expect(attentionActionLabel(action, item)).toBe(label));

  test('a long question is shortened, so a screen reader does not read a page', () => {
    const label = attentionActionLabel('approve', { ...gate, question: 'why '.repeat(100) });
    expect(label.length).toBeLessThan(150);
    expect(label.endsWith('…')).toBe(true);
  });
});

describe('one time format', () => {
  const now = Date.parse('2026-01-01T12:00:00.000Z');
  test('relative in text, the exact ISO time in the tooltip', () => {
    expect(boardTime('2026-01-01T09:00:00.000Z', now)).toBe('3h ago');
    expect(boardTime('2026-01-01T12:12:00.000Z', now)).toBe('in 12m');
    expect(boardTimeTitle('2026-01-01T09:00:00.000Z')).toContain('(2026-01-01T09:00:00.000Z)');
    expect(boardTimeTitle('not a time')).toBe('not a time');
  });
});
