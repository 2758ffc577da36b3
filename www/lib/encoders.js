// File writers for the page's exports: PNG (8- or 16-bit RGBA), OpenEXR (uncompressed scanline,
// 32-bit float RGBA) and a store-only ZIP written as it goes. Written here in JS rather than in
// the wasm core to keep the module small (the native CLI's `png`/`exr` crates would add to the
// wasm size, issue 7).
// Formats from their specifications: PNG (W3C PNG 3rd ed., chunks, CRC-32, zlib IDAT), OpenEXR
// ("OpenEXR File Layout": magic 20000630, version 2, header attributes, line offset table) and ZIP
// (PKWARE APPNOTE 6.3.x sections 4.3.7, 4.3.12, 4.3.16; method 0 = stored).

// CRC-32 (ISO 3309 / ITU-T V.42, reflected polynomial 0xEDB88320), as PNG and ZIP use it.
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** @param {Uint8Array} bytes @param {number} [crc] the CRC so far */
export function crc32(bytes, crc = 0) {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 255] ^ (c >>> 8);
  return ~c >>> 0;
}

/** @param {Uint8Array} bytes */
async function zlib(bytes) {
  // CompressionStream('deflate') is zlib-wrapped deflate (RFC 1950), exactly what IDAT holds.
  const stream = new Blob([/** @type {BlobPart} */ (bytes)]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A PNG chunk. @param {string} type @param {Uint8Array} data */
function chunk(type, data) {
  const out = new Uint8Array(12 + data.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  dv.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/**
 * PNG of RGBA texels: `data` Uint8Array (8-bit) or Uint16Array (16-bit), rows top first.
 * @param {number} width @param {number} height @param {import('../types').Pixels} data
 */
export async function encodePng(width, height, data) {
  const depth = data instanceof Uint16Array ? 16 : 8;
  const bpp = depth / 2; // 4 channels x depth/8 bytes
  const row = width * bpp;
  const raw = new Uint8Array((row + 1) * height);
  for (let y = 0; y < height; y++) {
    const o = y * (row + 1); // filter byte 0 (None), then the row
    if (depth === 8) raw.set(/** @type {Uint8Array} */ (data).subarray(y * width * 4, (y + 1) * width * 4), o + 1);
    else {
      for (let i = 0; i < width * 4; i++) {
        const v = data[y * width * 4 + i];
        raw[o + 1 + 2 * i] = v >> 8; // PNG samples are big-endian
        raw[o + 2 + 2 * i] = v & 255;
      }
    }
  }
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, width);
  dv.setUint32(4, height);
  ihdr[8] = depth;
  ihdr[9] = 6; // colour type 6: RGBA
  const sig = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);
  /** @type {BlobPart[]} */
  const parts = [sig, chunk('IHDR', ihdr), chunk('IDAT', await zlib(raw)), chunk('IEND', new Uint8Array(0))];
  return new Blob(parts, { type: 'image/png' });
}

/**
 * OpenEXR, no compression, one scanline per block, FLOAT channels A B G R from RGBA float texels.
 * @param {number} width @param {number} height @param {ArrayLike<number>} data
 */
export function encodeExr(width, height, data) {
  /** @type {Uint8Array<ArrayBuffer>[]} */
  const parts = [];
  const bytes = (/** @type {number[]} */ arr) => parts.push(Uint8Array.from(arr));
  const str = (/** @type {string} */ s) => bytes([...new TextEncoder().encode(s), 0]);
  const i32 = (/** @type {number} */ v) => { const b = new Uint8Array(4); new DataView(b.buffer).setInt32(0, v, true); parts.push(b); };
  const f32 = (/** @type {number} */ v) => { const b = new Uint8Array(4); new DataView(b.buffer).setFloat32(0, v, true); parts.push(b); };
  const attr = (/** @type {string} */ name, /** @type {string} */ type, /** @type {number} */ size) => { str(name); str(type); i32(size); };
  i32(20000630); // magic
  i32(2); // version 2, single-part scanline
  const names = ['A', 'B', 'G', 'R']; // channel list sorted by name (the spec requires it)
  attr('channels', 'chlist', names.length * 18 + 1);
  for (const n of names) { str(n); i32(2); bytes([0, 0, 0, 0]); i32(1); i32(1); } // FLOAT, pLinear 0, sampling 1 1
  bytes([0]);
  attr('compression', 'compression', 1); bytes([0]);
  for (const w of ['dataWindow', 'displayWindow']) { attr(w, 'box2i', 16); i32(0); i32(0); i32(width - 1); i32(height - 1); }
  attr('lineOrder', 'lineOrder', 1); bytes([0]); // increasing y
  attr('pixelAspectRatio', 'float', 4); f32(1);
  attr('screenWindowCenter', 'v2f', 8); f32(0); f32(0);
  attr('screenWindowWidth', 'float', 4); f32(1);
  bytes([0]); // end of header
  const headerLen = parts.reduce((n, p) => n + p.length, 0);
  const lineData = width * 4 * 4;
  const block = 8 + lineData;
  const table = new Uint8Array(height * 8);
  const tv = new DataView(table.buffer);
  const first = headerLen + table.length;
  for (let y = 0; y < height; y++) tv.setBigUint64(y * 8, BigInt(first + y * block), true);
  parts.push(table);
  const blocks = new Uint8Array(block * height);
  const bv = new DataView(blocks.buffer);
  const src = [3, 2, 1, 0]; // A B G R from RGBA
  for (let y = 0; y < height; y++) {
    let o = y * block;
    bv.setInt32(o, y, true);
    bv.setInt32(o + 4, lineData, true);
    o += 8;
    for (const c of src) {
      for (let x = 0; x < width; x++, o += 4) bv.setFloat32(o, data[(y * width + x) * 4 + c], true);
    }
  }
  parts.push(blocks);
  return new Blob(parts, { type: 'image/x-exr' });
}

/**
 * A store-only ZIP written as it goes: `add` hands each entry's local header and data to the sink
 * at once and keeps only its central-directory record (46 bytes + the name), so a long export
 * holds one entry at a time, not the archive. UTF-8 names, no timestamps (the same input gives the
 * same bytes), no ZIP64: at most 65,535 entries and 4 GiB.
 */
export class ZipWriter {
  /** @param {{ write(part: Uint8Array | Blob): void | Promise<void> }} sink */
  constructor(sink) {
    this.sink = sink;
    /** @type {Uint8Array[]} */
    this.central = [];
    this.offset = 0;
  }

  /** Appends `data` as `name`. @param {string} name @param {Uint8Array} data */
  async add(name, data) {
    if (this.central.length >= 0xffff) throw new Error('a ZIP holds at most 65535 files (no ZIP64 here): export fewer textures');
    if (this.offset + data.length > 0xfffffff0) throw new Error('the ZIP would pass 4 GiB (no ZIP64 here): export fewer textures');
    const nm = new TextEncoder().encode(name);
    const crc = crc32(data);
    const local = new Uint8Array(30 + nm.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true); // version needed 2.0
    lv.setUint16(6, 0x0800, true); // bit 11: names are UTF-8
    lv.setUint16(8, 0, true); // stored
    lv.setUint16(12, 0x21, true); // date 1980-01-01
    lv.setUint32(14, crc, true);
    lv.setUint32(18, data.length, true);
    lv.setUint32(22, data.length, true);
    lv.setUint16(26, nm.length, true);
    local.set(nm, 30);
    const cd = new Uint8Array(46 + nm.length);
    const cv = new DataView(cd.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, 0x0800, true);
    cv.setUint16(14, 0x21, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, data.length, true);
    cv.setUint16(28, nm.length, true);
    cv.setUint32(42, this.offset, true);
    cd.set(nm, 46);
    await this.sink.write(local);
    await this.sink.write(data);
    this.central.push(cd);
    this.offset += local.length + data.length;
  }

  /** Writes the central directory and the end record. */
  async finish() {
    const cdSize = this.central.reduce((n, c) => n + c.length, 0);
    const end = new Uint8Array(22);
    const ev = new DataView(end.buffer);
    ev.setUint32(0, 0x06054b50, true);
    ev.setUint16(8, this.central.length, true);
    ev.setUint16(10, this.central.length, true);
    ev.setUint32(12, cdSize, true);
    ev.setUint32(16, this.offset, true);
    for (const c of this.central) await this.sink.write(c);
    await this.sink.write(end);
    this.central = [];
  }
}

/**
 * A ZipWriter sink that turns each piece into a Blob as it arrives: the browser keeps Blob data
 * outside the page's heap (and may move it to disk), so the page drops each piece's bytes at
 * once; `blob()` joins the parts without copying them.
 */
export class BlobSink {
  /** @type {Blob[]} */
  parts = [];
  /** @param {Uint8Array | Blob} part */
  write(part) {
    this.parts.push(part instanceof Blob ? part : new Blob([/** @type {BlobPart} */ (part)]));
  }
  /** @param {string} type */
  blob(type) {
    return new Blob(this.parts, { type });
  }
}

/** Starts a download of `blob` as `name`. @param {Blob} blob @param {string} name */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
