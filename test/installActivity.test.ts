import { expect, test } from 'vitest';
import { describeActivity, packageOf } from './e2e/installActivity';

const npm = { pid: 10, ppid: 1, args: 'npm install code-server@4.100.3', cwd: '/x/.cache/e2e/cs' };

test('a heartbeat says what the install does while its size stands still', () => {
  const compiling = [
    npm,
    { pid: 20, ppid: 10, args: 'sh -c node-gyp rebuild', cwd: '/x/.cache/e2e/cs/node_modules/node-pty' },
    { pid: 21, ppid: 20, args: 'make -C build', cwd: '/x/.cache/e2e/cs/node_modules/node-pty' },
    {
      pid: 22,
      ppid: 21,
      args: '/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus -quiet pty.cc',
      cwd: '/x/.cache/e2e/cs/node_modules/node-pty/build',
    },
    { pid: 5, ppid: 1, args: 'unrelated', cwd: '/' },
  ];
  expect(describeActivity(compiling, 10)).toBe('building node-pty from source (a C++ compile; the slowest part, a few minutes)');
  const script = [npm, { pid: 30, ppid: 10, args: 'sh -c node postinstall.js', cwd: '/x/cs/node_modules/@parcel/watcher' }];
  expect(describeActivity(script, 10)).toBe("running @parcel/watcher's install script");
  expect(describeActivity([npm], 10)).toBeUndefined();
  expect(packageOf('/a/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep')).toBe('@vscode/ripgrep');
});
