// The release workflow's two questions, asked before anything is built or published (.github/workflows/release.yml;
// docs/releasing.md):
//   node scripts/release.mjs check v0.2.0   the tag names package.json's version, the manifest names the repository it
//                                           runs in (GITHUB_REPOSITORY, in a workflow), and CHANGELOG.md has a dated
//                                           section for it; prints `version=0.2.0` (appended to $GITHUB_OUTPUT)
//   node scripts/release.mjs notes 0.2.0    that section's text, the GitHub release's notes
// Either exits 1 with a sentence naming what to fix; nothing is written.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export class ReleaseRefused extends Error {}

/** A release version: major.minor.patch only. The Marketplace takes no pre-release suffix (it has its own flag). */
const VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/** The version a tag releases, when it is `v` + package.json's version; otherwise why not. */
export function versionOfTag(tag, manifestVersion) {
  if (!VERSION.test(manifestVersion))
    throw new ReleaseRefused(`package.json's version ${manifestVersion} is not major.minor.patch: a release needs one`);
  if (tag !== `v${manifestVersion}`)
    throw new ReleaseRefused(
      `the tag ${JSON.stringify(tag)} does not name package.json's version ${manifestVersion}: tag the commit v${manifestVersion}, or change the version first`,
    );
  return manifestVersion;
}

/**
 * The manifest's repository is the one the release runs in (GITHUB_REPOSITORY, owner/name): npm's provenance checks
 * it, and the Marketplace page's links and pictures (package:vsix's base URLs) point there.
 */
export function checkRepository(manifestUrl, githubRepository) {
  if (!githubRepository) return;
  const expected = `https://github.com/${githubRepository}.git`;
  if (String(manifestUrl).replace(/^git\+/, '') !== expected)
    throw new ReleaseRefused(
      `package.json's repository is ${manifestUrl}, but this runs in ${githubRepository}: set repository.url (and homepage, bugs and package:vsix's base URLs) to ${expected}`,
    );
}

/** The text of CHANGELOG.md's section for `version` (its heading `## 0.2.0 (date)` left out), or why there is none. */
export function changelogSection(changelog, version) {
  const lines = changelog.split('\n');
  const start = lines.findIndex((line) => line === `## ${version}` || line.startsWith(`## ${version} `));
  if (start < 0) throw new ReleaseRefused(`CHANGELOG.md has no section "## ${version}": rename "## Unreleased" to "## ${version} (date)"`);
  if (/\(unreleased\)/i.test(lines[start] ?? ''))
    throw new ReleaseRefused(`CHANGELOG.md's section for ${version} still says "(unreleased)": give it the release's date`);
  const next = lines.findIndex((line, at) => at > start && line.startsWith('## '));
  const body = lines
    .slice(start + 1, next < 0 ? undefined : next)
    .join('\n')
    .trim();
  if (!body) throw new ReleaseRefused(`CHANGELOG.md's section for ${version} is empty: say what the release changes`);
  return `${body}\n`;
}

function main([verb, arg]) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
  if (verb === 'check' && arg) {
    const version = versionOfTag(arg, manifest.version);
    checkRepository(manifest.repository?.url, process.env.GITHUB_REPOSITORY);
    changelogSection(changelog, version);
    return `version=${version}\n`;
  }
  if (verb === 'notes' && arg) return changelogSection(changelog, arg);
  throw new ReleaseRefused('usage: node scripts/release.mjs check <tag> | notes <version>');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(main(process.argv.slice(2)));
  } catch (error) {
    if (!(error instanceof ReleaseRefused)) throw error;
    console.error(`release: ${error.message}`);
    process.exit(1);
  }
}
