// `node scripts/renderIcon.mjs`: renders media/icon-marketplace.svg to media/icon.png (256x256, transparent corners)
// in headless chromium, the icon the Marketplace, Open VSX and VS Code's Welcome page show. Run it after editing the
// SVG and commit both; test/package.test.ts checks the PNG.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const svg = readFileSync(join(root, 'media', 'icon-marketplace.svg'), 'utf8');
const browser = await chromium.launch({ executablePath: process.env.LOOPX_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 256, height: 256 } });
  await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: join(root, 'media', 'icon.png'), omitBackground: true });
} finally {
  await browser.close();
}
console.log('wrote media/icon.png');
