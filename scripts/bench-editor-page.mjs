// Editor-package benchmark (issue 40), Chromium: an 8192x8192 source stored as a PNG in a UE4
// editor package, dropped on the built page, timed from the file input's change event to the
// first paint of the source's mip 0 (the page's paint probe, as tests/browser/stream.test.mjs
// times the open path). Not a timed test: run it by hand and put the table in docs/benchmarks.md.
//
//   bash scripts/build-wasm.sh && node_modules/.bin/vite build --logLevel warn
//   node scripts/bench-editor-page.mjs [--rounds N] [--dist DIR]
//
// No real 8k PNG-stored package is public, so one is written at run time into a temp folder (never
// the repository) from a real one read in place: RoboWorld's sofa_tex.uasset (UE 4.22, shared
// samples/unreal-editor), whose source is one PNG stored plain (no zlib) at the end of the file at
// BulkDataStartOffset 73599, 314985 bytes (texscope info; MANIFEST.tsv "png"). Its payload is
// replaced by an 8192x8192 RGBA PNG written here, and four fields are set to match: the bulk
// data's element count and size on disk (int32 each, 73577 and 73581) and the Source struct's
// SizeX and SizeY (int32 IntProperty values, 73167 and 73196). Each field is checked to hold the
// sample's value before it is changed, so another file fails loudly instead of being misread. The
// package ends, as before, with its 4-byte package tag.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deflateSync, crc32 } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serve } from '../tests/browser/server.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args.splice(i, 2)[1] : def; };
const root = resolve(import.meta.dirname, '..');
const rounds = Number(opt('--rounds', '3'));
const dist = resolve(opt('--dist', join(root, 'dist')));
const SAMPLES = [join(root, '../shared/samples'), '/work/shared/samples'].find((d) => existsSync(d));
const SAMPLE = join(SAMPLES, 'unreal-editor/Mukudori+RoboWorld_UE4.22/Content/MyAssets/House/sofa_tex.uasset');
const SIDE = 8192;

/** A PNG chunk. @param {string} type @param {Buffer} data */
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td) >>> 0);
  return Buffer.concat([len, td, crc]);
}

/**
 * An RGBA8 PNG of `side`², smooth gradients with a fine grain (so it neither compresses to nothing
 * nor is pure noise), zlib level 6 as most encoders default to.
 * @param {number} side
 */
function png(side) {
  const row = 1 + side * 4;
  const raw = Buffer.alloc(row * side);
  for (let y = 0; y < side; y++) {
    const o = y * row;
    raw[o] = 1; // filter Sub: what encoders pick for smooth rows
    let prev = [0, 0, 0, 0];
    for (let x = 0; x < side; x++) {
      // Grain of 0-15 levels per channel (a hash of x, y), as a photo's sensor noise: it keeps
      // the PNG near a photo's size (about 4 bits a channel) instead of a few MiB.
      const h = Math.imul(x * 0x9e3779b1 ^ y * 0x85ebca77, 0xc2b2ae3d) >>> 0;
      const px = [((x >> 5) + (h & 15)) & 255, ((y >> 5) + ((h >> 4) & 15)) & 255, (((x ^ y) >> 3) + ((h >> 8) & 15)) & 255, 255];
      for (let c = 0; c < 4; c++) raw[o + 1 + x * 4 + c] = (px[c] - prev[c]) & 255;
      prev = px;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 6 })), chunk('IEND', Buffer.alloc(0))]);
}

/** The sample with its PNG source replaced by `image` (see the header). @param {Buffer} image */
function package8k(image) {
  const b = readFileSync(SAMPLE);
  const at = 73599;
  const fields = [[73577, 314985, image.length], [73581, 314985, image.length], [73167, 626, SIDE], [73196, 525, SIDE]];
  for (const [off, was] of fields) {
    if (b.readInt32LE(off) !== was) throw new Error(`${SAMPLE}: ${off} holds ${b.readInt32LE(off)}, not ${was}: not the sample this script knows`);
  }
  if (b.length !== at + 314985 + 4 || b.readUInt32LE(at) !== 0x474e5089) throw new Error(`${SAMPLE}: the PNG source is not where this script expects it`);
  const head = Buffer.from(b.subarray(0, at));
  for (const [off, , now] of fields) head.writeInt32LE(now, off);
  return Buffer.concat([head, image, b.subarray(b.length - 4)]);
}

const stats = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return { min: v[0], median: v[Math.floor(v.length / 2)], max: v[v.length - 1] };
};
const fmt = ({ min, median, max }) => `${min.toFixed(0)} / ${median.toFixed(0)} / ${max.toFixed(0)}`;

const dir = mkdtempSync(join(tmpdir(), 'texscope-bench-editor-'));
try {
  const t0 = performance.now();
  const image = png(SIDE);
  const file = join(dir, 'T_Big8k.uasset');
  writeFileSync(file, package8k(image));
  console.error(`wrote ${file}: ${statSync(file).size} bytes (PNG ${image.length} bytes) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const server = await serve(dist);
  const first = [], full = [];
  for (let r = 0; r < rounds; r++) {
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url);
    await page.waitForFunction(() => window.texscope);
    await page.setInputFiles('[data-testid=file-input]', file);
    await page.waitForFunction(() => window.texscope.paints().events.some((e) => e.kind === 'full') || document.body.dataset.state === 'error', null, { timeout: 120000 });
    const p = await page.evaluate(() => window.texscope.paints());
    const view = await page.evaluate(() => window.texscope.view());
    const paint = p.events.find((e) => e.kind === 'preview' || e.kind === 'full');
    const done = p.events.find((e) => e.kind === 'full');
    if (!done || !view || view.width !== SIDE) throw new Error(`no 8192² paint: ${JSON.stringify({ events: p.events, view, errors })}`);
    first.push(paint.time - p.openedAt);
    full.push(done.time - p.openedAt);
    // Each stage of the open path, in ms since the one before (www/probe.js).
    const st = await page.evaluate(() => window.texscope.stages());
    const steps = st.slice(1).map((s, i) => `${s.name} ${(s.time - st[i].time).toFixed(0)}`);
    console.error(JSON.stringify({ round: r, first: first.at(-1), full: full.at(-1), events: p.events.map((e) => e.kind), steps }));
    await browser.close();
  }
  await server.close();
  console.log(`| source | open → first paint (ms) | open → full mip (ms) |\n|---|---|---|\n| 8192² RGBA8, PNG-stored (UE4 editor package, ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB) | ${fmt(stats(first))} | ${fmt(stats(full))} |`);
  console.log(`min / median / max over ${rounds} rounds, a fresh browser each`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
