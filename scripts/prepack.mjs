// `npm pack` (or publish) at the root of this checkout: the root is the extension's manifest and the developers'
// project, not the CLI package. Say where the packages are made instead of writing a tarball that cannot run.
console.error(
  'loopx: this checkout is not the npm package. `npm run package` writes both packages: the CLI, dist/loopx-<version>.tgz ' +
    '(built in dist/cli-package/ by scripts/packageCli.mjs), and the extension, dist/loopx.vsix.',
);
process.exit(1);
