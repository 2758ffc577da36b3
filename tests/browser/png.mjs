// A PNG reader for the browser tests (8-bit, non-interlaced: what the exports and the UE 5.8 set's
// SourceTextures are): signature, chunks with their CRCs, IHDR, the IDAT chunks concatenated and
// inflated, and rows rebuilt with the five filters of the PNG specification (None, Sub, Up,
// Average, Paeth). Colour types 0 (grey), 2 (RGB), 4 (grey + alpha) and 6 (RGBA); palettes are
// not read.
import assert from 'node:assert/strict';
import { inflateSync, crc32 } from 'node:zlib';

const CHANNELS = { 0: 1, 2: 3, 4: 2, 6: 4 };

/** @returns {{ width, height, depth, colour, channels, raw: Buffer, pixels: Buffer }} pixels rows top first, `channels` bytes each */
export function parsePng(buf) {
  assert.deepEqual([...buf.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  let o = 8;
  let ihdr;
  const idat = [];
  while (o < buf.length) {
    const len = buf.readUInt32BE(o);
    const type = buf.toString('latin1', o + 4, o + 8);
    const data = buf.subarray(o + 8, o + 8 + len);
    assert.equal(buf.readUInt32BE(o + 8 + len), crc32(buf.subarray(o + 4, o + 8 + len)), `${type} CRC`);
    if (type === 'IHDR') ihdr = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), depth: data[8], colour: data[9], interlace: data[12] };
    if (type === 'IDAT') idat.push(data);
    o += 12 + len;
  }
  const channels = CHANNELS[ihdr.colour];
  assert.ok(channels && ihdr.depth === 8 && ihdr.interlace === 0, `PNG colour type ${ihdr.colour}, depth ${ihdr.depth}: not read here`);
  const raw = inflateSync(Buffer.concat(idat));
  const { interlace, ...head } = ihdr;
  return { ...head, channels, raw, pixels: unfilter(raw, ihdr.width, ihdr.height, channels) };
}

// The PNG row filters 0-4 over `bpp`-byte pixels: the reconstructed bytes.
function unfilter(raw, width, height, bpp) {
  const row = width * bpp;
  const out = Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (row + 1)];
    for (let i = 0; i < row; i++) {
      const x = raw[y * (row + 1) + 1 + i];
      const a = i >= bpp ? out[y * row + i - bpp] : 0;
      const b = y > 0 ? out[(y - 1) * row + i] : 0;
      const c = i >= bpp && y > 0 ? out[(y - 1) * row + i - bpp] : 0;
      let pred = 0;
      if (f === 1) pred = a;
      else if (f === 2) pred = b;
      else if (f === 3) pred = (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[y * row + i] = (x + pred) & 255;
    }
  }
  return out;
}
