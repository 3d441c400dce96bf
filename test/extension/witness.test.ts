import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { openDb } from '../../src/kernel/db/openDb';
import { Kernel } from '../../src/kernel/kernel';
import { logHead } from '../../src/kernel/events/anchor';
import { COMMANDS } from '../../src/extension/commands/commandIds';
import { app, cli, cliInTerminal, until, withAnswers, workspaceRoot } from './support';

/** Cuts the newest events off the log behind loopx's back, as a careless or hostile process could. */
function cutLog(keep: number): void {
  const db = openDb(Kernel.storePath(workspaceRoot()));
  db.exec(`DELETE FROM events WHERE seq > ${keep}`);
  db.close();
}

// Runs last (index.ts): the log witness suite leaves the store with a log shorter than its state.
// Backups first, before that suite: it cuts the log, and a restore replays a backup's log and refuses one whose state
// tables that log does not explain (so does doctor). The test that ends with a cut comes last.
suite('backup and restore', () => {
  test('a restore through the CLI while the window watches: a warning that names it, no alarm, the witness follows', async () => {
    const loopx = await app();
    const backup = cli(['backup', '--json']).json.data as { path: string };
    cli(['todo', 'add', '--goal', 'G1', '--title', 'to be undone by the CLI']);
    // Wait for the window to have seen the change (its witness moves on a change event; a bare model read would not
    // prove that), as it would have long before a person ran a restore.
    const added = loopx.session.requireKernel().read((db) => logHead(db))?.seq;
    await until(
      () => loopx.witness.anchor?.seq === added && loopx.model.todos('G1', 'open').some((t) => t.title === 'to be undone by the CLI'),
      'the todo',
    );
    const { prompts } = await withAnswers({}, async () => {
      const restored = cliInTerminal(['restore', backup.path, '--json'], 'restore');
      assert.equal(restored.code, 0, JSON.stringify(restored.json));
      await until(() => !loopx.model.todos('G1', 'open').some((t) => t.title === 'to be undone by the CLI'), 'the restored store');
      await new Promise((r) => setTimeout(r, 300));
    });
    assert.match(prompts.join('\n'), /warning: LoopX: the store was restored from .*\.db/);
    assert.deepEqual(
      prompts.filter((p) => p.startsWith('error:')),
      [],
    );
    assert.equal(loopx.witness.problem, undefined);
  });

  test('Back Up Store writes a verified copy; Restore Backup (confirmed) puts it back and the witness follows without an alarm', async () => {
    const loopx = await app();
    const backup = await vscode.commands.executeCommand<{ path: string; events: number }>(COMMANDS.backupStore);
    assert.ok(backup.path.includes('/.loopx/backups/'), backup.path);
    cli(['todo', 'add', '--goal', 'G1', '--title', 'written after the backup']);
    const added = loopx.session.requireKernel().read((db) => logHead(db))?.seq;
    await until(
      () => loopx.witness.anchor?.seq === added && loopx.model.todos('G1', 'open').some((t) => t.title === 'written after the backup'),
      'the new todo',
    );
    const cancelled = await withAnswers({ warnings: [undefined] }, async () =>
      vscode.commands.executeCommand(COMMANDS.restoreBackup, backup.path),
    );
    assert.equal(cancelled.result, undefined, 'cancelling the modal changes nothing');
    const { prompts } = await withAnswers({ warnings: ['Restore'] }, async () =>
      vscode.commands.executeCommand(COMMANDS.restoreBackup, backup.path),
    );
    assert.match(prompts.join('\n'), /warning \(modal\): Replace everything in the LoopX store with this backup\?/);
    await until(
      () => !loopx.model.todos('G1', 'open').some((t) => t.title === 'written after the backup'),
      `the view to show the restored store (${prompts.join(' / ')})`,
    );
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(loopx.witness.problem, undefined);
    assert.deepEqual(
      prompts.filter((p) => p.startsWith('error:')),
      [],
    );
    const outside = await withAnswers({}, async () => vscode.commands.executeCommand(COMMANDS.restoreBackup, '/etc/passwd'));
    assert.match(outside.prompts.join('\n'), /error: LoopX: Restore Backup takes a backup inside this workspace/);
    // The restore's marker was taken in: a later cut is an alarm again, not "a restore".
    const cut = await withAnswers({}, async () => {
      cutLog((loopx.witness.anchor?.seq ?? 2) - 1);
      await until(() => loopx.witness.problem, 'the witness to notice the cut');
    });
    assert.match(cut.prompts.join('\n'), /error: LoopX: the event log no longer holds event/);
    await loopx.witness.accept();
  });
});

suite('log witness', () => {
  test('the workspace remembers the newest event it has seen, outside the store', async () => {
    const loopx = await app();
    cli(['todo', 'add', '--goal', 'G1', '--title', 'witnessed']);
    const head = loopx.session.requireKernel().read((db) => logHead(db));
    await until(() => loopx.witness.anchor?.seq === head?.seq && loopx.witness.anchor, 'the witness to remember the head');
    assert.deepEqual(loopx.witness.anchor, head);
    assert.equal(loopx.witness.problem, undefined);
  });

  test('a log cut short behind loopx raises an alarm once; Verify Log reports it; accepting re-anchors', async () => {
    const loopx = await app();
    const before = loopx.witness.anchor as { seq: number; hash: string };
    const { prompts } = await withAnswers({}, async () => {
      cutLog(before.seq - 3);
      await until(() => loopx.witness.problem, 'the witness to notice the cut', 30_000);
      loopx.witness.check(); // a second look does not raise a second alarm
    });
    assert.equal(prompts.filter((p) => p.startsWith('error:')).length, 1, prompts.join('\n'));
    assert.match(
      prompts[0] ?? '',
      new RegExp(
        `no longer holds event ${before.seq} that this workspace saw: event ${before.seq} is gone: the log now ends at event ${before.seq - 3}`,
      ),
    );
    assert.deepEqual(loopx.witness.anchor, before, 'the remembered event is kept while the problem stands');

    const verify = await withAnswers({ errors: ['Accept Current Log'] }, async () =>
      vscode.commands.executeCommand<{ ok: boolean; firstBadSeq: number }>(COMMANDS.verifyLog),
    );
    assert.deepEqual([verify.result.ok, verify.result.firstBadSeq], [false, before.seq - 2]);
    assert.match(verify.prompts.join('\n'), /error: LoopX: the event log no longer holds event/);
    assert.equal(loopx.witness.problem, undefined);
    assert.equal(loopx.witness.anchor?.seq, before.seq - 3);

    const again = await withAnswers({}, async () => vscode.commands.executeCommand<{ ok: boolean }>(COMMANDS.verifyLog));
    assert.equal(again.result.ok, true);
    assert.match(again.prompts.join('\n'), new RegExp(`info: LoopX: log intact, .*still holds event ${before.seq - 3}`));
  });
});
