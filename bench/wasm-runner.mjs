// What the in-browser wasm benchmarks (bench/image-wasm, bench/untile-wasm) share: headless Debian
// Chromium with --no-liftoff (as scripts/bench-browser.mjs, so the optimising compiler's code is
// timed, not the baseline's), one function evaluated in a blank page, one JSON line per row it
// returns, tagged with the browser's version.
import { chromium } from 'playwright-core';

/**
 * Runs `fn` (a self-contained function: it is sent to the page as source) on `args` (JSON values)
 * in a blank page and prints each row it resolves to.
 * @param {Function} fn @param {unknown[]} args
 */
export async function runInChromium(fn, args) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--js-flags=--no-liftoff'],
  });
  try {
    const page = await browser.newPage();
    const rows = await page.evaluate(`(${fn})(${args.map((a) => JSON.stringify(a)).join(', ')})`);
    for (const r of rows) console.log(JSON.stringify({ engine: `chromium ${browser.version()}`, ...r }));
  } finally {
    await browser.close();
  }
}
