import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type * as vscode from 'vscode';
import { CliOnPathNotice } from '../../src/extension/cliOnPathNotice';
import type { Log } from '../../src/extension/util/log';
import { LOOPX_VERSION } from '../../src/shared/version';
import { REPO, terminalsOpenedDuring, until, withAnswers, workspaceRoot } from './support';

/** A Memento in memory (the notice's globalState). */
class Memory implements vscode.Memento {
  private readonly values = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, fallback?: T): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : fallback;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
  }
}

/**
 * A loopx of `version` installed with npm install -g into a prefix of its own (its package under lib/node_modules,
 * bin/loopx linked from the prefix's bin/), answering `--version --json` as loopx does and noting each time it runs;
 * and a stand-in for npm's install that writes down what it was asked.
 */
function planted(version: string) {
  const prefix = mkdtempSync(join(tmpdir(), 'loopx-path-'));
  const pkg = join(prefix, 'lib', 'node_modules', 'loopx');
  mkdirSync(join(pkg, 'bin'), { recursive: true });
  mkdirSync(join(prefix, 'bin'));
  const ran = join(prefix, 'ran.txt');
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'loopx', version, bin: { loopx: 'bin/loopx' } }));
  writeFileSync(join(pkg, 'bin', 'loopx'), `#!/bin/sh\necho "$@" >> '${ran}'\necho '{"ok":true,"data":{"version":"${version}"}}'\n`);
  chmodSync(join(pkg, 'bin', 'loopx'), 0o755);
  symlinkSync(join(pkg, 'bin', 'loopx'), join(prefix, 'bin', 'loopx'));
  const asked = join(prefix, 'npm-asked.txt');
  const npm = join(prefix, 'npm-stand-in');
  writeFileSync(npm, `#!/bin/sh\necho "$@" > '${asked}'\n`);
  chmodSync(npm, 0o755);
  const env = { ...process.env, PATH: `${join(prefix, 'bin')}${delimiter}${process.env.PATH}`, npm_config_prefix: prefix };
  return { path: join(prefix, 'bin', 'loopx'), ran, asked, npm, env };
}

suite('the loopx on PATH (VS Code names one of another version)', () => {
  // Not a Log of its own: VS Code 1.139 gives a second output channel named LoopX the extension's own, and disposing
  // it closed the extension's log under every later suite ("Channel has been closed").
  const lines: string[] = [];
  const log = { info: (line: string) => lines.push(line), warn: (line: string) => lines.push(line) } as unknown as Log;
  const notice = (loopx: ReturnType<typeof planted>, memory = new Memory(), trusted = true) =>
    new CliOnPathNotice(memory, log, {
      workspace: workspaceRoot(),
      ownCli: join(REPO, 'bin', 'loopx'),
      env: loopx.env,
      isTrusted: () => trusted,
      npm: loopx.npm,
    });

  test('in an untrusted workspace it runs nothing and says nothing', async () => {
    const older = planted('0.0.1');
    const { result, prompts } = await withAnswers({}, () => notice(older, new Memory(), false).look());
    assert.equal(result.named, null);
    assert.deepEqual(prompts, []);
    assert.equal(existsSync(older.ran), false, 'the loopx on PATH was not run');
  });

  test('an older loopx installed with npm: named with both versions; Update It installs this version in a terminal after a modal naming the command', async () => {
    const older = planted('0.0.1');
    const { result, prompts } = await withAnswers({ notices: ['Update It'], warnings: ['Install'] }, async () => {
      const look = await notice(older).look();
      await until(() => existsSync(older.asked), 'the terminal to run the install');
      return look;
    });
    assert.equal(result.named?.path, older.path);
    assert.equal(readFileSync(older.ran, 'utf8').trim(), '--version --json');
    assert.ok(
      lines.some((line) => line.startsWith(`loopx on PATH: ${older.path} (0.0.1)`)),
      'the output channel names what was found',
    );
    assert.equal(
      prompts[0],
      `warning: The loopx your terminals outside VS Code run (${older.path}) is version 0.0.1; this LoopX extension is ${LOOPX_VERSION}. ` +
        "Once the extension updates a workspace's store, that loopx will refuse it until it is updated too. [Update It | Don't Show Again]",
    );
    assert.equal(
      prompts[1],
      `warning (modal): Install loopx ${LOOPX_VERSION} for your terminals? | This runs npm install -g loopx@${LOOPX_VERSION} in a terminal, with your npm and its registry.`,
    );
    assert.equal(readFileSync(older.asked, 'utf8').trim(), `install -g loopx@${LOOPX_VERSION}`);
  });

  test("Don't Show Again: that loopx at that version is not named again; nothing is installed without the modal's yes", async () => {
    const older = planted('0.0.2');
    const memory = new Memory();
    const first = await withAnswers({ notices: ["Don't Show Again"] }, async () => {
      const look = await notice(older, memory).look();
      await until(() => memory.keys().length > 0, 'the dismissal to be kept');
      return look;
    });
    assert.equal(first.result.named?.version, '0.0.2');
    const again = await withAnswers({}, () => notice(older, memory).look());
    assert.equal(again.result.named, null);
    assert.deepEqual(again.prompts, []);
    // The notice comes after the loopx on PATH and npm answered (not awaited by look()): wait for the notice and the
    // modal themselves, not a fixed time (1.5 s was too short in a loaded CI run). A yes would open the install's
    // terminal at once, before the modal's answer returns. What counts is a terminal opened, not how many are open: the
    // last test's install terminal may close meanwhile (seen once: 1 open before, 0 after).
    const { result: declined, opened } = await terminalsOpenedDuring(() =>
      withAnswers({ notices: ['Update It'], warnings: [undefined] }, async (prompts) => {
        await notice(older).look();
        await until(() => prompts.length >= 2, 'the notice and the install modal');
      }),
    );
    assert.equal(declined.prompts.length, 2, declined.prompts.join('\n'));
    assert.deepEqual(
      opened.filter((name) => name.startsWith('LoopX: install loopx')),
      [],
      'no install terminal opened',
    );
    assert.equal(existsSync(older.asked), false, 'no terminal ran npm');
  });

  test('a newer loopx: the extension is the one to update; one of this version: nothing said', async () => {
    const newer = planted('99.0.0');
    const { prompts } = await withAnswers({}, async (shown) => {
      await notice(newer).look();
      await until(() => shown.length >= 1, 'the notice');
    });
    assert.match(
      prompts[0] ?? '',
      /is version 99\.0\.0; this LoopX extension is .*will refuse the store until the extension is updated too\. \[Update the Extension \| Don't Show Again\]$/,
    );
    const same = planted(LOOPX_VERSION);
    const quiet = await withAnswers({}, () => notice(same).look());
    assert.equal(quiet.result.named, null);
    assert.equal(quiet.result.found[0]?.version, LOOPX_VERSION);
    assert.deepEqual(quiet.prompts, []);
  });
});
