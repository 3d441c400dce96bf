import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command, CommandContext } from '../command';
import {
  OLD_PRICES_FILE,
  type PriceInForce,
  type PriceInput,
  checkPriceInput,
  getPersonalPrice,
  pricesInForce,
  removePrice,
  setPrice,
  setPrices,
} from '../../kernel/prices/priceTable';
import { type PriceEntry, readPricesFile } from '../../kernel/prices/modelPrices';
import { InvalidInputError, NotFoundError } from '../../kernel/errors';
import { clean } from '../format';
import { iso } from '../../kernel/time';

/** Where an old workspace price file sits: no longer read for pricing (an agent in its sandbox can write it). */
function oldPricesPath(ctx: CommandContext): string {
  return join(ctx.kernel().storeDir, OLD_PRICES_FILE);
}

/** "$3 in · $0.3 cached · $3.75 cache write · $15 out": a price per million tokens as written, never rounded. */
function rates(p: PriceEntry): string {
  const write = p.cacheWrite === undefined ? '' : ` · $${p.cacheWrite} cache write`;
  return `$${p.input} in · $${p.cachedInput} cached${write} · $${p.output} out`;
}

function whose(p: PriceInForce): string {
  if (p.origin === 'built-in') return 'built-in';
  const over = p.overridesBuiltIn ? ', over the built-in price' : '';
  return `set by ${clean(p.setBy ?? '?')}${p.setChannel ? ` (${p.setChannel})` : ''} on ${(p.setAt ?? '').slice(0, 10)}${over}`;
}

function priceLine(p: PriceInForce, width: number): string {
  return `${p.model.padEnd(width)} ${rates(p)} per million tokens; as of ${p.asOf}; ${whose(p)}${p.source ? `; ${clean(p.source)}` : ''}`;
}

function oneLineOf(p: PriceEntry): string {
  return `${p.model}: ${rates(p)} per million tokens, as of ${p.asOf}${p.source ? ` (${clean(p.source)})` : ''}`;
}

const IGNORED_FILE_WORDS =
  '.loopx/prices.json is ignored: turns are priced from this table, which only a person sets. ' +
  'To adopt its entries as your decision: loopx prices import (at an interactive terminal), then delete the file.';

export const pricesList: Command = {
  name: ['prices'],
  summary: "the price table turns are priced from: each model's built-in price or a person's, with the date it was read",
  description: [
    'A turn whose host reports tokens but no money (Codex) is priced from this table, and so is counted against a',
    "goal's money cap. A person sets a model's price with `loopx prices set` (or VS Code's Set Model Price…);",
    'a file in the workspace is never read for it.',
  ].join('\n'),
  readOnly: true,
  run(ctx) {
    const prices = ctx.kernel().read((db) => pricesInForce(db));
    const ignoredFile = existsSync(oldPricesPath(ctx));
    const width = Math.max(...prices.map((p) => p.model.length));
    const text = () => [...prices.map((p) => priceLine(p, width)), ...(ignoredFile ? ['', IGNORED_FILE_WORDS] : [])].join('\n');
    return { data: { prices, ignoredFile }, text };
  },
};

export const pricesSet: Command = {
  name: ['prices', 'set'],
  summary: "set a model's price in dollars per million tokens (humans only): what its turns cost against a money cap",
  description: [
    'Adds a model the built-in table lacks, or overrides its built-in price. Recorded as your decision (price.set,',
    'with the channel); `loopx prices remove MODEL` takes it back. You confirm by typing the model name.',
  ].join('\n'),
  humanOnly: true,
  mutates: true,
  positionals: [{ name: 'MODEL', description: 'the model as its host names it, e.g. gpt-5-codex', required: true }],
  flags: {
    input: { type: 'number', value: 'USD', required: true, description: 'dollars per million input tokens' },
    'cached-input': { type: 'number', value: 'USD', required: true, description: 'dollars per million input tokens served from the cache' },
    output: { type: 'number', value: 'USD', required: true, description: 'dollars per million output tokens' },
    'cache-write': {
      type: 'number',
      value: 'USD',
      description: 'dollars per million input tokens written to the prompt cache (default: the input price)',
    },
    source: { type: 'string', value: 'URL', description: 'the page the prices were read from' },
    'as-of': { type: 'string', value: 'DATE', description: 'when they were read, YYYY-MM-DD (default: today)' },
  },
  examples: ['loopx prices set gpt-5-codex --input 1.25 --cached-input 0.125 --output 10 --source https://openai.com/api/pricing/'],
  run(ctx) {
    const a = ctx.args;
    const input: PriceInput = {
      model: a.positionals[0] ?? '',
      input: a.num('input') as number,
      cachedInput: a.num('cached-input') as number,
      output: a.num('output') as number,
      ...(a.num('cache-write') === undefined ? {} : { cacheWrite: a.num('cache-write') as number }),
      source: a.str('source'),
      asOf: a.str('as-of'),
    };
    const kernel = ctx.kernel();
    // Checked before the person is asked: a typo is refused in words, not after a confirmation.
    const entry = checkPriceInput(kernel, input);
    const current = kernel.read((db) => pricesInForce(db)).find((p) => p.model === entry.model);
    const human = ctx.confirmHuman(`set the price of ${entry.model}`, entry.model, [
      `new: ${oneLineOf(entry)}`,
      current ? `now: ${oneLineOf(current)} (${whose(current)})` : 'now: no price (the cost of its turns is unknown)',
    ]);
    const set = setPrice(kernel.as(human), input);
    return { data: set, text: `Set ${oneLineOf(set)}.` };
  },
};

export const pricesRemove: Command = {
  name: ['prices', 'remove'],
  summary: "remove a person's price for a model (humans only): the built-in price applies again, if there is one",
  humanOnly: true,
  mutates: true,
  positionals: [{ name: 'MODEL', description: 'a model a person set a price for (loopx prices)', required: true }],
  run(ctx) {
    const kernel = ctx.kernel();
    const model = (ctx.args.positionals[0] ?? '').trim().toLowerCase();
    const current = kernel.read((db) => getPersonalPrice(db, model));
    const human = ctx.confirmHuman(`remove your price for ${model}`, model, [`now: ${oneLineOf(current)}`]);
    const removed = removePrice(kernel.as(human), model);
    const after = removed.builtIn
      ? `the built-in price applies again: ${oneLineOf({ model, ...removed.builtIn })}`
      : 'its turns have no known cost until a person sets one';
    return { data: removed, text: `Removed the price of ${model}; ${after}.` };
  },
};

export const pricesImport: Command = {
  name: ['prices', 'import'],
  summary: 'record each entry of an old .loopx/prices.json as your decision (humans only; the file itself is not read for pricing)',
  description: [
    'loopx once read .loopx/prices.json for prices; an agent in its sandbox can rewrite that file, so it no longer',
    'does. This shows each entry, asks you to type "import", and records them as if set with `loopx prices set`.',
    'Entries that fail the checks are named and skipped. Delete the file afterwards.',
  ].join('\n'),
  humanOnly: true,
  mutates: true,
  run(ctx) {
    const kernel = ctx.kernel();
    const path = oldPricesPath(ctx);
    if (!existsSync(path))
      throw new NotFoundError('file', '.loopx/prices.json', 'there is nothing to import; set a price with: loopx prices set MODEL …');
    const today = iso(kernel.clock()).slice(0, 10);
    const { entries, problems } = readPricesFile(readFileSync(path, 'utf8'), today);
    if (entries.length === 0)
      throw new InvalidInputError(`.loopx/prices.json has no price to import${problems.length ? `: ${problems.join('; ')}` : ''}`);
    const human = ctx.confirmHuman(
      `record ${entries.length} price${entries.length === 1 ? '' : 's'} from .loopx/prices.json as your decision`,
      'import',
      [...entries.map(oneLineOf), ...problems.map((p) => `not imported: ${p}`)],
    );
    const set = setPrices(kernel.as(human), entries);
    const text = [
      ...set.map((p) => `Set ${oneLineOf(p)}.`),
      ...problems.map((p) => `Not imported: ${p}.`),
      'loopx does not read .loopx/prices.json: delete it.',
    ].join('\n');
    return { data: { prices: set, problems }, text };
  },
};

export const PRICES_COMMANDS = [pricesList, pricesSet, pricesRemove, pricesImport];
