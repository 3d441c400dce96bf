import type { Command } from '../command';
import { todoView } from '../../kernel/readModels/todoView';
import { parseId } from '../../kernel/validate';
import { todoShowData } from '../todoShowData';
import { findWorktree } from '../../kernel/worktrees/worktreeRows';
import { changeSummary } from '../../kernel/worktrees/changeSummary';
import { clean, evidenceLine, gateLine, monitorLine, Painter, relativeTime, todoLine } from '../format';
import { countOf } from '../../shared/countWords';

export const EVIDENCE_SHOWN = 5;
export const HISTORY_SHOWN = 10;

export const todoShow: Command = {
  name: ['todo', 'show'],
  summary: 'one todo: its fields, acceptance, continuation, readiness, latest evidence, gates and recent history',
  description: [
    `Lists are bounded: the newest ${EVIDENCE_SHOWN} evidence and ${HISTORY_SHOWN} events unless --evidence / --history say otherwise;`,
    'with --json, moreEvidence and moreHistory count what was left out, and a field that is unset or empty is left out.',
  ].join('\n'),
  readOnly: true,
  positionals: [{ name: 'ID', description: 'todo id, e.g. T3', required: true }],
  flags: {
    evidence: {
      type: 'int',
      value: 'N',
      min: 0,
      max: 1000,
      description: `the newest N evidence (default ${EVIDENCE_SHOWN}, at most 1000)`,
    },
    history: { type: 'int', value: 'N', min: 0, max: 1000, description: `the newest N events (default ${HISTORY_SHOWN}, at most 1000)` },
  },
  examples: ['loopx todo show T3', 'loopx todo show T3 --json --history 0'],
  async run(ctx) {
    const id = parseId('todo', ctx.args.positionals[0]);
    const limits = {
      evidence: ctx.args.num('evidence') ?? EVIDENCE_SHOWN,
      history: ctx.args.num('history') ?? HISTORY_SHOWN,
    };
    const kernel = ctx.kernel();
    const { view, now, row } = kernel.read((db, now) => ({ view: todoView(db, id, now, limits), now, row: findWorktree(db, id) }));
    const change = row ? await changeSummary(kernel.root, row) : null;
    const { todo, goal, acceptance } = view;
    const p = new Painter(ctx.color);
    const lines = [
      todoLine(p, todo, now),
      `  goal: ${goal.id} ${clean(goal.title)} [${goal.status}]   revision ${todo.revision}   updated ${relativeTime(todo.updatedAt, now)}`,
    ];
    if (acceptance.detail) lines.push(`  acceptance: ${clean(acceptance.detail)}`);
    if (acceptance.check)
      lines.push(
        `  acceptance check: \`${clean(acceptance.check)}\` (${acceptance.checkFrom === 'goal' ? "the goal's" : 'its own'}; loopx runs it before a ship)`,
      );
    if (todo.continuation) lines.push(`  continuation: ${clean(todo.continuation)}`);
    lines.push(`  ready to claim: ${view.readiness.ready ? 'yes' : `no, ${clean(view.readiness.detail)}`}`);
    if (view.monitor) lines.push(`  waits on: ${monitorLine(p, view.monitor, now)}`);
    if (change) {
      const landed = change.status === 'open' ? (todo.status === 'shipped' ? 'waits for a person to land it' : 'open') : change.status;
      lines.push(
        `  branch: ${change.branch} from ${change.base} (${landed}): ${countOf(change.commits.length, 'commit')}, ${change.diffStat.text || 'no changes'}`,
      );
      for (const c of change.commits.slice(0, 5)) lines.push(`    ${c.sha.slice(0, 10)} ${clean(c.subject)}`);
      if (change.uncommitted?.length) lines.push(`    ${countOf(change.uncommitted.length, 'file')} not committed in ${change.path}`);
      if (change.prUrl) lines.push(`    pull request: ${change.prUrl}`);
    }
    lines.push('', `Evidence (${todo.evidenceCount}, newest first)`);
    lines.push(
      ...(view.evidence.length
        ? view.evidence.map((e) => `  ${evidenceLine(p, e, now)}`)
        : [todo.evidenceCount ? '  (not shown: --evidence N)' : '  none yet']),
    );
    if (view.evidence.length && view.moreEvidence) lines.push(`  … ${view.moreEvidence} more (loopx evidence list --todo ${todo.id})`);
    if (view.gates.length) lines.push('', 'Gates', ...view.gates.map((g) => `  ${gateLine(p, g, now)}`));
    if (view.history.length) {
      lines.push('', 'History (newest first)');
      lines.push(
        ...view.history.map(
          (e) => `  ${p.paint('dim', `#${e.seq}`.padEnd(7))} ${e.kind.padEnd(18)} ${clean(e.actor)} ${relativeTime(e.at, now)}`,
        ),
      );
      if (view.moreHistory) lines.push(`  … ${view.moreHistory} more (loopx history --todo ${todo.id})`);
    }
    return { data: todoShowData(view, change), text: lines.join('\n') };
  },
};
