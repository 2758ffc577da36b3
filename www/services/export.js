// Exports: what the view shows as PNG, the stored values as PNG (8/16-bit) or EXR (float), the
// texture's original blocks as DDS, and every listed texture as DDS or PNG in one store-only ZIP
// with a progress bar and Cancel (lib/encoders.js writes the files). The ZIP's paths are the
// CLI's (`texscope export`): src/export.rs names them, through the full wasm module's
// ExportNamer (loaded on the first ZIP export; the core module has no room for it).
import { encodePng, encodeExr, streamPng, ZipWriter, openZipSink, download } from '../lib/encoders.js';
import { probe } from '../probe.js';
import { fullModuleInit } from '../wasm-build.js';
import { sleep } from '../util.js';

/** @typedef {'png-view' | 'png-raw' | 'exr' | 'dds' | 'zip' | 'zip-png'} ExportKind */

/** The full module's ExportNamer class, loaded once. @type {Promise<any> | null} */
let namerClass = null;
const loadNamer = () => (namerClass ??= import('../pkg-full/texscope.js').then(async (m) => {
  // The build the worker loads (www/wasm-build.js): the browser fetches the full module once.
  await m.default(fullModuleInit());
  return m.ExportNamer;
}));

/**
 * The CLI's order of two files (census `file`, `/`-separated): by folder, component by component,
 * a folder's own files before its subfolders' (src/bin/texscope.rs groups files by folder and
 * sorts the folders as paths), then by name.
 * @param {string} a @param {string} b
 */
function censusOrder(a, b) {
  const pa = a.split('/');
  const pb = b.split('/');
  const da = pa.slice(0, -1);
  const db = pb.slice(0, -1);
  for (let i = 0; i < Math.min(da.length, db.length); i++) {
    if (da[i] !== db[i]) return da[i] < db[i] ? -1 : 1;
  }
  if (da.length !== db.length) return da.length - db.length;
  const [fa, fb] = [pa[pa.length - 1], pb[pb.length - 1]];
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}

/** A file name made of `s`'s safe characters. @param {string} s */
const safeName = (s) => String(s).replace(/[^\w.-]+/g, '_').slice(0, 120) || 'texture';

/** @param {import('../types').App} app */
export function createExports(app) {
  const { store, actions, client } = app;

  /** Exports the selection as `kind`. @param {ExportKind} kind */
  async function exportCurrent(kind) {
    const s = store.state;
    const c = s.current;
    if (!c || !s.image) return;
    // First, while the click's user activation lasts: the ZIP may ask where to save (openZipSink).
    if (kind === 'zip' || kind === 'zip-png') return exportZip(s.listed.slice(), kind === 'zip' ? 'dds' : 'png');
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
    }
    actions.setStatus(`Exported ${t.census.name}`);
  }

  /**
   * Every texture of `indices` in one store-only ZIP, written as it goes (each entry goes to the
   * sink at once: a file the person picked, or Blob parts; the page holds one texture at a time):
   * `dds` = its original blocks, every mip and slice; `png` = mip 0, slice 0 (8- or 16-bit, floats clamped to 0..1), as
   * `texscope export` does. Entries are named and written in census order (folders, then files,
   * then each file's own order) so the names are the CLI's. Textures that cannot be written, and
   * names that were taken, are listed in errors.txt.
   * @param {number[]} indices @param {'dds' | 'png'} format
   */
  async function exportZip(indices, format) {
    if (!indices.length) return;
    let sink;
    try {
      sink = await openZipSink('texscope-export.zip');
    } catch (e) {
      if (/** @type {Error} */ (e).name !== 'AbortError') throw e;
      actions.setStatus('Export cancelled');
      return;
    }
    /** @type {string[]} */
    const errors = [];
    const textures = store.state.textures;
    const order = indices.slice().sort((a, b) => censusOrder(textures[a].census.file, textures[b].census.file) || a - b);
    const zip = new ZipWriter(sink);
    let written = 0;
    /** @type {InstanceType<Awaited<ReturnType<typeof loadNamer>>> | null} */
    let namer = null;
    let done = false;
    try {
      // A task of services/tasks.js: the bar with Cancel, which stops the export between two
      // textures (each is one short worker call).
      await app.tasks.run('Preparing the export…', order.length, async (task) => {
        const ExportNamer = await loadNamer();
        // Every texture (not only the listed ones): whether a file holds one texture decides its
        // layout, as on the command line.
        namer = new ExportNamer(textures.map((t) => ({
          file: t.census.file,
          package: (t.metadata || []).find(([k]) => k === 'container path')?.[1] ?? null,
          name: t.census.name,
          class: t.census.class,
        })));
        for (let k = 0; k < order.length; k++) {
          task.check();
          task.step(k, order.length, `Exporting ${k + 1} of ${order.length}…`);
          const t = textures[order[k]];
          const c = t.census;
          /** @type {((zip: ZipWriter) => Promise<void>) | null} */
          let write = null;
          try {
            let ending;
            /** @type {(zip: ZipWriter, path: string) => Promise<void>} */
            let entry;
            if (format === 'dds') {
              const bytes = await client.call({ op: 'exportDds', texture: order[k] });
              ending = '.dds';
              zip.check(bytes.length);
              entry = (z, path) => z.add(path, bytes);
            } else {
              const img = await client.call({ op: 'decode', texture: order[k], mip: 0, slice: 0 });
              let px = img.data;
              if (img.precision === 'float') px = Uint8Array.from(px, (v) => Math.min(255, Math.max(0, v * 255 + 0.5)) | 0);
              ending = (c.kind === 'volume' ? c.depth : c.slices) > 1 ? '__s0.png' : '.png';
              zip.check(0);
              // Streamed: the page holds the texels and a few hundred KiB, never the whole PNG.
              entry = (z, path) => z.addStream(path, (emit) => streamPng(img.width, img.height, px, emit));
            }
            const placed = namer.place(order[k], ending);
            if (placed.warning) errors.push(`${c.file}: ${c.name}: name taken: ${placed.warning}`);
            write = (z) => entry(z, placed.path);
          } catch (e) {
            errors.push(`${c.name} (${c.file}): ${/** @type {Error} */ (e).message}`);
          }
          // Outside the texture's own try: a write that fails (a full disk) ends the export; one
          // past the archive's limits (RangeError, nothing written) only skips the texture.
          if (write) {
            try {
              await write(zip);
              written++;
            } catch (e) {
              if (!(e instanceof RangeError)) throw e;
              errors.push(`${c.name} (${c.file}): ${e.message}`);
            }
          }
          if (probe.exportDelay) await sleep(probe.exportDelay); // test hook
        }
        if (errors.length) {
          // A full archive (RangeError, nothing written) keeps its textures without the list.
          await zip.add('errors.txt', new TextEncoder().encode(`${errors.join('\n')}\n`)).catch((e) => {
            if (!(e instanceof RangeError)) throw e;
          });
        }
        await zip.finish();
        await sink.close('texscope-export.zip');
        done = true;
        const failed = order.length - written;
        actions.setStatus(`Exported ${written} of ${order.length} textures as ${format.toUpperCase()} in a ZIP${failed ? ` (${failed} failed: see errors.txt)` : ''}`);
      });
    } catch (e) {
      if (/** @type {Error} */ (e).name === 'AbortError') actions.setStatus('Export cancelled');
      else throw e;
    } finally {
      if (!done) await sink.abort().catch(() => {});
      namer?.free();
    }
  }

  return { exportCurrent };
}

/** @typedef {ReturnType<typeof createExports>} Exports */
