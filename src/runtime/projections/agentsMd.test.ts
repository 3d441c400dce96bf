import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { BEGIN, END, agentsBlock, upsertBlock, writeAgentsMd } from './agentsMd';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

test('creates both files, then refreshes only the block and never touches text outside it', () => {
  const root = mkdtempSync(join(tmpdir(), 'loopx-agents-'));
  dirs.push(root);
  writeFileSync(join(root, 'AGENTS.md'), '# House rules\n\nUse tabs.\n');
  expect(writeAgentsMd(root).map((r) => r.action)).toEqual(['updated', 'created']);
  const agents = readFileSync(join(root, 'AGENTS.md'), 'utf8');
  expect(agents.startsWith('# House rules\n\nUse tabs.\n')).toBe(true);
  expect(agents).toContain('loopx todo claim --next --json');
  // Someone edits inside and outside the block; a refresh restores the block and keeps their own text.
  writeFileSync(join(root, 'AGENTS.md'), agents.replace('Use tabs.', 'Use spaces.').replace('Only a human approves', 'Agents approve'));
  expect(writeAgentsMd(root).map((r) => r.action)).toEqual(['updated', 'unchanged']);
  const refreshed = readFileSync(join(root, 'AGENTS.md'), 'utf8');
  expect(refreshed).toContain('Use spaces.');
  expect(refreshed).toContain('Only a human approves');
  expect(refreshed.match(new RegExp(BEGIN.replace(/[()`;]/g, '.'), 'g'))).toHaveLength(1);
  expect(writeAgentsMd(root).map((r) => r.action)).toEqual(['unchanged', 'unchanged']);
});

test('upsert keeps text after the block too', () => {
  const block = agentsBlock();
  const text = `intro\n${block}\noutro\n`;
  expect(upsertBlock(text, agentsBlock('/x/loopx'))).toMatch(/^intro\n<!-- loopx:begin[\s\S]*\/x\/loopx[\s\S]*loopx:end -->\noutro\n$/);
  expect(upsertBlock(text, block).split(END)).toHaveLength(2);
});
