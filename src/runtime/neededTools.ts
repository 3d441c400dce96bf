import type * as ChildProcess from 'node:child_process';
import { heldByWorkspace, programsOnPath } from './programsOnPath';

/** A program some work needs: its name on PATH, the arguments that exit 0 when it is ready, and why it is needed. */
export interface NeededTool {
  program: string;
  ready?: readonly string[];
  why: string;
}

/** A program a preset's work needs, as this machine has it. */
export interface ToolState {
  program: string;
  /** Where it is on PATH (absolute folders outside the workspace), or null. */
  path: string | null;
  /** Whether its readiness command (a sign-in) exits 0; null when it has none or is not installed. */
  ready: boolean | null;
  /** Said when it is missing or not ready; null when all is well. */
  problem: string | null;
}

/**
 * Whether each program is installed, and ready where it says how to ask (`gh auth status`, 10 s at most). Only the
 * person's copy is run: one in PATH's absolute folders outside the workspace, which agents can write.
 */
export function toolStates(needs: readonly NeededTool[], env: NodeJS.ProcessEnv, workspace: string): ToolState[] {
  const held = heldByWorkspace(workspace);
  const names = (program: string) => (process.platform === 'win32' ? [`${program}.exe`, `${program}.cmd`] : [program]);
  return needs.map((tool) => {
    const path = programsOnPath(names(tool.program), env.PATH ?? '').find(({ real }) => !held(real))?.path ?? null;
    if (!path) return { program: tool.program, path, ready: null, problem: `${tool.program} is not installed: ${tool.why}` };
    if (!tool.ready) return { program: tool.program, path, ready: null, problem: null };
    const { spawnSync } = process.getBuiltinModule('node:child_process') as typeof ChildProcess;
    const asked = spawnSync(path, [...tool.ready], { env, encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
    const ready = asked.status === 0;
    return {
      program: tool.program,
      path,
      ready,
      problem: ready ? null : `${tool.program} is installed but not ready (${tool.program} ${tool.ready.join(' ')} failed): ${tool.why}`,
    };
  });
}
