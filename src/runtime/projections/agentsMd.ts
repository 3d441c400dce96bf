import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const BEGIN = '<!-- loopx:begin (managed by `loopx agents-md`; edits inside this block are replaced) -->';
export const END = '<!-- loopx:end -->';

/** The protocol every agent in this workspace follows, written into AGENTS.md and CLAUDE.md. */
export function agentsBlock(loopx = 'loopx'): string {
  return [
    BEGIN,
    '## Working with loopx',
    '',
    'This workspace keeps its long-running work in loopx (`.loopx/`): goals, todos, gates, evidence and quota. The',
    'state is there, not in your context: read it at the start of a turn and write back before you exit.',
    '',
    `1. Set your name once: \`export LOOPX_AGENT=<your-name>\` (or pass \`--agent\`). Every command takes \`--json\`.`,
    `2. Look: \`${loopx} status --json\` (what needs a human, each goal's next todo and quota).`,
    `3. Claim one todo: \`${loopx} todo claim --next --json\`. Read its acceptance text and continuation.`,
    `4. Work inside the goal's scope. Record what you checked: \`${loopx} evidence add --todo T --summary "…" [--artifact PATH]\`.`,
    `5. Finish the turn with one of: \`${loopx} todo ship T --evidence "…"\`, \`${loopx} todo release T --note "what is next"\`,`,
    `   \`${loopx} todo block T --reason "…"\`, \`${loopx} handoff T --to AGENT --summary "…"\`.`,
    `6. Anything gated or irreversible (deleting data, publishing, spending, changing access): \`${loopx} gate ask --todo T --question "…"\``,
    '   and stop. Only a human approves or rejects a gate.',
    `7. Waiting for something outside (CI, a deploy, a long job)? Do not poll: \`${loopx} monitor add --todo T --check "CMD"`,
    `   --every 5m [--until exit0|change|match:RE] --note "…"\` (or \`--after 2h\`), then exit. loopx runs the check once a`,
    '   person allowed it (or it matches a pattern they allowed for the goal; a check never gets more authority than you',
    '   have) and the todo comes back ready, with the result in its continuation.',
    `8. If the todo (or its goal) has an acceptance check, \`todo ship\` is refused until loopx ran it, passing, since your`,
    `   claim: \`${loopx} evidence run --todo T --check\`. \`${loopx} evidence run --todo T -- CMD ARGS…\` records any command's`,
    '   result as kernel-verified evidence (not your word); it runs a command of your choosing, so a host that asks before',
    '   commands (Claude Code) asks for it too.',
    '',
    'Exit codes: 0 done · 2 bad input · 3 refused (claimed by another, lease lost, gate pending, budget spent) · 4 not found ·',
    '5 no store. A refused command changed nothing; read its `error.hint`.',
    END,
  ].join('\n');
}

/** Replaces the managed block, or appends it; text outside the block is never touched. */
export function upsertBlock(text: string, block: string): string {
  const start = text.indexOf(BEGIN.slice(0, 20));
  const end = text.indexOf(END);
  if (start !== -1 && end > start) return `${text.slice(0, start)}${block}${text.slice(end + END.length)}`;
  if (text.length === 0) return `${block}\n`;
  return `${text}${text.endsWith('\n') ? '' : '\n'}\n${block}\n`;
}

/** Writes the block into AGENTS.md and CLAUDE.md at the workspace root (atomically, file by file). */
export function writeAgentsMd(root: string, loopx = 'loopx'): { file: string; action: 'created' | 'updated' | 'unchanged' }[] {
  const block = agentsBlock(loopx);
  return ['AGENTS.md', 'CLAUDE.md'].map((name) => {
    const file = join(root, name);
    const before = existsSync(file) ? readFileSync(file, 'utf8') : null;
    const after = upsertBlock(before ?? '', block);
    if (before === after) return { file, action: 'unchanged' as const };
    const temp = `${file}.loopx-${process.pid}.tmp`;
    writeFileSync(temp, after);
    renameSync(temp, file);
    return { file, action: before === null ? ('created' as const) : ('updated' as const) };
  });
}
