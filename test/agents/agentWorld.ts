import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOOPX, REPO, cleanEnv, loopx, startGoal } from '../cli/harness';
import { Kernel } from '../../src/kernel/kernel';
import { setPrice } from '../../src/kernel/prices/priceTable';
import { agentBin, agentEnv, readTurn, shipScript } from './agentEnv';
import { type ModelServer, type Step, startModelServer } from './modelServer';

/** A turn as the scripted model sees it: its todo, the prompt's loopx prefix, and whether it writes back through MCP. */

/** The person's price for the scripted model (US dollars per million tokens), set in every agent world. */
export const SCRIPTED_PRICE = { model: 'loopx-scripted', input: 2, cachedInput: 0.2, output: 8 };

/**
 * What a scripted shipping turn used, for a host that reports tokens and no cost of its own: four model requests of
 * 100 tokens in and 20 out, priced from the person's table.
 */
export const SCRIPTED_TURN_USAGE = {
  inputTokens: 400,
  outputTokens: 80,
  cachedTokens: 0,
  costUsd: (400 * SCRIPTED_PRICE.input + 80 * SCRIPTED_PRICE.output) / 1_000_000,
  costSource: 'prices',
  model: 'loopx-scripted',
};

export type TurnSeen = NonNullable<ReturnType<typeof readTurn>>;

/**
 * How long a test of the real agent CLIs may take: a turn takes 5 to 40 s alone here, and over the 60 s every other test
 * gets when the suites run beside the e2e on CI's two cores (Claude Code's first turn of a run took 60.5 s in session
 * 34's first CI; a Codex turn over 60 s in stop 62's). Each agents file's describe takes it.
 */
export const REAL_AGENT_TEST = { timeout: 240_000 };

/**
 * The world the real agent CLIs run in for a test file: one temporary folder whose name has a space (loopx reached
 * through a folder with a space, as on macOS), a scripted model on 127.0.0.1, and workspaces made as a person does.
 * By default the model follows the prompt (`shipScript`); a test puts its own steps before the evidence (`extra`) or
 * replaces the script (`only`).
 */
export interface AgentWorld {
  base: string;
  server: ModelServer;
  /** This loopx, reached through a folder with a space in its name. */
  spacedLoopx: string;
  extra: (turn: TurnSeen) => Step[];
  /** Replaces the script: the turn as read, and the whole prompt (a review turn's says so in its first line). */
  only: ((turn: TurnSeen, prompt: string) => Step[]) | undefined;
  /** A workspace with G1 active and T1 ready: its root, the agents' environment and the CLI as a person runs it. */
  setUp(): { root: string; env: Record<string, string>; cli: (args: string[]) => ReturnType<typeof loopx>; n: number };
  /** `loopx run … --once --json` through the spaced path, as a child (the model server answers meanwhile). */
  run(
    root: string,
    env: Record<string, string>,
    args: string[],
  ): Promise<{ code: number | null; events: Record<string, unknown>[]; stderr: string }>;
  close(): Promise<void>;
}

/** The end of a turn's output log (the host's own words), for a failing assertion's message. */
export function turnLog(root: string, turn = 'R1'): string {
  try {
    return readFileSync(join(root, '.loopx', 'turns', turn, 'output.log'), 'utf8').slice(-4000);
  } catch {
    return `(no output log for ${turn})`;
  }
}

export async function startAgentWorld(name: string): Promise<AgentWorld> {
  const base = mkdtempSync(join(tmpdir(), `loopx ${name} `));
  const bin = agentBin(REPO);
  const spacedLoopx = join(base, 'my tools', 'loopx');
  mkdirSync(join(base, 'my tools'));
  symlinkSync(LOOPX, spacedLoopx);
  let n = 0;
  const world: AgentWorld = {
    base,
    spacedLoopx,
    extra: () => [],
    only: undefined,
    server: await startModelServer({
      script: (prompt) => {
        const turn = readTurn(prompt);
        if (!turn) return [];
        if (world.only) return world.only(turn, prompt);
        const [show, evidence, ship] = shipScript(prompt) as [Step, Step, Step];
        return [show, ...world.extra(turn), evidence, ship];
      },
    }),
    setUp() {
      const root = join(base, `work space ${++n}`);
      mkdirSync(root);
      const env = agentEnv(world.server, join(base, `home ${n}`), bin);
      const cli = (args: string[]) => loopx(args, { cwd: root, env: { HOME: env.HOME as string } });
      cli(['init']);
      // A person's price for the scripted model, set as at a terminal (Codex reports no cost; Claude Code's own wins).
      const person = Kernel.open(root, { actor: { name: 'ada', kind: 'human', channel: 'tty' } });
      try {
        setPrice(person, SCRIPTED_PRICE);
      } finally {
        person.close();
      }
      cli(['goal', 'create', '--title', 'Ship the importer', '--turns', '5']);
      startGoal(root);
      cli(['todo', 'add', '--goal', 'G1', '--title', 'Parse quoted fields', '--detail', 'fixtures pass']);
      return { root, env, cli, n };
    },
    run(root, env, args) {
      return new Promise((done) => {
        const child = spawn(process.execPath, [spacedLoopx, 'run', '--json', '--once', ...args], { cwd: root, env: cleanEnv(env) });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) =>
          done({
            code,
            stderr,
            events: stdout
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as Record<string, unknown>),
          }),
        );
      });
    },
    async close() {
      await world.server.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
  return world;
}
