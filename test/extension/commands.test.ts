import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { claudeMcpSetup } from '../../src/runtime/projections/mcpSetup';
import type { Gate, Goal, Todo } from '../../src/kernel/model';
import { askGate } from '../../src/kernel/gates/gates';
import { claimTodo, releaseTodo } from '../../src/kernel/todos/claims';
import { addTodo, killTodo } from '../../src/kernel/todos/todos';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { getGoal } from '../../src/kernel/goals/goalQueries';
import { COMMANDS } from '../../src/extension/commands/commandIds';
import { BUSY_TIMEOUT_MS } from '../../src/kernel/db/openDb';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ENTER, app, otherWriter, until, withAnswers, workspaceRoot } from './support';
import { personalPrices } from '../../src/kernel/prices/priceTable';

const pickLabel = (label: string) => (items: readonly vscode.QuickPickItem[]) => {
  const item = items.find((i) => i.label === label || i.label.startsWith(`${label} `));
  if (!item) throw new Error(`no pick item ${label} in ${items.map((i) => i.label).join(', ')}`);
  return item;
};
const pickMany =
  (...labels: string[]) =>
  (items: readonly vscode.QuickPickItem[]) =>
    items.filter((i) => labels.some((l) => i.label.startsWith(`${l} `)));

suite('commands', () => {
  test('package.json contributes exactly the commands the extension registers', async () => {
    const ext = vscode.extensions.getExtension('loopx.loopx');
    const contributed = (ext?.packageJSON.contributes.commands as { command: string }[]).map((c) => c.command).sort();
    // VS Code adds its own commands per view (loopx.goals.focus, …): those are not ours to contribute.
    const viewIds = (ext?.packageJSON.contributes.views.loopx as { id: string }[]).map((v) => v.id.split('.')[1]);
    const registered = (await vscode.commands.getCommands(true))
      .filter((c) => c.startsWith('loopx.') && !viewIds.includes(c.split('.')[1] ?? ''))
      .sort();
    assert.deepEqual(contributed, Object.values(COMMANDS).sort());
    for (const id of contributed)
      assert.ok((await vscode.commands.getCommands(true)).includes(id), `${id} is contributed but not registered`);
    assert.deepEqual(
      registered.filter((id) => !(contributed as string[]).includes(id)),
      [],
      'registered but not contributed',
    );
  });

  test('New Goal asks title, objective, scope, turns, optional caps, worktree base, agent and review, creates the goal, then asks how to plan it', async () => {
    const { result, prompts } = await withAnswers(
      {
        inputs: ['Ship the parser', 'All fixtures parse', 'src/**, docs/parser.md', '12', '2M', '$10', ''],
        picks: [pickLabel('Choose at each turn'), pickLabel('No review'), pickLabel('$(close) Later')],
      },
      async () => vscode.commands.executeCommand<Goal>(COMMANDS.newGoal),
    );
    assert.equal(prompts.filter((p) => p.startsWith('input:')).length, 7);
    assert.match(prompts[0] ?? '', /New Goal \(1\/9\) Title/);
    assert.match(prompts[4] ?? '', /New Goal \(5\/9\) Token cap per day \(optional\)/);
    assert.match(prompts[5] ?? '', /New Goal \(6\/9\) Money cap per day \(optional\)/);
    assert.match(prompts[6] ?? '', /New Goal \(7\/9\) Worktrees \(optional\)/);
    // The agent: none of its own unless picked (the first item, Enter).
    assert.match(prompts[7] ?? '', /^pick: LoopX: New Goal \(8\/9\) Agent \(optional\) \[Choose at each turn/);
    assert.equal(result.host, null);
    // Review: none unless picked (the first item, Enter); Set Review… changes it later.
    assert.match(
      prompts[8] ?? '',
      /^pick: LoopX: New Goal \(9\/9\) Review \(optional\) \[No review \| Any agent but the implementer \| An agent on another host/,
    );
    assert.equal(result.review, null);
    // Plan in a File is a step of the flow (a pick that waits), not a toast that hides itself.
    assert.match(
      prompts[9] ?? '',
      /^pick: LoopX: created G1 Ship the parser\. Plan its todos: \[\$\(file-code\) Plan in a File \| \$\(add\) Add a Todo \| \$\(close\) Later\]/,
    );
    assert.deepEqual(
      {
        id: result.id,
        scope: result.scope,
        turns: result.policy.turnsPerWindow,
        tokens: result.policy.tokensPerWindow,
        dollars: result.policy.dollarsPerWindow,
      },
      { id: 'G1', scope: ['src/**', 'docs/parser.md'], turns: 12, tokens: 2_000_000, dollars: 10 },
    );
  });

  test('New Goal with Enter on every optional step leaves worktrees off (the step starts empty, as its text says)', async () => {
    // A repository with a commit, so the folder has a branch the step could have filled in (Initialize made the repo).
    const git = (args: string[]) =>
      spawnSync('git', ['-c', 'user.name=loopx tests', '-c', 'user.email=tests@loopx.invalid', ...args], { cwd: workspaceRoot() });
    if (git(['rev-parse', '--verify', '-q', 'HEAD']).status !== 0) git(['commit', '-q', '--allow-empty', '-m', 'a branch to suggest']);
    assert.notEqual(git(['rev-parse', '--abbrev-ref', 'HEAD']).stdout.toString().trim(), 'HEAD');
    const { result, prompts } = await withAnswers(
      {
        inputs: ['Enter through the wizard', ENTER, ENTER, ENTER, ENTER, ENTER, ENTER],
        picks: [(items) => items[0] as vscode.QuickPickItem, (items) => items[0] as vscode.QuickPickItem, pickLabel('$(close) Later')],
      },
      async () => vscode.commands.executeCommand<Goal>(COMMANDS.newGoal),
    );
    assert.match(prompts[6] ?? '', /New Goal \(7\/9\) Worktrees \(optional\)/);
    assert.equal(result.host, null);
    assert.equal(result.review, null); // Enter on the review step: no review
    assert.deepEqual([result.worktreeBase, result.policy.turnsPerWindow, result.policy.tokensPerWindow], [null, 20, null]);
    setGoalStatus(await app().then((a) => a.session.requireKernel()), result.id, 'done');
  });

  test('New Goal says in words what is wrong with a cap, and creates nothing until it is right', async () => {
    const loopx = await app();
    const goals = () => Number(loopx.session.requireKernel().db.prepare('SELECT count(*) AS n FROM goals').get()?.n);
    const before = goals();
    const { result, prompts } = await withAnswers({ inputs: ['Another goal', '', '', '20', '', 'ten dollars'] }, async () =>
      vscode.commands.executeCommand<Goal>(COMMANDS.newGoal),
    );
    assert.equal(result, undefined);
    assert.equal(prompts.at(-1), 'refused: Type an amount in US dollars, like 10 or 2.50, or leave it empty for no cap');
    assert.equal(goals(), before);
  });

  test("New Goal's agent pick offers the agents installed here, and the one picked is the goal's, a person's decision", async () => {
    const hostSettings = vscode.workspace.getConfiguration('loopx.hosts');
    const saved = hostSettings.inspect<string>('custom.command')?.globalValue;
    // A custom command whose program is here (node): offered as an installed agent.
    await hostSettings.update('custom.command', 'node ./my-agent.js {prompt}', vscode.ConfigurationTarget.Global);
    try {
      const { result, prompts } = await withAnswers(
        {
          inputs: ['Agent of its own', ENTER, ENTER, ENTER, ENTER, ENTER, ENTER],
          picks: [pickLabel('Custom command'), pickLabel('An agent on another host'), pickLabel('$(close) Later')],
        },
        async () => vscode.commands.executeCommand<Goal>(COMMANDS.newGoal),
      );
      assert.match(prompts[7] ?? '', /Agent \(optional\) \[Choose at each turn \| .*Custom command/);
      assert.equal(result.host, 'custom');
      // The review picked at the last step is the goal's too, with the default rounds.
      assert.deepEqual(result.review, {
        reviewerHost: null,
        reviewerAgent: null,
        otherHost: true,
        maxRounds: 3,
        blocking: ['P0', 'P1', 'P2'],
      });
      const loopx = await app();
      const decided = loopx.session
        .requireKernel()
        .db.prepare(`SELECT actor_kind, data FROM events WHERE kind = 'goal.host_set' AND goal_id = ?`)
        .all(result.id);
      assert.deepEqual(
        decided.map((r) => [r.actor_kind, JSON.parse(String(r.data)).host, JSON.parse(String(r.data)).channel]),
        [['human', 'custom', 'vscode']],
      );
      // Choose Agent… on the goal's row changes it later: the current one is marked; Choose at each turn clears it.
      const changed = await withAnswers({ picks: [pickLabel('Choose at each turn')] }, async () =>
        vscode.commands.executeCommand<Goal>(COMMANDS.chooseGoalAgent, result.id),
      );
      assert.match(
        changed.prompts[0] ?? '',
        new RegExp(`^pick: LoopX: the agent of ${result.id} Agent of its own \\[Choose at each turn \\| .*Custom command`),
      );
      assert.equal(changed.result.host, null);
      assert.equal(loopx.session.requireKernel().read((db) => getGoal(db, result.id)).host, null);
      setGoalStatus(loopx.session.requireKernel(), result.id, 'done');
    } finally {
      await hostSettings.update('custom.command', saved, vscode.ConfigurationTarget.Global);
    }
  });

  test('Plan in a File opens the goal file with no warning on the scope the person chose (src/ does not exist yet)', async () => {
    const loopx = await app();
    const uri = await vscode.commands.executeCommand<vscode.Uri>(COMMANDS.planInFile, 'G1');
    assert.match(uri.fsPath, /loopx[\\/]ship-the-parser\.goal\.md$/);
    assert.equal(await loopx.goalFiles.ready(), true);
    const hint = await until(
      () => vscode.languages.getDiagnostics(uri).find((d) => d.code === 'scope_matches_nothing'),
      'the scope note on the goal file',
    );
    assert.equal(hint.severity, vscode.DiagnosticSeverity.Hint, hint.message);
    assert.deepEqual(
      vscode.languages
        .getDiagnostics(uri)
        .filter((d) => d.severity <= vscode.DiagnosticSeverity.Warning)
        .map((d) => d.message),
      [],
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    rmSync(uri.fsPath);
  });

  test('Add Todo asks title, acceptance, priority and dependencies', async () => {
    const first = await withAnswers({ inputs: ['Parse headers', 'tests/headers pass'], picks: [pickLabel('P1')] }, async () =>
      vscode.commands.executeCommand<Todo>(COMMANDS.addTodo, 'G1'),
    );
    assert.deepEqual([first.result.id, first.result.priority, first.result.detail], ['T1', 1, 'tests/headers pass']);
    const second = await withAnswers({ inputs: ['Parse body', ''], picks: [pickLabel('P2'), pickMany('T1')] }, async () =>
      vscode.commands.executeCommand<Todo>(COMMANDS.addTodo, 'G1'),
    );
    assert.deepEqual(second.result.dependsOn, ['T1']);
    const third = await withAnswers({ inputs: ['Write the docs', ''], picks: [pickLabel('P3'), pickMany()] }, async () =>
      vscode.commands.executeCommand<Todo>(COMMANDS.addTodo, 'G1'),
    );
    assert.equal(third.result.id, 'T3');
    assert.match(third.prompts.join('\n'), /info: Added T3 “Write the docs” to G1\. \[Add Another\]/);
  });

  test('Escape after the title asks first: Add Todo keeps what was entered, Cancel discards it', async () => {
    const kernel = (await app()).session.requireKernel();
    // A goal of its own (done at the end), so G1's groups stay as the views suite expects them.
    const goal = createGoal(kernel, { title: 'Escape fixtures' });
    const count = () => (kernel.db.prepare(`SELECT count(*) AS n FROM todos WHERE goal_id = ?`).get(goal.id) as { n: number }).n;
    const escape = () => undefined;
    const kept = await withAnswers({ inputs: ['Count footers', 'footer rows pass'], picks: [escape], warnings: ['Add Todo'] }, async () =>
      vscode.commands.executeCommand<Todo>(COMMANDS.addTodo, goal.id),
    );
    assert.deepEqual([kept.result.title, kept.result.detail, kept.result.priority], ['Count footers', 'footer rows pass', 2]);
    assert.match(
      kept.prompts.join('\n'),
      new RegExp(
        `warning \\(modal\\): Add “Count footers” to ${goal.id} with what you have entered\\? \\| It gets acceptance “footer rows pass”, priority P2 and no dependencies\\. Cancel discards it\\.`,
      ),
    );
    const discarded = await withAnswers({ inputs: ['Count trailers', undefined], warnings: [undefined] }, async () =>
      vscode.commands.executeCommand<Todo>(COMMANDS.addTodo, goal.id),
    );
    assert.equal(discarded.result, undefined);
    assert.equal(count(), 1);
    killTodo(kernel, kept.result.id, 'a fixture of this test');
    setGoalStatus(kernel, goal.id, 'done');
  });

  test('Claim, then Ship asks for evidence and ships as the human', async () => {
    const loopx = await app();
    const claimed = await vscode.commands.executeCommand<Todo>(COMMANDS.claimTodo, 'T1');
    assert.equal(claimed.owner, loopx.session.actor.name);
    const { result, prompts } = await withAnswers({ inputs: ['reviewed by hand; tests pass'] }, async () =>
      vscode.commands.executeCommand<Todo>(COMMANDS.shipTodo, 'T1'),
    );
    assert.equal(result.status, 'shipped');
    assert.match(prompts[0] ?? '', /Evidence: what was done/);
    const actors = loopx.session
      .requireKernel()
      .db.prepare(`SELECT DISTINCT actor_kind FROM events WHERE todo_id = 'T1' AND kind <> 'todo.added'`)
      .all();
    assert.deepEqual(
      actors.map((r) => r.actor_kind),
      ['human'],
    );
  });

  test('Ship insists on evidence when none is recorded', async () => {
    const { result, prompts } = await withAnswers({ inputs: ['   '] }, async () => vscode.commands.executeCommand(COMMANDS.shipTodo, 'T3'));
    assert.equal(result, undefined);
    // Nobody holds T3: the person is told that shipping claims it first, before anything happens.
    assert.match(prompts[0] ?? '', /Ship T3 .* Nobody holds it: shipping claims it for you first\. Evidence: what was done/);
    assert.equal(prompts[1], 'refused: Required');
    assert.equal((await app()).model.todo('T3')?.status, 'open');
  });

  test('a refused move becomes a warning that says why, and changes nothing', async () => {
    const loopx = await app();
    const codex = otherWriter('codex');
    claimTodo(codex, 'T2');
    codex.close();
    const before = loopx.session.requireKernel().db.prepare('SELECT count(*) AS n FROM events').get()?.n;
    const { result, prompts } = await withAnswers({}, async () => vscode.commands.executeCommand(COMMANDS.claimTodo, 'T2'));
    assert.equal(result, undefined);
    assert.match(prompts.join('\n'), /warning: LoopX: todo T2 is claimed by codex/);
    // For people, a button to act on it; the CLI's "pick another with: loopx todo next" stays in the CLI.
    assert.match(prompts.join('\n'), /\[Open Board\]$/m);
    assert.doesNotMatch(prompts.join('\n'), /loopx todo|with: loopx/);
    assert.equal(loopx.session.requireKernel().db.prepare('SELECT count(*) AS n FROM events').get()?.n, before);
  });

  test('Claim Todo from the palette lists what is ready first, the rest apart with why, and confirms the claim', async () => {
    const loopx = await app();
    // A goal of its own, finished afterwards, so the suites after this one see G1 as it was.
    const person = loopx.session.requireKernel();
    const side = createGoal(person, { title: 'Claim pick fixtures' });
    const first = addTodo(person, { goalId: side.id, title: 'Prepare the fixtures' });
    const waiting = addTodo(person, { goalId: side.id, title: 'Publish the fixtures', dependsOn: [first.id] });
    await until(() => loopx.model.todo(waiting.id), 'the new todos to be seen');
    let shown: readonly vscode.QuickPickItem[] = [];
    const { result, prompts } = await withAnswers(
      {
        picks: [
          (items) => {
            shown = items;
            return items.find((i) => i.label.includes('T3 '));
          },
        ],
      },
      async () => vscode.commands.executeCommand<Todo>(COMMANDS.claimTodo),
    );
    const labels = shown.map(
      (i) =>
        `${i.kind === vscode.QuickPickItemKind.Separator ? '--' : ''}${i.label.replace(/^\$\([a-z-]+\) /, '')}${i.description ? ` | ${i.description}` : ''}`,
    );
    const at = (text: string) => labels.findIndex((l) => l.includes(text));
    assert.ok(
      at('--Ready to claim') === 0 && at('T3 ') > 0 && at(`${first.id} `) > 0 && at('T3 ') < at('--Cannot be claimed now'),
      `${labels.join('\n')}\n${prompts.join('\n')}`,
    );
    assert.match(labels[at('T2 ')] ?? '', /\| codex holds it until /);
    assert.match(labels[at(`${waiting.id} `)] ?? '', new RegExp(`\\| waits on ${first.id}`));
    assert.ok(at('T2 ') > at('--Cannot be claimed now'), labels.join('\n'));
    assert.equal(result.owner, loopx.session.actor.name);
    assert.match(prompts.join('\n'), /info: LoopX: you hold T3 /);
    const kernel = loopx.session.requireKernel();
    releaseTodo(kernel, 'T3');
    for (const id of [first.id, waiting.id]) killTodo(kernel, id, 'test fixture');
    setGoalStatus(kernel, side.id, 'done');
  });

  test('Approve Gate shows the question in a modal; cancelling changes nothing; confirming approves', async () => {
    const codex = otherWriter('codex');
    const gate = askGate(codex, { todoId: 'T3', question: 'Publish the docs on the public site?' });
    codex.close();
    const loopx = await app();
    await until(() => loopx.gatesTree.pendingCount() === 1, 'the gate to be seen');
    const cancelled = await withAnswers({ warnings: [undefined] }, async () =>
      vscode.commands.executeCommand<Gate>(COMMANDS.approveGate, gate.id),
    );
    assert.equal(cancelled.result, undefined);
    assert.equal(loopx.model.gates().find((g) => g.id === gate.id)?.status, 'pending');
    assert.match(cancelled.prompts[0] ?? '', /warning \(modal\): Approve gate Q1 on todo T3\? \| Publish the docs on the public site\?/);
    const approved = await withAnswers({ warnings: ['Approve with a Note…'], inputs: ['yes, go'] }, async () =>
      vscode.commands.executeCommand<Gate>(COMMANDS.approveGate, gate.id),
    );
    assert.deepEqual([approved.result.status, approved.result.note], ['approved', 'yes, go']);
  });

  test('a click on Approve is the decision: no second box, and closing the note box keeps it', async () => {
    const codex = otherWriter('codex');
    const plain = askGate(codex, { todoId: 'T3', question: 'Rename the CLI flag?' });
    const noted = askGate(codex, { todoId: 'T3', question: 'Bump the major version?' });
    codex.close();
    // No inputs scripted: an input box after the click would throw "unexpected input box".
    const once = await withAnswers({ warnings: ['Approve'] }, async () =>
      vscode.commands.executeCommand<Gate>(COMMANDS.approveGate, plain.id),
    );
    assert.deepEqual([once.result.status, once.result.note], ['approved', null]);
    assert.equal(once.prompts.filter((p) => p.startsWith('input:')).length, 0, once.prompts.join('\n'));
    // "Approve with a Note…", then Escape on the note box: still approved, without a note.
    const escaped = await withAnswers({ warnings: ['Approve with a Note…'], inputs: [undefined] }, async () =>
      vscode.commands.executeCommand<Gate>(COMMANDS.approveGate, noted.id),
    );
    assert.deepEqual([escaped.result.status, escaped.result.note], ['approved', null]);
    const loopx = await app();
    await until(() => loopx.model.gates().find((g) => g.id === noted.id)?.status === 'approved', 'the approval to be seen');
  });

  test('Reject Gate records the decision and its note', async () => {
    const codex = otherWriter('codex');
    const gate = askGate(codex, { goalId: 'G1', question: 'Raise the budget to 40 turns?' });
    codex.close();
    const { result } = await withAnswers({ warnings: ['Reject'], inputs: ['not this week'] }, async () =>
      vscode.commands.executeCommand<Gate>(COMMANDS.rejectGate, gate.id),
    );
    assert.deepEqual([result.status, result.decidedBy !== null], ['rejected', true]);
    // A notification's Approve clicked after the gate was decided says so (no modal, nothing changes).
    const late = await withAnswers({}, async () => vscode.commands.executeCommand<Gate>(COMMANDS.approveGate, gate.id));
    assert.equal(late.result, undefined);
    assert.match(
      late.prompts.join('\n'),
      new RegExp(`info: LoopX: gate ${gate.id} was already rejected by \\S+ at .*; nothing to decide\\.`),
    );
  });

  test('Block asks for a reason, Unblock reopens, Kill confirms first', async () => {
    const blocked = await withAnswers({ inputs: ['needs the API key'] }, async () =>
      vscode.commands.executeCommand<Todo>(COMMANDS.blockTodo, 'T3'),
    );
    assert.deepEqual([blocked.result.status, blocked.result.reason], ['blocked', 'needs the API key']);
    // Unblocking is a person's decision like approving: the same modal, the note only when asked for.
    const unblocked = await withAnswers({ warnings: ['Unblock with a Note…'], inputs: ['key added'] }, async () =>
      vscode.commands.executeCommand<Todo>(COMMANDS.unblockTodo, 'T3'),
    );
    assert.equal(unblocked.result.continuation, 'key added');
    assert.match(unblocked.prompts[0] ?? '', /^warning \(modal\): Unblock T3 .*\? \| Why it is blocked: needs the API key/);
    const notKilled = await withAnswers({ inputs: ['obsolete'], warnings: [undefined] }, async () =>
      vscode.commands.executeCommand(COMMANDS.killTodo, 'T3'),
    );
    assert.equal(notKilled.result, undefined);
    const loopx = await app();
    assert.equal(loopx.model.todo('T3')?.status, 'open');
  });

  test('Connect an Agent writes the loopx block into AGENTS.md and CLAUDE.md, or hands over the MCP set-up', async () => {
    const written = await withAnswers({}, async () => vscode.commands.executeCommand(COMMANDS.connectAgent, 'agentsMd'));
    for (const file of ['AGENTS.md', 'CLAUDE.md'])
      assert.match(readFileSync(join(workspaceRoot(), file), 'utf8'), /loopx:begin[\s\S]*todo claim --next[\s\S]*loopx:end/);
    assert.match(written.prompts.join('\n'), /info: LoopX: wrote the loopx block into AGENTS\.md and CLAUDE\.md/);
    const again = await withAnswers({}, async () => vscode.commands.executeCommand(COMMANDS.connectAgent, 'agentsMd'));
    assert.match(again.prompts.join('\n'), /already have the current loopx block/);
    const loopx = await app();
    const claude = await withAnswers({}, async () => vscode.commands.executeCommand<string>(COMMANDS.connectAgent, 'claudeMcp'));
    assert.equal(claude.result, claudeMcpSetup(loopx.primary.ctx.cliCommand));
    assert.match(claude.result, /^claude mcp add --scope user loopx --env LOOPX_AGENT=claude -- \S+ mcp\n[\s\S]*mcp__loopx/);
    // What was copied can be seen, and Claude Code's command run here, from the notification's buttons.
    assert.match(
      claude.prompts.join('\n'),
      /info: LoopX: copied the command .* or run it here\. \[Run in Terminal \| Show What Was Copied\]/,
    );
    const picked = await withAnswers({ picks: [(items) => items.find((i) => i.label.includes('Codex'))] }, async () =>
      vscode.commands.executeCommand<string>(COMMANDS.connectAgent),
    );
    assert.match(
      picked.result,
      /^\[mcp_servers\.loopx\]\ncommand = ".+"\nargs = \["mcp"\]\nenv_vars = \["LOOPX_AGENT"\][\s\S]*default_tools_approval_mode = "approve"/,
    );
  });

  test('Verify Log reports an intact chain', async () => {
    const result = await vscode.commands.executeCommand<{ ok: boolean; events: number }>(COMMANDS.verifyLog);
    assert.equal(result.ok, true);
    assert.ok(result.events > 10);
  });

  test('a store another writer keeps locked is said as a sentence with Retry, not "database is locked"', async () => {
    const loopx = await app();
    const writer = otherWriter('planner');
    const goal = createGoal(writer, { title: 'Busy store' });
    const todo = addTodo(writer, { goalId: goal.id, title: 'Claimed while locked' });
    await until(() => loopx.model.todo(todo.id), 'the new todo');
    const ours = loopx.session.requireKernel().db;
    ours.exec('PRAGMA busy_timeout = 50'); // the extension waits 10 s for the lock; the test does not
    writer.db.exec('BEGIN IMMEDIATE');
    try {
      const { result, prompts } = await withAnswers({}, async () => vscode.commands.executeCommand(COMMANDS.claimTodo, todo.id));
      assert.equal(result, undefined);
      const said = prompts.find((p) => /busy/i.test(p)) ?? prompts.join('\n');
      assert.match(said, /^warning: LoopX: The loopx store is busy\b.*try again.* \[Retry\]$/);
      assert.doesNotMatch(said, /database is locked|SQLITE_BUSY/);
    } finally {
      writer.db.exec('ROLLBACK');
      writer.close();
      ours.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
    assert.equal(loopx.model.todo(todo.id)?.owner ?? null, null, 'nothing was claimed');
  });

  test('Set Model Price asks for the cache-write price too: kept from the built-in one, or left empty to write at input', async () => {
    const loopx = await app();
    const kernel = loopx.session.requireKernel();
    // Enter keeps each price shown: the built-in Sonnet price, its cache write at 1.25x input included.
    const sonnet = await withAnswers({ inputs: ['claude-sonnet-4', ENTER, ENTER, ENTER, ENTER, ''], warnings: ['Set Price'] }, async () =>
      vscode.commands.executeCommand(COMMANDS.setModelPrice),
    );
    assert.ok(
      sonnet.prompts.some((p) =>
        /^input: LoopX: Set Model Price \(5\/6\) Dollars per million input tokens written to the prompt cache/.test(p),
      ),
    );
    assert.ok(
      sonnet.prompts.some((p) =>
        /warning \(modal\): Set the price of claude-sonnet-4\? \| \$3 in, \$0\.3 cached, \$3\.75 to write the cache, \$15 out per million tokens/.test(
          p,
        ),
      ),
    );
    const mini = await withAnswers({ inputs: ['loopx-mini', '1', '0.1', '4', '', ''], warnings: ['Set Price'] }, async () =>
      vscode.commands.executeCommand(COMMANDS.setModelPrice),
    );
    assert.ok(mini.prompts.some((p) => /\| \$1 in, \$0\.1 cached, \$4 out per million tokens/.test(p)));
    const refused = await withAnswers({ inputs: ['loopx-mini', '1', '0.1', '4', 'cheap'] }, async () =>
      vscode.commands.executeCommand(COMMANDS.setModelPrice),
    );
    assert.ok(refused.prompts.includes('refused: Type a number of dollars, 0 or more, or leave it empty'));
    const prices = personalPrices(kernel.db).map((p) => [p.model, p.cacheWrite ?? null, p.setChannel]);
    assert.deepEqual(prices, [
      ['claude-sonnet-4', 3.75, 'vscode'],
      ['loopx-mini', null, 'vscode'],
    ]);
  });
});
