import { resolve } from 'node:path';
import type { Command, CommandContext, CommandResult } from '../command';
import { applyGoalSpec } from '../../kernel/goals/goalSpec/apply';
import type { FieldChange, GoalPlan } from '../../kernel/goals/goalSpec/plan';
import { clean } from '../format';
import { HumanChannelRequiredError } from '../../kernel/errors';
import { getGoal } from '../../kernel/goals/goalQueries';

export const goalApply: Command = {
  name: ['goal', 'apply'],
  summary: 'make the store say what a goal file says (create or update the goal and its todos)',
  description:
    'The goal is the one this file was applied to before, else the one its `goal:` names, else a new one; todos are\n' +
    'matched by key. Todos removed from the file are reported and killed only with --prune. A refused change\n' +
    '(a dependency cycle, quota changed by an agent) refuses the whole apply. Applying twice changes nothing.\n' +
    "Setting or changing an acceptance check (`check:`) is a person's decision: refused for an agent; a person at an\n" +
    "interactive terminal types the goal id to confirm (VS Code's Apply to store needs no prompt). A goal the file\n" +
    'creates starts paused unless a person applied it through VS Code or a confirmed terminal.',
  positionals: [{ name: 'FILE', description: 'a goal file, e.g. loopx/csv-importer.goal.md', required: true }],
  mutates: true,
  flags: {
    'dry-run': { type: 'boolean', description: 'list the changes (and drift) without applying them' },
    prune: { type: 'boolean', description: 'kill the todos removed from the file (a person decides: refused for agents)' },
  },
  examples: ['loopx goal apply loopx/csv-importer.goal.md --dry-run', 'loopx goal apply loopx/csv-importer.goal.md'],
  run(ctx) {
    return applyGoalFileAt(ctx, ctx.args.positionals[0] as string, { dryRun: ctx.args.bool('dry-run'), prune: ctx.args.bool('prune') });
  },
};

/** `goal apply FILE` as a command answers it (also what `preset apply` runs on the file it wrote). */
export async function applyGoalFileAt(
  ctx: CommandContext,
  file: string,
  flags: { dryRun: boolean; prune: boolean; startPaused?: boolean },
): Promise<CommandResult> {
  // Goal files (YAML) are loaded by the commands that read or write them, not at every call's start-up.
  const [{ formatDiagnostic }, { readGoalFile, workspaceRelative }] = await Promise.all([
    import('../../goalFile/diagnostics'),
    import('../../goalFile/read'),
  ]);
  const kernel = ctx.kernel();
  const path = workspaceRelative(kernel.root, resolve(ctx.cwd, file), { mustExist: true });
  const { spec, warnings } = readGoalFile(resolve(ctx.cwd, file), path);
  const options = { path, dryRun: flags.dryRun, prune: flags.prune, startPaused: flags.startPaused === true };
  let result;
  try {
    result = applyGoalSpec(kernel, spec, options);
  } catch (error) {
    // Checks (and pruning a todo with a pending gate) are a person's decision, as with `goal set-check` and `todo
    // kill`: a person at a terminal confirms, then it applies as them through that channel (recorded in every
    // event). Without a terminal the refusal stands.
    if (!(error instanceof HumanChannelRequiredError) || !ctx.canConfirm) throw error;
    // What the person is asked to confirm: the plan as it would apply through the channel (a dry run writes nothing).
    const dry = applyGoalSpec(kernel, spec, { ...options, dryRun: true });
    const id = dry.plan.goalId ?? 'apply';
    const why = error.message.replace(/ is a human decision.*$/s, '');
    const human = ctx.confirmHuman(`apply ${path}, which needs a person (${why})`, id, planLines(dry.plan, false, null).slice(1, 12));
    result = applyGoalSpec(kernel.as(human), spec, options);
  }
  const data = {
    ...result,
    path,
    warnings: warnings.map((w) => ({ ...w, line: w.range.start.line + 1, column: w.range.start.character + 1 })),
  };
  const lines = [...warnings.map((w) => formatDiagnostic(path, w)), ...planLines(result.plan, result.applied, result.goalId)];
  if (result.plan.create && result.goalId && kernel.read((db) => getGoal(db, result.goalId as string)).status === 'paused') {
    lines.push(
      `${result.goalId} is paused until a human starts it: loopx goal resume ${result.goalId} (in a terminal) or Resume Goal in VS Code.`,
    );
  }
  return { data, text: lines.join('\n') };
}

function value(v: unknown): string {
  return Array.isArray(v) ? `[${v.join(', ')}]` : clean(JSON.stringify(v) ?? 'none');
}

function changeLine(c: FieldChange): string {
  return `${c.field} ${value(c.from)} → ${value(c.to)}${c.drift ? '  (drift: changed in the store since the last apply)' : ''}`;
}

function planLines(plan: GoalPlan, applied: boolean, goalId: string | null): string[] {
  const verb = applied ? '' : 'would ';
  const out: string[] = [];
  const goal = plan.goalId ?? 'a new goal';
  if (plan.changeCount === 0 && !plan.relink) out.push(`${plan.path} and ${goal} agree: nothing to change.`);
  else
    out.push(
      `${applied ? 'Applied' : 'Dry run:'} ${plan.path} → ${plan.create ? (applied ? `created ${goalId}` : 'would create a new goal') : goal}: ${plan.changeCount} change${plan.changeCount === 1 ? '' : 's'}`,
    );
  for (const c of plan.goalChanges) out.push(`  goal: ${verb}change ${changeLine(c)}`);
  for (const t of plan.added) out.push(`  + ${t.key}: ${verb}add "${clean(t.title)}"`);
  for (const t of plan.changed) for (const c of t.changes) out.push(`  ~ ${t.key} (${t.id}): ${verb}change ${changeLine(c)}`);
  for (const t of plan.skipped)
    out.push(`  = ${t.key} (${t.id}) is ${t.status}: left as it is (${t.changes.map((c) => c.field).join(', ')} differ)`);
  for (const t of plan.removed) {
    out.push(
      plan.prune
        ? `  - ${t.key} (${t.id}): ${verb}kill (removed from the file)`
        : `  ! ${t.key} (${t.id}) is no longer in the file; kept (apply with --prune to kill it)`,
    );
  }
  if (plan.unlisted.length)
    out.push(
      `  ${plan.unlisted.length} todo${plan.unlisted.length === 1 ? '' : 's'} of the goal added outside the file: ${plan.unlisted.join(', ')} (left alone)`,
    );
  if (!applied && plan.changeCount > 0) out.push(`Apply with: loopx goal apply ${plan.path}`);
  return out;
}
