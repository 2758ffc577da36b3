// Runs bench.html (from dist/) in headless Debian chromium and prints its JSON lines, the same shape
// `texscope bench` prints. Used by scripts/bench.sh. Args: --side N --runs N [--formats A,B]
// [--dist DIR] (another build's dist/, to compare two builds in one run).
import { chromium } from 'playwright-core';
import { join, resolve } from 'node:path';
import { serve } from '../tests/browser/server.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const side = opt('--side', '2048');
const runs = opt('--runs', '5');
const formats = opt('--formats', '');
const root = resolve(import.meta.dirname, '..');
const server = await serve(resolve(opt('--dist', join(root, 'dist'))));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}bench.html?side=${side}&runs=${runs}${formats ? `&formats=${formats}` : ''}`);
  await page.waitForFunction(() => document.body.dataset.state !== 'running', null, { timeout: 30 * 60 * 1000, polling: 1000 });
  const results = await page.evaluate(() => window.benchResults);
  if (!results) throw new Error(await page.evaluate(() => window.benchError));
  for (const r of results) console.log(JSON.stringify(r));
} finally {
  await browser.close();
  await server.close();
}
