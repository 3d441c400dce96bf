import type { ReducersOf } from '../events/reducerKit';

/** The state changes of price events, spread into the kernel's reducers (events/log.ts): the only code writing prices. */
export const priceReducers: ReducersOf<'price.set' | 'price.removed'> = {
  'price.set': (db, e) => {
    const d = e.data;
    const channel = (e.data as { channel?: string }).channel ?? null;
    db.prepare(
      `INSERT INTO prices (model, input, cached_input, cache_write, output, source, as_of, set_by, set_channel, set_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (model) DO UPDATE SET input = excluded.input, cached_input = excluded.cached_input,
          cache_write = excluded.cache_write, output = excluded.output,
          source = excluded.source, as_of = excluded.as_of, set_by = excluded.set_by, set_channel = excluded.set_channel,
          set_at = excluded.set_at`,
    ).run(d.model, d.input, d.cachedInput, d.cacheWrite ?? null, d.output, d.source, d.asOf, e.actor, channel, e.at);
  },
  'price.removed': (db, e) => {
    const changed = db.prepare('DELETE FROM prices WHERE model = ?').run(e.data.model);
    if (changed.changes !== 1) throw new Error(`event removes the price of ${e.data.model}, which a person did not set`);
  },
};
