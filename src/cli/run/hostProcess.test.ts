import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { processAlive, processStart } from '../../runtime/launchers';
import { shellQuote } from '../../runtime/hosts';
import { HELD_EXIT_CODE, type HostProcess, adoptHost, startHost, wrappedCommand } from './hostProcess';

/** `loopx run` stops a host with TERM to its process group, then KILL after the grace: real processes, no mocks. */
const dirs: string[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const until = async (what: () => boolean, tries = 600) => {
  for (let i = 0; i < tries && !what(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return what();
};

/** A turn's folder and an agent that ignores TERM and would live a minute: only KILL ends it before then. */
function stubbornAgent() {
  const turnDir = mkdtempSync(join(tmpdir(), 'loopx-host-'));
  dirs.push(turnDir);
  const pidFile = join(turnDir, 'agent.pid');
  const agent = join(turnDir, 'agent.mjs');
  writeFileSync(
    agent,
    [
      "import { writeFileSync } from 'node:fs';",
      "process.on('SIGTERM', () => console.log('TERM ignored'));",
      `writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));`,
      'setTimeout(() => {}, 60_000);',
    ].join('\n'),
  );
  const commandLine = `${shellQuote(process.execPath)} ${shellQuote(agent)}`;
  const agentPid = async () => {
    expect(await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '')).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    pids.push(pid);
    return pid;
  };
  return { turnDir, commandLine, agentPid };
}

/** `loopx run`'s start of a host for a test's agent: in the agent's folder, with this process's environment. */
const startIn = (agent: { turnDir: string; commandLine: string }) =>
  startHost({
    commandLine: agent.commandLine,
    cwd: agent.turnDir,
    env: process.env,
    turnDir: agent.turnDir,
    limitMs: 600_000,
    echo: () => {},
  });

async function interruptAndWait(host: HostProcess, agentPid: number) {
  host.interrupt(); // TERM to the group: /bin/sh ends at once, the agent does not
  expect(await host.done).toMatchObject({ interrupted: true, exitCode: 130 });
  // Gone once KILLed (and reaped); alive a minute without the KILL, and this wait gives up well before.
  expect(await until(() => !processAlive(agentPid))).toBe(true);
}

test('a stopped host whose agent traps TERM gets KILL after the grace, though the shell that started it is gone', async () => {
  const agent = stubbornAgent();
  const host = startIn(agent);
  host.release(true);
  await interruptAndWait(host, await agent.agentPid());
  expect(readFileSync(join(agent.turnDir, 'output.log'), 'utf8')).toContain('TERM ignored');
});

test("an adopted host (a dead runner's agent) whose agent traps TERM gets KILL after the grace too", async () => {
  const agent = stubbornAgent();
  // What a killed runner left running: /bin/sh leading its own process group, the agent under it.
  const shell = spawn('/bin/sh', ['-c', agent.commandLine], { cwd: agent.turnDir, detached: true, stdio: 'ignore' });
  const hostPid = shell.pid as number;
  pids.push(hostPid);
  const launcher = { pid: 999_999, at: new Date().toISOString(), hostPid, hostStart: processStart(hostPid) };
  const agentPid = await agent.agentPid();
  const host = adoptHost({ launcher, turnDir: agent.turnDir, limitAt: Date.now() + 600_000, echo: () => {} });
  await interruptAndWait(host, agentPid);
});

test('an adopted host whose shell writes its code and exits between two steps of a look is finished with that code', async () => {
  const turnDir = mkdtempSync(join(tmpdir(), 'loopx-host-'));
  dirs.push(turnDir);
  const exitFile = join(turnDir, 'exit-code');
  writeFileSync(exitFile, ''); // the shell's redirection made the file; its number is not written yet
  const launcher = { pid: 999_999, at: new Date().toISOString(), hostPid: 999_998 };
  // The shell's last two steps land while the runner looks: it writes its code, then exits.
  const alive = () => {
    writeFileSync(exitFile, '0');
    return false;
  };
  const host = adoptHost({ launcher, turnDir, limitAt: Date.now() + 600_000, echo: () => {}, alive });
  expect((await host.done).exitCode).toBe(0);
});

/** An agent that only leaves a file behind: whether it ran at all. */
function quickAgent() {
  const turnDir = mkdtempSync(join(tmpdir(), 'loopx-host-'));
  dirs.push(turnDir);
  const ran = join(turnDir, 'ran');
  return { turnDir, ran, commandLine: `echo yes > ${shellQuote(ran)}` };
}

test('a host is held until its runner releases it: released, it runs; ended unreleased, it exits unrun', async () => {
  for (const go of [true, false]) {
    const agent = quickAgent();
    const host = startIn(agent);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(agent.ran)).toBe(false); // held: nothing ran before the release
    host.release(go);
    const run = await host.done;
    expect(run.exitCode).toBe(go ? 0 : HELD_EXIT_CODE);
    expect(existsSync(agent.ran)).toBe(go);
  }
});

test("a held host whose runner dies before releasing it (the hold's pipe closes) never runs its agent", async () => {
  const agent = quickAgent();
  // The runner's side of the hold, closed without a word: what the kernel does to a kill -9ed runner's pipes.
  const shell = spawn('/bin/sh', ['-c', wrappedCommand(agent.commandLine, agent.turnDir)], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => shell.on('exit', resolve));
  await new Promise((resolve) => setTimeout(resolve, 200));
  (shell.stdio[3] as NodeJS.WritableStream & { destroy(): void }).destroy();
  expect(await exited).toBe(HELD_EXIT_CODE);
  expect(existsSync(agent.ran)).toBe(false);
  expect(existsSync(join(agent.turnDir, 'exit-code'))).toBe(false); // never ran: recovery finishes it as gone, unreported
});
