// The test contract (issue 2), window.texscope: stable from now on. The browser tests (tests/browser)
// drive and read the page through it; every method reads the store or calls the modules' own API.
import { displayBytes } from './lib/display.js';
import { parseShare } from './lib/share-hash.js';
import { relPath } from './lib/walk.js';
import { thumbMip } from './lib/thumbs.js';
import { probe } from './probe.js';
import { $ } from './util.js';

/** @param {Uint8Array} u8 */
const b64 = (u8) => {
  let str = '';
  for (let i = 0; i < u8.length; i += 0x8000) str += String.fromCharCode.apply(null, Array.from(u8.subarray(i, i + 0x8000)));
  return btoa(str);
};

/** @param {import('./types').App} app */
export function createTestApi(app) {
  const { store, actions, client, viewport, gpuPath } = app;
  const gpu = gpuPath.gpu;
  const st = () => store.state;
  const settings = () => viewport.displaySettings();
  /** progressSteps()'s list, once asked for. @type {{ text: string, done: number, total: number, cancellable: boolean }[] | null} */
  let progressLog = null;

  const api = {
    // What is on screen (a selection still decoding shows once its image has arrived).
    view() {
      const s = st();
      if (!s.shown || !s.image) return null;
      return { ...s.shown, width: s.image.width, height: s.image.height };
    },
    /** @param {{ texture?: number | string, mip?: number, slice?: number }} [spec] */
    async select(spec = {}) {
      await app.selection.select(spec);
      return api.view();
    },
    /** @param {number} x @param {number} y */
    pixel(x, y) {
      return st().image ? viewport.valueAt(x, y) : null;
    },
    // Issue 8 test hooks: what was painted when ({openedAt, selectedAt, events: [{mip, kind, time}]}),
    // a delay before a full mip is painted, the tile streamer's counters, and a timed decode.
    paints() {
      return { openedAt: probe.openedAt, sourcesAt: probe.sourcesAt, selectedAt: probe.selectedAt, events: probe.paints.map((p) => ({ ...p })) };
    },
    clearPaints() {
      probe.paints = [];
    },
    // The last selection's stages ([{name, time}], time = performance.now() at the stage's end).
    stages() {
      return probe.stages.map((s) => ({ ...s }));
    },
    /** @param {number} ms */
    setDecodeDelay(ms) {
      probe.decodeDelay = ms;
    },
    tiles() {
      const s = viewport.streamer;
      return { ...s.info(), poolSize: app.pool.size, view: st().image?.streamed ? s.visible(viewport.streamView()) : null };
    },
    resetTiles() {
      const s = viewport.streamer;
      s.reset();
      if (st().image?.streamed) s.setTexture(s.texture);
    },
    redraw() {
      viewport.layout();
    },
    /** @param {{ texture?: number | string, mip?: number, slice?: number }} [spec] */
    async timeDecode({ texture, mip = 0, slice = 0 } = {}) {
      const t0 = performance.now();
      const img = await client.call({ op: 'decode', texture: app.selection.resolve(texture), mip, slice });
      return { ms: performance.now() - t0, width: img.width, height: img.height, stages: img.stages };
    },
    textures() {
      return st().textures.map((t) => t.census);
    },
    // [bytes, reads] the worker has read from opened files, and its wasm memory size (issue 8).
    readStats: () => client.call({ op: 'readStats' }),
    /** What was read of each ?src= file: [{url, name, size, bytes, requests, whole}]. */
    remote: () => st().remote.map((r) => ({ ...r })),
    // Test hook (issue 9): makes the decoder panic; the page shows the error and restarts it.
    async debugPanic() {
      try {
        await client.call({ op: 'panic' });
      } catch (e) {
        actions.fail(/** @type {Error} */ (e).message);
        return /** @type {Error} */ (e).message;
      }
      return null;
    },
    // What the canvas shows at (x, y) after the view settings, as RGBA bytes.
    /** @param {number} x @param {number} y */
    shown(x, y) {
      if (!st().image) return null;
      return Array.from(/** @type {CanvasRenderingContext2D} */ (viewport.canvas.getContext('2d')).getImageData(x, y, 1, 1).data);
    },
    // The view settings (issue 7): zoom, pan centre, rendering, channels, HDR and overlay state.
    display() {
      const s = st();
      if (!s.image) return null;
      const r = viewport.canvas.getBoundingClientRect();
      return {
        zoom: s.zoom, fit: s.fit, center: [...s.center], rendering: viewport.canvas.dataset.rendering,
        texelGrid: viewport.overlay.texelGrid, canvasBox: { x: r.x, y: r.y, width: r.width, height: r.height },
        channels: { ...s.channels }, exposure: s.exposure, tonemap: s.tonemap, colour: s.colour,
        normal: s.normal, flipGreen: s.flipGreen, flipY: s.flipY, badOverlay: s.badOverlay,
        bad: { ...s.bad }, cross: Boolean(s.image.cross), tiles: Boolean(s.grid),
        pin: s.pin ? [...s.pin] : null, hover: s.hover ? [...s.hover] : null,
      };
    },
    // Sets view settings without going through the controls (tests and share links use the same path).
    /** @param {import('./types').ShareView} v */
    async setDisplay(v) {
      const s = st();
      await app.share.apply({ texture: s.textures[s.current?.index ?? 0]?.census.name, mip: s.current?.mip, slice: s.current?.slice, ...v });
      return api.display();
    },
    grid() {
      return st().grid;
    },
    // The UDIM view (issue 18): the grid's blocks, what the overlay drew for them (viewport CSS
    // pixels) and the inspector panel's list.
    udim() {
      return { blocks: st().grid?.blocks ?? [], drawn: app.udim.drawn(), text: $('udim-info').textContent, hidden: $('udim-info').hidden };
    },
    // The GPU path (issue 8): what the browser offers, which path drew the view and why.
    gpu() {
      return { on: st().gpuOn, path: st().gpuSurface ? 'gpu' : 'cpu', info: $('gpu-info').textContent, ...gpu.capabilities() };
    },
    /** @param {boolean} on */
    async setGpu(on) {
      if (on !== Boolean(st().gpuOn)) $('gpu-toggle').click();
      await app.selection.reshow();
      return api.gpu();
    },
    // Test hook: the WebGL context is lost (as after a driver reset); the view is painted again.
    async debugLoseGpu() {
      await gpu.loseContext();
      viewport.repaint();
      return api.gpu();
    },
    // The current view drawn by both paths at 1:1: GPU readPixels and the CPU's displayBytes, as
    // base64 RGBA rows top first. Null when the GPU path is not drawing this surface.
    gpuCompare() {
      const s = st();
      if (!s.gpuSurface || !s.image || !s.current) return null;
      const t = s.textures[s.current.index];
      if (!gpu.draw(s.gpuSurface, s.image.precision, settings(), t.bottom_first)) return null;
      const cpu = displayBytes(/** @type {import('./types').Surface} */ (s.image), settings()).bytes;
      return { width: s.image.width, height: s.image.height, gpu: b64(gpu.pixels()), cpu: b64(new Uint8Array(cpu.buffer, cpu.byteOffset, cpu.length)) };
    },
    // Timings (ms) of the current surface, `runs` times: read + CPU decode + transfer (the worker's
    // decode) against read of the stored bytes, and their upload + one draw (GPU), each run fresh.
    async gpuBench(runs = 5) {
      const c = /** @type {import('./types').Selection} */ (st().current);
      const t = st().textures[c.index];
      /** @type {Record<string, number[]>} */
      const out = { decode: [], read: [], upload: [], firstDraw: [], redrawGpu: [], redrawCpu: [] };
      const lap = (/** @type {number[]} */ list, /** @type {number} */ t0) => { const now = performance.now(); list.push(now - t0); return now; };
      for (let i = 0; i < runs; i++) {
        let t0 = performance.now();
        const img = await client.call({ op: 'decode', texture: c.index, mip: c.mip, slice: c.slice });
        t0 = lap(out.decode, t0);
        const bytes = await client.call({ op: 'surfaceBytes', texture: c.index, mip: c.mip, slice: c.slice });
        t0 = lap(out.read, t0);
        gpu.forget('bench');
        const s = gpu.upload('bench', t.census.format, c.mip, img.width, img.height, bytes);
        t0 = lap(out.upload, t0);
        gpu.draw(s, img.precision, settings(), t.bottom_first);
        gpu.finish();
        t0 = lap(out.firstDraw, t0);
        // A repaint after a view change (exposure): the shader again, against displayBytes.
        const changed = { ...settings(), exposure: 1 + i };
        gpu.draw(s, img.precision, changed, t.bottom_first);
        gpu.finish();
        t0 = lap(out.redrawGpu, t0);
        displayBytes(img, changed);
        lap(out.redrawCpu, t0);
      }
      gpu.forget('bench');
      return out;
    },
    histogram() {
      return st().hist ?? null;
    },
    // Opens demo `id`, leaving out the named files (to see what a missing sibling looks like).
    /** @param {string} id @param {{ without?: string[], only?: string[] | null }} [opts] */
    async openDemo(id, { without = [], only = null } = {}) {
      await app.demos.open(id, without, only);
      return api.view();
    },
    infoJson() {
      return app.info.json();
    },
    // The list (issue 7): what is listed after filter and sort, and how many rows are in the DOM.
    list() {
      return {
        total: st().textures.length, listed: st().listed.map((i) => st().textures[i].census.name),
        rows: $('texture-list').querySelectorAll('.tex').length,
      };
    },
    // The tree of paths (issue 17): the list's rows as shown (folders and textures, with depth).
    tree() {
      return app.textures.treeView();
    },
    // The grid (issue 7): mode, cells in the DOM, every thumbnail request sent (texture index, mip)
    // and the cache size.
    thumbs() {
      const thumbs = app.textures.thumbs;
      return {
        grid: st().gridMode, cells: $('texture-grid').querySelectorAll('.cell').length,
        drawn: $('texture-grid').querySelectorAll('canvas.thumb').length,
        requested: thumbs.log.map((r) => ({ ...r, name: st().textures[r.index]?.census.name })),
        cached: thumbs.cache.size, inflight: thumbs.inflight.size, limit: thumbs.limit,
      };
    },
    // RGBA of thumbnail texel (x, y) of texture `index` (from the cache), or null.
    /** @param {number} index @param {number} x @param {number} y */
    thumbPixel(index, x, y) {
      const m = thumbMip(st().textures[index]).mip;
      const th = app.textures.thumbs.cache.get(`${index}:${m}`);
      if (!th || 'error' in th || x >= th.width || y >= th.height) return null;
      const i = (y * th.width + x) * 4;
      return { width: th.width, height: th.height, rgba: Array.from(th.data.subarray(i, i + 4)) };
    },
    /** @param {number} n */
    setThumbCacheLimit(n) {
      app.textures.thumbs.setLimit(n);
    },
    // Test hook: replaces the catalog with `entries` (census-like records) to exercise the list alone.
    /** @param {(import('./types').Census & { mipList?: import('./types').MipRecord[], gpu_bytes?: number })[]} entries */
    injectList(entries) {
      // `mipList` (optional) stands for the Session's per-mip records, e.g. to show a waiting entry.
      // (Cast: a test's records hold only the fields the list reads.)
      actions.injectList(entries.map((c) => /** @type {import('./types').TextureRecord} */ (/** @type {unknown} */ ({
        census: c, mips: c.mipList ?? [{ present: true, missing: [] }], gpu_bytes: c.gpu_bytes ?? 0,
      }))));
      return st().textures.length;
    },
    // The files of demo `id` as {name, data: number[]} (tests drop them through the file input).
    /** @param {string} id */
    demoFiles: (id) => app.demos.files(id),
    // Walks FileSystemEntry-like objects as a folder drop does and opens what it finds.
    /** @param {any[]} entries */
    async openEntries(entries) {
      const files = await app.opener.openEntries(entries);
      return files.map((f) => f.name);
    },
    // Test hook: a pause after each texture of a ZIP export, to see the progress bar and cancel.
    /** @param {number} ms */
    setExportDelay(ms) {
      probe.exportDelay = ms;
    },
    // Test hooks: ms the worker holds each engine pass of an open; a pause after each batch of
    // the Builds classification (to see the progress bar mid-task and cancel).
    /** @param {number} ms */
    setOpenDelay(ms) {
      probe.openDelay = ms;
    },
    /** @param {number} ms */
    setBuildsDelay(ms) {
      probe.buildsDelay = ms;
    },
    // Every state the progress bar was given since the first call, in order, as progress()
    // gives it but without `null`s: each store change, painted or not (steps the worker posts in
    // one burst reach the page in one task, between two frames, where progress() sampled each
    // frame would see only the last). Returns the list so far; it keeps growing.
    progressSteps() {
      if (!progressLog) {
        const log = /** @type {{ text: string, done: number, total: number, cancellable: boolean }[]} */ ([]);
        progressLog = log;
        store.subscribe(['progress'], () => {
          const p = st().progress;
          if (p) log.push({ text: p.text, done: p.done, total: p.total, cancellable: p.cancellable });
        });
      }
      return progressLog;
    },
    // The progress bar as shown: label, done of total, whether Cancel shows; null when hidden.
    progress() {
      if ($('progress').hidden) return null;
      const bar = /** @type {HTMLProgressElement} */ ($('progress-bar'));
      return { text: $('progress-label').textContent, done: bar.hasAttribute('value') ? bar.value : null, total: bar.max, cancellable: !$('progress-cancel').hidden };
    },
    // A promise of the link (local files are fingerprinted first).
    shareLink() {
      return app.share.link();
    },
    sources() {
      return st().sources ?? null;
    },
    /** @param {string} hash */
    parseShare(hash) {
      return parseShare(hash);
    },
    // ---- the compare view (issue 21) ----
    // What the compare view shows: A and B, the plan, the figures, the mode, the swipe line, which
    // of A and B the flicker shows, the zoom, and the inspector's hovered and pinned texel.
    compare() {
      const s = st();
      if (!s.compare) return null;
      const r = s.compareResult;
      const side = (/** @type {import('./types').CompareSide} */ x) => ({ set: x.set, index: x.index, name: x.name, mip: x.mip, slice: x.slice });
      return {
        a: side(s.compare.a), b: side(s.compare.b), pair: s.compare.pair, state: $('compare').dataset.state,
        error: s.compareError || null, plan: r ? { ...r.plan } : null, figures: r ? structuredClone(r.figures) : null,
        size: r ? [r.a.width, r.a.height] : null, precision: r ? [r.a.precision, r.b.precision] : null,
        mode: s.compareMode, swipe: s.compareSwipe, diff: s.compareDiff, flicker: s.compareFlickerB ? 'b' : 'a',
        view: { ...s.compareView }, figuresText: $('cmp-figures').textContent, notice: $('cmp-notice').hidden ? null : $('cmp-notice').textContent,
        hover: s.compareHover, pin: s.comparePin, inspector: { hover: $('insp-hover').textContent, pin: $('insp-pin').textContent },
      };
    },
    // Opens the compare view on textures of the open files (names or indices); resolves when shown.
    /** @param {{ a?: number | string, aMip?: number, aSlice?: number, b: number | string, bMip?: number | null, bSlice?: number }} spec */
    async compareOpen({ a, aMip, aSlice = 0, b, bMip = null, bSlice = 0 }) {
      const ia = app.selection.resolve(a);
      await app.compare.open({ index: ia, mip: aMip ?? 0, slice: aSlice }, { index: app.selection.resolve(b), mip: bMip, slice: bSlice });
      return api.compare();
    },
    // A and B and B − A at texel (x, y) of the compared surfaces (raw values; B − A in 0..1 / float).
    /** @param {number} x @param {number} y */
    compareTexel(x, y) {
      const d = app.compareView.describe([x, y]);
      return d ? { a: d.a, b: d.b, d: d.d } : null;
    },
    // The viewport point of texel (x, y)'s centre in pane 'a' or 'b', and what shows there.
    /** @param {number} x @param {number} y @param {'a' | 'b'} [pane] */
    comparePoint(x, y, pane = 'a') {
      return app.compareView.pointOf(x, y, pane);
    },
    /** @param {number} clientX @param {number} clientY */
    compareShownAt(clientX, clientY) {
      return app.compareView.shownAt(clientX, clientY);
    },
    // Opens two builds from {name, path, data: number[]} records (path: inside the dropped folder,
    // e.g. "old/sub/a.dds"); resolves when every pair is classified.
    /** @param {{ name: string, path?: string, data: number[] }[]} oldFiles @param {{ name: string, path?: string, data: number[] }[]} newFiles */
    async openBuilds(oldFiles, newFiles) {
      const files = (/** @type {{ name: string, path?: string, data: number[] }[]} */ list) => list.map((f) => {
        const file = new File([new Uint8Array(f.data)], f.name);
        // The build's own folder name is not part of the path (as when a folder is dropped).
        if (f.path) relPath.set(file, f.path.replace(/^\/+/, '').split('/').slice(1).join('/') || f.name);
        return file;
      });
      await app.builds.open(files(oldFiles), files(newFiles), 'OLD', 'NEW');
      return api.builds();
    },
    // The two builds' pairs (every one, and those the filter lists) and the summary line.
    builds() {
      const b = st().builds;
      if (!b) return null;
      const pair = (/** @type {import('./types').BuildPair} */ p) => ({ path: p.path, name: p.name, status: p.status, changes: p.changes ?? [], error: p.error ?? null });
      return {
        pairs: b.pairs.map(pair), listed: st().buildsListed, classified: b.classified,
        summary: $('builds-summary').textContent, rows: $('builds-list').querySelectorAll('.tex').length,
      };
    },

    // The last actions the store ran (newest last), for debugging.
    actions() {
      return [...store.log];
    },
  };
  return api;
}
