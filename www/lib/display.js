// Turns a decoded surface into display pixels: colour space, exposure, tonemap, normal-map view,
// channels, the NaN/Inf/negative overlay and the Y flip. All of it runs here on the decoded values
// (never in the wasm core, to keep the module small); pixel() keeps reading the raw values.

const LUT_SIZE = 4096;
/** @typedef {import('../types').Surface} Surface */
/** @typedef {import('../types').DisplaySettings} DisplaySettings */
/** @typedef {import('../types').BadCounts} BadCounts */

const encode = (/** @type {number} */ v) => (v <= 0.0031308 ? v * 12.92 : 1.055 * Math.pow(v, 1 / 2.4) - 0.055);
// Linear -> sRGB-encoded bytes (IEC 61966-2-1 transfer function), sampled at 4096 steps.
const srgbLut = (() => {
  const lut = new Uint8ClampedArray(LUT_SIZE + 1);
  for (let i = 0; i <= LUT_SIZE; i++) lut[i] = Math.round(encode(i / LUT_SIZE) * 255);
  return lut;
})();
// sRGB byte -> linear light (the inverse transfer function), one entry per byte.
const linearOf8 = (() => {
  const lut = new Float32Array(256);
  for (let i = 0; i < 256; i++) {
    const s = i / 255;
    lut[i] = s <= 0.04045 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
  }
  return lut;
})();
// Linear byte -> sRGB byte, for linear 8-bit data at exposure 0.
const encode8 = (() => {
  const lut = new Uint8ClampedArray(256);
  for (let i = 0; i < 256; i++) lut[i] = Math.round(encode(i / 255) * 255);
  return lut;
})();

/** @type {import('../types').Tonemap[]} */
export const TONEMAPS = ['clamp', 'reinhard', 'aces'];

// Scene-linear -> display-linear in [0, 1]. Reinhard: v / (1 + v) (Reinhard et al. 2002, eq. 3).
// ACES-like: Narkowicz's 2015 fit of the ACES filmic curve, (v(2.51v+.03)) / (v(2.43v+.59)+.14).
/** @param {number} v @param {string} kind */
export function tonemap(v, kind) {
  if (!(v > 0)) return 0; // negative and NaN show black, like a clamp on the GPU
  if (kind === 'reinhard') v = v / (1 + v);
  else if (kind === 'aces') v = (v * (2.51 * v + 0.03)) / (v * (2.43 * v + 0.59) + 0.14);
  return v < 1 ? v : 1;
}

// Channel view on display bytes: one channel on shows it as grey; channels off are zero; alpha
// off means opaque ("ignore alpha").
/** @param {Uint8ClampedArray} out @param {Partial<import('../types').Channels>} [channels] */
function applyChannels(out, { r = true, g = true, b = true, a = true } = {}) {
  const on = [r, g, b, a];
  const count = on.filter(Boolean).length;
  if (count === 4) return;
  const n = out.length;
  if (count === 1) {
    const k = on.indexOf(true);
    for (let i = 0; i < n; i += 4) {
      const v = out[i + k];
      out[i] = v; out[i + 1] = v; out[i + 2] = v; out[i + 3] = 255;
    }
    return;
  }
  for (let i = 0; i < n; i += 4) {
    for (let c = 0; c < 3; c++) if (!on[c]) out[i + c] = 0;
    if (!a) out[i + 3] = 255;
  }
}

// The marks of the "bad values" overlay, painted over the texel (alpha 255).
export const BAD_COLOURS = { nan: [255, 0, 255], inf: [255, 255, 0], negative: [0, 255, 255] };

// The channels (0 red .. 3 alpha) holding x and y in each normal view: 'rg' red/green, 'ag'
// alpha/green (DXT5nm), 'ra' red/alpha (Unreal's ASTC normal maps: x in red, green and blue, y in
// alpha; src/model.rs NormalEncoding::Ra).
export const NORMAL_CHANNELS = { rg: [0, 1], ag: [3, 1], ra: [0, 3] };

/**
 * The normal view that reads a texture's stored encoding (the Session's `normal_map`): 'ag' for
 * DXT5nm, 'ra' for x-in-red / y-in-alpha, 'rg' otherwise (two channels, or xyz in rgb).
 * @param {string | null | undefined} encoding
 * @returns {'rg' | 'ag' | 'ra'}
 */
export function normalViewOf(encoding) {
  return encoding === 'dxt5nm' ? 'ag' : encoding === 'ra' ? 'ra' : 'rg';
}

// Normal-map view: x and y from the view's channels (NORMAL_CHANNELS), z rebuilt as
// sqrt(1 - x² - y²), all shown as n * 0.5 + 0.5. Unsigned data maps [0, 1] to [-1, 1].
/** @param {Surface} image @param {keyof typeof NORMAL_CHANNELS} mode @param {boolean} flipGreen @param {Uint8ClampedArray} out */
function normalBytes(image, mode, flipGreen, out) {
  const { data, precision } = image;
  const n = out.length;
  const scale = precision === 'unorm8' ? 1 / 255 : precision === 'unorm16' ? 1 / 65535 : 1;
  const signed = precision === 'float'; // float normals (BC5 signed) are already in [-1, 1]
  const [xc, yc] = NORMAL_CHANNELS[mode];
  for (let i = 0; i < n; i += 4) {
    let x = data[i + xc] * scale;
    let y = data[i + yc] * scale;
    if (!signed) { x = x * 2 - 1; y = y * 2 - 1; }
    if (flipGreen) y = -y;
    const z = Math.sqrt(Math.max(0, 1 - x * x - y * y));
    out[i] = Math.round((x * 0.5 + 0.5) * 255);
    out[i + 1] = Math.round((y * 0.5 + 0.5) * 255);
    out[i + 2] = Math.round((z * 0.5 + 0.5) * 255);
    out[i + 3] = 255;
  }
}

// Per texel of a float image: 0, or 1 NaN, 2 Inf, 3 negative (in that priority), with counts.
/** @param {Surface} image @returns {{ mark: Uint8Array | null, bad: BadCounts }} */
function badMarks(image) {
  const { data, precision, width, height } = image;
  const bad = { nan: 0, inf: 0, negative: 0 };
  if (precision !== 'float') return { mark: null, bad };
  const mark = new Uint8Array(width * height);
  const n = width * height * 4;
  for (let i = 0, p = 0; i < n; i += 4, p++) {
    for (let c = 0; c < 4; c++) {
      const v = data[i + c];
      if (Number.isNaN(v)) { mark[p] = 1; break; }
      if (v === Infinity || v === -Infinity) mark[p] = 2;
      else if (v < 0 && !mark[p]) mark[p] = 3;
    }
    if (mark[p] === 1) bad.nan++;
    else if (mark[p] === 2) bad.inf++;
    else if (mark[p] === 3) bad.negative++;
  }
  return { mark, bad };
}

/** Counts of texels with a NaN, Inf or negative channel (float images; zero otherwise). @param {Surface} image */
export function badCounts(image) {
  return badMarks(image).bad;
}

/**
 * Display bytes for `image` under `s`: {exposure (EV), tonemap, colour ('srgb': values are
 * sRGB-encoded; 'linear': 8/16-bit values are shown as stored, as texture tools (RenderDoc, the
 * DirectX Texture Tool) show UNORM data, and float values get the sRGB curve; 'gamma': linear values
 * that all get the sRGB curve), normal ('off'|'rg'|'ag'|'ra'),
 * flipGreen, channels, badOverlay, flipY}. Returns {bytes, bad: {nan, inf, negative}} (counts of
 * texels with such a colour channel, float images only); `bytes` may be a view of `image.data`, to
 * be read, never changed.
 * @param {Surface} image @param {Partial<DisplaySettings>} [s]
 * @returns {{ bytes: Uint8ClampedArray, bad: BadCounts }}
 */
export function displayBytes(image, s = {}) {
  const { data, precision, width, height } = image;
  const { exposure = 0, channels, colour = 'srgb', normal = 'off', flipGreen = false, badOverlay = false, flipY = false } = s;
  const tm = s.tonemap && TONEMAPS.includes(s.tonemap) ? s.tonemap : 'clamp';
  const n = width * height * 4;
  const { mark, bad } = badMarks(image);
  const plain = exposure === 0 && tm === 'clamp';
  const allChannels = !channels || (channels.r !== false && channels.g !== false && channels.b !== false && channels.a !== false);
  if (precision === 'unorm8' && plain && colour !== 'gamma' && normal === 'off' && allChannels && !flipY) {
    // sRGB or linear-as-stored bytes with nothing to change: the decoded bytes themselves, viewed
    // (not copied; callers only read them). Measured on 4096² BC7 opens (the page's 'painted'
    // stage, 7 runs each, load average ~9 on 2 cores): 82/125/169 ms min/median/max with the
    // 64 MiB copy, 42/62/140 ms without.
    return { bytes: new Uint8ClampedArray(data.buffer, data.byteOffset, n), bad };
  }
  let out = new Uint8ClampedArray(n);
  if (normal !== 'off' && Object.hasOwn(NORMAL_CHANNELS, normal)) {
    normalBytes(image, normal, flipGreen, out);
  } else if (precision === 'unorm8' && plain) {
    // Fast paths: sRGB bytes go to the screen as they are; linear bytes get the sRGB curve.
    if (colour !== 'gamma') out.set(data.subarray(0, n));
    else for (let i = 0; i < n; i++) out[i] = (i & 3) === 3 ? data[i] : encode8[data[i]];
  } else {
    const scale = Math.pow(2, exposure);
    const norm = precision === 'unorm8' ? 1 / 255 : precision === 'unorm16' ? 1 / 65535 : 1;
    const srgbIn = colour === 'srgb';
    // Linear 8/16-bit data "as stored": no curve on the way out either.
    const stored = colour === 'linear' && precision !== 'float';
    for (let i = 0; i < n; i += 4) {
      for (let c = 0; c < 3; c++) {
        let v = data[i + c];
        if (srgbIn) v = precision === 'unorm8' ? linearOf8[v] : srgbToLinear(v * norm);
        else v *= norm;
        const t = tonemap(v * scale, tm);
        out[i + c] = stored ? Math.round(t * 255) : srgbLut[Math.round(t * LUT_SIZE)];
      }
      const a = data[i + 3] * norm;
      out[i + 3] = a > 0 ? (a < 1 ? a * 255 : 255) : 0;
    }
  }
  applyChannels(out, channels);
  if (badOverlay && mark) {
    const colours = [null, BAD_COLOURS.nan, BAD_COLOURS.inf, BAD_COLOURS.negative];
    for (let p = 0; p < mark.length; p++) {
      const col = colours[mark[p]];
      if (!col) continue;
      const i = p * 4;
      out[i] = col[0]; out[i + 1] = col[1]; out[i + 2] = col[2]; out[i + 3] = 255;
    }
  }
  if (flipY) {
    const row = width * 4;
    const flipped = new Uint8ClampedArray(n);
    for (let y = 0; y < height; y++) flipped.set(out.subarray(y * row, (y + 1) * row), (height - 1 - y) * row);
    out = flipped;
  }
  return { bytes: out, bad };
}

/** @param {number} s */
function srgbToLinear(s) {
  return s <= 0.04045 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
}

/**
 * Paints `image` at its own resolution into `canvas`; returns the bad-value counts.
 * @param {HTMLCanvasElement} canvas @param {Surface} image @param {Partial<DisplaySettings>} settings
 */
export function paint(canvas, image, settings) {
  canvas.width = image.width;
  canvas.height = image.height;
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  const { bytes, bad } = displayBytes(image, settings);
  ctx.putImageData(new ImageData(/** @type {Uint8ClampedArray<ArrayBuffer>} */ (bytes), image.width, image.height), 0, 0);
  return bad;
}

/**
 * The raw decoded value at (x, y): bytes for unorm8, 0-65535 for unorm16, floats for float; null
 * outside, or for a placeholder without values.
 * @param {{ width: number, height: number, data: import('../types').Pixels | null }} image @param {number} x @param {number} y
 * @returns {number[] | null}
 */
export function texel(image, x, y) {
  if (!image.data) return null; // a placeholder (progressive preview, streamed VT) has no values
  if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= image.width || y >= image.height) {
    return null;
  }
  const i = (y * image.width + x) * 4;
  return Array.from(image.data.subarray(i, i + 4));
}

// Faces of a cube in D3D order (+X, -X, +Y, -Y, +Z, -Z) placed in the horizontal cross
//        +Y
//    -X  +Z  +X  -Z
//        -Y
// as (column, row) cells of a 4x3 grid of faces.
export const CROSS_CELLS = [[2, 1], [0, 1], [1, 0], [1, 2], [1, 1], [3, 1]];
export const FACE_NAMES = ['+X', '−X', '+Y', '−Y', '+Z', '−Z'];

/**
 * Six decoded faces (same size and precision) as one 4w x 3h image; cells without a face are zero.
 * @param {Surface[]} faces @returns {Surface & { cross: { face: number, faceHeight: number } }}
 */
export function composeCross(faces) {
  const { width: w, height: h, precision } = faces[0];
  const W = w * 4;
  const H = h * 3;
  const Kind = /** @type {new (n: number) => import('../types').Pixels} */ (faces[0].data.constructor);
  const data = new Kind(W * H * 4);
  faces.forEach((f, k) => {
    const [cx, cy] = CROSS_CELLS[k];
    for (let y = 0; y < h; y++) {
      data.set(f.data.subarray(y * w * 4, (y + 1) * w * 4), ((cy * h + y) * W + cx * w) * 4);
    }
  });
  return { width: W, height: H, precision, data, cross: { face: w, faceHeight: h } };
}

/**
 * Which face and face texel a cross texel belongs to, or null for an empty cell.
 * @param {{ cross?: { face: number, faceHeight: number } }} image @param {number} x @param {number} y
 */
export function crossFace(image, x, y) {
  if (!image.cross) return null;
  const { face: w, faceHeight: h } = image.cross;
  const cx = Math.floor(x / w);
  const cy = Math.floor(y / h);
  const k = CROSS_CELLS.findIndex(([a, b]) => a === cx && b === cy);
  return k < 0 ? null : { face: k, x: x - cx * w, y: y - cy * h };
}

/**
 * Histogram of max(R, G, B) per texel. Float images: one bin per stop, bin k holds values in
 * [2^k, 2^(k+1)) for k = -16..15 (`lo` = -16), with `zero` counting values <= 2^-16 (and negatives)
 * and `bad` NaN/Inf. 8/16-bit images: 32 equal bins over [0, 1]. `min`/`max` over finite values.
 * @param {Surface} image @returns {import('../types').Histogram}
 */
export function histogram(image) {
  const { data, precision } = image;
  const float = precision === 'float';
  const norm = precision === 'unorm8' ? 1 / 255 : precision === 'unorm16' ? 1 / 65535 : 1;
  /** @type {number[]} */
  const bins = new Array(32).fill(0);
  let zero = 0;
  let bad = 0;
  let min = Infinity;
  let max = -Infinity;
  if (!float) {
    // 8/16-bit values are integers: count each max(R, G, B), then bin the counts with the same
    // arithmetic as per texel (the same result; tests/browser/openpath.test.mjs). On 4096² BC7
    // opens (7 runs each, load ~4): 87/94/99 ms min/median/max per texel, 43/46/60 this way.
    const counts = new Uint32Array(precision === 'unorm8' ? 256 : 65536);
    if (precision === 'unorm8' && data.byteOffset % 4 === 0) {
      // One 32-bit load per texel (little-endian: R is the low byte, as on every browser's host).
      const words = new Uint32Array(data.buffer, data.byteOffset, data.length >> 2);
      for (let i = 0; i < words.length; i++) {
        const w = words[i];
        const r = w & 255;
        const g = (w >>> 8) & 255;
        const b = (w >>> 16) & 255;
        counts[Math.max(r, g, b)]++;
      }
    } else {
      for (let i = 0; i < data.length; i += 4) {
        const r = data[i];
        const g = data[i + 1];
        const b = data[i + 2];
        counts[r > g ? (r > b ? r : b) : (g > b ? g : b)]++;
      }
    }
    for (let m = 0; m < counts.length; m++) {
      if (!counts[m]) continue;
      const v = m * norm;
      if (v < min) min = v;
      if (v > max) max = v;
      bins[Math.min(31, Math.floor(v * 32))] += counts[m];
    }
    return { kind: 'linear', lo: 0, bins, zero, bad, min, max };
  }
  for (let i = 0; i < data.length; i += 4) {
    const r = data[i];
    const g = data[i + 1];
    const b = data[i + 2];
    if (!Number.isFinite(r) || !Number.isFinite(g) || !Number.isFinite(b)) { bad++; continue; }
    const v = Math.max(r, g, b) * norm;
    if (v < min) min = v;
    if (v > max) max = v;
    if (float) {
      if (v <= 2 ** -16) { zero++; continue; }
      bins[Math.min(31, Math.max(0, Math.floor(Math.log2(v)) + 16))]++;
    } else {
      bins[Math.min(31, Math.floor(v * 32))]++;
    }
  }
  return { kind: float ? 'log2' : 'linear', lo: float ? -16 : 0, bins, zero, bad, min, max };
}

/**
 * Draws `h` into `canvas`; `white` (float: the value shown as 1 at this exposure) is marked.
 * @param {HTMLCanvasElement} canvas @param {import('../types').Histogram} h @param {number} white
 */
export function drawHistogram(canvas, h, white) {
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  const { width: w, height: ht } = canvas;
  ctx.clearRect(0, 0, w, ht);
  const top = Math.max(1, ...h.bins);
  const bw = w / h.bins.length;
  ctx.fillStyle = '#4da3ff';
  h.bins.forEach((n, k) => {
    if (!n) return;
    // Square-root scale keeps small bins (a sun disc among sky texels) visible.
    const bh = Math.max(1, Math.sqrt(n / top) * (ht - 2));
    ctx.fillRect(k * bw + 0.5, ht - bh, Math.max(1, bw - 1), bh);
  });
  if (h.kind === 'log2' && white > 0) {
    const x = (Math.log2(white) + 16) * bw;
    ctx.fillStyle = '#ffd23f';
    ctx.fillRect(Math.round(x) - 1, 0, 2, ht);
  }
}
