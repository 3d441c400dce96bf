import Mocha from 'mocha';

/** extensionTestsPath entry for the multi-root workspace (test/e2e/multiRootWorkspace.ts seeds it). */
export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', timeout: 120_000, color: false, reporter: 'spec' });
  mocha.suite.emit('pre-require', globalThis, 'loopx-multi-root-suite', mocha);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('./multiRoot.test');
  return new Promise((done, fail) => {
    mocha.run((failures) => (failures > 0 ? fail(new Error(`${failures} multi-root test(s) failed`)) : done()));
  });
}
