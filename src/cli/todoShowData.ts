import type { TodoView } from '../kernel/readModels/todoView';
import { type Lean, lean } from '../protocol/lean';
import type { ChangeSummary } from '../kernel/worktrees/changeSummary';

/** `todo show --json` and the MCP tool loopx_todo_show: the todo's own fields (lean) and what surrounds it. */
export function todoShowData(view: TodoView, change?: ChangeSummary | null): Lean<Record<string, unknown>> {
  return lean({
    ...lean(view.todo),
    goal: view.goal,
    acceptance: lean(view.acceptance),
    readiness: view.readiness,
    monitor: view.monitor && lean(view.monitor),
    evidence: view.evidence.map((e) => lean(e)),
    moreEvidence: view.moreEvidence || null,
    gates: view.gates.map((g) => lean(g)),
    history: view.history,
    moreHistory: view.moreHistory || null,
    // The todo's branch, its commits and diff stat (a goal with worktrees on); absent otherwise.
    change: change ?? null,
  });
}
