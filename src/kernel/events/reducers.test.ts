import { expect, test } from 'vitest';
import { eventDataSchemas } from './eventTypes';
import { NOUN_REDUCERS } from './log';

/**
 * Each event kind has its reducer in exactly one noun's table: events/log.ts spreads them into one, where a kind claimed
 * by two nouns would let the later spread win silently (the types check only that every kind has one).
 */
test("every event kind is reduced by one noun's table, and no kind by two", () => {
  const tables = NOUN_REDUCERS;
  const owners = new Map<string, string[]>();
  for (const [name, table] of Object.entries(tables))
    for (const kind of Object.keys(table)) owners.set(kind, [...(owners.get(kind) ?? []), name]);
  expect([...owners].filter(([, names]) => names.length > 1)).toEqual([]);
  // The log's own kinds stay in events/log.ts: store.initialized and log.accepted change no state table;
  // log.set_aside_handled records a person's decision about an event the log's applier set aside (setAside.ts).
  const spine = ['store.initialized', 'log.accepted', 'log.set_aside_handled'];
  expect([...owners.keys(), ...spine].sort()).toEqual(Object.keys(eventDataSchemas()).sort());
});
