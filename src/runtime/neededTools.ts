import type * as ChildProcess from 'node:child_process';
import { personsProgram } from './programsOnPath';

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
export function toolStates(needs: readonly NeededTool[], env: NodeJS.ProcessEnv, workspace: string): Promise<ToolState[]> {
  const names = (program: string) => (process.platform === 'win32' ? [`${program}.exe`, `${program}.cmd`] : [program]);
  return Promise.all(
    needs.map(async (tool): Promise<ToolState> => {
      const path = personsProgram(names(tool.program), env.PATH ?? '', workspace);
      if (!path) return { program: tool.program, path, ready: null, problem: `${tool.program} is not installed: ${tool.why}` };
      const readyArgs = tool.ready;
      if (!readyArgs) return { program: tool.program, path, ready: null, problem: null };
      // Not blocking: VS Code's New Goal from a Preset asks too, on the extension host.
      const { execFile } = process.getBuiltinModule('node:child_process') as typeof ChildProcess;
      const ready = await new Promise<boolean>((done) => execFile(path, [...readyArgs], { env, timeout: 10_000 }, (error) => done(!error)));
      return {
        program: tool.program,
        path,
        ready,
        problem: ready ? null : `${tool.program} is installed but not ready (${tool.program} ${readyArgs.join(' ')} failed): ${tool.why}`,
      };
    }),
  );
}

/** Each program asked once, however many lists name it (two presets that need gh run one `gh auth status`). */
export async function toolStatesByProgram(
  needs: readonly NeededTool[],
  env: NodeJS.ProcessEnv,
  workspace: string,
): Promise<Map<string, ToolState>> {
  const once = [...new Map(needs.map((need) => [need.program, need])).values()];
  return new Map((await toolStates(once, env, workspace)).map((state) => [state.program, state]));
}
