import type { LoopxError } from '../../kernel/errors';
import { COMMANDS } from './commandIds';

/** A button on a refusal's message: what a person can do about it, instead of a CLI command to type. */
export interface ErrorAction {
  title: string;
  command: string;
  args?: unknown[];
}

export function actionsFor(error: LoopxError): ErrorAction[] {
  switch (error.code) {
    case 'gate_pending': {
      const gateId = (error.data as { gateIds?: string[] } | undefined)?.gateIds?.[0];
      return gateId
        ? [
            { title: `Approve ${gateId}…`, command: COMMANDS.approveGate, args: [gateId] },
            { title: `Reject ${gateId}…`, command: COMMANDS.rejectGate, args: [gateId] },
          ]
        : [{ title: 'Show Gates', command: 'loopx.gates.focus' }];
    }
    case 'not_ready':
    case 'no_ready_work':
    case 'already_claimed':
    case 'lease_lost':
    case 'illegal_transition':
      return [{ title: 'Open Board', command: COMMANDS.openBoard }];
    case 'evidence_required':
      return [{ title: 'Add Evidence…', command: COMMANDS.addEvidence }];
    case 'budget_exhausted':
    case 'should_not_run':
      return [{ title: 'Show Budgets', command: COMMANDS.showQuota }];
    case 'log_broken':
    case 'unproven_decision':
      // Verify Log names the decision in words and offers Accept or Restore.
      return [{ title: 'Verify Log', command: COMMANDS.verifyLog }];
    case 'no_store':
      return [{ title: 'Initialize LoopX', command: COMMANDS.initialize }];
    case 'host_missing':
    case 'host_incompatible': {
      // Run Turn's host could not run: watch the turn with the sample agent, or type a command, right there.
      const data = (error.data ?? {}) as { goalId?: string; todoId?: string; host?: string };
      if (!data.goalId) return [];
      const turn = { goalId: data.goalId, todoId: data.todoId };
      return [
        { title: 'Run the Sample Agent', command: COMMANDS.runTurn, args: [{ ...turn, host: 'sample' }] },
        { title: 'Type a Command…', command: COMMANDS.runTurn, args: [{ ...turn, host: 'typed' }] },
        { title: 'Open Settings', command: 'workbench.action.openSettings', args: [`loopx.hosts.${data.host ?? ''}`] },
      ];
    }
    default:
      return [];
  }
}
