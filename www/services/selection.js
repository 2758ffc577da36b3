// Showing a selection (texture, mip, slice): asks the worker for the pixels (a small mip first when
// that paints sooner, tiles on screen for large virtual textures, six faces for a cube cross),
// decides the GPU path, and puts the result in the store, where the views pick it up.
import { composeCross, histogram } from '../lib/display.js';
import { hasBlockMode } from '../lib/blocks.js';
import { streams, previewMip } from '../lib/tiles.js';
import { layoutBlocks } from '../lib/udim.js';
import { probe } from '../probe.js';
import { afterFrame, sleep } from '../util.js';

/** @typedef {import('../types').ViewImage} ViewImage */
/** @typedef {{ index: number, mip: number, slice: number }} Target */

/** @param {import('../types').App} app */
export function createSelection(app) {
  const { store, actions, client } = app;
  let seq = 0;

  /**
   * The bars fetchBar put up, each with the bar it replaced (null: none), so that a decode
   * ending after a newer one took the bar over never puts its own words back.
   * @type {WeakMap<object, import('../types').State['progress']>}
   */
  const fetchBars = new WeakMap();

  /**
   * A decode that reads a file on a server (?src=) can take a while on a slow link: after 300 ms
   * the bar says what it waits for, and views/status.js puts the bytes and requests fetched so
   * far before it. The open's task lasts until its first texture shows, so its bar may be up: its
   * words are replaced (its Cancel stays, and still cancels the open) and put back after, unless
   * the task moved on meanwhile. Otherwise the bar has no Cancel (the worker would have to reopen
   * every file); a newer selection simply wins, and replacing an earlier decode's bar it inherits
   * what that bar replaced.
   * @template T @param {Promise<T>} decode @param {string} text @returns {Promise<T>}
   */
  async function fetchBar(decode, text) {
    if (!store.state.remote.length) return decode;
    /** The bar this shows. @type {{ mine: import('../types').State['progress'] }} */
    const bar = { mine: null };
    const timer = setTimeout(() => {
      const b = store.state.progress;
      actions.progress(b?.done ?? 0, b?.total ?? 0, text, b?.cancellable ?? false);
      bar.mine = store.state.progress;
      if (bar.mine) fetchBars.set(bar.mine, b && fetchBars.has(b) ? fetchBars.get(b) ?? null : b);
    }, 300);
    try {
      return await decode;
    } finally {
      clearTimeout(timer);
      if (bar.mine && store.state.progress === bar.mine) {
        const b = fetchBars.get(bar.mine);
        if (b) actions.progress(b.done, b.total, b.text, b.cancellable);
        else actions.endProgress();
      }
    }
  }

  /**
   * Shows texture `index` at `mip` and `slice`; resolves once it is on screen, rejects (with the
   * error already on screen) when it cannot be. A newer selection wins over one still decoding.
   * @param {Target} target
   */
  async function show({ index, mip, slice }) {
    const t = store.state.textures[index];
    if (!t) throw new Error(`there is no texture ${index}`);
    if (mip < 0 || mip >= t.mips.length) throw new Error(`${t.census.name} has ${t.mips.length} mips; there is no mip ${mip}`);
    const my = ++seq;
    actions.select(index, mip, slice);
    actions.setPhase('loading');
    probe.selectedAt = performance.now();
    // Opening files keeps the stages the open began.
    if (probe.keepStages) probe.keepStages = false;
    else probe.resetStages();
    probe.stage('select');
    const streamer = app.viewport.streamer;
    try {
      /** @type {ViewImage} */
      let image;
      const { cross, tiles } = store.state;
      const streamed = !cross && streams(t, mip);
      const pre = cross || streamed ? -1 : previewMip(t, mip, slice, app.viewport.size());
      if (pre >= 0) {
        // Progressive display: a small mip first, scaled to the asked mip's box, then the mip itself.
        const small = probe.workerStages('preview', await fetchBar(client.call({ op: 'decode', texture: index, mip: pre, slice }),
          `Reading ${t.census.name} · mip ${pre} (preview)`));
        if (my !== seq) return;
        const m = t.mips[mip];
        streamer.setTexture(null);
        actions.setGpuSurface(null);
        actions.present({ width: m.width, height: m.height, precision: small.precision, data: null, preview: small, previewMip: pre }, null, null);
        probe.painted({ mip: pre, kind: 'preview', time: performance.now() });
        probe.stage('preview painted');
      }
      if (streamed) {
        const layout = await client.call({ op: 'vtLayout', texture: index });
        const m = t.mips[mip];
        image = { width: m.width, height: m.height, precision: /** @type {import('../types').Precision} */ (t.precision), data: null, streamed: true, layout };
      } else if (cross && t.census.kind === 'cube') {
        const base = slice - (slice % 6);
        const faces = [];
        for (let f = 0; f < 6; f++) faces.push(await client.call({ op: 'decode', texture: index, mip, slice: base + f }));
        image = composeCross(faces);
      } else {
        // The stored bytes come with the decode (one read of the mip) when the inspector's block
        // mode or the GPU path may want them (the GPU is probed while the worker decodes).
        const stored = hasBlockMode(t.census.format) || (store.state.gpuOn !== false && !t.census.virtual);
        const asked = client.call({ op: 'decode', texture: index, mip, slice, stored });
        // The GPU probe (a WebGL context on first use: measured 15-30 ms) while the worker decodes;
        // not during the preview's decode, which it outlasted, delaying the first paint.
        app.gpuPath.why(t, false);
        image = probe.workerStages('full', await fetchBar(asked, `Reading ${t.census.name} · mip ${mip}`));
        if (probe.decodeDelay) await sleep(probe.decodeDelay); // test hook
      }
      // The grid is an overlay: if the core cannot give it, the image still shows.
      const grid = tiles && t.census.virtual ? await client.call({ op: 'vtGrid', texture: index, mip, layer: slice }).catch(() => null) : null;
      if (grid && grid.width_in_blocks * grid.height_in_blocks > 1) {
        // A UDIM texture: its blocks, laid out from mip 0's cells (views/udim.js shows them).
        const g0 = mip === 0 ? grid : await client.call({ op: 'vtGrid', texture: index, mip: 0, layer: 0 }).catch(() => null);
        grid.blocks = g0 ? layoutBlocks(g0, grid.width_in_blocks, grid.height_in_blocks) : [];
      }
      if (my !== seq) return; // a newer selection won
      // The GPU path (issue 8) takes the stored blocks of a whole decoded surface; streamed VT mips
      // and previews stay on the CPU.
      const stored = image.stored ?? null;
      delete image.stored;
      const onGpu = image.streamed
        ? { surface: null, info: 'CPU decode: virtual textures are assembled from tiles on the CPU' }
        : await app.gpuPath.upload(t, index, mip, slice, image, stored);
      if (my !== seq) return;
      probe.stage('gpu path decided');
      actions.setGpuSurface(onGpu.surface);
      actions.setGpuInfo(onGpu.info);
      streamer.setTexture(image.streamed ? { index, mip, layer: slice, layout: /** @type {import('../types').VtLayout} */ (image.layout) } : null);
      // The stored blocks, for the inspector's block mode (BC1/BC6H/BC7), came with the decode.
      actions.present(image, grid, hasBlockMode(t.census.format) && !image.cross && image.data ? stored : null);
      if (image.data) probe.stage('painted');
      probe.painted({ mip, kind: image.streamed ? 'streamed' : 'full', time: performance.now() });
      if (image.data) {
        // The histogram after the frame that shows the mip (it took ~110 ms of a 4096² open, which
        // held the paint back); the view is "ready" once it is there.
        await afterFrame();
        if (my !== seq) return;
        probe.stage('frame');
        actions.setHistogram(histogram(/** @type {import('../types').Surface} */ (image)));
        probe.stage('histogram');
      }
      const m = t.mips[mip];
      actions.ready(`${t.census.name} · mip ${mip} (${m.width}×${m.height}) · slice ${slice} · ${t.census.format}`);
      probe.stage('ready');
    } catch (e) {
      if (my !== seq) return;
      streamer.setTexture(null);
      actions.clearImage();
      actions.fail(/** @type {Error} */ (e).message);
      throw e;
    }
  }

  /** Shows `target` from a control: its error is already on screen. @param {Target} target */
  function selectFromUi(target) {
    show(target).catch(() => {});
  }

  /** Shows the current selection again (after a setting that changes what is decoded). */
  function reshow() {
    const c = store.state.current;
    return c ? show({ index: c.index, mip: c.mip, slice: c.slice }) : Promise.resolve();
  }

  /** Mip `mip` of the current texture (the slice kept where the mip has it). @param {number} mip */
  function selectMip(mip) {
    const c = store.state.current;
    if (!c) return;
    const t = store.state.textures[c.index];
    if (mip < 0 || mip >= t.mips.length) return;
    selectFromUi({ index: c.index, mip, slice: Math.min(c.slice, t.mips[mip].surfaces - 1) });
  }

  /**
   * Texture `spec` (an index, a name, or undefined: the current one) as an index; throws when no
   * texture has that name.
   * @param {number | string | undefined} spec
   */
  function resolve(spec) {
    if (spec === undefined) return store.state.current?.index ?? 0;
    if (typeof spec === 'number') return spec;
    const i = store.state.textures.findIndex((t) => t.census.name === spec);
    if (i < 0) throw new Error(`no texture named ${spec}`);
    return i;
  }

  /**
   * Shows texture `texture` (see resolve) at `mip` and `slice`; left out, they stay as they are
   * for the current texture and are 0 for another (the address's ?texture=, the test API).
   * @param {{ texture?: number | string, mip?: number, slice?: number }} spec
   */
  async function select({ texture, mip, slice } = {}) {
    const index = resolve(texture);
    const c = store.state.current;
    const same = c && c.index === index;
    await show({ index, mip: mip ?? (same ? c.mip : 0), slice: slice ?? (same ? c.slice : 0) });
  }

  return { show, reshow, selectFromUi, selectMip, select, resolve };
}

/** @typedef {ReturnType<typeof createSelection>} Selection */
