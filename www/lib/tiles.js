// Tile-streamed display of large virtual textures (issue 8). Instead of decoding a whole mip (a
// 16k x 16k VT mip is 1 GiB of RGBA), the view asks the worker pool for the tiles on screen only,
// at the VT mip matching the zoom, keeps decoded tiles in a bounded LRU cache, and composes them on
// a viewport-sized canvas as they arrive. The page's own canvas keeps the image's box (so zoom,
// pan, the overlay and the inspector keep their geometry) but holds no pixels.

import { displayBytes, texel } from './display.js';

/** VT mips with more texels than this are streamed; smaller ones are decoded whole as before. */
export const STREAM_MIN_TEXELS = 1024 * 1024;
/** Bound of the tile cache: decoded values plus display bytes of every cached tile. */
export const CACHE_BYTES = 64 * 1024 * 1024;
/** How many coarser VT mips a tile not yet decoded may borrow its picture from. */
const BORROW_LEVELS = 4;

const BYTES_PER_VALUE = { unorm8: 1, unorm16: 2, float: 4 };

/** @typedef {import('../types').DecodedImage} DecodedImage */
/** @typedef {import('../types').DisplaySettings} DisplaySettings */
/** What is streamed: a VT's mip and layer, with its tiling. @typedef {{ index: number, mip: number, layer: number, layout: import('../types').VtLayout }} StreamedTexture */
/** A view of the viewport: zoom, the image's top-left corner, the viewport's size. @typedef {{ zoom: number, origin: [number, number], w: number, h: number, flipY: boolean, settings: DisplaySettings }} StreamView */
/** @typedef {{ image: DecodedImage, display: HTMLCanvasElement | null, settings: string | null, bytes: number }} CachedTile */
/** @typedef {{ level: number, m: import('../types').VtLayout['mips'][number], sx: number, sy: number, left: number, top: number, tiles: [number, number][], T: number }} Visible */
/** @typedef {{ level: number, tiles: number, keys: string[], time: number }} CompleteEvent */

export class TileStreamer {
  /**
   * `run(req, key)` runs a worker.js request on the pool; `before` is the element the tile canvas
   * goes in front of (the overlay, so grid marks stay on top); `onComplete(event)` is told when
   * every visible tile of a view has been painted.
   * @param {{
   *   run: (req: import('../types').WorkerRequest<'tiles'>, key: string) => Promise<DecodedImage>,
   *   cancel: (drop: (key: string) => boolean) => void,
   *   before: Element, onComplete?: (e: CompleteEvent) => void, cacheBytes?: number,
   * }} options
   */
  constructor({ run, cancel, before, onComplete, cacheBytes = CACHE_BYTES }) {
    this.run = run;
    this.cancel = cancel;
    this.onComplete = onComplete;
    this.cacheBytes = cacheBytes;
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'overlay';
    this.canvas.dataset.testid = 'tile-canvas';
    this.canvas.hidden = true;
    before.before(this.canvas);
    /** Map order = LRU order. @type {Map<string, CachedTile>} */
    this.cache = new Map();
    this.bytes = 0;
    /** @type {Set<string>} */
    this.inFlight = new Set();
    /** @type {StreamedTexture | null} */
    this.texture = null;
    /** @type {StreamView | null} */
    this.view = null;
    this.stats = { requested: 0, decoded: 0, cancelled: 0, evicted: 0, decodedKeys: /** @type {string[]} */ ([]) };
    this.redrawQueued = false;
    /** @type {string | null} */
    this.completeFor = null;
  }

  /** Streams `t` from now on (null: nothing streamed). @param {StreamedTexture | null} t */
  setTexture(t) {
    this.texture = t;
    this.canvas.hidden = !t;
    this.completeFor = null;
    this.cancel(() => true);
  }

  /** Empties the cache and the counters (tests measure from a cold start). */
  reset() {
    this.cancel(() => true);
    this.cache.clear();
    this.bytes = 0;
    this.completeFor = null;
    this.stats = { requested: 0, decoded: 0, cancelled: 0, evicted: 0, decodedKeys: [] };
  }

  /** @param {number} level @param {number} tx @param {number} ty */
  key(level, tx, ty) {
    const t = /** @type {StreamedTexture} */ (this.texture);
    return `${t.index}:${level}:${t.layer}:${tx}:${ty}`;
  }

  /**
   * The VT mip drawn at zoom `zoom` (screen pixels per texel of the asked mip): the finest whose
   * texels are still at least one screen pixel, i.e. mip + floor(log2(1 / zoom)).
   * @param {number} zoom
   */
  level(zoom) {
    const { mip, layout } = /** @type {StreamedTexture} */ (this.texture);
    const down = zoom < 1 ? Math.floor(Math.log2(1 / zoom) + 1e-9) : 0;
    return Math.min(layout.mips.length - 1, mip + down);
  }

  /** Which tiles of which level cover the viewport. @param {StreamView} v @returns {Visible} */
  visible(v) {
    const { mip, layout } = /** @type {StreamedTexture} */ (this.texture);
    const level = this.level(v.zoom);
    const m = layout.mips[level];
    const base = layout.mips[mip];
    // Screen pixels per texel of `level`, from the asked mip's box on screen.
    const sx = (base.width * v.zoom) / m.width;
    const sy = (base.height * v.zoom) / m.height;
    const [left, top] = v.origin;
    const T = layout.tile_size;
    const x0 = Math.max(0, Math.floor(-left / sx));
    const x1 = Math.min(m.width, Math.ceil((v.w - left) / sx));
    let y0 = Math.max(0, Math.floor(-top / sy));
    let y1 = Math.min(m.height, Math.ceil((v.h - top) / sy));
    if (v.flipY) [y0, y1] = [Math.max(0, m.height - y1), Math.min(m.height, m.height - y0)];
    /** @type {[number, number][]} */
    const tiles = [];
    if (x1 > x0 && y1 > y0) {
      for (let ty = Math.floor(y0 / T); ty <= Math.floor((y1 - 1) / T) && ty < m.height_tiles; ty++) {
        for (let tx = Math.floor(x0 / T); tx <= Math.floor((x1 - 1) / T) && tx < m.width_tiles; tx++) tiles.push([tx, ty]);
      }
    }
    // Nearest the centre first, so the middle of the view fills in first.
    const cx = (x0 + x1) / 2 / T - 0.5;
    const cy = (y0 + y1) / 2 / T - 0.5;
    tiles.sort((a, b) => Math.hypot(a[0] - cx, a[1] - cy) - Math.hypot(b[0] - cx, b[1] - cy));
    return { level, m, sx, sy, left, top, tiles, T };
  }

  /** Draws the view `v` and asks for the tiles it lacks. @param {StreamView} v */
  render(v) {
    if (!this.texture) return;
    this.view = v;
    const vis = this.visible(v);
    const wanted = new Set(vis.tiles.map(([x, y]) => this.key(vis.level, x, y)));
    // Tiles that left the view and have not started are dropped from the queue.
    const prefix = `${this.texture.index}:`;
    this.cancel((k) => {
      const drop = !wanted.has(k) || !k.startsWith(prefix);
      if (drop) { this.inFlight.delete(k); this.stats.cancelled++; }
      return drop;
    });
    for (const [tx, ty] of vis.tiles) {
      const k = this.key(vis.level, tx, ty);
      if (this.cache.has(k) || this.inFlight.has(k)) continue;
      this.request(vis.level, tx, ty, k);
    }
    this.draw(vis, wanted);
  }

  /** @param {number} level @param {number} tx @param {number} ty @param {string} k */
  request(level, tx, ty, k) {
    const t = /** @type {StreamedTexture} */ (this.texture);
    this.inFlight.add(k);
    this.stats.requested++;
    this.run({ op: 'tiles', texture: t.index, mip: level, layer: t.layer, x: tx, y: ty, w: 1, h: 1 }, k).then((image) => {
      this.inFlight.delete(k);
      this.stats.decoded++;
      this.stats.decodedKeys.push(k);
      this.put(k, image);
      this.queueRedraw();
    }, (e) => {
      this.inFlight.delete(k);
      if (e.name !== 'AbortError') console.warn(`tile ${k}: ${e.message}`);
    });
  }

  /** @param {string} k @param {DecodedImage} image */
  put(k, image) {
    const bytes = image.width * image.height * 4 * (BYTES_PER_VALUE[image.precision] + 1);
    this.cache.set(k, { image, display: null, settings: null, bytes });
    this.bytes += bytes;
    this.evict();
  }

  // Least recently used first; tiles of the current view stay (a view needs at most
  // (w / T + 2) x (h / T + 2) tiles, well inside the bound at any zoom).
  evict() {
    if (this.bytes <= this.cacheBytes) return;
    const vis = this.view && this.visible(this.view);
    const keep = new Set(vis ? vis.tiles.map(([x, y]) => this.key(vis.level, x, y)) : []);
    for (const [k, e] of this.cache) {
      if (this.bytes <= this.cacheBytes) break;
      if (keep.has(k)) continue;
      this.cache.delete(k);
      this.bytes -= e.bytes;
      this.stats.evicted++;
    }
  }

  /** @param {string} k */
  get(k) {
    const e = this.cache.get(k);
    if (e) { this.cache.delete(k); this.cache.set(k, e); }
    return e;
  }

  queueRedraw() {
    if (this.redrawQueued) return;
    this.redrawQueued = true;
    queueMicrotask(() => {
      this.redrawQueued = false;
      if (this.texture && this.view) this.render(this.view);
    });
  }

  // The tile's picture after the view settings (exposure, channels, flip...), made once per
  // settings and kept with the tile.
  /** @param {CachedTile} e @param {DisplaySettings} settings @returns {HTMLCanvasElement} */
  displayOf(e, settings) {
    const s = JSON.stringify(settings);
    if (e.settings !== s) {
      const c = e.display ?? document.createElement('canvas');
      c.width = e.image.width;
      c.height = e.image.height;
      const { bytes } = displayBytes(e.image, settings);
      /** @type {CanvasRenderingContext2D} */ (c.getContext('2d')).putImageData(new ImageData(/** @type {Uint8ClampedArray<ArrayBuffer>} */ (bytes), e.image.width, e.image.height), 0, 0);
      e.display = c;
      e.settings = s;
    }
    return /** @type {HTMLCanvasElement} */ (e.display);
  }

  /** @param {Visible} vis @param {Set<string>} wanted */
  draw(vis, wanted) {
    const v = /** @type {StreamView} */ (this.view);
    const t = /** @type {StreamedTexture} */ (this.texture);
    const c = this.canvas;
    if (c.width !== v.w || c.height !== v.h) { c.width = v.w; c.height = v.h; }
    const ctx = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
    ctx.clearRect(0, 0, v.w, v.h);
    ctx.imageSmoothingEnabled = vis.sx < 1;
    const { level, m, sx, sy, left, top, T } = vis;
    let drawn = 0;
    const layout = t.layout;
    for (const [tx, ty] of vis.tiles) {
      // The tile's texel box in `level`, and where it lands on screen (rows mirrored by flipY).
      const bx = tx * T;
      const by = ty * T;
      const bw = Math.min(T, m.width - bx);
      const bh = Math.min(T, m.height - by);
      const rowTop = v.flipY ? m.height - by - bh : by;
      const dx = Math.round(left + bx * sx);
      const dy = Math.round(top + rowTop * sy);
      const dw = Math.round(left + (bx + bw) * sx) - dx;
      const dh = Math.round(top + (rowTop + bh) * sy) - dy;
      const e = this.get(this.key(level, tx, ty));
      if (e) {
        ctx.drawImage(this.displayOf(e, v.settings), dx, dy, dw, dh);
        drawn++;
        continue;
      }
      // Not decoded yet: the same area cut from a coarser tile already in the cache, if any.
      for (let d = 1; d <= BORROW_LEVELS && level + d < layout.mips.length; d++) {
        const pm = layout.mips[level + d];
        const f = 2 ** d;
        const ptx = Math.floor(bx / f / T);
        const pty = Math.floor(by / f / T);
        const pe = this.cache.get(this.key(level + d, ptx, pty));
        if (!pe) continue;
        const srcX = bx / f - ptx * T;
        let srcY = by / f - pty * T;
        const sw = Math.min(bw / f, pm.width - ptx * T - srcX);
        const sh = Math.min(bh / f, pm.height - pty * T - srcY);
        if (v.flipY) srcY = pe.image.height - srcY - sh;
        if (sw > 0 && sh > 0) ctx.drawImage(this.displayOf(pe, v.settings), srcX, srcY, sw, sh, dx, dy, dw, dh);
        break;
      }
    }
    const id = `${[...wanted].sort().join(',')}|${t.index}`;
    if (drawn === vis.tiles.length && this.completeFor !== id) {
      this.completeFor = id;
      this.onComplete?.({ level, tiles: vis.tiles.length, keys: [...wanted], time: performance.now() });
    }
  }

  /** The decoded value of texel (x, y) of the asked mip, when its tile is in the cache; else null. @param {number} x @param {number} y */
  texel(x, y) {
    if (!this.texture) return null;
    const T = this.texture.layout.tile_size;
    const e = this.cache.get(this.key(this.texture.mip, Math.floor(x / T), Math.floor(y / T)));
    return e ? texel(e.image, x - Math.floor(x / T) * T, y - Math.floor(y / T) * T) : null;
  }

  info() {
    return {
      ...this.stats, decodedKeys: [...this.stats.decodedKeys], cached: this.cache.size, cacheBytes: this.bytes,
      bound: this.cacheBytes, inFlight: this.inFlight.size,
      texture: this.texture && { index: this.texture.index, mip: this.texture.mip, layer: this.texture.layer },
    };
  }
}

/**
 * Whether mip `mip` of texture `t` should be streamed: a virtual texture whose mip is larger than
 * STREAM_MIN_TEXELS.
 * @param {import('../types').TextureRecord} t @param {number} mip
 */
export function streams(t, mip) {
  const m = t.mips[mip];
  return Boolean(t.census.virtual && m && m.width * m.height > STREAM_MIN_TEXELS);
}

/**
 * The mip painted first while mip `mip` decodes (progressive display): the smallest mip whose
 * larger side is still at least max(64, the viewport's larger side / 8), if that is at least two
 * mips smaller than the asked one (else the asked one comes about as fast); -1 for none.
 * @param {import('../types').TextureRecord} t @param {number} mip @param {number} slice @param {{ w: number, h: number }} viewport
 */
export function previewMip(t, mip, slice, viewport) {
  const need = Math.max(64, Math.max(viewport.w, viewport.h) / 8);
  let best = -1;
  for (let k = mip + 2; k < t.mips.length; k++) {
    const m = t.mips[k];
    if (Math.max(m.width, m.height) < need) break;
    if (m.present && m.depth === 1 && slice < m.surfaces) best = k;
  }
  return best;
}
