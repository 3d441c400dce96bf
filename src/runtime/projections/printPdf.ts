import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, LoopxError } from '../../kernel/errors';
import { findExecutable } from '../hosts';
import { runCommand } from '../../kernel/run/runCommand';

/** Chromium-based browsers that print a page to PDF headless, in the order they are looked for on PATH. */
export const PDF_BROWSERS = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'brave-browser'];

/** The browser that prints PDFs here (LOOPX_CHROMIUM, else the first of PDF_BROWSERS on PATH), or undefined. */
export function pdfBrowser(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.LOOPX_CHROMIUM) return findExecutable(env.LOOPX_CHROMIUM, env.PATH ?? '');
  for (const name of PDF_BROWSERS) {
    const found = findExecutable(name, env.PATH ?? '');
    if (found) return found;
  }
  return undefined;
}

/**
 * Prints a self-contained HTML page to a PDF file with a headless Chromium-based browser: the only PDF route loopx
 * has. Without one it says so plainly (exit 2 `pdf_unavailable`, with what to do instead), and writes nothing.
 */
export async function printPdf(
  html: string,
  outFile: string,
  /** Where the page and the browser's profile are staged: the store's folder, which no agent's host lets it write. */
  scratchIn: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ bytes: number; browser: string }> {
  const browser = pdfBrowser(env);
  if (!browser)
    throw new LoopxError(
      'pdf_unavailable',
      `there is no way to make a PDF here: no Chromium-based browser was found (${env.LOOPX_CHROMIUM ? `LOOPX_CHROMIUM=${env.LOOPX_CHROMIUM} is not a program` : `looked for ${PDF_BROWSERS.join(', ')} on PATH`})`,
      EXIT.invalidInput,
      'export the page as HTML (--format html) and print it to PDF from any browser, or set LOOPX_CHROMIUM to a Chromium or Chrome program',
    );
  // Not the temp folder: Codex's sandbox lets its agent write there, and a page replaced before the browser read it
  // would print what the agent wants a person to read (docs/authority.md).
  let dir: string;
  try {
    dir = mkdtempSync(join(scratchIn, '.pdf-'));
  } catch (error) {
    throw new LoopxError(
      'pdf_failed',
      `the page could not be staged for the browser in ${scratchIn}: ${(error as Error).message}`,
      EXIT.invalidInput,
      'export the page as HTML (--format html) and print it to PDF from any browser',
    );
  }
  try {
    const page = join(dir, 'review.html');
    writeFileSync(page, html);
    const root = process.getuid?.() === 0;
    const result = await runCommand({
      command: browser,
      shell: false,
      argv: [
        browser,
        '--headless',
        '--disable-gpu',
        // Chromium refuses to run as root without this (CI runs as root); a page of our own, no script in it.
        ...(root ? ['--no-sandbox'] : []),
        `--user-data-dir=${join(dir, 'profile')}`,
        '--no-pdf-header-footer',
        `--print-to-pdf=${outFile}`,
        `file://${page}`,
      ],
      cwd: dir,
      env,
      limitMs: 120_000,
    });
    let bytes = 0;
    try {
      bytes = statSync(outFile).size;
    } catch {
      /* not written */
    }
    if (result.exitCode !== 0 || bytes === 0)
      throw new LoopxError(
        'pdf_failed',
        `${browser} did not print the PDF: ${result.error ?? `exit ${result.exitCode}`}`,
        EXIT.internal,
        result.outputTail.trim().split('\n').slice(-3).join(' ') || undefined,
      );
    return { bytes, browser };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
