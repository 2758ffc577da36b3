// Exports: what the view shows as PNG, the stored values as PNG (8/16-bit) or EXR (float), the
// texture's original blocks as DDS, and every listed texture as DDS in one store-only ZIP with a
// progress bar and Cancel (lib/encoders.js writes the files).
import { encodePng, encodeExr, zipStore, download } from '../lib/encoders.js';
import { probe } from '../probe.js';
import { sleep } from '../util.js';

/** @typedef {'png-view' | 'png-raw' | 'exr' | 'dds' | 'zip'} ExportKind */

/** A file name made of `s`'s safe characters. @param {string} s */
const safeName = (s) => String(s).replace(/[^\w.-]+/g, '_').slice(0, 120) || 'texture';

/** @param {import('../types').App} app */
export function createExports(app) {
  const { store, actions, client } = app;
  /** @type {AbortController | null} */
  let abort = null;

  /** Exports the selection as `kind`. @param {ExportKind} kind */
  async function exportCurrent(kind) {
    const s = store.state;
    const c = s.current;
    if (!c || !s.image) return;
    // A streamed or preview view holds no full mip: decode it now (the core's limits refuse sizes
    // that cannot fit).
    const img = s.image.data ? s.image : await client.call({ op: 'decode', texture: c.index, mip: c.mip, slice: c.slice });
    const data = /** @type {import('../types').Pixels} */ (img.data);
    const t = s.textures[c.index];
    const base = `${safeName(t.census.name)}__mip${c.mip}__s${c.slice}`;
    if (kind === 'png-view') {
      // What the canvas shows: every view setting (exposure, tonemap, channels, flip, overlay) applied.
      const blob = await new Promise((res) => app.viewport.canvas.toBlob(res, 'image/png'));
      download(blob, `${base}__view.png`);
    } else if (kind === 'png-raw') {
      if (img.precision === 'float') throw new Error(`${t.census.name} holds float values, which PNG cannot keep: export EXR instead`);
      download(await encodePng(img.width, img.height, data), `${base}.png`);
    } else if (kind === 'exr') {
      let values = data;
      if (img.precision !== 'float') {
        const norm = img.precision === 'unorm16' ? 65535 : 255;
        values = Float32Array.from(data, (v) => v / norm);
      }
      download(encodeExr(img.width, img.height, values), `${base}.exr`);
    } else if (kind === 'dds') {
      const bytes = await client.call({ op: 'exportDds', texture: c.index });
      download(new Blob([/** @type {BlobPart} */ (bytes)], { type: 'application/octet-stream' }), `${safeName(t.census.name)}.dds`);
    } else if (kind === 'zip') {
      await exportZip(s.listed.slice());
      return;
    }
    actions.setStatus(`Exported ${t.census.name}`);
  }

  /**
   * Every texture of `indices` as a lossless DDS in one store-only ZIP; textures that cannot be
   * written (missing data, unsupported) are named with the reason in errors.txt.
   * @param {number[]} indices
   */
  async function exportZip(indices) {
    if (!indices.length) return;
    const aborter = new AbortController();
    abort = aborter;
    const errors = [];
    const used = new Set();
    const textures = store.state.textures;
    const kept = [];
    // Fetch one by one so cancel takes effect between textures, then write the ZIP.
    try {
      for (let k = 0; k < indices.length; k++) {
        if (aborter.signal.aborted) throw new DOMException('cancelled', 'AbortError');
        actions.progress(k, indices.length, `Exporting ${k + 1} of ${indices.length}…`);
        const t = textures[indices[k]];
        let name = `${safeName(t.census.name)}.dds`;
        for (let n = 2; used.has(name); n++) name = `${safeName(t.census.name)}_${n}.dds`;
        used.add(name);
        try {
          kept.push({ name, data: await client.call({ op: 'exportDds', texture: indices[k] }) });
        } catch (e) {
          errors.push(`${t.census.name} (${t.census.file}): ${/** @type {Error} */ (e).message}`);
        }
        if (probe.exportDelay) await sleep(probe.exportDelay); // test hook
      }
      if (errors.length) kept.push({ name: 'errors.txt', data: new TextEncoder().encode(`${errors.join('\n')}\n`) });
      const blob = await zipStore(kept.map((e) => () => e), { signal: aborter.signal });
      download(blob, 'texscope-export.zip');
      actions.setStatus(`Exported ${kept.length - (errors.length ? 1 : 0)} of ${indices.length} textures as DDS in a ZIP${errors.length ? ` (${errors.length} failed: see errors.txt)` : ''}`);
    } catch (e) {
      if (/** @type {Error} */ (e).name === 'AbortError') actions.setStatus('Export cancelled');
      else throw e;
    } finally {
      abort = null;
      actions.endProgress();
    }
  }

  return {
    exportCurrent,
    /** Cancels the ZIP export under way (between two textures). */
    cancel: () => abort?.abort(),
  };
}

/** @typedef {ReturnType<typeof createExports>} Exports */
