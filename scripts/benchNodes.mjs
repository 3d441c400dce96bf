// Runs the same benchmark under Node 22 and Node 24 (node:sqlite driver; 22 is what desktop VS Code's extension host
// had, 24 what VS Code runs since 1.123 and the newest the CLI package supports), then prints every
// runtime's verb figures side by side: docs/performance.md's table. BENCH_NODES=22 runs Node 22 only.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { ensureNode } from './nodeRelease.mjs';

const majors = (process.env.BENCH_NODES ?? '22,24').split(',');
for (const major of majors) {
  const result = spawnSync(ensureNode(Number(major)), ['dist/bench/bench.js'], {
    stdio: 'inherit',
    env: { ...process.env, LOOPX_SQLITE_DRIVER: 'node' },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** The verbs of the table that commit a write (bench/bench.ts's names). */
const DURABLE_WRITES = new Set([
  'todo claim',
  'todo renew',
  'evidence add',
  'todo release',
  'todo ship',
  'gate ask',
  'turn start',
  'turn finish',
]);

const passes = ['20', ...majors]
  .map((major) => `dist/bench/results-node${major}.json`)
  .filter((f) => existsSync(f))
  .map((f) => JSON.parse(readFileSync(f, 'utf8')));
if (passes.length >= 2) {
  const columns = passes.flatMap((p) => p.sizes.map((s) => ({ pass: p, size: s })));
  const fmt = (n) => n.toLocaleString('en-US');
  console.log(
    '\nEvery agent verb as a ratio to bare `node -e 0` on the same runtime, measured in the same run (median of the per-round ratios):\n',
  );
  console.log(
    `| verb | bound (issue 39) | ${columns.map((c) => `Node ${c.pass.node.split('.')[0]} (${c.pass.driver}), ${fmt(c.size.todos)} todos`).join(' | ')} |`,
  );
  console.log(`| --- | --- | ${columns.map(() => '---').join(' | ')} |`);
  const bare = (c) => c.size.verbs.map((v) => v.baselineMs).sort((a, b) => a - b)[c.size.verbs.length >> 1];
  console.log(`| \`node -e 0\` | | ${columns.map((c) => `${bare(c).toFixed(1)} ms`).join(' | ')} |`);
  const table = (figures) => {
    for (const verb of columns[0].size.verbs.map((v) => v.verb)) {
      // A read is held to 1.2x bare start-up; a durable write to 1.2x plus one fsync, which this table does not time
      // (the fsyncs per write are counted by test/cli/agentVerbCost.test.ts), so a write over 1.2x is marked, not failed.
      const write = DURABLE_WRITES.has(verb);
      console.log(
        `| \`${verb}\` | ${write ? '1.2x + one fsync' : '1.2x'} | ${columns
          .map((c) => {
            const f = figures(c.size).find((v) => v.verb === verb);
            return f ? `${f.ratio.toFixed(2)}x${f.ratio > 1.2 ? (write ? ' (+fsync?)' : ' **over**') : ''}` : '';
          })
          .join(' | ')} |`,
      );
    }
  };
  table((size) => size.verbs);
  console.log(
    '\nThe same calls in a turn of `loopx run`, answered by its runner (src/cli/run/verbServer.ts; `turn start`, `turn finish` and `monitor tick` run in their own process):\n',
  );
  console.log(
    `| verb | bound (issue 39) | ${columns.map((c) => `Node ${c.pass.node.split('.')[0]}, ${fmt(c.size.todos)} todos`).join(' | ')} |`,
  );
  console.log(`| --- | --- | ${columns.map(() => '---').join(' | ')} |`);
  table((size) => size.served ?? []);
  console.log(
    `\nLoad average (1 min) during the passes: ${passes.map((p) => `Node ${p.node.split('.')[0]} ${p.load.map((l) => l.toFixed(1)).join(' → ')}`).join('; ')}.`,
  );
  const sizes = passes[0].sizes;
  console.log('\nOutput sizes with --json (bytes; the same on every runtime):\n');
  console.log(`| verb | ${sizes.map((s) => `${fmt(s.todos)} todos`).join(' | ')} |`);
  console.log(`| --- | ${sizes.map(() => '---').join(' | ')} |`);
  for (const verb of sizes[0].verbs.map((v) => v.verb))
    console.log(`| \`${verb}\` | ${sizes.map((s) => fmt(s.verbs.find((v) => v.verb === verb)?.bytes ?? 0)).join(' | ')} |`);
  for (const s of sizes)
    console.log(
      `\nHuman text at ${fmt(s.todos)} todos: ${Object.entries(s.textBytes)
        .map(([k, b]) => `\`${k}\` ${fmt(b)} B`)
        .join(', ')}.`,
    );
}
