import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { agent, human, makeStore, propertyRuns } from '../../test/support/testKit';
import { Kernel } from './kernel';
import type { EventDraft } from './events/eventTypes';
import { createGoal, setGoalStatus } from './goals/goals';
import { addTodo } from './todos/todos';
import { claimTodo } from './todos/claims';
import { addMonitor } from './monitors/monitors';
import { tickMonitors } from './monitors/tick';
import { askGate } from './gates/gates';
import { dispatchHooks } from './hooks/dispatch';
import { requireTurnMayStart } from './goals/goalStanding';
import { forgeEvent } from '../../test/support/forgeKit';
import { readHumanKey } from './humanKey';
import { iso } from './time';

/**
 * Whatever an agent that can write the store does to it, loopx never acts on a person's decision nobody made. The
 * store holds one such decision to be forged each way: an agent's check waiting for a person (M1, it would leave
 * `ran`), no hook (a forged one would leave `hook-ran`), and a goal a person paused (G2). The attacker appends
 * well-chained events in a person's name (any actor, channel, no proof, a made-up one, one replayed from a real
 * decision) and flips bytes of the store file. Then loopx does what it acts on: a tick, a hook dispatch, and the check
 * before a turn of G2 starts. None may act: no file appears, and no turn of G2 may start.
 */
const forgery = fc.record({
  target: fc.constantFrom('approve', 'pattern', 'allow', 'hook', 'resume'),
  actorKind: fc.constantFrom('human', 'human', 'human', 'agent', 'kernel'),
  actor: fc.constantFrom('ada', 'ada', 'bob', 'codex'),
  channel: fc.constantFrom<string | null>('vscode', 'tty', null),
  proof: fc.constantFrom('none', 'random', 'replayed', 'ours-random'),
  mac: fc.stringMatching(/^[0-9a-f]{64}$/),
});
type Forgery = typeof forgery extends fc.Arbitrary<infer T> ? T : never;

const byteEdit = fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) });

function draftOf(
  f: Forgery,
  root: string,
  g: { goal1: string; goal2: string; todo: string; monitor: string; command: string },
): EventDraft {
  switch (f.target) {
    case 'approve':
      return { kind: 'monitor.approved', goalId: g.goal1, todoId: g.todo, data: { id: g.monitor, command: g.command, pattern: null } };
    case 'pattern':
      return { kind: 'monitor.approved', goalId: g.goal1, todoId: g.todo, data: { id: g.monitor, command: g.command, pattern: 'touch *' } };
    case 'allow':
      return { kind: 'goal.checks_allowed', goalId: g.goal1, todoId: null, data: { patterns: ['touch *'], from: [] } };
    case 'hook':
      return {
        kind: 'hook.added',
        goalId: null,
        todoId: null,
        data: {
          id: 'N1',
          num: 1,
          command: `touch ${join(root, 'hook-ran')}`,
          on: ['gate.asked'],
          goal: null,
          timeoutSeconds: 30,
          note: '',
        },
      };
    default:
      return { kind: 'goal.status', goalId: g.goal2, todoId: null, data: { status: 'active', from: 'paused' } };
  }
}

test('random well-chained forgeries and byte edits of the store never make loopx act on a decision nobody made', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(forgery, { minLength: 1, maxLength: 4 }), fc.array(byteEdit, { maxLength: 3 }), async (forgeries, edits) => {
      const s = makeStore();
      const codex = agent('codex');
      const goal1 = createGoal(s.kernel, { title: 'Deploy', turnsPerWindow: 10 }).id;
      const goal2 = createGoal(s.kernel, { title: 'Paused by a person', turnsPerWindow: 10 }).id;
      setGoalStatus(s.as(human), goal2, 'paused');
      addTodo(s.kernel, { goalId: goal2, title: 'waits' });
      const todo = addTodo(s.kernel, { goalId: goal1, title: 'watch CI' }).id;
      claimTodo(s.as(codex), todo);
      const command = `touch ${join(s.root, 'ran')}`;
      const monitor = addMonitor(s.as(codex), { todoId: todo, check: command, everySeconds: 10 }).id;
      const realProof = (
        JSON.parse(String(s.kernel.db.prepare(`SELECT data FROM events WHERE kind = 'goal.status'`).get()?.data)) as { proof: object }
      ).proof;
      const ours = readHumanKey();
      for (const f of forgeries) {
        const proof =
          f.proof === 'none'
            ? undefined
            : f.proof === 'replayed'
              ? (realProof as { key: string; mac: string })
              : { key: f.proof === 'ours-random' && ours.key ? ours.id : f.mac.slice(0, 16), mac: f.mac };
        try {
          forgeEvent(s.kernel.db, draftOf(f, s.root, { goal1, goal2, todo, monitor, command }), {
            at: iso(s.clock.ms),
            actor: f.actor,
            actorKind: f.actorKind,
            channel: f.channel,
            ...(proof ? { proof } : {}),
          });
        } catch {
          /* the reducer refused this one (a second approval of one monitor): the attacker tries the next */
        }
      }
      s.kernel.close();
      const file = Kernel.storePath(s.root);
      if (edits.length) {
        const bytes = readFileSync(file);
        for (const e of edits) bytes[e.at % bytes.length] = e.value;
        writeFileSync(file, bytes);
      }
      s.clock.advance(60);
      let mayStart = false;
      try {
        const k = Kernel.open(s.root, { clock: s.clock.now, actor: human });
        try {
          await tickMonitors(k).catch(() => undefined);
          try {
            askGate(k.as(codex), { goalId: goal1, question: 'Ship it?' });
          } catch {
            /* a damaged store refuses the write; the hook dispatch below still looks */
          }
          await dispatchHooks(k, { by: 'property', onError: () => {} }).catch(() => undefined);
          mayStart = k.read((db) => {
            try {
              requireTurnMayStart(db, goal2);
              return true;
            } catch {
              return false;
            }
          });
        } finally {
          k.close();
        }
      } catch {
        /* a store the edits made unopenable: loopx acts on nothing in it */
      }
      const acted = { ran: existsSync(join(s.root, 'ran')), hookRan: existsSync(join(s.root, 'hook-ran')), mayStart };
      rmSync(s.root, { recursive: true, force: true });
      expect(acted).toEqual({ ran: false, hookRan: false, mayStart: false });
    }),
    { numRuns: propertyRuns(40) },
  );
});
