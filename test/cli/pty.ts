import { spawn, spawnSync } from 'node:child_process';
import { LOOPX, cleanEnv } from './harness';

/**
 * Runs bin/loopx with stdin and stdout on a pseudo-terminal (stderr on a pipe), as a person in a terminal would,
 * and types `typed` (plus Enter) at it. python3's pty module does the terminal part: it is on Debian and on CI.
 */
const DRIVER = String.raw`
import json, os, select, subprocess, sys
argv, typed, env = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
master, slave = os.openpty()
child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=subprocess.PIPE, env=env, cwd=os.environ.get('PTY_CWD'))
os.close(slave)
os.write(master, (typed + '\n').encode())
out, err, open_fds = b'', b'', {master, child.stderr.fileno()}
while open_fds:
    ready, _, _ = select.select(list(open_fds), [], [], 60)
    if not ready:
        child.kill()
        break
    for fd in ready:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b''
        if not chunk:
            open_fds.discard(fd)
        elif fd == master:
            out += chunk
        else:
            err += chunk
code = child.wait()
print(json.dumps({'code': code, 'stdout': out.decode('utf8', 'replace'), 'stderr': err.decode('utf8', 'replace')}))
`;

/**
 * The interpreter python3 names, asked once: where python3 on PATH is a version manager's shim (pyenv's, on this
 * machine type), each call through it starts about 34 shell processes first, 0.3 s of wall time a call.
 */
const probe = spawnSync('python3', ['-c', 'import pty, os, sys; os.openpty(); print(sys.executable)'], { encoding: 'utf8' });
export const PTY_AVAILABLE = probe.status === 0;
const PYTHON = (PTY_AVAILABLE && probe.stdout.trim()) || 'python3';
export const PTY_SKIP_REASON = 'python3 with the pty module is not available: the interactive-terminal tests cannot run here';
if (!PTY_AVAILABLE) console.warn(`SKIPPED: ${PTY_SKIP_REASON}`);

export interface PtyRun {
  code: number;
  /** What the terminal showed on stdout (the typed echo included, with \r\n line ends). */
  stdout: string;
  stderr: string;
  /** The JSON envelope printed on stdout, when --json was given. */
  json: { ok: boolean; data?: unknown; error?: { code: string; message: string } } | null;
}

/** Runs bin/loopx on a pseudo-terminal as a person would, typing `typed` and Enter. */
export function loopxTty(args: string[], typed: string, options: { cwd: string; env?: Record<string, string> }): PtyRun {
  return runInPty([process.execPath, LOOPX, ...args], typed, cleanEnv(options.env), options.cwd);
}

/** Any command on a pseudo-terminal (stdin and stdout; stderr on a pipe), typing `typed` and Enter at it. */
export function runInPty(argv: string[], typed: string, env: NodeJS.ProcessEnv, cwd: string): PtyRun {
  const result = spawnSync(PYTHON, ['-c', DRIVER, JSON.stringify(argv), typed, JSON.stringify(env)], {
    encoding: 'utf8',
    env: { ...process.env, PTY_CWD: cwd },
    timeout: 120_000,
  });
  if (result.status !== 0) throw new Error(`pty driver failed: ${result.stderr}`);
  const run = JSON.parse(result.stdout) as Omit<PtyRun, 'json'>;
  const line = run.stdout.split(/\r?\n/).find((l) => l.startsWith('{'));
  return { ...run, json: line ? JSON.parse(line) : null };
}

/** The same, without blocking this process (other writers' callbacks keep running meanwhile). */
export function loopxTtyAsync(args: string[], typed: string, options: { cwd: string; env?: Record<string, string> }): Promise<PtyRun> {
  return new Promise((done, fail) => {
    const env = cleanEnv(options.env);
    const child = spawn(PYTHON, ['-c', DRIVER, JSON.stringify([process.execPath, LOOPX, ...args]), typed, JSON.stringify(env)], {
      env: { ...process.env, PTY_CWD: options.cwd },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      if (code !== 0) return fail(new Error(`pty driver failed: ${err}`));
      const run = JSON.parse(out) as Omit<PtyRun, 'json'>;
      const line = run.stdout.split(/\r?\n/).find((l) => l.startsWith('{'));
      done({ ...run, json: line ? JSON.parse(line) : null });
    });
  });
}
