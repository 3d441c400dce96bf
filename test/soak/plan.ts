import { mulberry32 } from './random';

/** How often each behaviour of the scripted agent comes up, per 100 turns (the issue's: ~5% crash, ~3% hang). */
export const BEHAVIOUR_SHARES: Record<string, number> = {
  ship: 48,
  chatty: 10,
  linger: 10,
  progress: 8,
  monitor: 8,
  gate: 5,
  crash: 5,
  block: 3,
  hang: 3,
};

/** The first turns of every soak: each behaviour early, so even the short soak in `npm test` sees them all. */
const OPENING = ['ship', 'chatty', 'crash', 'ship', 'monitor', 'linger', 'gate', 'ship', 'hang', 'progress'].concat([
  'ship',
  'block',
  'monitor',
  'ship',
  'crash',
  'chatty',
  'ship',
  'linger',
  'gate',
  'ship',
]);

/** One behaviour per turn number (the agent takes turn n's from index n - 1, cycling): the opening, then 400 by shares. */
export function planBehaviours(seed: number): string[] {
  const rest = Object.entries(BEHAVIOUR_SHARES).flatMap(([name, share]) => Array<string>(share * 4).fill(name));
  const rand = mulberry32(seed);
  for (let i = rest.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [rest[i], rest[j]] = [rest[j] as string, rest[i] as string];
  }
  return [...OPENING, ...rest];
}
