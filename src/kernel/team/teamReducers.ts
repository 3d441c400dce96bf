import type { ReducersOf } from '../events/reducerKit';
import type { TeamEventKind } from './teamEventSchemas';

/**
 * The team verbs' events change no table: they are the record of a person moving the store in or out of a team store
 * (teamEventSchemas.ts). Spread into the kernel's reducers (events/log.ts) like every noun's, so replay accepts them.
 */
export const teamReducers: ReducersOf<TeamEventKind> = {
  'team.pushed': () => {},
  'team.joined': () => {},
  'team.left': () => {},
};
