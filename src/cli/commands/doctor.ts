import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command, CommandContext } from '../command';
import type { Kernel } from '../../kernel/kernel';
import { SCHEMA_VERSION, schemaWrittenBy } from '../../kernel/db/migrate';
import { LOOPX_VERSION } from '../../shared/version';
import { engineFacts, integrityCheck } from '../../kernel/db/sqliteDb';
import { verifyChain } from '../../kernel/events/verify';
import { markBroken, setAsideFound } from '../../kernel/logHealth';
import { setAsideWords } from '../../kernel/events/setAside';
import { auditDecisions, decisionWords } from '../../kernel/decisions';
import { checkReplay } from '../../kernel/replay';
import { STATUS_FILE } from '../../runtime/projections/statusMd';
import { openTurns } from '../../kernel/turns/turnQueries';
import { recentRunners } from '../../kernel/turns/runners';
import type { SqliteDb } from '../../kernel/db/sqliteDb';
import { listGoals } from '../../kernel/goals/goalQueries';
import { Painter } from '../format';
import { StoreEnvironmentError, environmentError } from '../../kernel/storeFile';
import { EXIT, LoopxError } from '../../kernel/errors';
import { logHead } from '../../kernel/events/anchor';
import { TeamEngine } from '../../kernel/team/teamEngine';
import { authorityBehind, copyTeamLog, teamStoreFacts } from '../../kernel/team/teamInspect';
import { teamError } from '../../kernel/team/teamErrors';
import { readTeamPointer, resolveTeamConnection, teamReplicaPath } from '../../kernel/team/teamPointer';
import { BUILT_IN_HOSTS } from '../../shared/hostCatalog';
import { hostStanding } from '../../runtime/hostSafety';
import { personHosts } from '../../runtime/personHosts';
import { AGENT_READ_ONLY } from '../../runtime/hostBoundary';
import { humanKeyDir } from '../../kernel/humanKey';
import { worktreeCheck } from '../worktreeWords';
import { getTodoCore, leaseLive } from '../../kernel/todos/todoQueries';
import { OLD_PRICES_FILE } from '../../kernel/prices/priceTable';
import { planCheckSandbox } from '../../kernel/run/checkSandbox';
import { cliVersions, cliVersionsCheck } from '../../runtime/cliVersions';
import { workspaceOrCwd } from '../../runtime/locate';
import { leftOutFolders } from '../../kernel/personsPath';
import { iso } from '../../kernel/time';

type Level = 'ok' | 'warn' | 'fail';
interface Check {
  name: string;
  level: Level;
  detail: string;
  /** For a host: what was found (version, problem), for machines. */
  host?: unknown;
}

/** `worktrees`: the stray worktree folders' line, read from git beforehand (asynchronously). */
function runChecks(kernel: Kernel, worktrees: Awaited<ReturnType<typeof worktreeCheck>>): Check[] {
  const db = kernel.db;
  const checks: Check[] = [];
  const add = (name: string, level: Level, detail: string) => checks.push({ name, level, detail });
  const engine = engineFacts(db);
  const team = kernel.engine instanceof TeamEngine ? kernel.engine : null;
  add(
    'store',
    'ok',
    team
      ? `team store; this machine's replica ${teamReplicaPath(kernel.root)} (driver ${db.driver}, SQLite ${engine.sqliteVersion})`
      : `${kernel.storeDir} (driver ${db.driver}, SQLite ${engine.sqliteVersion})`,
  );
  if (team) checks.push(...teamChecks(kernel, team));
  const version = kernel.schemaVersion;
  const writtenBy = schemaWrittenBy(db);
  add(
    'schema',
    version === SCHEMA_VERSION ? 'ok' : 'fail',
    `version ${version}${writtenBy ? `, written by loopx ${writtenBy}` : ''} (this loopx, ${LOOPX_VERSION}, knows ${SCHEMA_VERSION})`,
  );
  const integrity = integrityCheck(db);
  add('integrity', integrity.join() === 'ok' ? 'ok' : 'fail', integrity.slice(0, 5).join('; '));
  const fk = engine.danglingReferences;
  add('foreign keys', fk === 0 ? 'ok' : 'fail', fk === 0 ? 'no dangling references' : `${fk} dangling references`);
  add('journal', engine.journalMode === 'wal' ? 'ok' : 'warn', `journal_mode=${engine.journalMode}`);
  kernel.read(() => {
    const chain = verifyChain(db);
    if (!chain.ok) markBroken(kernel.storeDir, chain, iso(kernel.clock()));
    add(
      'hash chain',
      chain.ok ? 'ok' : 'fail',
      chain.ok ? `${chain.events} events verified` : `broken at event ${chain.firstBadSeq}: ${chain.problem}`,
    );
    const audit = auditDecisions(db);
    const first = audit.unproven[0];
    add(
      "people's decisions",
      first ? 'fail' : 'ok',
      first
        ? `${audit.unproven.length} not proven by this machine's key (the first: ${decisionWords(first)}, which ${first.why}); loopx runs no turn, check or hook until a person accepts them (loopx log accept) or restores a backup`
        : `${audit.decisions} proven by this machine's key${audit.acceptedThrough ? ` or accepted by a person (through event ${audit.acceptedThrough})` : ''}`,
    );
    const replay = checkReplay(db);
    add(
      'replay',
      replay.ok ? 'ok' : 'fail',
      replay.ok
        ? `replaying ${replay.events} events reproduces every state table`
        : replay.differences
            .map((d) => `${d.table}: ${d.detail}`)
            .join('; ')
            .slice(0, 600),
    );
    add(...setAsideCheck(setAsideFound(db, replay.setAside)));
  });
  add(...staleTurns(kernel));
  add(...runners(kernel));
  if (worktrees) add(...worktrees);
  if (existsSync(join(kernel.root, '.git'))) {
    const ignore = existsSync(join(kernel.root, '.gitignore')) ? readFileSync(join(kernel.root, '.gitignore'), 'utf8') : '';
    const ignored = ignore.split(/\r?\n/).some((l) => /^\/?\.loopx\/?$/.test(l.trim()));
    add(
      'gitignore',
      ignored ? 'ok' : 'warn',
      ignored ? '.loopx/ is ignored by git' : '.loopx/ is not in .gitignore (run loopx init to add it)',
    );
  }
  const statusMd = existsSync(join(kernel.storeDir, STATUS_FILE));
  add('STATUS.md', statusMd ? 'ok' : 'warn', statusMd ? 'present' : 'missing; any change regenerates it');
  // Once read for prices; an agent in its sandbox can rewrite it, so a person adopts its entries or deletes it.
  if (existsSync(join(kernel.storeDir, OLD_PRICES_FILE)))
    add(
      'prices.json',
      'warn',
      '.loopx/prices.json is ignored: turns are priced from the store (loopx prices), where only a person sets a price. ' +
        'To adopt its entries as your decision, run loopx prices import at an interactive terminal, then delete the file',
    );
  return checks;
}

/** A team store: the server (reachable, who we are, durable), its log's chain, and this machine's replica. */
function teamChecks(kernel: Kernel, team: TeamEngine): Check[] {
  const checks: Check[] = [];
  const add = (name: string, level: Level, detail: string) => checks.push({ name, level, detail });
  const pointer = readTeamPointer(kernel.root);
  const shown = resolveTeamConnection(pointer?.database).shown ?? 'the libpq environment';
  try {
    const facts = teamStoreFacts(team.pg);
    const who = facts.human ? "a person's role" : facts.agent ? "an agent's role" : 'neither loopx_humans nor loopx_agents';
    add(
      'team server',
      facts.human || facts.agent ? 'ok' : 'warn',
      `${shown} reachable (PostgreSQL ${facts.serverVersion}); logged in as ${facts.role}, ${who}`,
    );
    add(
      'durability',
      facts.synchronousCommit === 'off' ? 'fail' : 'ok',
      `synchronous_commit=${facts.synchronousCommit}${facts.synchronousCommit === 'off' ? ': a server crash could lose confirmed writes' : ''}`,
    );
    const behind = authorityBehind(team.pg);
    add(
      'team authority',
      behind?.length ? 'warn' : 'ok',
      behind?.length
        ? `the database's trigger predates this loopx: agents' logins may still write ${behind.join(', ')}; the database's owner runs \`loopx team init\` again`
        : "the database refuses every person's decision to agents' logins",
    );
    const copy = copyTeamLog(team.pg);
    try {
      const chain = verifyChain(copy);
      add(
        'team log',
        chain.ok ? 'ok' : 'fail',
        chain.ok ? `${chain.events} events verified in PostgreSQL` : `broken at event ${chain.firstBadSeq}: ${chain.problem}`,
      );
      const logTip = logHead(copy);
      const replicaTip = kernel.read((db) => logHead(db));
      const same = logTip?.seq === replicaTip?.seq && logTip?.hash === replicaTip?.hash;
      add(
        'replica',
        same ? 'ok' : 'fail',
        same
          ? `caught up to event ${logTip?.seq ?? 0}`
          : `ends at event ${replicaTip?.seq ?? 0} but the team log at ${logTip?.seq ?? 0}; delete ${teamReplicaPath(kernel.root)} to rebuild it from the log`,
      );
    } finally {
      copy.close();
    }
  } catch (error) {
    const problem = teamError(error);
    add('team server', 'fail', `${shown}: ${problem instanceof Error ? problem.message : String(problem)}`);
  }
  return checks;
}

/** Events the store could not apply and set aside (events/setAside.ts): a warning until a person records a decision. */
function setAsideCheck(found: ReturnType<typeof setAsideFound>): [string, Level, string] {
  const open = found.filter((e) => !e.handled);
  if (open.length === 0)
    return ['set aside', 'ok', found.length ? `${found.length} set-aside events, each marked handled by a person` : 'every event applied'];
  const list = open.slice(0, 3).map(setAsideWords).join('; ');
  const more = open.length > 3 ? `; and ${open.length - 3} more` : '';
  return [
    'set aside',
    'warn',
    `${list}${more}. Everything else is served; once a person has dealt with it: loopx log handled ${open[0]?.seq} --decision "…"`,
  ];
}

/** The `loopx run` processes seen in the last 24 hours (doctor's runners line, and the hosts the workspace uses). */
function runnersSeenToday(db: SqliteDb, kernel: Kernel): ReturnType<typeof recentRunners> {
  return recentRunners(db, iso(kernel.clock() - 24 * 3600 * 1000));
}

/** `loopx run` processes seen in the last day (a runner's agent is seen when it starts and with every turn). */
function runners(kernel: Kernel): [string, Level, string] {
  const seen = kernel.read((db) => runnersSeenToday(db, kernel));
  if (seen.length === 0) return ['runners', 'ok', 'no loopx run seen in the last 24 hours'];
  return ['runners', 'ok', seen.map((r) => `${r.agent} (host ${r.host}, pid ${r.pid}) last seen ${r.lastSeen}`).join('; ')];
}

/** Open turns whose agent no longer holds the todo (the lease lapsed, or it was released): nobody will finish them. */
function staleTurns(kernel: Kernel): [string, Level, string] {
  const now = iso(kernel.clock());
  const stale = kernel.read((db) =>
    openTurns(db).filter((t) => {
      if (!t.todoId) return false;
      const todo = getTodoCore(db, t.todoId);
      return todo.owner !== t.agent || !leaseLive(todo, now);
    }),
  );
  if (stale.length === 0) return ['turns', 'ok', 'every open turn still holds its todo'];
  const list = stale
    .slice(0, 5)
    .map((t) => `${t.id} (${t.agent}, ${t.todoId})`)
    .join(', ');
  return [
    'turns',
    'warn',
    `open but no longer holding their todo: ${list}${stale.length > 5 ? ` and ${stale.length - 5} more` : ''}; finish with: loopx turn finish ${stale[0]?.id} --exit-code 1`,
  ];
}

/**
 * The agent CLIs `loopx run --host …` would start with their default commands (shared/hostCatalog.ts): installed,
 * which version, and whether they accept the command (a host problem is a warning: the store is fine, turns on that
 * host are not); and whether something would load outside a turn's permissions there (hostSafety.ts).
 */
async function hostChecks(path: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Check[]> {
  // The person's own hosts: a file loopx cannot read is said (the store is fine), and the built-in ones still checked.
  let own: { id: string; command: string }[] = [];
  let ownProblem: Check[] = [];
  try {
    own = personHosts(env);
  } catch (error) {
    ownProblem = [{ name: 'hosts.json', level: 'warn', detail: (error as Error).message }];
  }
  const checks = await Promise.all(
    [...BUILT_IN_HOSTS, ...own].map(async ({ id, command }) => {
      const { verdict, refusal, sentence } = await hostStanding(id, command, path, cwd);
      return {
        name: `host ${id}`,
        level: verdict.level === 'ok' && !refusal ? ('ok' as const) : ('warn' as const),
        detail: sentence,
        host: verdict,
      };
    }),
  );
  return [...checks, ...ownProblem];
}

/**
 * The hosts this workspace uses, each with why: a goal's agent (a person's choice), a `loopx run` seen in the last day.
 * Null when the store cannot say (doctor reports why above it).
 */
function hostsInUse(ctx: Parameters<Command['run']>[0]): Map<string, string[]> | null {
  try {
    const kernel = ctx.kernel();
    const { goals, seen } = kernel.read((db) => ({ goals: listGoals(db), seen: runnersSeenToday(db, kernel) }));
    const uses = new Map<string, string[]>();
    const add = (host: string, why: string) => uses.set(host, [...(uses.get(host) ?? []), why]);
    for (const g of goals) if (g.host && (g.status === 'active' || g.status === 'paused')) add(g.host, `${g.id}'s agent`);
    for (const r of seen) add(r.host, `the host of a loopx run seen today (${r.agent})`);
    return uses;
  } catch {
    return null;
  }
}

/**
 * A host that is not installed is a warning only where this workspace uses it (a goal's agent, a runner's host): a
 * person with one agent CLI is not told six times that the others are missing. Unknown use (no store): warned.
 */
function settleMissingHosts(checks: Check[], inUse: Map<string, string[]> | null): Check[] {
  return checks.map((c) => {
    const found = (c.host as { found?: string | null } | undefined)?.found;
    if (!c.host || found || inUse === null) return c;
    const id = c.name.replace(/^host /, '');
    const uses = inUse.get(id);
    return uses
      ? { ...c, level: 'warn' as const, detail: `${c.detail} This workspace uses it: ${uses.join('; ')}.` }
      : { ...c, level: 'ok' as const };
  });
}

/**
 * What a turn's agent can reach (runtime/hostBoundary.ts): the built-in hosts' default commands keep loopx's files and
 * the hosts' config out of their agents' writes and the person's key out of their reads; a custom command cannot be
 * bounded by loopx, and a person who replaced a built-in host's command without `{boundary}` loses it too. Said, not
 * failed: the store is fine either way.
 */
function boundaryCheck(env: NodeJS.ProcessEnv): Check {
  const keyDir = humanKeyDir({ env });
  return {
    name: 'agent reach',
    level: 'ok',
    detail:
      `The default commands of ${BUILT_IN_HOSTS.map((h) => h.called).join(', ')} keep ${AGENT_READ_ONLY.join(', ')} out of their agents' writes and ` +
      `your key folder ${keyDir} out of their reads. A custom host (or a built-in host's command without {boundary}) ` +
      'gets no such boundary: its agent can write what loopx trusts; a decision it forges is detected (log verify), not prevented.',
  };
}

/**
 * Whether checks loopx runs unattended (acceptance checks, monitor checks) get a sandbox on this machine: without one
 * they run with the full access of whoever ticks them, so it is a warning (the store is fine; the checks are wider).
 */
function sandboxCheck(ctx: CommandContext): Check {
  const { sandbox } = planCheckSandbox({ purpose: 'acceptance', env: ctx.env, actorKind: ctx.actor.kind, writable: [ctx.cwd] });
  return sandbox.kind === 'bubblewrap'
    ? {
        name: 'check sandbox',
        level: 'ok',
        detail:
          'checks run in a sandbox (bubblewrap): the workspace writable except .loopx, .claude, .codex, .mcp.json; no network for acceptance checks, the network kept for monitor checks',
      }
    : { name: 'check sandbox', level: 'warn', detail: `checks run without a sandbox: ${sandbox.reason}` };
}

/** PATH's folders loopx leaves out when it runs git, a host or its node for you (personsPath): said, so a tool is not missed unexplained. */
function pathCheck(path: string): Check {
  const left = leftOutFolders(path);
  const detail = left.length
    ? `loopx never runs git, a host or the node it needs from ${left.join(', ')}: in a workspace (or relative), where agents can write`
    : 'no folder on PATH is in a workspace: git, hosts and their node are found as your shell finds them';
  return { name: 'PATH', level: 'ok', detail };
}

/** A store that cannot be opened or read (damaged, not a store, unreadable) is a finding, not a crash. */
async function checkOrReport(run: () => Promise<Check[]>): Promise<Check[]> {
  try {
    return await run();
  } catch (error) {
    // Team mode's server trouble (unreachable, not durable, a damaged pointer) is the environment's too: exit 6.
    const teamTrouble = error instanceof LoopxError && error.exitCode === EXIT.storeUnusable ? error : null;
    const problem = error instanceof StoreEnvironmentError ? error : (teamTrouble ?? environmentError(error));
    if (!problem) throw error;
    return [{ name: 'store', level: 'fail', detail: `${problem.message} (${problem.code}); ${problem.hint}` }];
  }
}

/** The workspace doctor looks at: the folder holding the store it finds from here, else where it runs. */
export const doctor: Command = {
  name: ['doctor'],
  summary:
    'check the store (schema, integrity, hash chain, replay, open turns, .gitignore), the agent CLIs turns run, and the sandbox checks run in',
  readOnly: true,
  async run(ctx) {
    // The hosts are asked (in parallel) while the store is checked.
    const hosts = hostChecks(ctx.env.PATH ?? '', ctx.cwd, ctx.env);
    const clis = cliVersions(ctx.env.PATH ?? '', workspaceOrCwd({ cwd: ctx.cwd, envRoot: ctx.env.LOOPX_ROOT }));
    const store = checkOrReport(async () => {
      const kernel = ctx.kernel();
      return runChecks(kernel, await worktreeCheck(kernel));
    });
    const storeChecks = await store;
    const checks = [
      ...storeChecks,
      { name: 'loopx on PATH', ...cliVersionsCheck(await clis) },
      ...settleMissingHosts(await hosts, storeChecks.some((c) => c.level === 'fail') ? null : hostsInUse(ctx)),
      sandboxCheck(ctx),
      boundaryCheck(ctx.env),
      pathCheck(ctx.env.PATH ?? ''),
    ];
    const ok = checks.every((c) => c.level !== 'fail');
    const p = new Painter(ctx.color);
    const mark: Record<Level, string> = { ok: p.paint('green', 'ok  '), warn: p.paint('yellow', 'warn'), fail: p.paint('red', 'FAIL') };
    const text = checks.map((c) => `${mark[c.level]}  ${c.name.padEnd(13)} ${c.detail}`).join('\n');
    const data = { ok, checks };
    if (ok) return { data, text };
    const failed = checks.filter((c) => c.level === 'fail').map((c) => c.name);
    return {
      data,
      text,
      failure: {
        code: 'doctor_failed',
        message: `doctor found problems: ${failed.join(', ')}`,
        hint: 'see the failing checks above',
        exitCode: EXIT.refused,
      },
    };
  },
};
