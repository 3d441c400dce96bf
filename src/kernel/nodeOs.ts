import type * as Os from 'node:os';

/**
 * node:os, fetched where a call first uses it rather than imported at a file's top: loading it costs a fresh process
 * about half a millisecond (Node 22), and every agent call's bundle carries files that only sometimes need it (the
 * home folder, the host's name, the login). test/cli/agentVerbCost.test.ts fails a read that loads it.
 */
export function nodeOs(): typeof Os {
  return process.getBuiltinModule('node:os') as typeof Os;
}
