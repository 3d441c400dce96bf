import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command, CommandContext } from '../command';
import { InvalidInputError, LoopxError, EXIT } from '../../kernel/errors';
import { PRESETS, type Preset, presetNamed, presetPath } from '../../goalFile/presets';
import { type ToolState, toolStates, toolStatesByProgram } from '../../runtime/neededTools';
import { workspaceOrCwd } from '../../runtime/locate';
import { applyGoalFileAt } from './goalApply';

function presetArg(ctx: CommandContext): Preset {
  const name = ctx.args.positionals[0] as string;
  const preset = presetNamed(name.trim());
  if (!preset)
    throw new InvalidInputError(`there is no preset ${JSON.stringify(name)}`, `the presets: ${PRESETS.map((p) => p.name).join(', ')}`);
  return preset;
}

const tools = (ctx: CommandContext, preset: Preset): Promise<ToolState[]> =>
  toolStates(preset.needs, ctx.env, workspaceOrCwd({ cwd: ctx.cwd, envRoot: ctx.env.LOOPX_ROOT }));

const problems = (states: readonly ToolState[]) => states.flatMap((state) => (state.problem ? [state.problem] : []));

export const presetList: Command = {
  name: ['preset', 'list'],
  summary: 'the starter goals loopx can write for you (a goal file each), and whether the tools they need are here',
  examples: ['loopx preset list', 'loopx preset list --json'],
  async run(ctx) {
    const states = await toolStatesByProgram(
      PRESETS.flatMap((preset) => preset.needs),
      ctx.env,
      workspaceOrCwd({ cwd: ctx.cwd, envRoot: ctx.env.LOOPX_ROOT }),
    );
    const presets = PRESETS.map((preset) => ({
      name: preset.name,
      title: preset.title,
      summary: preset.summary,
      file: presetPath(preset),
      tools: preset.needs.map((need) => states.get(need.program) as ToolState),
    }));
    const text = presets
      .map((p) =>
        [
          `${p.name.padEnd(18)}${p.title}`,
          `${' '.repeat(18)}${p.summary}`,
          ...problems(p.tools).map((w) => `${' '.repeat(18)}! ${w}`),
        ].join('\n'),
      )
      .join('\n');
    return {
      data: presets,
      text: `${text}\n\nloopx preset show NAME prints its goal file; loopx preset apply NAME writes and applies it.`,
    };
  },
};

export const presetShow: Command = {
  name: ['preset', 'show'],
  summary: 'print the goal file a preset would write (changes nothing)',
  positionals: [{ name: 'NAME', description: 'a preset, e.g. daily-triage', required: true }],
  examples: ['loopx preset show daily-triage'],
  async run(ctx) {
    const preset = presetArg(ctx);
    const states = await tools(ctx, preset);
    return {
      data: { name: preset.name, title: preset.title, file: presetPath(preset), text: preset.text, tools: states },
      text: [`# ${presetPath(preset)}`, preset.text.trimEnd(), ...problems(states).map((w) => `! ${w}`)].join('\n'),
    };
  },
};

export const presetApply: Command = {
  name: ['preset', 'apply'],
  summary: "write a preset's goal file into the workspace and apply it: its goal starts paused until a person resumes it",
  description:
    'Writes loopx/NAME.goal.md (or --file), for review in the editor and in a pull request, then applies it as\n' +
    '`loopx goal apply` does. The goal starts paused: nothing runs until a person resumes it. A file already there is\n' +
    "never overwritten: the same text is applied again (nothing changes), another text is refused. A preset's\n" +
    "budget and checks are a person's decisions: a person at a terminal types what goal apply asks for; an agent's\n" +
    'apply writes the file only, as a proposal a person reviews and applies.',
  positionals: [{ name: 'NAME', description: 'a preset (loopx preset list)', required: true }],
  flags: {
    file: { type: 'string', value: 'PATH', description: 'where to write the goal file (default: loopx/NAME.goal.md)' },
  },
  mutates: true,
  examples: ['loopx preset apply daily-triage', 'loopx preset apply pr-watch --file loopx/watch-pr-123.goal.md'],
  async run(ctx) {
    const preset = presetArg(ctx);
    const root = ctx.kernel().root;
    const given = ctx.args.str('file');
    if (given !== undefined && !given.trim()) throw new InvalidInputError('--file is empty');
    // --file is relative to where the command runs, as goal apply's FILE; the default to the workspace's root.
    const absolute = given === undefined ? join(root, presetPath(preset)) : resolve(ctx.cwd, given);
    const { workspaceRelative } = await import('../../goalFile/read');
    const file = workspaceRelative(root, absolute, { mustExist: false });
    if (!file.endsWith('.goal.md')) throw new InvalidInputError(`${file} is not a goal file's name`, 'name it NAME.goal.md');
    const existing = existsSync(absolute) ? readFileSync(absolute, 'utf8') : null;
    if (existing !== null && existing !== preset.text)
      throw new LoopxError(
        'file_exists',
        `${file} is already there with other text; it was left as it is and nothing was applied`,
        EXIT.refused,
        `apply it with loopx goal apply ${file}, or write the preset elsewhere with --file`,
      );
    const madeFolder = existing === null && !existsSync(dirname(absolute));
    if (existing === null) {
      mkdirSync(dirname(absolute), { recursive: true });
      writeFileSync(absolute, preset.text);
    }
    const states = await tools(ctx, preset);
    const missing = problems(states);
    // Every preset sets a budget (and most the checks it needs): a person's decisions. An agent's apply is a proposal,
    // the file in the repository, which a person reviews and applies.
    if (ctx.actor.kind === 'agent')
      return {
        data: { preset: preset.name, file, written: existing === null, proposed: true, tools: states },
        text: [
          `Wrote ${file} (preset ${preset.name}) as a proposal: its budget and checks are a person's to set, so a person reviews it and applies it (loopx goal apply ${file}, or Apply in the editor).`,
          ...missing.map((w) => `! ${w}`),
        ].join('\n'),
      };
    let applied;
    try {
      applied = await applyGoalFileAt(ctx, absolute, { dryRun: false, prune: false, startPaused: true });
    } catch (error) {
      // A refused apply changes nothing: the file this call wrote goes too (one that was there stays).
      if (existing === null) rmSync(madeFolder ? dirname(absolute) : absolute, { recursive: madeFolder, force: true });
      throw error;
    }
    const head = existing === null ? `Wrote ${file} (preset ${preset.name}).` : `${file} is the preset's text already.`;
    const text = typeof applied.text === 'function' ? applied.text() : applied.text;
    return {
      ...applied,
      data: { preset: preset.name, file, written: existing === null, tools: states, apply: applied.data },
      text: [head, text, ...missing.map((w) => `! ${w}`)].join('\n'),
    };
  },
};

export const PRESET_COMMANDS: readonly Command[] = [presetList, presetShow, presetApply];
