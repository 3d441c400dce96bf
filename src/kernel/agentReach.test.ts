import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { inAgentsReach } from './agentReach';

const parent = realpathSync(mkdtempSync(join(tmpdir(), 'loopx-reach-')));
afterAll(() => rmSync(parent, { recursive: true, force: true }));
const workspace = join(parent, 'app');
mkdirSync(join(workspace, '.loopx'), { recursive: true });
mkdirSync(join(workspace, 'packages', 'web'), { recursive: true });

test("a file in a loopx workspace, at any depth, is in its agents' reach", () => {
  expect(inAgentsReach(join(workspace, 'app.code-workspace'))).toBe(true);
  expect(inAgentsReach(join(workspace, 'packages', 'web', 'web.code-workspace'))).toBe(true);
  expect(inAgentsReach(join(workspace, '.githooks', 'post-checkout'))).toBe(true);
});

test("the paths every built-in host keeps out of its agent's writes are not, nor anything outside a workspace", () => {
  expect(inAgentsReach(join(workspace, '.vscode', 'app.code-workspace'))).toBe(false);
  expect(inAgentsReach(join(workspace, '.cursor', 'hooks.json'))).toBe(false);
  expect(inAgentsReach(join(workspace, '.loopx', 'loopx.db'))).toBe(false);
  expect(inAgentsReach(join(workspace, '.git', 'config'))).toBe(false);
  expect(inAgentsReach(join(workspace, '.github', 'hooks', 'x.json'))).toBe(false);
  expect(inAgentsReach(join(workspace, '.github', 'workflows', 'ci.yml'))).toBe(true); // the project's
  expect(inAgentsReach(join(parent, 'app.code-workspace'))).toBe(false);
  expect(inAgentsReach(join(workspace, '.vscodeX', 'a'))).toBe(true); // a name that only starts like a kept one
});
