// Turns a decoded surface into display pixels. This is the one place a GPU path (WebGL2 with the
// same exposure/clamp in a shader) replaces later: paint(canvas, image, settings).

const LUT_SIZE = 4096;
// Linear -> sRGB-encoded bytes for float images (HDR data is linear light).
const srgbLut = (() => {
  const lut = new Uint8ClampedArray(LUT_SIZE + 1);
  for (let i = 0; i <= LUT_SIZE; i++) {
    const v = i / LUT_SIZE;
    const s = v <= 0.0031308 ? v * 12.92 : 1.055 * Math.pow(v, 1 / 2.4) - 0.055;
    lut[i] = Math.round(s * 255);
  }
  return lut;
})();

// Channel view on display bytes (never on the decoded values pixel() reads): one channel on shows
// it as grey; channels off are zero; alpha off means opaque ("ignore alpha").
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

function displayBytes(image, { exposure = 0, channels } = {}) {
  const { data, precision } = image;
  const n = image.width * image.height * 4;
  const out = new Uint8ClampedArray(n);
  if (precision === 'unorm8') {
    out.set(data.subarray(0, n));
  } else if (precision === 'unorm16') {
    for (let i = 0; i < n; i++) out[i] = (data[i] * 255 + 32767) / 65535;
  } else {
    const scale = Math.pow(2, exposure);
    for (let i = 0; i < n; i += 4) {
      for (let c = 0; c < 3; c++) {
        const v = data[i + c] * scale;
        // NaN fails both comparisons and shows as black, like a clamp on the GPU.
        const t = v > 0 ? (v < 1 ? v : 1) : 0;
        out[i + c] = srgbLut[Math.round(t * LUT_SIZE)];
      }
      const a = data[i + 3];
      out[i + 3] = a > 0 ? (a < 1 ? a * 255 : 255) : 0;
    }
  }
  applyChannels(out, channels);
  return out;
}

export function paint(canvas, image, settings) {
  canvas.width = image.width;
  canvas.height = image.height;
  const ctx = canvas.getContext('2d');
  ctx.putImageData(new ImageData(displayBytes(image, settings), image.width, image.height), 0, 0);
}

// The raw decoded value at (x, y): bytes for unorm8, 0-65535 for unorm16, floats for float.
export function texel(image, x, y) {
  if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= image.width || y >= image.height) {
    return null;
  }
  const i = (y * image.width + x) * 4;
  return Array.from(image.data.subarray(i, i + 4));
}
