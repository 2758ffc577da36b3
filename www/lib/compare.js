// The compare view's pixels (issue 21): two decoded surfaces of one size in one unit (unorm as
// 0..1, float as decoded: docs/compare.md), their difference shown per channel or as the largest
// channel through the core's colour ramp, after the view's channels, exposure (the scale, 2^EV) and
// tonemap. The figures themselves come from the core (src/compare); this only draws.
import { tonemap, TONEMAPS } from './display.js';

/** @typedef {import('../types').DecodedImage} DecodedImage */
/** @typedef {import('../types').DisplaySettings} DisplaySettings */

/** What a precision's values are divided by to reach the common unit (levels per 1). @type {Record<string, number>} */
export const UNIT = { unorm8: 255, unorm16: 65535, float: 1 };

/** The colour of a difference that is not a number (NaN against a value): the viewer's NaN mark. */
export const NONFINITE = [255, 0, 255];

/**
 * B - A of one channel value in the common unit: 0 when both are the same value (two NaNs, the same
 * infinity), NaN when only one is not finite. Values of one precision are subtracted in their own
 * levels and divided once (3 levels of 8-bit data are exactly 3/255), as the core's `delta` does.
 * @param {number} a @param {number} b @param {number} ua @param {number} ub
 */
function delta(a, b, ua, ub) {
  const same = ua === ub;
  const p = same ? a : a / ua;
  const q = same ? b : b / ub;
  if (p === q || (Number.isNaN(p) && Number.isNaN(q))) return 0;
  return (q - p) / (same ? ua : 1);
}

/**
 * Texel (x, y) of A and of B (their raw decoded values) and B - A in the common unit; null
 * outside the images.
 * @param {DecodedImage} a @param {DecodedImage} b @param {number} x @param {number} y
 */
export function texelTriple(a, b, x, y) {
  if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= a.width || y >= a.height) return null;
  const i = (y * a.width + x) * 4;
  const va = Array.from(a.data.subarray(i, i + 4));
  const vb = Array.from(b.data.subarray(i, i + 4));
  const ua = UNIT[a.precision];
  const ub = UNIT[b.precision];
  return { a: va, b: vb, d: va.map((v, c) => delta(v, vb[c], ua, ub)) };
}

/**
 * Display bytes (RGBA8, rows top first unless `s.flipY`) of B - A: |difference| times 2^exposure
 * through the tonemap, then either the largest of the chosen channels through `ramp` (256 RGB
 * entries, the core's `diffRamp`) when `max`, or each chosen channel as its colour (one alone as
 * grey). A non-finite difference in a chosen channel is magenta.
 * @param {DecodedImage} a @param {DecodedImage} b @param {Partial<DisplaySettings>} s
 * @param {{ max: boolean, ramp: Uint8Array | number[] }} how
 */
export function diffBytes(a, b, s, { max, ramp }) {
  const { width, height } = a;
  const n = width * height;
  const ch = s.channels ?? { r: true, g: true, b: true, a: true };
  const on = [ch.r !== false, ch.g !== false, ch.b !== false, ch.a !== false];
  const solo = on.filter(Boolean).length === 1 ? on.indexOf(true) : -1;
  const scale = Math.pow(2, s.exposure ?? 0);
  const tm = s.tonemap && TONEMAPS.includes(s.tonemap) ? s.tonemap : 'clamp';
  const ua = UNIT[a.precision];
  const ub = UNIT[b.precision];
  const A = a.data;
  const B = b.data;
  const out = new Uint8ClampedArray(n * 4);
  const row = width * 4;
  for (let p = 0; p < n; p++) {
    const i = p * 4;
    const y = Math.floor(p / width);
    const o = s.flipY ? (height - 1 - y) * row + (i - y * row) : i;
    out[o + 3] = 255;
    let m = 0;
    let bad = false;
    /** @type {number[]} */
    const v = [0, 0, 0, 0];
    for (let c = 0; c < 4; c++) {
      if (!on[c]) continue;
      const d = delta(A[i + c], B[i + c], ua, ub);
      if (!Number.isFinite(d)) { bad = true; continue; }
      v[c] = tonemap(Math.abs(d) * scale, tm);
      if (v[c] > m) m = v[c];
    }
    if (bad) {
      out[o] = NONFINITE[0]; out[o + 1] = NONFINITE[1]; out[o + 2] = NONFINITE[2];
    } else if (max) {
      const k = Math.round(m * 255) * 3;
      out[o] = ramp[k]; out[o + 1] = ramp[k + 1]; out[o + 2] = ramp[k + 2];
    } else if (solo >= 0) {
      const g = Math.round(v[solo] * 255);
      out[o] = g; out[o + 1] = g; out[o + 2] = g;
    } else {
      for (let c = 0; c < 3; c++) out[o + c] = Math.round(v[c] * 255);
    }
  }
  return out;
}

/**
 * The exposure (quarter stops, rounded down) that shows the largest difference at the top of the
 * scale: 2^EV · max_abs ≈ 1. 0 when nothing differs.
 * @param {number} maxAbs
 */
export function fitDifference(maxAbs) {
  return maxAbs > 0 ? Math.floor(-Math.log2(maxAbs) * 4) / 4 : 0;
}

/** A figure for people: 4 significant digits, exponent for tiny or huge values. @param {number} v */
const num = (v) => (v !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e5) ? v.toExponential(2) : String(Number(v.toPrecision(4))));

/**
 * The figures line of the compare view (figures as `compare::Figures` serialises them).
 * @param {import('../types').Figures} f @param {boolean} unorm8 both images are 8-bit: differences also in levels
 */
export function figuresText(f, unorm8) {
  const psnr = ['R', 'G', 'B', 'A'].map((c, i) => {
    const p = f.channels[i].psnr;
    return `${c} ${p === null || p === undefined ? '∞' : p.toFixed(2)}`;
  }).join(' ');
  const levels = unorm8 && f.max_abs > 0 ? ` (${Math.round(f.max_abs * 255)}/255)` : '';
  const share = (f.differing_share * 100).toFixed(f.differing_share < 0.001 && f.differing_share > 0 ? 4 : 2);
  const box = f.bbox ? ` in (${f.bbox.x}, ${f.bbox.y}) ${f.bbox.width}×${f.bbox.height}` : '';
  const odd = f.nonfinite ? ` · ${f.nonfinite} with NaN/Inf` : '';
  return `PSNR ${psnr} dB · max |B−A| ${num(f.max_abs)}${levels} · mean ${num(f.mean_abs)} · ${f.differing_texels} texels differ (${share}%)${box}${odd}`;
}
