import semverCompare from 'semver/functions/compare';
import semverValid from 'semver/functions/valid';
import type { Command, CommandContext } from '../command';
import { EXIT, InvalidInputError, LoopxError } from '../../kernel/errors';
import { LOOPX_VERSION } from '../../shared/version';
import { workspaceOrCwd } from '../../runtime/locate';
import { loopxFolder } from '../loopxFolder';
import { type InstallChannel, howToUpdate, installChannelOf, installedVersion } from '../../runtime/installChannel';
import { type Latest, installGlobal, installWords, latestOnNpm, npmGlobalRoot } from '../../runtime/npmChannel';

export interface UpdatePlan {
  /** This loopx's version (what its bundles say). */
  version: string;
  channel: InstallChannel['kind'];
  root: string;
  /** The newest version the channel offers, when loopx can ask it (npm's registry); null otherwise. */
  latest: string | null;
  /** `update`: `update apply` would install `latest`; `current`: nothing newer; `manual`: the channel updates itself. */
  action: 'update' | 'current' | 'manual' | 'unknown';
  /** What `update apply` would run (npm-global only). */
  command?: string;
  how: string;
  /** Why `latest` is unknown. */
  lookup?: { code: string; message: string };
}

/** What `update plan` says and `update apply` starts from: this loopx's channel, and the newest version it offers. */
export function updatePlan(env: NodeJS.ProcessEnv, workspace: string, root = loopxFolder()): UpdatePlan {
  const channel = installChannelOf(root, () => npmGlobalRoot(env, workspace));
  const base = { version: channel.installed ?? LOOPX_VERSION, channel: channel.kind, root, how: howToUpdate(channel) };
  if (channel.kind !== 'npm-global') return { ...base, latest: null, action: 'manual' };
  const latest: Latest = latestOnNpm(env, workspace);
  if (latest.version === null) return { ...base, latest: null, action: 'unknown', lookup: { code: latest.code, message: latest.message } };
  const newer = semverValid(latest.version) && semverCompare(latest.version, base.version) > 0;
  return newer
    ? { ...base, latest: latest.version, action: 'update', command: installWords(latest.version) }
    : { ...base, latest: latest.version, action: 'current' };
}

const CHANNEL_WORDS: Record<InstallChannel['kind'], string> = {
  'npm-global': 'installed with npm install -g',
  'npm-project': "a project's npm dependency",
  extension: 'the LoopX extension’s own',
  checkout: 'a checkout',
  unknown: 'installed some other way',
};

function planText(plan: UpdatePlan): string {
  const lines = [`loopx ${plan.version}, ${CHANNEL_WORDS[plan.channel]} (${plan.root})`];
  if (plan.action === 'update') lines.push(`loopx ${plan.latest} is available: \`loopx update apply\` would run ${plan.command}`);
  else if (plan.action === 'current') lines.push(`up to date: the newest on npm is ${plan.latest}`);
  else if (plan.action === 'unknown') lines.push(`${plan.lookup?.message}; nothing to install`);
  else lines.push(plan.how);
  return lines.join('\n');
}

export const updatePlanCommand: Command = {
  name: ['update', 'plan'],
  summary: 'say how this loopx was installed and what `loopx update apply` would change (changes nothing)',
  description:
    'Names the channel this loopx came from: npm install -g, the LoopX extension (its terminals’ loopx), a\n' +
    "project's npm dependency or a checkout. For npm install -g it asks the registry npm is set up with for the\n" +
    'newest loopx and says the install `update apply` would run; every other channel is updated through itself.',
  examples: ['loopx update plan', 'loopx update plan --json'],
  run(ctx) {
    const plan = updatePlan(ctx.env, workspaceOf(ctx));
    return { data: plan, text: planText(plan) };
  },
};

export const updateApplyCommand: Command = {
  name: ['update', 'apply'],
  summary:
    'install the newest loopx (or VERSION) through the channel this one came from (humans only, in an interactive terminal: you type the version)',
  description:
    'Only for a loopx installed with npm install -g: runs npm install -g loopx@VERSION with your npm and its\n' +
    'registry, after you type the version, then checks what npm installed. Never an older version, never\n' +
    'another channel: the extension updates with VS Code, a checkout with git. Agents cannot run it.',
  positionals: [{ name: 'VERSION', description: 'the version to install (default: the newest on npm)' }],
  humanOnly: true,
  examples: ['loopx update apply   (then type the version it names)', 'loopx update apply 0.2.1'],
  run(ctx) {
    const wanted = ctx.args.positionals[0];
    if (wanted !== undefined && !semverValid(wanted))
      throw new InvalidInputError(`${JSON.stringify(wanted)} is not a version`, 'name one like 0.2.1, or leave it out for the newest');
    const plan = updatePlan(ctx.env, workspaceOf(ctx));
    if (plan.channel !== 'npm-global')
      throw new LoopxError('update_manual', `loopx does not update this install itself: ${plan.how}; nothing was changed`, EXIT.refused);
    const target = wanted ?? plan.latest;
    if (!target) throw lookupFailed(plan);
    if (semverCompare(target, plan.version) === 0)
      return {
        data: { ...plan, installed: plan.version, changed: false },
        text: `loopx ${plan.version} is installed already: nothing to do`,
      };
    if (semverCompare(target, plan.version) < 0)
      throw new LoopxError(
        'update_older',
        `${target} is older than this loopx (${plan.version}): a store this one migrated would be refused by it, so loopx does not install it; nothing was changed`,
        EXIT.refused,
        `to go back anyway, run ${installWords(target)} yourself`,
      );
    return apply(ctx, plan, target);
  },
};

function apply(ctx: CommandContext, plan: UpdatePlan, target: string) {
  ctx.confirmHuman(`install loopx ${target} in place of ${plan.version}`, target, [
    `it runs: ${installWords(target)}`,
    `with your npm and its registry, into ${plan.root}`,
  ]);
  const run = installGlobal(target, ctx.env, workspaceOf(ctx));
  const installed = installedVersion(plan.root);
  if (run.status !== 0 || installed !== target)
    throw new LoopxError(
      'npm_failed',
      `${installWords(target)} ${run.error ? `could not run: ${run.error}` : run.status === null ? 'was stopped after 10 minutes' : `failed (exit ${run.status})`}; loopx ${installed ?? 'at ' + plan.root} is what is installed`,
      EXIT.refused,
      "npm's output above says why (the network, the registry, permissions on its global folder)",
    );
  return {
    data: { ...plan, installed, changed: true },
    text: `loopx ${installed} is installed (was ${plan.version}). A store it opens is brought up to its schema on first use.`,
  };
}

/** Where loopx runs no program found on PATH: the workspace, which agents can write. */
const workspaceOf = (ctx: CommandContext) => workspaceOrCwd({ cwd: ctx.cwd, envRoot: ctx.env.LOOPX_ROOT });

function lookupFailed(plan: UpdatePlan): LoopxError {
  const notPublished = plan.lookup?.code === 'not_published';
  return new LoopxError(
    plan.lookup?.code ?? 'npm_failed',
    `${plan.lookup?.message ?? 'npm did not say which loopx is newest'}; nothing was changed`,
    notPublished ? EXIT.notFound : EXIT.refused,
    notPublished
      ? 'name a version to install, if you know one that is published'
      : "npm's words say why (the network, its registry setting)",
  );
}
