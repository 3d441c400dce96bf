import type { Kernel } from '../kernel';
import type { Goal } from '../model';
import { InvalidInputError } from '../errors';
import { requireHumanChannel } from '../authority';
import { getGoal } from './goalQueries';
import { HOST_ID } from '../../shared/hostCatalog';

/**
 * Chooses the host (agent CLI) a goal's turns run on, or clears the choice (null). A person's decision: the host
 * decides what bounds the goal's agents (a custom command has no boundary), so an agent may not move its own goal to
 * another. Whether the host is installed, or one of the person's own, is the caller's to check (runtime/hosts.ts).
 */
export function setGoalHost(kernel: Kernel, goalId: string, host: string | null): Goal {
  requireHumanChannel(kernel.requireActor(), `choosing the agent goal ${goalId}'s turns run on`);
  if (host !== null && !HOST_ID.test(host))
    throw new InvalidInputError(`${JSON.stringify(host)} is not a host's name (e.g. claude, codex, opencode, custom)`);
  return kernel.write((tx) => {
    const goal = getGoal(tx.db, goalId);
    if (goal.host === host) return goal;
    tx.emit({ kind: 'goal.host_set', goalId, todoId: null, data: { host, from: goal.host } });
    return getGoal(tx.db, goalId);
  });
}
