import { expect, test } from 'vitest';
import { UnsupportedPlatformError, requirePosixShell } from './platform';

test('on Windows what needs /bin/sh is refused in words, with what to do instead (exit 3, unsupported_platform)', () => {
  let error: unknown;
  try {
    requirePosixShell('Run Turn', 'win32');
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(UnsupportedPlatformError);
  expect(error).toMatchObject({
    code: 'unsupported_platform',
    exitCode: 3,
    message: 'Run Turn does not run on Windows yet: it starts the agent through /bin/sh, which Windows lacks',
    hint: expect.stringContaining('WSL'),
  });
});

test('macOS and Linux have /bin/sh: nothing is refused', () => {
  for (const platform of ['linux', 'darwin', 'freebsd'] as const) expect(() => requirePosixShell('Run Turn', platform)).not.toThrow();
});
