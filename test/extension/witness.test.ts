import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { openDb } from '../../src/kernel/db/openDb';
import { Kernel } from '../../src/kernel/kernel';
import { logHead } from '../../src/kernel/events/anchor';
import { COMMANDS } from '../../src/extension/commands/commandIds';
import { app, cli, until, withAnswers, workspaceRoot } from './support';

/** Cuts the newest events off the log behind loopx's back, as a careless or hostile process could. */
function cutLog(keep: number): void {
  const db = openDb(Kernel.storePath(workspaceRoot()));
  db.exec(`DELETE FROM events WHERE seq > ${keep}`);
  db.close();
}

// Runs last: it leaves the workspace store with a log shorter than its state.
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
      await until(() => loopx.witness.problem, 'the witness to notice the cut', 5000);
      loopx.witness.check(); // a second look does not raise a second alarm
    });
    assert.equal(prompts.filter((p) => p.startsWith('error:')).length, 1, prompts.join('\n'));
    assert.match(prompts[0] ?? '', new RegExp(`no longer holds event ${before.seq} that this workspace saw: event ${before.seq} is gone: the log now ends at event ${before.seq - 3}`));
    assert.deepEqual(loopx.witness.anchor, before, 'the remembered event is kept while the problem stands');

    const verify = await withAnswers({ errors: ['Accept Current Log'] }, async () => vscode.commands.executeCommand<{ ok: boolean; firstBadSeq: number }>(COMMANDS.verifyLog));
    assert.deepEqual([verify.result.ok, verify.result.firstBadSeq], [false, before.seq - 2]);
    assert.match(verify.prompts.join('\n'), /error: LoopX: the event log no longer holds event/);
    assert.equal(loopx.witness.problem, undefined);
    assert.equal(loopx.witness.anchor?.seq, before.seq - 3);

    const again = await withAnswers({}, async () => vscode.commands.executeCommand<{ ok: boolean }>(COMMANDS.verifyLog));
    assert.equal(again.result.ok, true);
    assert.match(again.prompts.join('\n'), new RegExp(`info: LoopX: log intact, .*still holds event ${before.seq - 3}`));
  });
});
