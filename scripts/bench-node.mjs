// A/B of wasm builds in node (V8, the engine Chromium uses), without a browser: for each build's
// full module (a wasm-bindgen `pkg-full` folder, e.g. a copy of www/pkg-full taken after
// scripts/build-wasm.sh), decodes one format's 2048x2048 bench surface (codec::sample, the same
// bytes as `texscope bench` and bench.html) in alternating rounds of 3 decodes, after 5 untimed
// ones, and prints MB/s of RGBA output: median and best round per build. Quicker than
// scripts/bench-cpu.mjs for trying a change, and its process suits `perf record` with
// `node --perf-prof` (then `perf inject --jit`) to find hot loops.
// Usage: node --no-liftoff scripts/bench-node.mjs FORMAT ROUNDS PKG_DIR...
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const [format, roundsArg, ...dirs] = process.argv.slice(2);
if (!format || !dirs.length) {
  console.error('usage: node --no-liftoff scripts/bench-node.mjs FORMAT ROUNDS PKG_DIR...');
  process.exit(2);
}
const side = 2048;
const builds = [];
for (const dir of dirs.map((d) => resolve(d))) {
  const m = await import(`${dir}/texscope.js`);
  await m.default({ module_or_path: readFileSync(`${dir}/texscope_bg.wasm`) });
  const surface = new m.BenchSurface(format, side, m.benchFormats().indexOf(format) + 1);
  for (let i = 0; i < 5; i++) surface.decode();
  builds.push({ dir, surface, ms: [], mb: 0 });
}
for (let r = 0; r < Number(roundsArg || 7); r++) {
  for (const b of builds) {
    const t0 = performance.now();
    // decode() returns the megabytes of RGBA it produced.
    for (let i = 0; i < 3; i++) b.mb = b.surface.decode();
    b.ms.push((performance.now() - t0) / 3);
  }
}
for (const b of builds) {
  const ms = [...b.ms].sort((x, y) => x - y);
  const rate = (t) => ((b.mb * 1000) / t).toFixed(0);
  console.log(`${format} ${b.dir}: median ${rate(ms[ms.length >> 1])} MB/s, best ${rate(ms[0])}`);
}
