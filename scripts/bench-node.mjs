// A/B of wasm builds in node (V8, the engine Chromium uses), without a browser: for each build's
// full module (a wasm-bindgen `pkg-full` folder, e.g. a copy of www/pkg-full taken after
// scripts/build-wasm.sh), decodes one format's 2048x2048 bench surface (codec::sample, the same
// bytes as `texscope bench` and bench.html) in alternating rounds of 3 decodes (more for a smaller
// --side), after 5 untimed ones, and prints MB/s of RGBA output: median and best round per
// build. Quicker than scripts/bench-cpu.mjs for trying a change, and its process suits
// `perf record` with `node --perf-prof` (then `perf inject --jit`) to find hot loops.
// Usage: node --no-liftoff scripts/bench-node.mjs [--side N] [--cpu] FORMAT ROUNDS PKG_DIR...
//   (--side: the surface's side, default 2048; small sides show per-call costs. --cpu: time each
//   round by the process's CPU time (process.cpuUsage, user + system) instead of the wall clock:
//   on a machine shared with builds, wall-clock rounds of the same build moved 2x (BC5 2960 then
//   1472 MB/s, 2026-12-06, load average 3-4 on 2 cores) while a process's CPU time counts only the
//   time it ran)
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const sideAt = args.indexOf('--side');
const side = sideAt < 0 ? 2048 : Number(args.splice(sideAt, 2)[1]);
const cpuAt = args.indexOf('--cpu');
const cpu = cpuAt >= 0 && args.splice(cpuAt, 1).length > 0;
const [format, roundsArg, ...dirs] = args;
if (!format || !dirs.length || !(side > 0)) {
  console.error('usage: node --no-liftoff scripts/bench-node.mjs [--side N] FORMAT ROUNDS PKG_DIR...');
  process.exit(2);
}
const builds = [];
for (const dir of dirs.map((d) => resolve(d))) {
  const m = await import(`${dir}/texscope.js`);
  await m.default({ module_or_path: readFileSync(`${dir}/texscope_bg.wasm`) });
  const surface = new m.BenchSurface(format, side, m.benchFormats().indexOf(format) + 1);
  for (let i = 0; i < 5; i++) surface.decode();
  builds.push({ dir, surface, ms: [], mb: 0 });
}
// 3 decodes a round at 2048, as many more as a smaller surface is smaller (at most 3000).
const reps = Math.min(3000, Math.max(3, Math.round(3 * (2048 / side) ** 2)));
for (let r = 0; r < Number(roundsArg || 7); r++) {
  for (const b of builds) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    // decode() returns the megabytes of RGBA it produced.
    for (let i = 0; i < reps; i++) b.mb = b.surface.decode();
    const c = process.cpuUsage(c0);
    b.ms.push((cpu ? (c.user + c.system) / 1000 : performance.now() - t0) / reps);
  }
}
for (const b of builds) {
  const ms = [...b.ms].sort((x, y) => x - y);
  const rate = (t) => ((b.mb * 1000) / t).toFixed(0);
  console.log(`${format} ${b.dir}: median ${rate(ms[ms.length >> 1])} MB/s, best ${rate(ms[0])}${cpu ? ' (CPU time)' : ''}`);
}
