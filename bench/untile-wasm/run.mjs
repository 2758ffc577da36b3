// Times Texscope's Switch block-linear untiler (codec::tiling::untile) against tegra_swizzle's,
// both in one wasm module (bench/untile-wasm), in turns, in headless Chromium with --no-liftoff
// (as scripts/bench-browser.mjs). Usage: node bench/untile-wasm/run.mjs MODULE.wasm [RUNS] [SIDE]
// One JSON line per format: median ms of one untile (each sample is 10 untiles, as
// performance.now() counts in 0.1 ms steps) and ours / theirs. Prints; asserts nothing.
import { readFileSync } from 'node:fs';
import { runInChromium } from '../wasm-runner.mjs';

const [file, runs = '15', side = '2048'] = process.argv.slice(2);
const bytes = readFileSync(file);

/** Runs in the page: instantiates the module with inert imports (the bindings texscope links are
 * only reached on its JS paths, never by these exports) and times the two untilers in turns. */
async function bench(bytes, runs, side) {
  const module = await WebAssembly.compile(new Uint8Array(bytes));
  const imports = {};
  for (const i of WebAssembly.Module.imports(module)) (imports[i.module] ??= {})[i.name] = () => 0;
  const e = (await WebAssembly.instantiate(module, imports)).exports;
  const out = [];
  for (const [id, name] of [[0, 'BC1'], [1, 'BC7'], [2, 'ASTC_4x4'], [3, 'RGBA8']]) {
    const same = e.setup(id, side) === 1;
    for (let i = 0; i < 3; i++) { e.ours(); e.theirs(); }
    const time = (f) => { const t = performance.now(); for (let k = 0; k < 10; k++) f(); return (performance.now() - t) / 10; };
    const a = [], b = [];
    for (let i = 0; i < runs; i++) { a.push(time(e.ours)); b.push(time(e.theirs)); }
    const median = (v) => v.sort((x, y) => x - y)[v.length >> 1];
    const [ours, theirs] = [median(a), median(b)];
    out.push({ format: name, side, runs, same_output: same, ours_ms: +ours.toFixed(3), tegra_swizzle_ms: +theirs.toFixed(3), ours_over_theirs: +(ours / theirs).toFixed(3) });
  }
  return out;
}

await runInChromium(bench, [[...bytes], Number(runs), Number(side)]);
