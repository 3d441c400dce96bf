import { afterEach, beforeEach, expect, test } from 'vitest';
import { Kernel } from '../kernel/kernel';
import { agent, makeStore, type TestStore } from '../../test/support/testKit';
import { createGoal } from '../kernel/goals/goals';
import { StoreWatcher } from './watch';

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

test('a commit by another connection is reported; our own writes are not', async () => {
  let changes = 0;
  const watcher = new StoreWatcher(s.kernel.engine.changeSignal(), () => changes++).start();
  try {
    createGoal(s.kernel, { title: 'mine' });
    await new Promise((r) => setTimeout(r, 150));
    expect(changes).toBe(0);
    const other = Kernel.open(s.root, { actor: agent('codex') });
    createGoal(other, { title: 'theirs' });
    other.close();
    await until(() => changes >= 1);
    expect(changes).toBe(1);
  } finally {
    watcher.stop();
  }
});

test('our own commits, acknowledged, are not reported; a foreign commit after them is', async () => {
  let changes = 0;
  const watcher = new StoreWatcher(s.kernel.engine.changeSignal(), () => changes++).start();
  const unlisten = s.kernel.onCommit((events) => watcher.acknowledge(events[events.length - 1]));
  try {
    for (let i = 0; i < 20; i++) createGoal(s.kernel, { title: `mine ${i}` });
    await new Promise((r) => setTimeout(r, 150));
    watcher.check();
    expect(changes).toBe(0);
    const other = Kernel.open(s.root, { actor: agent('codex') });
    createGoal(other, { title: 'theirs' });
    other.close();
    await until(() => changes === 1);
  } finally {
    unlisten();
    watcher.stop();
  }
});

test('a log cut and written again to the same length by another process is a change too', async () => {
  createGoal(s.kernel, { title: 'first' });
  createGoal(s.kernel, { title: 'second' });
  let changes = 0;
  const watcher = new StoreWatcher(s.kernel.engine.changeSignal(), () => changes++);
  try {
    const other = Kernel.open(s.root, { actor: agent('codex') });
    const last = Number(other.db.prepare('SELECT max(seq) AS n FROM events').get()?.n);
    other.db.exec(`DELETE FROM events WHERE seq = ${last}`);
    createGoal(other, { title: 'replacement' }); // same newest seq, another event
    other.close();
    expect(Number(s.kernel.db.prepare('SELECT max(seq) AS n FROM events').get()?.n)).toBe(last);
    watcher.check();
    expect(changes).toBe(1);
  } finally {
    watcher.stop();
  }
});

test('a commit published after its file event (a writer descheduled between its WAL write and its commit) is still seen', async () => {
  // The fake watch hands us the listener: one event now, and none when the commit becomes visible, which is what
  // a commit published through the shared-memory index (a memory map, no file event) looks like.
  let fire: (event: string, file: string | null) => void = () => {};
  const fakeWatch = (_dir: string, listener: typeof fire) => {
    fire = listener;
    return { close: () => undefined, on: () => undefined } as never;
  };
  let changes = 0;
  const watcher = new StoreWatcher(s.kernel.engine.changeSignal({ watch: fakeWatch }), () => changes++).start();
  try {
    fire('change', 'loopx.db-wal');
    await new Promise((r) => setTimeout(r, 60)); // the first look has found nothing yet
    expect(changes).toBe(0);
    const other = Kernel.open(s.root, { actor: agent('codex') });
    createGoal(other, { title: 'committed after the event' });
    other.close();
    await until(() => changes === 1, 4000);
  } finally {
    watcher.stop();
  }
});

test('a settled wake (the change is visible already, as a team replica caught up before waking) is looked at at once', () => {
  let wake: (settled?: boolean) => void = () => {};
  let version = 1;
  let head = { seq: 1, hash: 'a' };
  const signal = {
    isOpen: true,
    version: () => version,
    head: () => head,
    watch: (w: typeof wake) => {
      wake = w;
      return { close: () => undefined, on: () => undefined } as never;
    },
  };
  let changes = 0;
  const watcher = new StoreWatcher(signal, () => changes++).start();
  try {
    version = 2;
    head = { seq: 2, hash: 'b' };
    wake(true);
    // No timer ran: the watcher looked during the wake itself.
    expect(changes).toBe(1);
  } finally {
    watcher.stop();
  }
});
