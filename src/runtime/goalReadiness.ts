import type { Kernel } from '../kernel/kernel';
import { type ReadinessFacts, readinessFacts } from '../kernel/readModels/readinessFacts';
import { runsSoon } from '../kernel/goals/quotaQueries';
import { checkWorktreeBase } from '../kernel/worktrees/worktreeSetting';
import { processAlive } from '../kernel/processes';
import { shouldRunReason } from '../protocol/shouldRunWords';
import { BUILT_IN_HOSTS, builtInHost } from '../shared/hostCatalog';
import { DEFAULT_HOSTS } from './hosts';
import { hostStanding } from './hostSafety';
import { personHosts } from './personHosts';

/** One thing that would stop a goal left running, or says it will not: in words, with the fix when there is one. */
export interface ReadinessReason {
  /** Stable, for JSON and tests: goal, host, budget, caps, schedule, people, checks, turns, claims, worktrees, work, ticker, now. */
  key: string;
  level: 'ok' | 'warn' | 'fail';
  sentence: string;
  fix?: string;
}

export interface Readiness {
  goalId: string;
  title: string;
  /** No reason fails. */
  ready: boolean;
  /** 0–100: each reason ok counts 1, a warning half, a failure nothing. */
  score: number;
  /**
   * The host judged: the one asked for, else the goal's agent (a person's choice), else a live runner's, else the goal's
   * last turn's, else a runner's that served it; null when none is known.
   */
  host: string | null;
  reasons: ReadinessReason[];
}

const HOSTS_LIST = BUILT_IN_HOSTS.map((h) => h.id).join(', ');

/**
 * Whether a goal is ready to be left running for a night (`loopx ready`, MCP `loopx_ready`, VS Code's Check
 * Readiness; issue 44): the store's facts (readModels/readinessFacts.ts) and what only this machine knows (the host
 * installed and accepting its command, a `loopx run` alive), each judged with its fix. Changes nothing.
 */
export async function goalReadiness(kernel: Kernel, goalId: string, o: { host?: string; env: NodeJS.ProcessEnv }): Promise<Readiness> {
  const facts = kernel.read((db) => readinessFacts(db, goalId, kernel.clock()));
  const { goal } = facts;
  // A runner on another host than the goal's agent leaves the goal alone (cli/run/runner.ts): it serves nothing here.
  const alive = facts.runners.filter((r) => processAlive(r.pid) && (!goal.host || r.host === goal.host));
  const host = o.host ?? goal.host ?? alive[0]?.host ?? facts.recentTurns.lastHost ?? facts.runners[0]?.host ?? null;
  const reasons: ReadinessReason[] = [
    goalReason(facts),
    await hostReason(host, goal.id, kernel.root, o.env),
    ...budgetReasons(facts),
    ...peopleReasons(facts),
    turnsReason(facts),
    claimsReason(facts),
    worktreesReason(facts, kernel.root),
    workReason(facts),
    tickerReason(facts, alive, host),
    nowReason(facts),
  ];
  const score = Math.round(
    (100 * reasons.reduce((sum, r) => sum + (r.level === 'ok' ? 1 : r.level === 'warn' ? 0.5 : 0), 0)) / reasons.length,
  );
  return { goalId: goal.id, title: goal.title, ready: reasons.every((r) => r.level !== 'fail'), score, host, reasons };
}

function goalReason({ goal }: ReadinessFacts): ReadinessReason {
  if (goal.status === 'active') return { key: 'goal', level: 'ok', sentence: `${goal.id} is active` };
  if (goal.status === 'paused')
    return {
      key: 'goal',
      level: 'fail',
      sentence: `${goal.id} is paused: nothing runs until a person resumes it`,
      fix: `loopx goal resume ${goal.id} in a terminal, or Resume Goal in VS Code`,
    };
  return { key: 'goal', level: 'fail', sentence: `${goal.id} is ${goal.status}: it runs no more turns` };
}

async function hostReason(host: string | null, goalId: string, root: string, env: NodeJS.ProcessEnv): Promise<ReadinessReason> {
  if (!host)
    return {
      key: 'host',
      level: 'warn',
      sentence: 'no host is known for it yet: no turn has run and no runner serves it',
      fix: `run it on one: loopx run --goal ${goalId} --host HOST (${HOSTS_LIST}), or Run Turn in VS Code; or ask again with --host`,
    };
  // A built-in host's command is loopx's own; only another name is looked up in the person's hosts.json, and a file
  // loopx cannot take is a warning here, as in doctor, never a readiness check that fails to answer.
  let own: string | undefined;
  if (!builtInHost(host) && host !== 'custom') {
    try {
      own = personHosts(env).find((h) => h.id === host)?.command;
    } catch (error) {
      const hint = (error as { hint?: string }).hint;
      return {
        key: 'host',
        level: 'warn',
        sentence: `${host} cannot be judged: ${(error as Error).message}`,
        fix: hint ?? 'check hosts.json',
      };
    }
  }
  const command = own ?? (DEFAULT_HOSTS as unknown as Record<string, string | undefined>)[host];
  if (!command)
    return { key: 'host', level: 'warn', sentence: `${host} has no command loopx knows: it cannot be judged here`, fix: 'ask with --host' };
  const { verdict, refusal, sentence } = await hostStanding(host, command, env.PATH ?? '', root);
  if (refusal) return { key: 'host', level: 'fail', sentence, fix: refusal.hint };
  return { key: 'host', level: verdict.level, sentence };
}

function budgetReasons({ goal, quota, recurringTodos }: ReadinessFacts): ReadinessReason[] {
  const window = `${quota.windowHours} h`;
  const turns: ReadinessReason =
    quota.remaining > 0
      ? { key: 'budget', level: 'ok', sentence: `${quota.remaining} of ${quota.turnsPerWindow} turns left in this ${window} window` }
      : {
          key: 'budget',
          level: 'warn',
          sentence: `this ${window} window's ${quota.turnsPerWindow} turns are spent${quota.nextSlotAt ? `; the next is free at ${quota.nextSlotAt}` : ''}`,
          fix: 'wait for the window, or give the goal more turns (its goal file, then apply it)',
        };
  const capped = goal.policy.tokensPerWindow !== null || goal.policy.dollarsPerWindow !== null;
  const caps: ReadinessReason = capped
    ? { key: 'caps', level: 'ok', sentence: 'a token or money cap bounds what a window of turns may use' }
    : {
        key: 'caps',
        level: 'warn',
        sentence: 'no token or money cap: turns left alone are bounded only by their count',
        fix: 'set quota.tokens and quota.dollars in its goal file and apply it (or New Goal’s caps for a new goal)',
      };
  const schedule: ReadinessReason =
    recurringTodos > quota.turnsPerWindow
      ? {
          key: 'schedule',
          level: 'warn',
          sentence: `${recurringTodos} recurring todos, but only ${quota.turnsPerWindow} turns per ${window}: some occurrences will wait`,
          fix: 'give the goal more turns per window, or fewer recurring todos',
        }
      : {
          key: 'schedule',
          level: 'ok',
          sentence: `its turns per window cover its ${recurringTodos} recurring todo${recurringTodos === 1 ? '' : 's'}`,
        };
  return [turns, caps, schedule];
}

function peopleReasons({ goal, pendingGates, blockedTodos, checksToAllow }: ReadinessFacts): ReadinessReason[] {
  const gates: ReadinessReason = pendingGates.length
    ? {
        key: 'people',
        level: 'fail',
        sentence: `waits on a person: ${pendingGates.map((g) => `${g.id} "${g.question}"`).join('; ')}`,
        fix: `answer it: loopx gate approve ${pendingGates[0]?.id} (or reject) in a terminal, or in VS Code`,
      }
    : blockedTodos.length
      ? {
          key: 'people',
          level: 'warn',
          sentence: `blocked: ${blockedTodos.map((t) => `${t.id} ${t.title}`).join('; ')}`,
          fix: `unblock what a person can: loopx todo unblock ${blockedTodos[0]?.id}`,
        }
      : { key: 'people', level: 'ok', sentence: 'nothing waits on a person' };
  const checks: ReadinessReason = checksToAllow.length
    ? {
        key: 'checks',
        level: 'fail',
        sentence: `checks wait for a person to allow them: ${checksToAllow.map((m) => `${m.id} ${m.check ?? ''}`.trim()).join('; ')}`,
        fix: `loopx monitor approve ${checksToAllow[0]?.id}, or allow a pattern: loopx goal allow-checks ${goal.id} --pattern "…"`,
      }
    : { key: 'checks', level: 'ok', sentence: 'every check its monitors need may run' };
  return [gates, checks];
}

function turnsReason({ goal, recentTurns }: ReadinessFacts): ReadinessReason {
  const { finished, validated } = recentTurns;
  if (finished === 0) return { key: 'turns', level: 'ok', sentence: 'no turn has finished yet' };
  const sentence = `${validated} of its last ${finished} turns made progress`;
  return validated * 2 >= finished
    ? { key: 'turns', level: 'ok', sentence }
    : { key: 'turns', level: 'warn', sentence, fix: `read why: loopx turn list --goal ${goal.id}` };
}

function claimsReason({ staleClaims }: ReadinessFacts): ReadinessReason {
  if (!staleClaims.length) return { key: 'claims', level: 'ok', sentence: 'no claim outlived its lease' };
  return {
    key: 'claims',
    level: 'warn',
    sentence: `claims past their lease: ${staleClaims.map((c) => `${c.id} (${c.owner})`).join(', ')}; the next turn may take them`,
    fix: `release one as its holder: loopx todo release ${staleClaims[0]?.id}`,
  };
}

function worktreesReason({ goal }: ReadinessFacts, root: string): ReadinessReason {
  if (!goal.worktreeBase) return { key: 'worktrees', level: 'ok', sentence: 'its turns work in the workspace folder (no worktrees)' };
  try {
    checkWorktreeBase(root, goal.worktreeBase);
    return { key: 'worktrees', level: 'ok', sentence: `each todo gets a worktree and branch from ${goal.worktreeBase}` };
  } catch (error) {
    return { key: 'worktrees', level: 'fail', sentence: (error as Error).message, fix: (error as { hint?: string }).hint };
  }
}

function workReason({ goal, liveTodos }: ReadinessFacts): ReadinessReason {
  return liveTodos
    ? { key: 'work', level: 'ok', sentence: `${liveTodos} todo${liveTodos === 1 ? '' : 's'} left to work on` }
    : { key: 'work', level: 'warn', sentence: 'nothing left to work on', fix: `add todos: loopx todo add --goal ${goal.id} --title "…"` };
}

function tickerReason({ goal }: ReadinessFacts, alive: ReadinessFacts['runners'], host: string | null): ReadinessReason {
  if (alive.length)
    return {
      key: 'ticker',
      level: 'ok',
      sentence: `loopx run serves it (${alive.map((r) => `${r.agent}, pid ${r.pid}, host ${r.host}`).join('; ')})`,
    };
  return {
    key: 'ticker',
    level: 'warn',
    sentence: 'no loopx run on this machine serves it: only an open VS Code with auto-run would start its turns',
    fix: `start one: loopx run --goal ${goal.id}${goal.host ? '' : ` --host ${host ?? 'HOST'}`} (docs/runner.md keeps it running as a service)`,
  };
}

function nowReason({ goal, answer, quota }: ReadinessFacts): ReadinessReason {
  const sentence = answer.run
    ? 'a turn would start now'
    : `a turn would wait now: ${shouldRunReason({ ...quota, run: false, reason: answer.reason, goalStatus: goal.status, ...(answer.budget ? { budget: answer.budget } : {}) })}`;
  return { key: 'now', level: answer.run || runsSoon(answer) ? 'ok' : 'warn', sentence };
}
