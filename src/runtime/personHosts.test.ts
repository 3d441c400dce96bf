import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { personHosts } from './personHosts';

const dirs: string[] = [];
const configDir = (text?: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'loopx-hosts-'));
  dirs.push(dir);
  if (text !== undefined) writeFileSync(join(dir, 'hosts.json'), text);
  return { LOOPX_CONFIG_DIR: dir };
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test("a person's hosts are read from hosts.json in their config folder, in its order; none without the file", () => {
  expect(personHosts(configDir())).toEqual([]);
  const env = configDir(
    JSON.stringify({
      hosts: { aider: { name: 'Aider', command: 'aider --yes --message-file {prompt}' }, 'my-bot': { command: 'node bot.js' } },
    }),
  );
  expect(personHosts(env)).toEqual([
    { id: 'aider', name: 'Aider', command: 'aider --yes --message-file {prompt}' },
    { id: 'my-bot', name: 'my-bot', command: 'node bot.js' },
  ]);
});

test('a hosts.json that is not JSON, names a built-in host, has a bad name, an empty command or an unknown key is refused in words, nothing taken in part', () => {
  const refused = (text: string) => {
    try {
      personHosts(configDir(text));
    } catch (error) {
      return error as { code: string; message: string };
    }
    throw new Error(`accepted: ${text}`);
  };
  expect(refused('{"hosts": ')).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/hosts\.json is not JSON/) });
  expect(refused(JSON.stringify({ hosts: { claude: { command: 'x' } } })).message).toMatch(/hosts\.claude: that name is a built-in host$/);
  expect(refused(JSON.stringify({ hosts: { custom: { command: 'x' } } })).message).toMatch(/built-in host/);
  expect(refused(JSON.stringify({ hosts: { 'My Bot': { command: 'x' } } })).message).toMatch(/lowercase letters/);
  expect(refused(JSON.stringify({ hosts: { bot: { command: '  ' } } })).message).toMatch(/hosts\.bot\.command/);
  expect(refused(JSON.stringify({ hosts: { bot: { command: 'x', boundary: 'enforced' } } })).message).toMatch(/hosts\.bot/);
  expect(refused(JSON.stringify({ host: {} })).message).toMatch(/hosts\.json/);
});
