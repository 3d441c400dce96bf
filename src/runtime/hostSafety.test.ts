import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { hostRefusal } from './hostSafety';
import { DEFAULT_HOSTS } from './hosts';

const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopx-host-safety-'));
  mkdirSync(join(dir, '.git'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test("OpenCode is refused where the project has plugins it would import, in its folder or its config's list; not without them", () => {
  const root = fresh();
  expect(hostRefusal('opencode', DEFAULT_HOSTS.opencode, root)).toBeNull();
  mkdirSync(join(root, '.opencode', 'plugin'), { recursive: true });
  expect(hostRefusal('opencode', DEFAULT_HOSTS.opencode, root)).toBeNull(); // an empty folder imports nothing
  writeFileSync(join(root, '.opencode', 'plugin', 'x.js'), 'export default async () => ({});\n');
  expect(hostRefusal('opencode', DEFAULT_HOSTS.opencode, root)).toMatchObject({ code: 'host_unsafe', exitCode: 3 });
  const listed = fresh();
  writeFileSync(join(listed, 'opencode.json'), JSON.stringify({ plugin: ['./p.js'] }));
  expect(hostRefusal('opencode', DEFAULT_HOSTS.opencode, listed)?.message).toContain(join(listed, 'opencode.json'));
  // A command without {boundary} promises nothing, and says so elsewhere (the runner, the turn's record, doctor).
  expect(hostRefusal('opencode', 'opencode run', listed)).toBeNull();
  expect(hostRefusal('claude', DEFAULT_HOSTS.claude, listed)).toBeNull();
});

test("Gemini CLI is refused on a machine with system policies, which make it skip the turn's own", () => {
  const root = fresh();
  const policies = join(fresh(), 'policies');
  expect(hostRefusal('gemini', DEFAULT_HOSTS.gemini, root, policies)).toBeNull(); // no such folder
  mkdirSync(policies);
  expect(hostRefusal('gemini', DEFAULT_HOSTS.gemini, root, policies)).toBeNull();
  writeFileSync(join(policies, 'site.toml'), '');
  expect(hostRefusal('gemini', DEFAULT_HOSTS.gemini, root, policies)).toMatchObject({
    code: 'host_unsafe',
    message: expect.stringContaining(join(policies, 'site.toml')),
  });
});
