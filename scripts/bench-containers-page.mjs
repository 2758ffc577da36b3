// Container scale benchmark (issue 17), Chromium half, with the native half of the same run:
//
//   bash scripts/build-wasm.sh && node_modules/.bin/vite build --logLevel warn
//   node scripts/bench-containers-page.mjs [DIR] [--rounds N] [--dist DIR] [--cases big-pak,big-io,sparse]
//
// DIR (default /tmp/texscope-bench-containers) holds the containers examples/bench_containers.rs
// writes with the project's fixture writers (src/fixtures/containers.rs): Big.pak, Big.utoc +
// Big.ucas (100,000 packages, 5 of them textures) and Sparse.utoc + a 50 GiB sparse Sparse.ucas.
// This script builds the example (release), lets it write DIR if it is missing, then for each
// container, ROUNDS times (default 3), turn about:
// - natively: the example's `--measure` (a fresh process: texscope::open with counted reads);
// - in Chromium: a fresh headless browser on the built page (dist/), the files given to the file
//   input by path (Playwright setInputFiles: the page gets disk-backed File objects, as from a
//   drop), and measured: the time from the input's change event to the full texture list on
//   screen (every texture listed, the list drawn) and to the first texture shown; bytes and reads
//   the worker read (texscope.readStats: the wasm module's counters); the wasm memory; the page's
//   JS heap (CDP Performance.getMetrics) and the workers' (CDP Runtime.getHeapUsage, after the
//   list: a busy worker answers only then); and the peak resident memory of the tab's renderer
//   process (VmHWM, /proc; it holds the page, its worker and the wasm memory) and its CPU time from
//   the drop to the first texture shown (CDP SystemInfo.getProcessInfo), against the index.
// Prints each turn as a JSON line on stderr and a Markdown table (medians over the turns) on stdout.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../tests/browser/server.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args.splice(i, 2)[1] : def; };
const root = resolve(import.meta.dirname, '..');
const rounds = Number(opt('--rounds', '3'));
const dist = resolve(opt('--dist', join(root, 'dist')));
const only = opt('--cases', '');
const dir = resolve(args[0] ?? '/tmp/texscope-bench-containers');
const CASES = [
  { id: 'big-pak', label: 'Big.pak (zlib)', files: ['Big.pak'], packages: 100000 },
  { id: 'big-io', label: 'Big.utoc + .ucas (zlib)', files: ['Big.utoc', 'Big.ucas'], packages: 100000 },
  { id: 'sparse', label: 'Sparse.utoc + 50 GiB .ucas', files: ['Sparse.utoc', 'Sparse.ucas'], packages: 1001 },
].filter((c) => !only || only.split(',').includes(c.id));

if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist} has no index.html: build the page first (see the top of this file)`);
const target = process.env.CARGO_TARGET_DIR || join(root, 'target');
execFileSync('cargo', ['build', '--release', '--quiet', '--example', 'bench_containers'], { cwd: root, stdio: 'inherit' });
const example = join(target, 'release/examples/bench_containers');
if (!existsSync(join(dir, 'Sparse.ucas'))) {
  // Writes the containers (once) and prints its own native table.
  process.stderr.write(execFileSync(example, [dir], { encoding: 'utf8' }));
}

/** Peak and current resident bytes of process `pid` (Linux /proc). */
function rss(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number((s.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm')) ?? [0, 0])[1]) * 1024;
  return { hwm: kb('VmHWM'), rss: kb('VmRSS') };
}

/** One turn in Chromium: a fresh browser, the page, the files, the list. */
async function chromiumTurn(server, c) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The workers' JS heaps: CDP sessions of the page's workers (auto-attached, non-flattened, so
    // that this session can talk to them through Target.sendMessageToTarget).
    const cdp = await page.context().newCDPSession(page);
    const workers = [];
    const pending = new Map();
    let nextId = 1;
    cdp.on('Target.attachedToTarget', (e) => { if (e.targetInfo.type === 'worker') workers.push(e.sessionId); });
    cdp.on('Target.receivedMessageFromTarget', (e) => {
      const m = JSON.parse(e.message);
      pending.get(m.id)?.(m.result);
      pending.delete(m.id);
    });
    const askWorker = (sessionId, method) => new Promise((res) => {
      const id = nextId++;
      pending.set(id, res);
      cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params: {} }) });
    });
    await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
    await page.goto(server.url);
    await page.waitForFunction(() => window.texscope && document.body.dataset.state === 'empty', null, { timeout: 60000 });
    // The renderers of this browser: the page's is the one whose memory grows (a spare one may exist).
    const cdpBrowser = await browser.newBrowserCDPSession();
    const renderers = async () => (await cdpBrowser.send('SystemInfo.getProcessInfo')).processInfo
      .filter((p) => p.type === 'renderer');
    const before = Object.fromEntries((await renderers()).map((p) => [p.id, { ...rss(p.id), cpu: p.cpuTime }]));
    await cdp.send('Performance.enable');
    await page.$eval('[data-testid=file-input]', (input) => input.addEventListener('change', () => { window.benchT0 = performance.now(); }, { capture: true }));
    await page.setInputFiles('[data-testid=file-input]', c.files.map((f) => join(dir, f)));
    // The full list: every texture listed and its rows drawn (or the page gave up with an error).
    await page.waitForFunction(() => {
      const l = window.texscope.list();
      const done = (l.total > 0 && l.listed.length === l.total && l.rows > 0) || document.body.dataset.state === 'error';
      if (done && !window.benchT1) window.benchT1 = performance.now();
      return done;
    }, null, { timeout: 600000, polling: 'raf' });
    await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout: 600000, polling: 'raf' });
    const shownAt = await page.evaluate(() => performance.now());
    const r = await page.evaluate(async () => ({
      t0: window.benchT0, t1: window.benchT1, state: document.body.dataset.state, error: document.querySelector('[data-testid=error]')?.textContent ?? '',
      textures: window.texscope.textures().length, first: window.texscope.textures()[0]?.path ?? null,
      stats: await window.texscope.readStats(),
    }));
    let workerHeap = 0;
    for (const w of workers) workerHeap += (await askWorker(w, 'Runtime.getHeapUsage'))?.usedSize ?? 0;
    const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const after = (await renderers()).map((p) => ({ pid: p.id, ...rss(p.id), before: before[p.id]?.rss ?? 0, cpu: p.cpuTime - (before[p.id]?.cpu ?? 0) }));
    const tab = after.sort((a, b) => b.hwm - a.hwm)[0];
    return {
      textures: r.textures, state: r.state, error: r.state === 'error' ? r.error : (errors[0] ?? ''), first: r.first,
      list_s: (r.t1 - r.t0) / 1000, shown_s: (shownAt - r.t0) / 1000, renderer_cpu_s: tab.cpu,
      bytes: r.stats[0], reads: r.stats[1], wasm_memory: r.stats[2],
      js_heap: metrics.JSHeapUsedSize, js_heap_total: metrics.JSHeapTotalSize, worker_heap: workerHeap,
      renderer_peak: tab.hwm, renderer_before: tab.before,
    };
  } finally {
    await browser.close();
  }
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const MiB = (b) => (b / 2 ** 20).toFixed(1);
const KiB = (b) => (b / 1024).toFixed(1);
const server = await serve(dist);
const rows = [];
try {
  for (const c of CASES) {
    const turns = [];
    for (let k = 0; k < rounds; k++) {
      const n = JSON.parse(execFileSync(example, ['--measure', ...c.files.map((f) => join(dir, f))], { encoding: 'utf8' }).trim());
      const w = await chromiumTurn(server, c);
      process.stderr.write(`${JSON.stringify({ case: c.id, turn: k, native: n, chromium: w })}\n`);
      turns.push({ n, w });
    }
    rows.push({ c, turns });
  }
} finally {
  await server.close();
}

const size = (f) => statSync(join(dir, f)).size;
console.log(`Containers in ${dir}; medians of ${rounds} turns (native, then Chromium, per turn).\n`);
console.log('| container | textures listed (native / Chromium) | index size | list: native wall (CPU) | list: Chromium | first texture shown: Chromium (tab CPU) | bytes read to list: native / Chromium | read / index: native / Chromium | reads: native / Chromium | peak memory: native RSS | peak memory: Chromium renderer (before drop) | Chromium: wasm memory / page JS heap / worker JS heaps |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const { c, turns } of rows) {
  const m = (f) => median(turns.map(f));
  const index = turns[0].n.index_bytes;
  const w = turns[0].w;
  const bad = turns.find((t) => t.w.state === 'error' || t.w.error);
  console.log(`| ${c.label} (${c.files.map((f) => `${MiB(size(f))} MiB`).join(' + ')}) | ${turns[0].n.textures} / ${w.textures}${bad ? ` (error: ${bad.w.error})` : ''} | ${KiB(index)} KiB `
    + `| ${m((t) => t.n.list_s).toFixed(2)} s (${m((t) => t.n.list_cpu_s).toFixed(2)} s) | ${m((t) => t.w.list_s).toFixed(2)} s | ${m((t) => t.w.shown_s).toFixed(2)} s (${m((t) => t.w.renderer_cpu_s).toFixed(2)} s) `
    + `| ${KiB(m((t) => t.n.list_bytes))} / ${KiB(m((t) => t.w.bytes))} KiB | ${(m((t) => t.n.list_bytes) / index).toFixed(2)} / ${(m((t) => t.w.bytes) / index).toFixed(2)} `
    + `| ${m((t) => t.n.list_reads)} / ${m((t) => t.w.reads)} | ${MiB(m((t) => t.n.hwm_list))} MiB `
    + `| ${MiB(m((t) => t.w.renderer_peak))} MiB (${MiB(m((t) => t.w.renderer_before))}) | ${MiB(m((t) => t.w.wasm_memory))} / ${MiB(m((t) => t.w.js_heap))} / ${MiB(m((t) => t.w.worker_heap))} MiB |`);
}
