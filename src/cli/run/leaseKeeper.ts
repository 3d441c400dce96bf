import type { Kernel } from '../../kernel/kernel';
import { claimTodo, renewTodo } from '../../kernel/todos/claims';
import type { Running } from './hostProcess';
import { getTodoCore } from '../../kernel/todos/todoQueries';

type Say = (event: Record<string, unknown>, line: string) => void;

/**
 * Renews a running turn's lease for its agent (an adopted turn's agent may be another than the runner's). For an
 * adopted turn, whose lease nobody renewed while its runner was dead: a lease that lapsed on a todo still its agent's
 * is claimed again; a todo someone else took meanwhile ends the turn (its agent could no longer write back). A todo
 * the agent let go of (shipped, released, handed to a monitor) is left as it is while the agent exits.
 */
export function keepLease(runnerKernel: Kernel, run: Running, leaseSeconds: number, say: Say): void {
  const { turn } = run;
  if (!turn.todoId) return;
  const kernel = turn.agent === runnerKernel.actor.name ? runnerKernel : runnerKernel.as({ name: turn.agent, kind: 'agent' });
  const todo = kernel.read((db) => getTodoCore(db, turn.todoId as string));
  const ours = todo.status === 'claimed' && todo.owner === turn.agent;
  if (!ours) {
    if (todo.status !== 'claimed') return;
    const adopted = run.adopted ? '; ending its agent, which could no longer write back' : '';
    say(
      { event: 'renew_failed', turnId: turn.id, error: `${todo.id} is claimed by ${todo.owner}` },
      `${turn.id}: lease not renewed (${todo.id} is now ${todo.owner}'s)${adopted}`,
    );
    if (run.adopted) run.host.interrupt();
    return;
  }
  try {
    renewTodo(kernel, todo.id, { leaseSeconds });
  } catch (error) {
    if (run.adopted && (error as { code?: string }).code === 'lease_lost') return reclaim(kernel, run, leaseSeconds, say);
    say(
      { event: 'renew_failed', turnId: turn.id, error: (error as Error).message },
      `${turn.id}: lease not renewed (${(error as Error).message})`,
    );
  }
}

/** An adopted turn's lease lapsed while its runner was dead, and nobody took the todo since: its agent's again. */
function reclaim(kernel: Kernel, run: Running, leaseSeconds: number, say: Say): void {
  try {
    claimTodo(kernel, run.turn.todoId as string, { leaseSeconds });
  } catch (error) {
    // Someone else holds it now: the agent could no longer write back. Anything else (a gate it asked): it is ending.
    const taken = (error as { code?: string }).code === 'already_claimed';
    say(
      { event: 'renew_failed', turnId: run.turn.id, error: (error as Error).message },
      `${run.turn.id}: its lease could not be taken back (${(error as Error).message})${taken ? '; ending its agent' : ''}`,
    );
    if (taken) run.host.interrupt();
  }
}
