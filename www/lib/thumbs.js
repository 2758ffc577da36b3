// Thumbnails for the texture grid (issue 7). Chosen mip: the smallest present mip whose longer
// side is at least THUMB_MIN px (so a 4096² texture costs a 64² or 127² decode, never its top
// mip); decoded and box-filtered down to at most THUMB_MAX px in the worker (`thumbnail`), only
// for cells on screen, newest first, two at a time, and kept in a bounded cache (ThumbLoader).
// This module is imported by the worker too: nothing here touches the DOM at load time.

export const THUMB_MIN = 64;
export const THUMB_MAX = 96;
// A mip bigger than this on a side is not decoded for a thumbnail (a texture with no smaller mip
// present, e.g. a single-mip 4096², shows a placeholder): 1024² RGBA float is 16 MiB, the most a
// thumbnail may cost.
export const THUMB_DECODE_LIMIT = 1024;

/** @typedef {import('../types').Thumb} Thumb */
/** A thumbnail, or why there is none. @typedef {import('../types').ThumbEntry} ThumbEntry */

/**
 * The mip to make `t`'s thumbnail from (a Session texture record), or null with the reason:
 * {mip} or {mip: null, why}.
 * @param {import('../types').TextureRecord} t @returns {{ mip: number, why?: undefined } | { mip: null, why: string }}
 */
export function thumbMip(t) {
  // The editor's thumbnail (ThumbLoader's request asks for it by the record's `thumbnail`).
  if (typeof t.thumbnail === 'number') return { mip: 0 };
  const mips = t.mips ?? [];
  /** @type {[import('../types').MipRecord, number][]} */
  const indexed = mips.map((m, i) => [m, i]);
  const present = indexed.filter(([m]) => m.present && m.width > 0 && m.height > 0);
  if (!present.length) return { mip: null, why: 'no mip present' };
  const side = (/** @type {[import('../types').MipRecord, number]} */ [m]) => Math.max(m.width, m.height);
  const big = present.filter((p) => side(p) >= THUMB_MIN).sort((a, b) => side(a) - side(b));
  // No mip is that large: the largest one there is.
  const pick = big[0] ?? present.sort((a, b) => side(b) - side(a))[0];
  if (side(pick) > THUMB_DECODE_LIMIT) return { mip: null, why: `no mip ≤ ${THUMB_DECODE_LIMIT} px present` };
  return { mip: pick[1] };
}

const SRGB = (/** @type {number} */ v) => (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);

/**
 * `img` ({width, height, precision, data} as Session.decode returns) box-filtered to at most
 * `max` px on its longer side, as 8-bit RGBA: {width, height, data: Uint8ClampedArray}. Float
 * values are clamped to 0..1 and put through the sRGB curve (the page's default for float data);
 * 16-bit values are scaled to 8 bits; 8-bit values are kept as stored, as the view shows them.
 * @param {import('../types').Surface} img @param {number} [max] @returns {Thumb}
 */
export function thumbnail(img, max = THUMB_MAX) {
  const { width: w, height: h, data, precision } = img;
  const scale = Math.max(1, Math.max(w, h) / max);
  const tw = Math.max(1, Math.round(w / scale));
  const th = Math.max(1, Math.round(h / scale));
  const out = new Uint8ClampedArray(tw * th * 4);
  /** @type {(v: number, c: number) => number} */
  const conv = precision === 'float'
    ? (v, c) => (c === 3 ? Math.min(1, Math.max(0, v)) : SRGB(Math.min(1, Math.max(0, v || 0)))) * 255
    : precision === 'unorm16' ? (v) => v / 257 : (v) => v;
  for (let ty = 0; ty < th; ty++) {
    const y0 = Math.floor((ty * h) / th);
    const y1 = Math.max(y0 + 1, Math.floor(((ty + 1) * h) / th));
    for (let tx = 0; tx < tw; tx++) {
      const x0 = Math.floor((tx * w) / tw);
      const x1 = Math.max(x0 + 1, Math.floor(((tx + 1) * w) / tw));
      const sum = [0, 0, 0, 0];
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const i = (y * w + x) * 4;
          for (let c = 0; c < 4; c++) sum[c] += conv(data[i + c], c);
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const o = (ty * tw + tx) * 4;
      for (let c = 0; c < 4; c++) out[o + c] = Math.round(sum[c] / n);
    }
  }
  return { width: tw, height: th, data: out };
}

/**
 * Main thread: asks `request(index, mip)` (a promise of a thumbnail) for the cells that are on
 * screen, at most `parallel` at a time, the most recently shown first, and keeps the results in a
 * least-recently-used cache of `limit` entries. `draw(cell, thumb)` paints a finished one if its
 * cell still shows that texture.
 */
export class ThumbLoader {
  /**
   * @param {(index: number, mip: number) => Promise<Thumb>} request
   * @param {(cell: HTMLElement, thumb: ThumbEntry) => void} draw
   * @param {{ limit?: number, parallel?: number }} [options]
   */
  constructor(request, draw, { limit = 400, parallel = 2 } = {}) {
    this.request = request;
    this.draw = draw;
    this.limit = limit;
    this.parallel = parallel;
    /** Map order is the LRU order. @type {Map<string, ThumbEntry>} */
    this.cache = new Map();
    /** @type {{ key: string, index: number, mip: number, cell: HTMLElement }[]} */
    this.queue = [];
    /** @type {Set<string>} */
    this.inflight = new Set();
    /** Every request sent (for the tests). @type {{ index: number, mip: number }[]} */
    this.log = [];
    this.generation = 0;
    this.scheduled = false;
  }

  /** Forgets everything (the catalog changed: indices mean other textures now). */
  reset() {
    this.cache.clear();
    this.queue = [];
    this.inflight.clear();
    this.generation++;
    this.log = [];
  }

  /** @param {number} n */
  setLimit(n) {
    this.limit = Math.max(1, n);
    this.trim();
  }

  trim() {
    while (this.cache.size > this.limit) this.cache.delete(/** @type {string} */ (this.cache.keys().next().value));
  }

  /** The cached thumbnail of `key` (and marks it recently used), or undefined. @param {string} key */
  get(key) {
    const v = this.cache.get(key);
    if (v !== undefined) { this.cache.delete(key); this.cache.set(key, v); }
    return v;
  }

  /** `cell` shows texture `index` (thumbnail from `mip`): paint it now, or queue it. @param {HTMLElement} cell @param {number} index @param {number} mip */
  want(cell, index, mip) {
    const key = `${index}:${mip}`;
    cell.dataset.thumbKey = key;
    const hit = this.get(key);
    if (hit) { this.draw(cell, hit); return; }
    if (this.inflight.has(key)) return; // drawn when it arrives, if the cell still wants it
    this.queue = this.queue.filter((q) => q.key !== key);
    this.queue.push({ key, index, mip, cell });
    // After the caller has put the cell in the document (pump skips cells that are not in it).
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => { this.scheduled = false; this.pump(); });
    }
  }

  pump() {
    while (this.inflight.size < this.parallel && this.queue.length) {
      const q = /** @type {ThumbLoader['queue'][number]} */ (this.queue.pop()); // newest first: what the user scrolled to last
      // Scrolled away (the cell was recycled or removed), or in a closed drawer: not worth
      // decoding now (the page re-renders the cells when the drawer opens).
      if (!q.cell.isConnected || q.cell.dataset.thumbKey !== q.key) continue;
      if (q.cell.checkVisibility && !q.cell.checkVisibility({ visibilityProperty: true })) continue;
      this.inflight.add(q.key);
      this.log.push({ index: q.index, mip: q.mip });
      const gen = this.generation;
      /** @type {Promise<ThumbEntry>} */
      const asked = this.request(q.index, q.mip).catch((e) => ({ error: e.message }));
      asked.then((thumb) => {
        if (gen !== this.generation) return;
        this.inflight.delete(q.key);
        this.cache.set(q.key, thumb);
        this.trim();
        for (const cell of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-thumb-key]'))) {
          if (cell.dataset.thumbKey === q.key) this.draw(cell, thumb);
        }
        this.pump();
      });
    }
  }
}
