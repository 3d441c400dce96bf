import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script run by the release workflow, without type declarations
import { changelogSection, checkRepository, versionOfTag } from './release.mjs';

const CHANGELOG = [
  '# Changelog',
  '',
  '## Unreleased',
  '',
  '- next',
  '',
  '## 0.2.0 (2026-12-05)',
  '',
  '- Two things.',
  '- And a third.',
  '',
  '## 0.1.0 (unreleased)',
  '',
  '- The first.',
  '',
].join('\n');

describe('the release check (scripts/release.mjs)', () => {
  it("takes a tag that names package.json's version, and refuses any other", () => {
    expect(versionOfTag('v0.2.0', '0.2.0')).toBe('0.2.0');
    expect(() => versionOfTag('v0.2.1', '0.2.0')).toThrow(/does not name package.json's version 0.2.0: tag the commit v0.2.0/);
    expect(() => versionOfTag('0.2.0', '0.2.0')).toThrow(/does not name/);
    expect(() => versionOfTag('', '0.2.0')).toThrow(/does not name/);
    expect(() => versionOfTag('v0.2.0-rc.1', '0.2.0-rc.1')).toThrow(/not major.minor.patch/);
  });

  it("gives a dated section's text for the release notes, without its heading or the next section", () => {
    expect(changelogSection(CHANGELOG, '0.2.0')).toBe('- Two things.\n- And a third.\n');
  });

  it('refuses a version without a section, one still marked unreleased, and an empty one, saying what to do', () => {
    expect(() => changelogSection(CHANGELOG, '0.3.0')).toThrow(/no section "## 0.3.0": rename "## Unreleased"/);
    expect(() => changelogSection(CHANGELOG, '0.1.0')).toThrow(/still says "\(unreleased\)"/);
    expect(() => changelogSection('## 0.4.0 (2027-01-01)\n\n## 0.3.0 (x)\n- y\n', '0.4.0')).toThrow(/is empty/);
    // 0.2.0 is not 0.2.0x's heading
    expect(() => changelogSection('## 0.2.01 (x)\n- y\n', '0.2.0')).toThrow(/no section/);
  });

  it('in a workflow, refuses a manifest that names another repository than the one it runs in', () => {
    expect(() => checkRepository('https://github.com/loopx/loopx.git', 'loopx/loopx')).not.toThrow();
    expect(() => checkRepository('git+https://github.com/loopx/loopx.git', 'loopx/loopx')).not.toThrow();
    expect(() => checkRepository('https://github.com/loopx/loopx.git', 'ada/loopx')).toThrow(
      /this runs in ada\/loopx: set repository.url \(and homepage, bugs and package:vsix's base URLs\) to https:\/\/github.com\/ada\/loopx.git/,
    );
    // Outside a workflow there is nothing to compare with.
    expect(() => checkRepository('https://github.com/loopx/loopx.git', undefined)).not.toThrow();
  });

  it('says so in one line and exits 1 from the command line, on this checkout as it is', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [join(__dirname, 'release.mjs'), ...args], { encoding: 'utf8' });
    const wrongTag = run('check', 'v99.0.0');
    expect(wrongTag.status).toBe(1);
    expect(wrongTag.stdout).toBe('');
    expect(wrongTag.stderr).toMatch(/^release: the tag "v99.0.0" does not name package.json's version/);
    const usage = run('publish');
    expect(usage.status).toBe(1);
    expect(usage.stderr).toMatch(/usage: node scripts\/release.mjs check <tag> \| notes <version>/);
  });
});
