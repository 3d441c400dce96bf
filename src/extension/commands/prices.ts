import * as vscode from 'vscode';
import { checkPriceInput, pricesInForce, setPrice, type PriceInput } from '../../kernel/prices/priceTable';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';

/**
 * A price box: a number ≥ 0 in dollars per million tokens (the kernel checks it again, the one home of the rule);
 * an optional one may be left empty.
 */
function dollarsBox(title: string, prompt: string, value: number | undefined, optional = false): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title,
    prompt,
    value: value === undefined ? '' : String(value),
    validateInput: (v) =>
      (optional && v.trim() === '') || (v.trim() !== '' && Number.isFinite(Number(v)) && Number(v) >= 0)
        ? undefined
        : `Type a number of dollars, 0 or more${optional ? ', or leave it empty' : ''}`,
  });
}

/** "$3 in, $0.3 cached, $3.75 to write the cache, $15 out": a price in a sentence. */
function priceWords(p: { input: number; cachedInput: number; cacheWrite?: number; output: number }): string {
  const write = p.cacheWrite === undefined ? '' : `, $${p.cacheWrite} to write the cache`;
  return `$${p.input} in, $${p.cachedInput} cached${write}, $${p.output} out`;
}

/**
 * Set Model Price…: what a model's tokens cost, in dollars per million, for turns whose host reports tokens but no
 * money (Codex), and so for a goal's money cap. A person's decision (channel vscode), never a file an agent could
 * rewrite: input boxes for the model and its prices (the cache-write one optional), then a modal that shows them.
 */
export const setModelPrice: CommandDefinition = {
  id: COMMANDS.setModelPrice,
  async run(ctx, arg) {
    const kernel = kernelOf(ctx);
    const step = (n: number) => `LoopX: Set Model Price (${n}/6)`;
    const model = await vscode.window.showInputBox({
      title: step(1),
      prompt: 'The model as its host names it (Codex: the model in its config.toml), e.g. gpt-5-codex',
      value: typeof arg === 'string' ? arg : '',
      validateInput: (v) => (v.trim() ? undefined : 'Type the model name'),
    });
    if (!model?.trim()) return undefined;
    const current = kernel.read((db) => pricesInForce(db)).find((p) => p.model === model.trim().toLowerCase());
    const input = await dollarsBox(step(2), 'Dollars per million input tokens', current?.input);
    if (input === undefined) return undefined;
    const cachedInput = await dollarsBox(step(3), 'Dollars per million input tokens served from the prompt cache', current?.cachedInput);
    if (cachedInput === undefined) return undefined;
    const output = await dollarsBox(step(4), 'Dollars per million output tokens', current?.output);
    if (output === undefined) return undefined;
    const cacheWrite = await dollarsBox(
      step(5),
      'Dollars per million input tokens written to the prompt cache (Anthropic: 1.25 times input). Leave it empty when writing costs what input costs (OpenAI)',
      current?.cacheWrite,
      true,
    );
    if (cacheWrite === undefined) return undefined;
    const source = await vscode.window.showInputBox({
      title: step(6),
      prompt: 'The page you read the prices from (optional)',
      value: '',
    });
    if (source === undefined) return undefined;
    const price: PriceInput = {
      model,
      input: Number(input),
      cachedInput: Number(cachedInput),
      ...(cacheWrite.trim() === '' ? {} : { cacheWrite: Number(cacheWrite) }),
      output: Number(output),
      source,
    };
    // Refused in words before the modal: the person never confirms a price the kernel would refuse.
    const entry = checkPriceInput(kernel, price);
    const now = current
      ? `Now: ${priceWords(current)} (${current.origin === 'built-in' ? 'built in' : `set by ${current.setBy ?? 'a person'}`}, as of ${current.asOf}).`
      : 'Now: no price, so the cost of its turns is unknown.';
    const choice = await vscode.window.showWarningMessage(
      `Set the price of ${entry.model}?`,
      {
        modal: true,
        detail: `${priceWords(entry)} per million tokens, as of ${entry.asOf}.\n\n${now}\n\nTurns on this model are priced from it and counted against each goal's money cap.`,
      },
      'Set Price',
    );
    if (choice !== 'Set Price') return undefined;
    const set = setPrice(kernel, price);
    void vscode.window.showInformationMessage(`LoopX: turns on ${set.model} are now priced at ${priceWords(set)} per million tokens.`);
    return set;
  },
};
