import type { Kernel } from '../kernel';
import type { Row, SqliteDb } from '../db/sqliteDb';
import { InvalidInputError, NotFoundError } from '../errors';
import { requireHumanChannel } from '../authority';
import { rowReader } from '../rowReader';
import { DEFAULT_PRICES, type ModelPrice, type PriceEntry, type PriceTable, checkPrice } from './modelPrices';
import { iso } from '../time';

/**
 * Where loopx once read a person's prices from, beside the store. No longer read for pricing (an agent in its sandbox
 * can write the workspace): `loopx doctor` says it is ignored, and `loopx prices import` records its entries as a
 * person's decision.
 */
export const OLD_PRICES_FILE = 'prices.json';

/** A person's price as the store keeps it: the entry, who set it, through which channel, when. */
export interface PersonalPrice extends PriceEntry {
  setBy: string;
  setChannel: string | null;
  setAt: string;
}

/** One line of the table in force: a model's price and whether it is built in or a person's decision. */
export interface PriceInForce extends PriceEntry {
  origin: 'built-in' | 'person';
  /** For a person's: who set it and when. */
  setBy?: string;
  setChannel?: string | null;
  setAt?: string;
  /** A person's price that replaces a built-in one. */
  overridesBuiltIn?: boolean;
}

/** What a person gives for one model: the checks are checkPrice's (modelPrices.ts), the one home of them. */
export interface PriceInput {
  model: string;
  input: number;
  cachedInput: number;
  /** Writing the prompt cache; left out: the input price. */
  cacheWrite?: number;
  output: number;
  source?: string;
  asOf?: string;
}

function priceFromRow(row: Row): PersonalPrice {
  const r = rowReader('prices', row);
  return {
    model: r.text('model'),
    input: r.num('input'),
    cachedInput: r.num('cached_input'),
    ...(row.cache_write === null || row.cache_write === undefined ? {} : { cacheWrite: r.num('cache_write') }),
    output: r.num('output'),
    source: r.text('source'),
    asOf: r.text('as_of'),
    setBy: r.text('set_by'),
    setChannel: r.maybeText('set_channel'),
    setAt: r.text('set_at'),
  };
}

/** The prices people set, by model name. */
export function personalPrices(db: SqliteDb): PersonalPrice[] {
  return db.prepare('SELECT * FROM prices ORDER BY model').all().map(priceFromRow);
}

/**
 * The table a turn is priced from: the built-in prices with each person's price over them. Only the store's record
 * counts; a file in the workspace (the old `.loopx/prices.json`) is never read, since an agent can write it.
 */
export function priceTable(db: SqliteDb): PriceTable {
  const table: PriceTable = { ...DEFAULT_PRICES };
  for (const p of personalPrices(db)) table[p.model] = asModelPrice(p);
  return table;
}

/** The table in force as lines for a person: every model, built in or a person's, by name. */
export function pricesInForce(db: SqliteDb): PriceInForce[] {
  const personal = new Map(personalPrices(db).map((p) => [p.model, p]));
  const builtIn: PriceInForce[] = Object.entries(DEFAULT_PRICES)
    .filter(([model]) => !personal.has(model))
    .map(([model, price]) => ({ model, ...price, origin: 'built-in' }));
  const people: PriceInForce[] = [...personal.values()].map((p) => ({
    ...p,
    origin: 'person',
    overridesBuiltIn: DEFAULT_PRICES[p.model] !== undefined,
  }));
  return [...builtIn, ...people].sort((a, b) => a.model.localeCompare(b.model));
}

function asModelPrice(p: PriceEntry): ModelPrice {
  return {
    input: p.input,
    cachedInput: p.cachedInput,
    ...(p.cacheWrite === undefined ? {} : { cacheWrite: p.cacheWrite }),
    output: p.output,
    source: p.source,
    asOf: p.asOf,
  };
}

/** Today's date by the kernel's clock: a price's asOf when the person names none. */
function today(kernel: Kernel): string {
  return iso(kernel.clock()).slice(0, 10);
}

/** Checks a person's price (checkPrice's rules); bad input is refused in words and changes nothing. */
export function checkPriceInput(kernel: Kernel, input: PriceInput): PriceEntry {
  const checked = checkPrice(input.model, { ...input }, today(kernel));
  if (typeof checked === 'string') throw new InvalidInputError(checked);
  return checked;
}

/**
 * Sets a model's price: what a turn on that model costs when its host reports tokens but no money (Codex), and so
 * when a goal's money cap is reached. A person's decision only, through a human channel (VS Code, or a terminal where
 * the model's name is typed): an agent that could set its own price could set it to nothing and outrun any cap.
 */
export function setPrice(kernel: Kernel, input: PriceInput): PersonalPrice {
  requireHumanChannel(kernel.requireActor(), `setting the price of ${input.model}`);
  const entry = checkPriceInput(kernel, input);
  return kernel.write((tx) => {
    tx.emit({ kind: 'price.set', goalId: null, todoId: null, data: entry });
    return getPersonalPrice(tx.db, entry.model);
  });
}

/**
 * Records several prices as one decision (`loopx prices import`, from an old `.loopx/prices.json` a person read and
 * confirmed): one event per model, in one transaction.
 */
export function setPrices(kernel: Kernel, inputs: readonly PriceInput[]): PersonalPrice[] {
  requireHumanChannel(kernel.requireActor(), 'setting model prices');
  const entries = inputs.map((input) => checkPriceInput(kernel, input));
  if (entries.length === 0) throw new InvalidInputError('no price to set');
  return kernel.write((tx) => {
    for (const data of entries) tx.emit({ kind: 'price.set', goalId: null, todoId: null, data });
    return entries.map((e) => getPersonalPrice(tx.db, e.model));
  });
}

/** Removes a person's price for a model: the built-in price applies again, if there is one (a person's decision too). */
export function removePrice(kernel: Kernel, model: string): { model: string; builtIn: ModelPrice | null } {
  const name = model.trim().toLowerCase();
  requireHumanChannel(kernel.requireActor(), `removing the price of ${name}`);
  return kernel.write((tx) => {
    getPersonalPrice(tx.db, name);
    tx.emit({ kind: 'price.removed', goalId: null, todoId: null, data: { model: name } });
    return { model: name, builtIn: DEFAULT_PRICES[name] ?? null };
  });
}

export function getPersonalPrice(db: SqliteDb, model: string): PersonalPrice {
  const row = db.prepare('SELECT * FROM prices WHERE model = ?').get(model.trim().toLowerCase());
  if (!row) throw new NotFoundError('price for', model.trim().toLowerCase(), 'the prices people set are listed by: loopx prices');
  return priceFromRow(row);
}
