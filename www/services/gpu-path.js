// The GPU path (issue 8, lib/gpu.js): the stored blocks of the surface shown, drawn by a shader
// into the view canvas; the CPU decode stays for everything else. This module decides per surface
// whether the GPU draws it (and says why not), uploads, and draws.
import { GpuView } from '../lib/gpu.js';
import { badCounts } from '../lib/display.js';

/** @typedef {import('../types').TextureRecord} TextureRecord */
/** @typedef {import('../types').ViewImage} ViewImage */

/** @param {import('../types').App} app */
export function createGpuPath(app) {
  const { store, actions } = app;
  const gpu = new GpuView();
  let gen = 0; // bumped when the catalog is rebuilt (texture indices change)
  let software = false; // WebGL is a software renderer: the GPU path starts switched off
  /** @type {WeakMap<ViewImage, import('../types').BadCounts>} */
  const badCache = new WeakMap();

  /**
   * Why the GPU path will not draw texture `t` (a cube cross when `cross`), or '' when it will.
   * @param {TextureRecord} t @param {boolean} cross @returns {string}
   */
  function why(t, cross) {
    if (store.state.gpuOn === null) {
      // A software WebGL (SwiftShader when the browser has no GPU) drew a 2048² view in 1-3 s
      // where the wasm decode plus displayBytes took 0.3-0.7 s (tests/browser/gpu.test.mjs), so
      // it starts off there; the toggle still turns it on.
      software = gpu.software();
      actions.setGpuOn(!software);
    }
    return !store.state.gpuOn ? (software ? 'WebGL here is a software renderer, slower than the CPU decode (the GPU button uses it anyway)' : 'the GPU path is switched off')
      : cross ? 'the cube cross is put together on the CPU'
        : t.census.virtual ? 'virtual textures are assembled from tiles on the CPU'
          : gpu.unsupported(t.census.format);
  }

  /**
   * Uploads the stored bytes of the surface shown when the GPU can draw them (`stored` when the
   * decode brought them, else they are read now); else says why not.
   * @param {TextureRecord} t @param {number} index @param {number} mip @param {number} slice
   * @param {ViewImage} image @param {Uint8Array | null} stored
   * @returns {Promise<{ surface: import('../types').GpuSurface | null, info: string }>}
   */
  async function upload(t, index, mip, slice, image, stored) {
    const fmt = t.census.format;
    const reason = why(t, !!image.cross);
    if (reason) return { surface: null, info: `CPU decode: ${reason}` };
    try {
      const bytes = stored ?? await app.client.call({ op: 'surfaceBytes', texture: index, mip, slice });
      const s = gpu.upload(`${gen}:${index}:${slice}`, fmt, mip, image.width, image.height, bytes);
      const block = t.block ?? [1, 1, 4];
      const what = block[0] > 1 || block[1] > 1 ? 'blocks' : 'texels';
      return { surface: s, info: `GPU: ${fmt} ${what} uploaded${s.cached ? '' : ` (${s.uploadMs.toFixed(1)} ms)`}` };
    } catch (e) {
      return { surface: null, info: `CPU decode: ${/** @type {Error} */ (e).message}` };
    }
  }

  /**
   * Draws the current surface on the GPU into `canvas`; null when it cannot (the CPU path paints).
   * @param {HTMLCanvasElement} canvas @param {import('../types').DisplaySettings} settings
   */
  function paint(canvas, settings) {
    const s = store.state.gpuSurface;
    const image = store.state.image;
    const c = store.state.current;
    if (!s || !image || !c) return null;
    const t = store.state.textures[c.index];
    const out = gpu.draw(s, image.precision, settings, t.bottom_first);
    if (!out) {
      actions.setGpuSurface(null);
      actions.setGpuInfo('CPU decode: the WebGL context was lost');
      return null;
    }
    canvas.width = out.width; // also clears it
    canvas.height = out.height;
    /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d')).drawImage(out, 0, 0);
    if (!badCache.has(image)) badCache.set(image, badCounts(/** @type {import('../types').Surface} */ (image)));
    return /** @type {import('../types').BadCounts} */ (badCache.get(image));
  }

  /** The GPU toggle: the user chose (even on a software renderer). */
  function toggle() {
    software = false;
    actions.setGpuOn(!store.state.gpuOn);
  }

  /** A new catalog: texture indices may name other textures, so the uploads go. */
  function reset() {
    gen++;
    gpu.clear();
  }

  return { gpu, why, upload, paint, toggle, reset };
}

/** @typedef {ReturnType<typeof createGpuPath>} GpuPath */
