import type { Command } from '../command';
import { getTurn } from '../../kernel/turns/turnQueries';
import { parseId } from '../../kernel/validate';
import { turnBoundarySaid, turnLaunchedBy } from '../../kernel/turns/turnLaunchers';
import { recordedTurnConfig } from '../../kernel/turns/turnConfig';
import { usageWords } from '../../shared/usageWords';
import { clean, relativeTime } from '../format';

const LAUNCHED_BY = { runner: 'loopx run', vscode: 'a VS Code window' } as const;

export const turnShow: Command = {
  name: ['turn', 'show'],
  summary: 'one turn: its result and usage, who launched it, its boundary, and the config its host started with',
  description: [
    'A turn loopx run or VS Code launched records its config when its host starts (event turn.configured): the command',
    'line (the value of an assignment or option whose name says it is a secret, such as OPENAI_API_KEY= or --api-key,',
    "masked; commandSha256 is the line as it ran) and every file loopx had put in the turn's folder, each by its SHA-256.",
    'With --json: config is null for a turn started from a shell; boundary is enforced, none, or null when nobody said.',
  ].join('\n'),
  readOnly: true,
  positionals: [{ name: 'ID', description: 'turn id, e.g. R3', required: true }],
  examples: ['loopx turn show R3', 'loopx turn show R3 --json'],
  run(ctx) {
    const id = parseId('turn', ctx.args.positionals[0]);
    const { turn, launchedBy, boundary, config, now } = ctx.kernel().read((db, now) => {
      const turn = getTurn(db, id);
      return {
        turn,
        launchedBy: turnLaunchedBy(db, turn),
        boundary: turnBoundarySaid(db, turn),
        config: recordedTurnConfig(db, turn),
        now,
      };
    });
    const text = () => {
      const ended = turn.endedAt
        ? `${turn.resultKind}${turn.spent ? ' (spent)' : ''}, exit code ${turn.exitCode}, ended ${relativeTime(turn.endedAt, now)}`
        : 'running';
      const lines = [
        `${turn.id} ${turn.goalId} ${turn.todoId ?? ''}  ${turn.agent} on ${turn.host}  started ${relativeTime(turn.startedAt, now)}: ${ended}`,
      ];
      if (turn.usage) lines.push(`  used: ${usageWords(turn.usage)}`);
      lines.push(
        `  launched by: ${launchedBy ? LAUNCHED_BY[launchedBy] : 'its agent or a person, from a shell'}` +
          (boundary
            ? `; boundary: ${boundary === 'enforced' ? "enforced (loopx's files and the hosts' config out of its agent's writes)" : 'none'}`
            : ''),
      );
      if (!config)
        lines.push('  config: not recorded (only a turn loopx run or VS Code launched records the config its host started with)');
      else {
        lines.push(`  command: ${clean(config.command)}`);
        lines.push(`  files in its folder when the host started (SHA-256):`);
        for (const file of config.files) lines.push(`    ${file.sha256.slice(0, 16)}  ${clean(file.path)}`);
        if (!config.files.length) lines.push('    (none)');
      }
      return lines.join('\n');
    };
    return { data: { ...turn, launchedBy, boundary, config }, text };
  },
};
