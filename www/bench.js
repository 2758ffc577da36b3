// The browser half of the decode benchmark: the same seeded surfaces `texscope bench` decodes
// (codec::sample), timed here with performance.now(); MB/s of RGBA output, min/median/max of runs.
import init, { BenchAes, BenchSurface, benchFormats } from './pkg-full/texscope.js';
import { fullModuleInit } from './wasm-build.js';

const q = new URLSearchParams(location.search);
const side = Number(q.get('side') || 2048);
const runs = Math.max(1, Number(q.get('runs') || 5));
const only = q.get('formats')?.split(',');
const rows = /** @type {HTMLElement} */ (document.getElementById('rows'));

/** @typedef {{ format: string, side: number, runs: number, min: number, median: number, max: number, error?: undefined } | { format: string, error: string }} Result */

/** @param {string[]} cells */
function row(cells) {
  const tr = document.createElement('tr');
  for (const c of cells) {
    const td = document.createElement('td');
    td.textContent = c;
    tr.append(td);
  }
  rows.append(tr);
}

/** Warms up and times `runs` decodes of `format`'s surface: { format, side, runs, min, median, max }
 * in MB/s of RGBA output, or { format, error }.
 * @param {string} format @param {number} runs @returns {Result} */
function measure(format, runs) {
  /** @type {BenchSurface | null} */
  let s = null;
  try {
    // Seed = 1 + position in the full list, as in `texscope bench`: the same bytes on both sides.
    const surface = new BenchSurface(format, side, benchFormats().indexOf(format) + 1);
    s = surface;
    // Untimed: the first allocation, formats that are not decoded yet, and V8's tier-up: a wasm
    // function runs baseline (Liftoff) code until its optimised code is ready, which measured
    // 2-3x slower on the simd kernels (R8 median 5.0 vs 15.3 GB/s with --no-liftoff, same
    // build). How long that takes depends on the host: a fixed 3 runs and 100 ms sufficed on
    // one, while on a slower one BC1 climbed from 0.5 to 2.7 GB/s over its first ~28 decodes
    // (~300 ms). So decode until the rate stops climbing: at least 3 runs and 100 ms, then until
    // 5 decodes in a row are no more than 3% faster than the best so far (at most 5 s).
    const w0 = performance.now();
    for (let k = 0, best = 0, calm = 0; ; k++) {
      const t = performance.now();
      surface.decode();
      const rate = 1 / Math.max(performance.now() - t, 0.01);
      if (rate > best * 1.03) { best = rate; calm = 0; } else calm++;
      const spent = performance.now() - w0;
      if ((k >= 2 && spent >= 100 && calm >= 5) || spent > 5000) break;
    }
  } catch (e) {
    s?.free();
    return { format, error: String(/** @type {Error} */ (e)?.message ?? e) };
  }
  const surface = s;
  const mbps = [];
  for (let r = 0; r < runs; r++) {
    // performance.now() is coarse (100 µs without cross-origin isolation): small surfaces repeat
    // until 2 ms have passed so the rate is still a number.
    let mb = 0;
    const t0 = performance.now();
    let dt;
    do { mb += surface.decode(); dt = performance.now() - t0; } while (dt < 2);
    mbps.push(mb / (dt / 1000));
  }
  surface.free();
  mbps.sort((a, b) => a - b);
  return { format, side, runs, min: mbps[0], median: mbps[Math.floor(runs / 2)], max: mbps[runs - 1] };
}

/** One untimed decode of each of `formats`, before timing any: the first surfaces of a fresh page
 * grow the wasm memory and queue most of the optimised compiles, which left whichever format came
 * first (R8) timed at about half its rate even after its own warm-up in `measure`.
 * @param {string[]} formats */
function prepare(formats) {
  for (const format of formats) {
    try {
      const s = new BenchSurface(format, side, benchFormats().indexOf(format) + 1);
      try { s.decode(); } finally { s.free(); }
    } catch { /* reported by measure */ }
  }
}

/** Milliseconds of one decode of `s`. @param {BenchSurface} s */
function decodeMs(s) {
  const t = performance.now();
  s.decode();
  return performance.now() - t;
}

/** The untiling benchmark (?untile=1; `texscope bench --untile` natively): per console platform
 * and format, the median ms of decoding the surface stored linear and of untiling + decoding the
 * same blocks stored as that platform's Unreal cook lays them out, in turns after a warm-up of
 * both; ratio = untile+decode / decode. A platform whose untiler is not built yet gives its error.
 * @param {string[]} formats @param {number} runs */
function measureUntile(formats, runs) {
  const out = [];
  for (const platform of ['switch', 'ps4', 'ps5']) {
    for (const format of formats) {
      const seed = benchFormats().indexOf(format) + 1;
      let plain = null;
      let tiled = null;
      try {
        plain = new BenchSurface(format, side, seed);
        tiled = BenchSurface.tiled(format, side, seed, platform);
        const head = { untile: platform, tiling: tiled.layout(), format, side };
        try {
          // Warm-up of both, until 100 ms and at least 3 decodes each (V8 tier-up, allocation).
          for (let k = 0, t0 = performance.now(); k < 3 || performance.now() - t0 < 100; k++) {
            plain.decode();
            tiled.decode();
          }
        } catch (e) {
          out.push({ ...head, error: String(/** @type {Error} */ (e)?.message ?? e) });
          continue;
        }
        const a = [];
        const b = [];
        for (let r = 0; r < runs; r++) { a.push(decodeMs(plain)); b.push(decodeMs(tiled)); }
        a.sort((x, y) => x - y);
        b.sort((x, y) => x - y);
        const [da, db] = [a[Math.floor(runs / 2)], b[Math.floor(runs / 2)]];
        out.push({ ...head, runs, decode_ms: da, untile_decode_ms: db, ratio: db / da });
      } catch (e) {
        out.push({ untile: platform, format, side, error: String(/** @type {Error} */ (e)?.message ?? e) });
      } finally {
        plain?.free();
        tiled?.free();
      }
    }
  }
  return out;
}

/** The AES decryption benchmark (?aes=1&mib=64; `texscope bench --aes` natively): per mode (ECB,
 * CTR), the SHA-1 of a fresh buffer decrypted once (untimed: it also compiles and warms the code),
 * then `runs` timed decryptions of `mib` MiB of the same seeded bytes through the same Rust
 * function as native (AesBench::decrypt); MB/s min/median/max, the shape of the native lines.
 * @param {number} mib @param {number} runs */
function measureAes(mib, runs) {
  const out = [];
  for (const mode of ['ECB', 'CTR']) {
    /** @type {BenchAes | null} */
    let b = null;
    try {
      const sha1 = BenchAes.digest(mib, mode);
      b = new BenchAes(mib);
      const mbps = [];
      for (let r = 0; r < runs; r++) {
        const t = performance.now();
        const mb = b.decrypt(mode);
        mbps.push(mb / ((performance.now() - t) / 1000));
      }
      mbps.sort((x, y) => x - y);
      out.push({ aes: mode, mib, runs, min: mbps[0], median: mbps[Math.floor(runs / 2)], max: mbps[runs - 1], sha1 });
    } catch (e) {
      out.push({ aes: mode, mib, error: String(/** @type {Error} */ (e)?.message ?? e) });
    } finally {
      b?.free();
    }
  }
  return out;
}

async function run() {
  // The full module's build this browser runs (www/wasm-build.js), as the worker picks it;
  // ?relaxed=0 times the SIMD128 build instead.
  const build = fullModuleInit(q.get('relaxed') !== '0');
  await init(build);
  document.body.dataset.wasm = build ? 'relaxed-simd' : 'simd128';
  /** @type {HTMLElement} */ (document.getElementById('setup')).textContent = `${side}x${side}, ${runs} run(s) per format, wasm ${document.body.dataset.wasm}, ${navigator.userAgent}`;
  const results = [];
  if (q.get('aes')) {
    // scripts/bench-browser.mjs --aes --native BIN calls it in turns with the native bench.
    window.benchAes = measureAes;
    const mib = Number(q.get('mib') || 64);
    // &runs=0: only set up, for the paired turns.
    for (const r of q.get('runs') === '0' ? [] : measureAes(mib, runs)) {
      results.push(r);
      row([`AES-256 ${r.aes} (${mib} MiB)`, ...('error' in r ? ['n/a', String(r.error).slice(0, 60), ''] : [r.min, r.median, r.max].map((v) => v.toFixed(0)))]);
    }
    window.benchResults = results;
    document.body.dataset.state = 'done';
    return;
  }
  if (q.get('untile')) {
    const picked = only ?? ['BC1', 'BC7', 'ASTC_4x4', 'RGBA8'];
    for (const r of measureUntile(picked, runs)) {
      results.push(r);
      row([`${r.untile} ${r.format}`, 'error' in r ? 'n/a' : r.decode_ms.toFixed(1), 'error' in r ? String(r.error).slice(0, 60) : r.untile_decode_ms.toFixed(1), 'error' in r ? '' : r.ratio.toFixed(3)]);
    }
    window.benchResults = results;
    document.body.dataset.state = 'done';
    return;
  }
  prepare(benchFormats().filter((f) => !only || only.includes(f)));
  for (const format of benchFormats()) {
    if (only && !only.includes(format)) continue;
    const res = measure(format, runs);
    results.push(res);
    if (res.error !== undefined) row([format, 'n/a', res.error.slice(0, 60), '']);
    else row([format, res.min.toFixed(0), res.median.toFixed(0), res.max.toFixed(0)]);
    await new Promise((r) => setTimeout(r, 0)); // let the page paint between formats
  }
  // scripts/bench-browser.mjs --native times native and wasm in turns, format by format.
  window.benchPrepare = prepare;
  window.benchMeasure = measure;
  window.benchFormats = benchFormats();
  window.benchResults = results;
  document.body.dataset.state = 'done';
}

run().catch((e) => {
  window.benchError = String(/** @type {Error} */ (e)?.stack ?? e);
  document.body.dataset.state = 'error';
  console.error(e);
});
