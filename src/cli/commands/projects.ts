import { basename } from 'node:path';
import type { Command } from '../command';
import { Kernel } from '../../kernel/kernel';
import { LoopxError, EXIT } from '../../kernel/errors';
import {
  findProject,
  forgetProject,
  listProjectEntries,
  projectName,
  projectRoot,
  projectsPath,
  registerProject,
  renameProject,
  type ProjectEntry,
} from '../../kernel/projects/projectRegistry';
import { readStoreId } from '../../kernel/projects/storeIdentity';
import { type ProjectSummary, summarizeProject } from '../../kernel/readModels/projectSummary';
import { byWhatWaits, waitingWords } from '../../protocol/projectWords';
import { countOf } from '../../shared/countWords';
import { clean, Painter, relativeTime } from '../format';

const place = (env: NodeJS.ProcessEnv) => ({ env });

/** What a person can do about a project whose folder or store is gone (an unreadable store's problem says its own). */
function goneHint(s: ProjectSummary): string {
  const forget = `loopx projects forget ${JSON.stringify(s.name)}`;
  if (s.state === 'missing') return `; moved? open it from its new place and it is found again; else ${forget}`;
  if (s.state === 'no_store') return `; loopx init there starts a new store, or ${forget}`;
  return '';
}

function projectLine(p: Painter, s: ProjectSummary, nowMs: number): string {
  const head = `  ${p.paint('bold', clean(s.name))}  ${clean(s.root)}`;
  if (s.state !== 'ok') return `${head}\n    ${p.paint('red', clean(s.problem ?? s.state))}${goneHint(s)}`;
  const facts = [
    s.store === 'team' ? 'team store' : 'local store',
    s.running ? countOf(s.running, 'turn running', 'turns running') : null,
    s.lastActivity ? `last change ${relativeTime(s.lastActivity, nowMs)}` : null,
  ].filter((f): f is string => f !== null);
  const waits = s.waiting && s.waiting.total > 0 ? p.paint('yellow', waitingWords(s.waiting)) : p.paint('dim', 'nothing waits on you');
  return `${head}\n    ${waits} · ${facts.join(' · ')}`;
}

export const projectsList: Command = {
  name: ['projects'],
  summary: 'your projects: every workspace loopx initialised or opened for you, and what waits on you in each',
  description: [
    'A project is listed when `loopx init`, VS Code or `loopx team join` opens it. Each is read from this machine only',
    "(a team store through this machine's copy), what waits on you first. A folder that moved or is gone is said, not",
    'an error; a store that moved with its folder is found again when it is opened from its new place.',
  ].join('\n'),
  examples: ['loopx projects', 'loopx projects --json'],
  run(ctx) {
    const now = Date.now();
    const projects = listProjectEntries(place(ctx.env))
      .map((e) => summarizeProject(e, now))
      .sort(byWhatWaits);
    const file = projectsPath(place(ctx.env));
    const text = () => {
      if (projects.length === 0) return 'No projects yet: `loopx init` in a workspace, or opening it in VS Code, lists it here.';
      const p = new Painter(ctx.color);
      const waiting = projects.filter((s) => (s.waiting?.total ?? 0) > 0).length;
      const title = `${countOf(projects.length, 'project')}${waiting > 0 ? `, ${waiting} waiting on you` : ''}`;
      return [p.paint('bold', title), ...projects.map((s) => projectLine(p, s, now))].join('\n');
    };
    return { data: { projects, file }, text };
  },
};

function entryWords(e: ProjectEntry): string {
  return `${clean(e.name)} (${clean(e.root)})`;
}

// The person's own list is changed only by a person at a terminal, never by an agent: it decides what they see first
// (a project an agent took off the list would no longer show what waits on them there). Each asks for the name typed.
export const projectsAdd: Command = {
  name: ['projects', 'add'],
  summary: 'list a workspace that has a loopx store among your projects (humans only)',
  humanOnly: true,
  positionals: [{ name: 'PATH', description: "the workspace's folder (the one holding .loopx/)", required: true }],
  flags: { name: { type: 'string', value: 'NAME', description: "the project's name (default: the folder's name)" } },
  examples: ['loopx projects add ~/src/api', 'loopx projects add . --name "Billing API"'],
  run(ctx) {
    const root = projectRoot(ctx.args.positionals[0] as string, ctx.cwd);
    if (!Kernel.hasStore(root))
      throw new LoopxError('no_store', `${root} has no loopx store`, EXIT.noStore, `run loopx init there first (it lists the project too)`);
    const given = ctx.args.str('name');
    const name = given === undefined ? undefined : projectName(given);
    ctx.confirmHuman(`list ${root} among your projects`, basename(root) || root);
    const registered = registerProject(root, 'projects add', readStoreId(root), place(ctx.env));
    const entry = name === undefined ? registered.entry : renameProject(registered.entry.root, name, place(ctx.env));
    const said = { added: 'Listed', seen: 'Already listed:', moved: 'Found again after its folder moved:' }[registered.change];
    return { data: { project: entry, change: registered.change }, text: `${said} ${entryWords(entry)}` };
  },
};

export const projectsRename: Command = {
  name: ['projects', 'rename'],
  summary: 'give a project another name (humans only)',
  humanOnly: true,
  positionals: [
    { name: 'PROJECT', description: 'its name or its folder', required: true },
    { name: 'NAME', description: 'the new name', required: true },
  ],
  examples: ['loopx projects rename api "Billing API"'],
  run(ctx) {
    const [ref, given] = ctx.args.positionals as [string, string];
    const name = projectName(given);
    const current = findProject(ref, place(ctx.env), ctx.cwd);
    ctx.confirmHuman(`rename the project ${current.name} (${current.root}) to ${name}`, current.name);
    const entry = renameProject(current.root, name, place(ctx.env), ctx.cwd);
    return { data: { project: entry }, text: `Renamed: ${entryWords(entry)}` };
  },
};

export const projectsForget: Command = {
  name: ['projects', 'forget'],
  summary: 'take a project off your list; its folder and store are not touched (humans only)',
  humanOnly: true,
  positionals: [{ name: 'PROJECT', description: 'its name or its folder', required: true }],
  examples: ['loopx projects forget old-prototype'],
  run(ctx) {
    const current = findProject(ctx.args.positionals[0] as string, place(ctx.env), ctx.cwd);
    ctx.confirmHuman(`take ${current.name} (${current.root}) off your projects; its files stay`, current.name);
    const entry = forgetProject(current.root, place(ctx.env), ctx.cwd);
    return { data: { project: entry }, text: `No longer listed: ${entryWords(entry)} (its files are untouched)` };
  },
};

export const PROJECTS_COMMANDS = [projectsList, projectsAdd, projectsRename, projectsForget];
