// Times image-rs's png / jpeg-decoder against zune-png / zune-jpeg, all in one wasm module
// (bench/image-wasm), in turns, in headless Chromium with --no-liftoff (as
// scripts/bench-browser.mjs). Usage: node bench/image-wasm/run.mjs MODULE.wasm DIR [RUNS]; DIR
// holds the files examples/bench_image_files.rs writes. One JSON line per file: median ms of one
// decode by each and image-rs / zune (Texscope keeps png and zune-jpeg). Prints; asserts nothing.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runInChromium } from '../wasm-runner.mjs';

const [file, dir, runs = '9'] = process.argv.slice(2);
const bytes = readFileSync(file);
const files = readdirSync(dir).sort().map((n) => [n, [...readFileSync(join(dir, n))]]);

async function bench(bytes, files, runs) {
  const module = await WebAssembly.compile(new Uint8Array(bytes));
  const e = (await WebAssembly.instantiate(module, {})).exports;
  const out = [];
  for (const [name, data] of files) {
    const ptr = e.input(data.length);
    new Uint8Array(e.memory.buffer, ptr, data.length).set(data);
    const kind = name.endsWith('.png') ? 0 : 1;
    const n1 = e.ours(kind), n2 = e.theirs(kind);
    const time = (f) => { const t = performance.now(); f(kind); return performance.now() - t; };
    const a = [], b = [];
    for (let i = 0; i < runs; i++) { a.push(time(e.ours)); b.push(time(e.theirs)); }
    const median = (v) => v.sort((x, y) => x - y)[v.length >> 1];
    const [ours, theirs] = [median(a), median(b)];
    out.push({ file: name, runs, decoded_bytes: [n1, n2], image_rs_ms: +ours.toFixed(2), zune_ms: +theirs.toFixed(2), image_rs_over_zune: +(ours / theirs).toFixed(3) });
  }
  return out;
}

await runInChromium(bench, [[...bytes], files, Number(runs)]);
