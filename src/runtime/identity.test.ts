import { userInfo } from 'node:os';
import { expect, test } from 'vitest';
import { humanName } from './identity';
import { isAgentName } from '../kernel/validate';

test('the human is LOOPX_HUMAN when it is a valid name, else the login, else "human"', () => {
  expect(humanName({ LOOPX_HUMAN: 'ada' })).toBe('ada');
  const login = userInfo().username;
  expect(humanName({ LOOPX_HUMAN: 'not a name' })).toBe(isAgentName(login) ? login : 'human');
  expect(humanName({})).toBe(isAgentName(login) ? login : 'human');
});
