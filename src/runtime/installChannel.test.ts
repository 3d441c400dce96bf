import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { howToUpdate, installChannelOf } from './installChannel';

function folder(path: string, manifest: object | null, git = false): string {
  mkdirSync(path, { recursive: true });
  if (manifest) writeFileSync(join(path, 'package.json'), JSON.stringify(manifest));
  if (git) mkdirSync(join(path, '.git'));
  return path;
}

describe('the channel a loopx was installed from', () => {
  const base = mkdtempSync(join(tmpdir(), 'loopx-channel-'));
  const askedNpm: string[] = [];
  const globalRoot = (root: string | null) => () => {
    askedNpm.push(String(root));
    return root;
  };

  it('npm install -g: a loopx package in the node_modules folder npm calls global, with the version npm installed', () => {
    const root = folder(join(base, 'prefix', 'lib', 'node_modules', 'loopx'), { name: 'loopx', version: '0.3.1' });
    expect(installChannelOf(root, globalRoot(join(base, 'prefix', 'lib', 'node_modules')))).toEqual({
      kind: 'npm-global',
      root,
      installed: '0.3.1',
    });
  });

  it("a project's dependency: any other node_modules, naming the project (and how to update it there)", () => {
    const root = folder(join(base, 'app', 'node_modules', 'loopx'), { name: 'loopx', version: '0.3.0' });
    const channel = installChannelOf(root, globalRoot(join(base, 'prefix', 'lib', 'node_modules')));
    expect(channel).toEqual({ kind: 'npm-project', root, installed: '0.3.0', project: join(base, 'app') });
    expect(howToUpdate(channel)).toContain(`a dependency of ${join(base, 'app')}`);
    // npm cannot be asked (not installed): not taken for a global install
    expect(installChannelOf(root, globalRoot(null)).kind).toBe('npm-project');
  });

  it('the extension (a manifest for VS Code) and a checkout (a .git) are told without asking npm', () => {
    askedNpm.length = 0;
    const extension = folder(join(base, 'extensions', 'loopx.loopx-0.1.0'), { name: 'loopx', engines: { vscode: '^1.105.0' } });
    expect(installChannelOf(extension, globalRoot('/nowhere'))).toEqual({ kind: 'extension', root: extension });
    const checkout = folder(join(base, 'src', 'loopx'), { name: 'loopx', engines: { vscode: '^1.105.0' } }, true);
    expect(installChannelOf(checkout, globalRoot('/nowhere'))).toEqual({ kind: 'checkout', root: checkout });
    expect(askedNpm).toEqual([]);
    expect(howToUpdate({ kind: 'extension', root: extension })).toMatch(/updated with it: VS Code's Extensions view/);
  });

  it('anything else (an unpacked tarball, another package named loopx, no manifest) is unknown, never guessed', () => {
    const unpacked = folder(join(base, 'downloads', 'package'), { name: 'loopx', version: '0.1.0' });
    expect(installChannelOf(unpacked, globalRoot(null))).toMatchObject({ kind: 'unknown', installed: '0.1.0' });
    const other = folder(join(base, 'g', 'node_modules', 'loopx'), { name: 'not-loopx', version: '9.0.0' });
    expect(installChannelOf(other, globalRoot(join(base, 'g', 'node_modules'))).kind).toBe('unknown');
    expect(installChannelOf(folder(join(base, 'bare'), null), globalRoot(null)).kind).toBe('unknown');
  });
});
