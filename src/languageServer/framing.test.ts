import { expect, test } from 'vitest';
import { FramingFilter } from './framing';

const frame = (json: string, length = Buffer.byteLength(json)) => `Content-Length: ${length}\r\n\r\n${json}`;
const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'shutdown' });

/** What comes out of the filter for these chunks, and what it said it dropped. */
async function filter(...chunks: string[]): Promise<{ out: string; dropped: string[] }> {
  const dropped: string[] = [];
  const f = new FramingFilter((why) => dropped.push(why));
  let out = '';
  f.on('data', (d: Buffer) => (out += d.toString()));
  for (const c of chunks) f.write(c);
  f.end();
  await new Promise((r) => f.on('end', r));
  return { out, dropped };
}

test('good frames pass through unchanged, split anywhere', async () => {
  const text = frame(ping(1)) + frame(ping(2));
  const { out, dropped } = await filter(text.slice(0, 7), text.slice(7, 30), text.slice(30));
  expect([out, dropped]).toEqual([text, []]);
});

test.each([
  ['not a number', frame(ping(1), 'abc' as unknown as number)],
  ['negative', frame(ping(1), -5)],
  ['missing', `Content-Type: x\r\n\r\n${ping(1)}`],
  ['too small', frame(ping(1), 10)],
  ['too large', frame(ping(1), 500)],
])('a frame whose Content-Length is %s is dropped and said; the next frame is read', async (_label, bad) => {
  const { out, dropped } = await filter(bad, frame(ping(2)));
  expect(out).toBe(frame(ping(2)));
  expect(dropped).toHaveLength(1);
});
