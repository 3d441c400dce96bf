import Mocha from 'mocha';

/**
 * extensionTestsPath entry: runs the Mocha suites inside the VS Code extension host. The suites are bundled into
 * this file; requiring each after `pre-require` lets them call suite()/test() as Mocha globals.
 */
export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', timeout: 120_000, color: false, reporter: 'spec' });
  // A developer runs some suites while working on them (a regular expression over the tests' full titles; the
  // first suite makes the store): LOOPX_HOST_GREP='welcome|branches' npm run test:e2e -- host --profile …
  if (process.env.LOOPX_HOST_GREP) mocha.grep(new RegExp(process.env.LOOPX_HOST_GREP));
  mocha.suite.emit('pre-require', globalThis, 'loopx-extension-suites', mocha);
  /* eslint-disable @typescript-eslint/no-require-imports */
  require('./welcome.test');
  require('./commands.test');
  require('./views.test');
  require('./statusBar.test');
  require('./board.test');
  require('./turns.test');
  require('./recovery.test');
  require('./terminal.test');
  require('./live.test');
  require('./monitors.test');
  require('./goalFiles.test');
  require('./story.test');
  require('./branches.test');
  require('./cliOnPath.test');
  require('./presets.test');
  require('./meterCost.test');
  require('./projects.test');
  require('./review.test');
  // Last: its log witness suite leaves the store with a log shorter than its state.
  require('./witness.test');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return new Promise((done, fail) => {
    mocha.run((failures) => (failures > 0 ? fail(new Error(`${failures} extension-host test(s) failed`)) : done()));
  });
}
