import { basename, resolve } from 'node:path';
import { writeFileSync } from 'node:fs';
import type { Command } from '../command';
import { InvalidInputError } from '../../kernel/errors';
import { renderReviewPacket } from '../../kernel/readModels/reviewPacket';
import { reviewFacts } from '../../kernel/readModels/reviewFacts';
import { printPdf } from '../../runtime/projections/printPdf';
import { goalStory } from '../../kernel/readModels/story';
import { reviewPage } from '../../protocol/story/reviewPage';
import { getGoal } from '../../kernel/goals/goalQueries';

const FORMATS = ['markdown', 'html', 'pdf'];

export const reviewPacket: Command = {
  name: ['review-packet'],
  summary:
    'for the owner: decisions, what shipped with evidence, what is blocked, open gates, quota, turns (Markdown, or a page with charts)',
  description: [
    '--format markdown (default) prints Markdown. --format html writes one self-contained page (the goal story',
    'with its charts as inline SVG, then the packet; no script, nothing loaded from elsewhere) to --out, else prints',
    'it. --format pdf prints that page to --out with a headless Chromium-based browser (LOOPX_CHROMIUM, else',
    'chromium, google-chrome… on PATH); without one it says so (exit 2 pdf_unavailable) and writes nothing.',
  ].join('\n'),
  flags: {
    goal: { type: 'string', value: 'G', description: 'only this goal' },
    format: { type: 'string', value: 'F', description: 'markdown (default), html or pdf' },
    out: { type: 'string', value: 'FILE', description: 'write the page here (required for pdf)' },
  },
  examples: [
    'loopx review-packet --goal G1',
    'loopx review-packet --format html --out review.html',
    'loopx review-packet --goal G1 --format pdf --out review.pdf',
  ],
  async run(ctx) {
    const goalId = ctx.args.id('goal');
    const format = ctx.args.str('format') ?? 'markdown';
    if (!FORMATS.includes(format)) throw new InvalidInputError(`--format must be markdown, html or pdf, got ${JSON.stringify(format)}`);
    const outArg = ctx.args.str('out');
    if (format === 'pdf' && !outArg) throw new InvalidInputError('--format pdf needs --out FILE (a PDF is not printed to the terminal)');
    if (outArg !== undefined && !outArg.trim()) throw new InvalidInputError('--out is empty');
    const kernel = ctx.kernel();
    if (format === 'markdown') {
      const markdown = kernel.read((db, now) => {
        if (goalId) getGoal(db, goalId);
        return renderReviewPacket(db, now, goalId);
      });
      if (outArg) writeFileSync(resolve(ctx.cwd, outArg), markdown);
      return {
        data: { markdown, ...(outArg ? { path: resolve(ctx.cwd, outArg) } : {}) },
        text: outArg ? `Wrote ${resolve(ctx.cwd, outArg)}` : markdown,
      };
    }
    const html = kernel.read((db, now) => {
      if (goalId) getGoal(db, goalId);
      const facts = reviewFacts(db, now, goalId);
      const offset = -new Date(now).getTimezoneOffset();
      return reviewPage({
        at: facts.at,
        workspace: basename(kernel.root),
        goals: facts.goals.map((review) => ({ review, story: goalStory(db, review.goal.id, now, offset) })),
      });
    });
    if (!outArg) return { data: { html }, text: html };
    const path = resolve(ctx.cwd, outArg);
    if (format === 'html') {
      writeFileSync(path, html);
      return { data: { format, path, bytes: Buffer.byteLength(html) }, text: `Wrote ${path} (open it in any browser)` };
    }
    const printed = await printPdf(html, path, kernel.storeDir, ctx.env);
    return {
      data: { format, path, bytes: printed.bytes, browser: printed.browser },
      text: `Wrote ${path} (${printed.bytes} bytes, printed by ${basename(printed.browser)})`,
    };
  },
};
