// Small .dds files built byte by byte from the DirectDraw Surface definition (Microsoft docs:
// "DDS_HEADER", "DDS_PIXELFORMAT", "DDS_HEADER_DXT10"), so the page is tested against files whose
// every texel we know without running any decoder.

const DDSD_CAPS = 0x1, DDSD_HEIGHT = 0x2, DDSD_WIDTH = 0x4, DDSD_PIXELFORMAT = 0x1000;
const DDSD_MIPMAPCOUNT = 0x20000, DDSD_LINEARSIZE = 0x80000, DDSD_PITCH = 0x8;
const DDPF_ALPHAPIXELS = 0x1, DDPF_FOURCC = 0x4, DDPF_RGB = 0x40;
const DDSCAPS_COMPLEX = 0x8, DDSCAPS_TEXTURE = 0x1000, DDSCAPS_MIPMAP = 0x400000;
const DXGI_FORMAT_R16G16B16A16_FLOAT = 10;
const D3D10_RESOURCE_DIMENSION_TEXTURE2D = 3;

export const fourcc = (s) => s.charCodeAt(0) | (s.charCodeAt(1) << 8) | (s.charCodeAt(2) << 16) | (s.charCodeAt(3) << 24);

// "DDS " + the 124-byte DDS_HEADER (+ the 20-byte DDS_HEADER_DXT10 when dx10 is given).
export function header({ width, height, mips, pitchOrLinearSize, linear, pf, dx10 }) {
  const buf = Buffer.alloc(dx10 ? 148 : 128);
  buf.write('DDS ', 0, 'latin1');
  let flags = DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PIXELFORMAT | (linear ? DDSD_LINEARSIZE : DDSD_PITCH);
  if (mips > 1) flags |= DDSD_MIPMAPCOUNT;
  buf.writeUInt32LE(124, 4); // dwSize
  buf.writeUInt32LE(flags, 8);
  buf.writeUInt32LE(height, 12);
  buf.writeUInt32LE(width, 16);
  buf.writeUInt32LE(pitchOrLinearSize, 20);
  buf.writeUInt32LE(0, 24); // dwDepth
  buf.writeUInt32LE(mips, 28);
  // DDS_PIXELFORMAT at 76
  buf.writeUInt32LE(32, 76);
  buf.writeUInt32LE(pf.flags, 80);
  buf.writeUInt32LE(pf.fourcc ?? 0, 84);
  buf.writeUInt32LE(pf.bits ?? 0, 88);
  buf.writeUInt32LE(pf.r ?? 0, 92);
  buf.writeUInt32LE(pf.g ?? 0, 96);
  buf.writeUInt32LE(pf.b ?? 0, 100);
  buf.writeUInt32LE(pf.a ?? 0, 104);
  buf.writeUInt32LE(DDSCAPS_TEXTURE | (mips > 1 ? DDSCAPS_COMPLEX | DDSCAPS_MIPMAP : 0), 108);
  if (dx10) {
    buf.writeUInt32LE(dx10.format, 128);
    buf.writeUInt32LE(D3D10_RESOURCE_DIMENSION_TEXTURE2D, 132);
    buf.writeUInt32LE(0, 136); // miscFlag (0x4 would be a cube)
    buf.writeUInt32LE(dx10.arraySize, 140);
    buf.writeUInt32LE(0, 144); // miscFlags2: alpha mode unknown
  }
  return buf;
}

const mipSize = (v, m) => Math.max(1, v >> m);

// --- RGBA8 through a legacy header with R/G/B/A bit masks (DDPF_RGB | DDPF_ALPHAPIXELS) ---------
// Texel (x, y) of mip m, channel values chosen so no two texels of a mip are alike.
export const rgba8Texel = (x, y, m) => [(x * 60 + m * 7) & 255, (y * 60 + 3) & 255, (255 - x * y * 10) & 255, (200 + x + 4 * y + m) & 255];

export function rgba8Dds(width = 4, height = 4, mips = 2) {
  const parts = [header({
    width, height, mips, pitchOrLinearSize: width * 4, linear: false,
    pf: { flags: DDPF_RGB | DDPF_ALPHAPIXELS, bits: 32, r: 0x000000ff, g: 0x0000ff00, b: 0x00ff0000, a: 0xff000000 },
  })];
  for (let m = 0; m < mips; m++) {
    const w = mipSize(width, m), h = mipSize(height, m);
    const data = Buffer.alloc(w * h * 4);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(rgba8Texel(x, y, m), (y * w + x) * 4);
    parts.push(data);
  }
  return Buffer.concat(parts);
}

// --- BC1 (FourCC DXT1), 8x4 = two blocks ---------------------------------------------------------
// From the BC1 definition (D3D11 functional spec, "BC1"): two RGB565 endpoints, then 2-bit indices,
// texel i of the block at bits 2i..2i+1 of a little-endian u32. 565 expands to 8 bits by bit
// replication (r8 = r5 << 3 | r5 >> 2). color0 > color1: four colours c0, c1, (2c0+c1)/3,
// (c0+2c1)/3. color0 <= color1: three colours c0, c1, (c0+c1)/2 and index 3 = transparent black.
// The endpoints are picked so every thirds/halves division is exact (no rounding choice matters).
const INDICES_X = 0b11100100; // each row: x=0 -> index 0, x=1 -> 1, x=2 -> 2, x=3 -> 3
const bc1Block = (c0, c1) => {
  const b = Buffer.alloc(8);
  b.writeUInt16LE(c0, 0);
  b.writeUInt16LE(c1, 2);
  b.fill(INDICES_X, 4, 8);
  return b;
};
export function bc1Dds() {
  // Block 0: red 0xF800 (255,0,0) > blue 0x001F (0,0,255): four-colour mode;
  //   c2 = ((2*255+0)/3, 0, (2*0+255)/3) = (170,0,85), c3 = (85,0,170).
  // Block 1: black 0x0000 < 0x8410 (r5=16 -> 132, g6=32 -> 130, b5=16 -> 132): three-colour mode;
  //   c2 = (66,65,66), c3 = transparent black.
  return Buffer.concat([
    header({ width: 8, height: 4, mips: 1, pitchOrLinearSize: 16, linear: true, pf: { flags: DDPF_FOURCC, fourcc: fourcc('DXT1') } }),
    bc1Block(0xf800, 0x001f),
    bc1Block(0x0000, 0x8410),
  ]);
}
// Expected RGBA8 per column x (every row the same).
export const bc1Expected = [
  [255, 0, 0, 255], [0, 0, 255, 255], [170, 0, 85, 255], [85, 0, 170, 255],
  [0, 0, 0, 255], [132, 130, 132, 255], [66, 65, 66, 255], [0, 0, 0, 0],
];

// --- RGBA16F through a DX10 header (DXGI_FORMAT_R16G16B16A16_FLOAT = 10), 2 array slices ---------
// Values exactly representable in IEEE 754 binary16, including negatives and values above 1
// (the page must return them unclamped).
const HALVES = [0, 0.25, 0.5, 1, 2, -1, 16, 1024, -0.5, 0.125, 4, 8, 3, -6];
export const halfTexel = (x, y, m, s) => [0, 1, 2, 3].map((c) => HALVES[(x + 2 * y + 3 * m + 5 * s + c) % HALVES.length]);

// binary16: sign bit, 5-bit exponent with bias 15, 10-bit fraction (normal numbers and zero only).
function toHalf(v) {
  if (v === 0) return 0;
  const sign = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  const e = Math.floor(Math.log2(a));
  const frac = Math.round((a / 2 ** e - 1) * 1024);
  return sign | ((e + 15) << 10) | frac;
}

export function rgba16fDds(width = 4, height = 2, mips = 2, slices = 2) {
  const parts = [header({
    width, height, mips, pitchOrLinearSize: width * 8, linear: false,
    pf: { flags: DDPF_FOURCC, fourcc: fourcc('DX10') },
    dx10: { format: DXGI_FORMAT_R16G16B16A16_FLOAT, arraySize: slices },
  })];
  // DX10 arrays store every mip of slice 0, then every mip of slice 1.
  for (let s = 0; s < slices; s++) {
    for (let m = 0; m < mips; m++) {
      const w = mipSize(width, m), h = mipSize(height, m);
      const data = Buffer.alloc(w * h * 8);
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
        halfTexel(x, y, m, s).forEach((v, c) => data.writeUInt16LE(toHalf(v), ((y * w + x) * 4 + c) * 2));
      }
      parts.push(data);
    }
  }
  return Buffer.concat(parts);
}
