// The page's memory during a large ZIP export (issue 19): a folder of COUNT textures is exported as
// one ZIP, and the tab must not grow by more than its largest texture plus a bounded buffer.
//
//   bash scripts/build-wasm.sh && node_modules/.bin/vite build --logLevel warn
//   node scripts/bench-export-memory.mjs [--count 10000] [--side 128] [--big 2048] [--format png|dds]
//                                        [--sink picker|download] [--dist DIR]
//
// What it does:
// - writes COUNT uncompressed RGBA8 DDS files of SIDE x SIDE (seeded noise over a gradient, so
//   their PNGs do not shrink to nothing) in 100 folders of a temporary directory, and one BIG x BIG
//   texture, the largest of the export;
// - opens them in a fresh headless Chromium (a new persistent profile) on the built page (dist/) through the Folder input
//   (Playwright setInputFiles: disk-backed File objects, as from a drop), waits for the list and
//   for the page to settle (no more reads: thumbnails and the first texture done);
// - exports every texture as one ZIP (PNG or DDS entries) through the page's own menu. `picker`
//   (default): showSaveFilePicker is answered with a file of the origin-private file system, so
//   the page streams into a real FileSystemWritableFileStream as it does into a file a person picks
//   in Chromium; `download`: no picker, the Blob-part path other browsers take;
// - samples every 100 ms the resident memory of the tab's renderer process (it holds the page, its
//   workers and their wasm memory; /proc VmRSS) and of the browser process (where Chromium keeps
//   Blob data), the page's JS heap (CDP Runtime.getHeapUsage) and the worker's wasm memory;
// - prints a JSON line per sample on stderr (with --trace) and one Markdown table: the renderer's
//   resident memory before the export (after the list, a forced GC), its peak during it, and what
//   stays after the export and a forced GC; the JS heap and wasm memory the same way; the largest
//   texture's decoded size; the ZIP's size and the time. Exit status 1 if the export failed.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../tests/browser/server.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args.splice(i, 2)[1] : def; };
const trace = args.includes('--trace');
const count = Number(opt('--count', '10000'));
const side = Number(opt('--side', '128'));
const big = Number(opt('--big', '2048'));
const format = opt('--format', 'png');
const sinkKind = opt('--sink', 'picker');
const root = resolve(import.meta.dirname, '..');
const dist = resolve(opt('--dist', join(root, 'dist')));
if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist} has no index.html: build the page first (see the top of this file)`);
if (!['png', 'dds'].includes(format) || !['picker', 'download'].includes(sinkKind)) throw new Error('--format png|dds, --sink picker|download');

/** An uncompressed RGBA8 DDS (DDS_HEADER with DDPF_RGB | DDPF_ALPHAPIXELS masks), one mip. */
function dds(w, h, seed) {
  const b = Buffer.alloc(128 + w * h * 4);
  b.write('DDS ', 0, 'latin1');
  const u = (o, v) => b.writeUInt32LE(v >>> 0, o);
  u(4, 124); u(8, 0x1 | 0x2 | 0x4 | 0x1000 | 0x8); u(12, h); u(16, w); u(20, w * 4);
  u(76, 32); u(80, 0x40 | 0x1); u(88, 32); u(92, 0xff); u(96, 0xff00); u(100, 0xff0000); u(104, 0xff000000);
  u(108, 0x1000);
  let s = seed * 2654435761 >>> 0;
  for (let i = 0; i < w * h; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    const x = i % w, y = (i / w) | 0;
    b[128 + i * 4] = (x * 255 / w + (s & 15)) & 255;
    b[129 + i * 4] = (y * 255 / h + ((s >> 8) & 15)) & 255;
    b[130 + i * 4] = (seed * 37 + ((s >> 16) & 31)) & 255;
    b[131 + i * 4] = 255 - ((s >> 24) & 7);
  }
  return b;
}

const dir = mkdtempSync(join(tmpdir(), 'texscope-export-mem-'));
const top = join(dir, 'game');
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
for (let k = 0; k < count; k++) {
  const sub = join(top, `folder${String(k % 100).padStart(2, '0')}`);
  if (k < 100) mkdirSync(sub, { recursive: true });
  writeFileSync(join(sub, `tex${String(k).padStart(5, '0')}.dds`), dds(side, side, k + 1));
}
writeFileSync(join(top, 'largest.dds'), dds(big, big, 0));
const total = count + 1;

/** Resident bytes of process `pid` (Linux /proc). */
function rss(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number((s.match(/^VmRSS:\s+(\d+)/m) ?? [0, 0])[1]) * 1024;
  } catch {
    return 0;
  }
}

/** Pid and command line (one string: Chromium's children rewrite theirs) of every process (/proc). */
function processes() {
  const out = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      out.push({ pid: Number(d), cmd: readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch { /* gone */ }
  }
  return out;
}

// A persistent profile, as a person's browser has: Playwright's default contexts are off the
// record, where Chromium keeps the origin-private file system (the stub picker's file) in memory.
const profile = join(dir, 'profile');
const server = await serve(dist);
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 720 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync'],
});
let result;
try {
  const page = context.pages()[0] ?? await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const cdp = await context.newCDPSession(page);
  await page.goto(server.url);
  await page.waitForFunction(() => window.texscope && document.body.dataset.state === 'empty', null, { timeout: 60000 });
  // This browser's processes: every one carries our profile's --user-data-dir.
  const ours = processes().filter((p) => p.cmd.includes(`--user-data-dir=${profile} `));
  const browserPid = ours.find((p) => !p.cmd.includes('--type='))?.pid;
  const renderers = () => processes().filter((p) => p.cmd.includes(`--user-data-dir=${profile} `) && p.cmd.includes('--type=renderer')).map((p) => p.pid);
  const t0 = Date.now();
  await page.setInputFiles('[data-testid=folder-input]', top);
  await page.waitForFunction((n) => window.texscope.textures().length === n && ['ready', 'error'].includes(document.body.dataset.state), total, { timeout: 1200000, polling: 1000 });
  const listed = (Date.now() - t0) / 1000;
  // Let the page settle first: after the list it still reads and paints (thumbnails, the first
  // texture), which would count as the export's. Settled = the worker's bytes read unchanged for
  // three seconds (at most two minutes).
  for (let last = -1, still = 0, k = 0; still < 3 && k < 120; k++) {
    const [bytes] = await page.evaluate(() => window.texscope.readStats());
    still = bytes === last ? still + 1 : 0;
    last = bytes;
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (sinkKind === 'picker') {
    await page.evaluate(() => {
      window.showSaveFilePicker = async () => (await navigator.storage.getDirectory()).getFileHandle('export.zip', { create: true });
    });
  } else {
    await page.evaluate(() => { delete window.showSaveFilePicker; });
  }
  await cdp.send('HeapProfiler.collectGarbage');
  await new Promise((r) => setTimeout(r, 1000));
  // The tab's renderer: this browser's renderer process with the most resident memory.
  const renderer = renderers().sort((a, b) => rss(b) - rss(a))[0];
  const before = { renderer: rss(renderer), browser: browserPid ? rss(browserPid) : 0, js: (await cdp.send('Runtime.getHeapUsage')).usedSize };
  before.wasm = (await page.evaluate(() => window.texscope.readStats()))[2];
  const peak = { ...before };
  let downloadPath = null;
  page.on('download', async (d) => { downloadPath = await d.path(); });
  let sampling = true;
  const samples = (async () => {
    while (sampling) {
      const s = { t: Date.now(), renderer: rss(renderer), browser: browserPid ? rss(browserPid) : 0, js: (await cdp.send('Runtime.getHeapUsage')).usedSize, ...(trace ? { label: await page.evaluate(() => document.querySelector('[data-testid=progress-label]')?.textContent) } : {}) };
      for (const k of ['renderer', 'browser', 'js']) peak[k] = Math.max(peak[k], s[k]);
      if (trace) process.stderr.write(`${JSON.stringify(s)}\n`);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const t1 = Date.now();
  await page.click('[data-testid=export-button]');
  await page.click(`[data-testid=export-${format === 'png' ? 'zip-png' : 'zip'}]`);
  await page.waitForFunction(() => /^Exported|failed|cancelled/.test(document.querySelector('[data-testid=status]').textContent), null, { timeout: 3600000, polling: 500 });
  const secs = (Date.now() - t1) / 1000;
  sampling = false;
  await samples;
  const status = await page.textContent('[data-testid=status]');
  const [, , wasm] = await page.evaluate(() => window.texscope.readStats());
  // What stays once the garbage is collected: growth that is garbage is not kept by the export.
  await cdp.send('HeapProfiler.collectGarbage');
  await new Promise((r) => setTimeout(r, 1000));
  const settled = { renderer: rss(renderer), js: (await cdp.send('Runtime.getHeapUsage')).usedSize };
  let zipBytes;
  if (sinkKind === 'picker') {
    zipBytes = await page.evaluate(async () => (await (await (await navigator.storage.getDirectory()).getFileHandle('export.zip')).getFile()).size);
  } else {
    for (let k = 0; k < 600 && !downloadPath; k++) await new Promise((r) => setTimeout(r, 100));
    zipBytes = downloadPath ? readFileSync(downloadPath).length : 0;
  }
  result = { status, errors, listed, secs, before, peak, wasm, settled, zipBytes };
} finally {
  await context.close();
  await server.close();
}

const MiB = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
const largest = big * big * 4;
if (trace) process.stderr.write(`${JSON.stringify(result)}\n`);
console.log(`${total} textures (${count} of ${side}x${side} and one of ${big}x${big}, RGBA8 DDS), ZIP of ${format.toUpperCase()} entries, sink: ${sinkKind}.`);
console.log(`Status: ${result.status}${result.errors.length ? `; page errors: ${result.errors.join('; ')}` : ''}\n`);
console.log('| textures | ZIP size | export (s) | renderer before | renderer peak (growth) | renderer after a GC (growth) | largest texture decoded | page JS heap before / peak / after a GC | worker wasm memory before / after | browser process before / peak |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const r = result;
console.log(`| ${total} | ${MiB(r.zipBytes)} | ${r.secs.toFixed(1)} | ${MiB(r.before.renderer)} | ${MiB(r.peak.renderer)} (+${MiB(r.peak.renderer - r.before.renderer)}) `
  + `| ${MiB(r.settled.renderer)} (${r.settled.renderer >= r.before.renderer ? '+' : ''}${MiB(r.settled.renderer - r.before.renderer)}) | ${MiB(largest)} `
  + `| ${MiB(r.before.js)} / ${MiB(r.peak.js)} / ${MiB(r.settled.js)} | ${MiB(r.before.wasm)} / ${MiB(r.wasm)} | ${MiB(r.before.browser)} / ${MiB(r.peak.browser)} |`);
if (!/^Exported/.test(r.status)) process.exitCode = 1;
