// CPU-time A/B of the wasm decoders in headless Chromium, for a loaded machine: wall-clock rates
// (bench.html) swing several-fold when other processes take the 2 cores, CPU time much less.
// For each of two builds' dist/ (A then B, alternating rounds), decodes each format's 2048x2048
// bench surface (codec::sample, the same bytes as `texscope bench`) and reads the renderer
// processes' CPU time from /proc/PID/task/*/schedstat (ns) around every decode; prints MB/s of RGBA
// output as min / median / max over all rounds and the B/A ratio of the medians (markdown table).
// Usage: node scripts/bench-cpu.mjs --a DIST --b DIST --formats A,B [--rounds N] [--runs N] [--wall]
// --wall: time each decode with performance.now() in the page instead (wall clock), for a quiet
// machine whose host still adds noise: the alternating rounds and medians spread it over A and B.
// Linux only (schedstat). Warm-up: one untimed pass over the formats, then 5 untimed decodes of
// each; Chromium runs with --no-liftoff so every timed decode runs optimised code (without it the
// first decodes may run baseline code).
import { chromium } from 'playwright-core';
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { serve } from '../tests/browser/server.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const dists = [resolve(opt('--a')), resolve(opt('--b'))];
const formats = opt('--formats').split(',');
const rounds = Number(opt('--rounds', '3'));
const runs = Number(opt('--runs', '5'));
const wall = args.includes('--wall');

/** Renderer processes (children of the browser with --type=renderer), their tasks' CPU ns. */
function rendererCpu() {
  let ns = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmd;
    try { cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8'); } catch { continue; }
    if (!cmd.includes('--type=renderer') || !cmd.includes(profile)) continue;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try { ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]); } catch { /* gone */ }
    }
  }
  return ns;
}

const profile = `/tmp/bench-cpu-${process.pid}`;
const rates = [new Map(), new Map()];
for (let round = 0; round < rounds; round++) {
  for (const k of [0, 1]) {
    const server = await serve(dists[k]);
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
        '--js-flags=--no-liftoff'],
    });
    try {
      const page = browser.pages()[0] ?? await browser.newPage();
      await page.goto(`${server.url}bench.html?formats=none`);
      await page.waitForFunction(() => document.body.dataset.state === 'done');
      // The full module's bindings: the chunk of dist/assets with the bench API (the core module's
      // chunk is also texscope-*.js, and which sorts first depends on the hashes).
      const glue = readdirSync(`${dists[k]}/assets`).find((f) => /^texscope-.*\.js$/.test(f)
        && readFileSync(`${dists[k]}/assets/${f}`, 'utf8').includes('BenchSurface'));
      await page.evaluate(async (glue) => {
        const m = await import(`/assets/${glue}`);
        await m.default();
        window.m = m;
      }, glue);
      // One untimed decode of every format first: the first surfaces of a fresh page grow the wasm
      // memory, which measured up to 3x slower in whichever format came first.
      await page.evaluate((formats) => {
        const all = window.m.benchFormats();
        for (const f of formats) {
          const s = new window.m.BenchSurface(f, 2048, all.indexOf(f) + 1);
          s.decode();
          s.free();
        }
      }, formats);
      for (const f of formats) {
        await page.evaluate((f) => {
          const all = window.m.benchFormats();
          window.s?.free();
          window.s = new window.m.BenchSurface(f, 2048, all.indexOf(f) + 1);
          for (let i = 0; i < 5; i++) window.s.decode();
        }, f);
        for (let r = 0; r < runs; r++) {
          const c0 = rendererCpu();
          const [mb, ms] = await page.evaluate(() => {
            const t0 = performance.now();
            const mb = window.s.decode();
            return [mb, performance.now() - t0];
          });
          const dt = wall ? ms / 1000 : (rendererCpu() - c0) / 1e9;
          if (!rates[k].has(f)) rates[k].set(f, []);
          rates[k].get(f).push(mb / dt);
        }
      }
    } finally {
      await browser.close();
      await server.close();
    }
  }
}
const s = (a) => { a = [...a].sort((x, y) => x - y); return [a[0], a[Math.floor(a.length / 2)], a[a.length - 1]]; };
console.log('| format | A MB/s min / median / max | B MB/s min / median / max | B/A (medians) |');
console.log('|---|---|---|---|');
for (const f of formats) {
  const [a, b] = [s(rates[0].get(f)), s(rates[1].get(f))];
  console.log(`| ${f} | ${a.map((v) => v.toFixed(0)).join(' / ')} | ${b.map((v) => v.toFixed(0)).join(' / ')} | ${(b[1] / a[1]).toFixed(2)} |`);
}
