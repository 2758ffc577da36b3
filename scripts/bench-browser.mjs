// Runs bench.html (from dist/) in headless Debian chromium and prints its JSON lines, the same shape
// `texscope bench` prints. Used by scripts/bench.sh. Args: --side N --runs N [--formats A,B]
// [--dist DIR] (another build's dist/, to compare two builds in one run) [--tier-up] (V8's default
// baseline-then-optimised compilation instead of --no-liftoff) [--native BIN --rounds N] (paired:
// per format, BIN's `bench` and the page take N turns; one JSON line per format with every turn's
// native and wasm result). [--no-relaxed] (the full module's SIMD128 build where the browser would
// load its relaxed-SIMD one, www/wasm-build.js). [--untile] (the untiling benchmark: per console
// platform and format, untile+decode over decode, the lines `texscope bench --untile` prints).
// [--aes [--mib N]] (AES-256 ECB and CTR decryption of N MiB, default 64, the lines `texscope bench
// --aes` prints; with --native BIN --rounds N: per turn BIN's `bench --aes` then the page's, and
// per mode one JSON line with every turn, the medians over turns and wasm / native).
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { serve } from '../tests/browser/server.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const side = opt('--side', '2048');
const runs = opt('--runs', '5');
const formats = opt('--formats', '');
const native = opt('--native', '');
const rounds = Number(opt('--rounds', '3'));
const aes = args.includes('--aes');
const mib = opt('--mib', '64');
const relaxed = `${args.includes('--no-relaxed') ? '&relaxed=0' : ''}${args.includes('--untile') ? '&untile=1' : ''}${aes ? `&aes=1&mib=${mib}` : ''}`;
const root = resolve(import.meta.dirname, '..');
const server = await serve(resolve(opt('--dist', join(root, 'dist'))));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  // --no-liftoff: wasm is compiled optimised up front, as it ends up after tier-up in a user's
  // browser; with tier-up the slow formats (ASTC, ~150 ms a decode here) were sometimes still timed
  // on baseline code after bench.js's warm-up (ASTC_6x5 108 MB/s median, 200 max, in one run).
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
    ...(args.includes('--tier-up') ? [] : ['--js-flags=--no-liftoff'])],
});
try {
  const page = await browser.newPage();
  if (native && aes) {
    // Paired turns: native (a fresh process) then the page, `rounds` times; each side times
    // AesBench::decrypt `runs` times per mode. The page keeps its module (and V8's compiled code)
    // across turns, as a user's tab would.
    await page.goto(`${server.url}bench.html?runs=0${relaxed}`);
    await page.waitForFunction(() => document.body.dataset.state !== 'running', null, { timeout: 60000 });
    const turns = [];
    for (let r = 0; r < rounds; r++) {
      const out = execFileSync(native, ['bench', '--aes', '--mib', mib, '--runs', runs], { encoding: 'utf8' });
      const n = out.trim().split('\n').map((l) => JSON.parse(l));
      const w = await page.evaluate(([m, k]) => window.benchAes(m, k), [Number(mib), Number(runs)]);
      turns.push({ native: n, wasm: w });
    }
    const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
    for (const mode of ['ECB', 'CTR']) {
      const of = (side) => turns.map((t) => t[side].find((x) => x.aes === mode));
      const [n, w] = [of('native'), of('wasm')];
      const bad = [...n, ...w].find((x) => !x || 'error' in x);
      if (bad) { console.log(JSON.stringify({ aes: mode, error: bad?.error ?? 'missing', turns })); continue; }
      const [nm, wm] = [median(n.map((x) => x.median)), median(w.map((x) => x.median))];
      console.log(JSON.stringify({
        aes: mode, mib: Number(mib), runs: Number(runs), rounds,
        native_mbps: Number(nm.toFixed(1)), wasm_mbps: Number(wm.toFixed(1)), wasm_over_native: Number((wm / nm).toFixed(3)),
        same_output: [...n, ...w].every((x) => x.sha1 === n[0].sha1),
        turns: n.map((x, i) => ({ native: x.median, wasm: Number(w[i].median.toFixed(1)) })),
      }));
    }
  } else if (native) {
    // Paired: per format, native and wasm take turns (`rounds` times), seconds apart, so that a
    // host whose speed drifts over minutes slows both halves of a ratio alike.
    await page.goto(`${server.url}bench.html?side=${side}&formats=none${relaxed}`);
    await page.waitForFunction(() => document.body.dataset.state !== 'running', null, { timeout: 60000 });
    const all = await page.evaluate(() => window.benchFormats);
    const picked = formats ? all.filter((f) => formats.split(',').includes(f)) : all;
    // One untimed decode of each first, as bench.html does: it grows the wasm memory.
    await page.evaluate((picked) => window.benchPrepare(picked), picked);
    for (const format of picked) {
      const turns = [];
      for (let r = 0; r < rounds; r++) {
        const out = execFileSync(native, ['bench', '--side', side, '--runs', runs, '--format', format], { encoding: 'utf8' });
        // `texscope bench` measures BC1 first (its baseline); the line of `format` is the last.
        const n = JSON.parse(out.trim().split('\n').pop());
        const w = await page.evaluate(([f, runs]) => window.benchMeasure(f, runs), [format, Number(runs)]);
        turns.push({ native: n, wasm: w });
      }
      console.log(JSON.stringify({ format, turns }));
    }
  } else {
    await page.goto(`${server.url}bench.html?side=${side}&runs=${runs}${formats ? `&formats=${formats}` : ''}${relaxed}`);
    await page.waitForFunction(() => document.body.dataset.state !== 'running', null, { timeout: 30 * 60 * 1000, polling: 1000 });
    const results = await page.evaluate(() => window.benchResults);
    if (!results) throw new Error(await page.evaluate(() => window.benchError));
    for (const r of results) console.log(JSON.stringify(r));
  }
} finally {
  await browser.close();
  await server.close();
}
