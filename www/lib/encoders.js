// File writers for the page's exports: PNG (8- or 16-bit, RGB or RGBA), OpenEXR (uncompressed
// scanline, 32-bit float RGBA) and a store-only ZIP written as it goes. Written here in JS rather
// than in the wasm core to keep the module small (the native CLI's `png`/`exr` crates would add to
// the wasm size, issue 7).
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

/** Bytes of raw PNG rows deflated in one go, and of deflate output in one IDAT chunk. */
const PNG_PIECE = 256 * 1024;

/**
 * Writes a PNG of RGBA texels to `emit` piece by piece, so a texture's PNG is never whole in the
 * page: `data` Uint8Array (8-bit) or Uint16Array (16-bit, written big-endian), rows top first,
 * filter None; RGB when every alpha is full. Rows go through CompressionStream('deflate')
 * (zlib-wrapped deflate, RFC 1950, exactly what the IDAT chunks hold together) PNG_PIECE bytes at
 * a time, and each PNG_PIECE of its output becomes an IDAT chunk (a PNG may split its zlib stream
 * across any number of them).
 * Apart from `data`, the page holds at most about 2 x PNG_PIECE (issue 19: a 2048x2048 entry
 * used to hold its rows, the zlib stream and a copy of it, 4 x its texels, at once).
 * @param {number} width @param {number} height @param {import('../types').Pixels} data
 * @param {(piece: Uint8Array) => Promise<void> | void} emit
 */
export async function streamPng(width, height, data, emit) {
  const depth = data instanceof Uint16Array ? 16 : 8;
  // RGB when every alpha is full, as `texscope export` writes (src/bin/texscope/write.rs).
  const full = depth === 8 ? 255 : 65535;
  let opaque = true;
  for (let i = 3; i < data.length && opaque; i += 4) opaque = data[i] === full;
  const channels = opaque ? 3 : 4;
  const row = (width * channels * depth) / 8;
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, width);
  dv.setUint32(4, height);
  ihdr[8] = depth;
  ihdr[9] = opaque ? 2 : 6; // colour type 2: RGB, 6: RGBA
  await emit(new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]));
  await emit(chunk('IHDR', ihdr));
  const deflate = new CompressionStream('deflate');
  const writer = deflate.writable.getWriter();
  const reader = deflate.readable.getReader();
  // The output side runs beside the input side (the stream's backpressure needs both); if it
  // fails (the sink refused a write), it is cancelled so the input side stops too.
  const pumped = (async () => {
    /** @type {Uint8Array[]} */
    let held = [];
    let n = 0;
    const flush = async () => {
      if (!n) return;
      const idat = new Uint8Array(n);
      let o = 0;
      for (const h of held) { idat.set(h, o); o += h.length; }
      held = [];
      n = 0;
      await emit(chunk('IDAT', idat));
    };
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      held.push(value);
      n += value.length;
      if (n >= PNG_PIECE) await flush();
    }
    await flush();
  })().catch(async (e) => {
    // Cancelling the output side errors the input side and releases a write waiting on its
    // backpressure (an abort of the input side would wait for that write, forever).
    await reader.cancel(e).catch(() => {});
    throw e;
  });
  pumped.catch(() => {}); // handled below (awaited); not an unhandled rejection meanwhile
  try {
    const rows = Math.max(1, Math.floor(PNG_PIECE / (row + 1)));
    for (let y0 = 0; y0 < height; y0 += rows) {
      const count = Math.min(rows, height - y0);
      const raw = new Uint8Array((row + 1) * count);
      for (let y = y0; y < y0 + count; y++) {
        const o = (y - y0) * (row + 1) + 1; // filter byte 0 (None), then the row
        const src = y * width * 4;
        if (depth === 8 && !opaque) raw.set(/** @type {Uint8Array} */ (data).subarray(src, src + width * 4), o);
        else if (depth === 8) {
          for (let x = 0; x < width; x++) {
            raw[o + 3 * x] = data[src + 4 * x];
            raw[o + 3 * x + 1] = data[src + 4 * x + 1];
            raw[o + 3 * x + 2] = data[src + 4 * x + 2];
          }
        } else {
          for (let x = 0, d = o; x < width; x++) {
            for (let c = 0; c < channels; c++, d += 2) {
              const v = data[src + 4 * x + c];
              raw[d] = v >> 8; // PNG samples are big-endian
              raw[d + 1] = v & 255;
            }
          }
        }
      }
      await writer.write(raw);
    }
    await writer.close();
  } catch (e) {
    // The output side's error if it was the cause; else end the output side with this one.
    writer.abort(e).catch(() => {});
    throw await pumped.then(() => e, (cause) => cause);
  }
  await pumped;
  await emit(chunk('IEND', new Uint8Array(0)));
}

/**
 * PNG of RGBA texels as one Blob (its pieces go to the browser's blob store as they come).
 * @param {number} width @param {number} height @param {import('../types').Pixels} data
 */
export async function encodePng(width, height, data) {
  /** @type {Blob[]} */
  const parts = [];
  await streamPng(width, height, data, (piece) => { parts.push(new Blob([/** @type {BlobPart} */ (piece)])); });
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

  /**
   * Throws a RangeError if an entry of `size` bytes cannot be added (the archive's limits);
   * nothing is written.
   * @param {number} size
   */
  check(size) {
    if (this.central.length >= 0xffff) throw new RangeError('a ZIP holds at most 65535 files (no ZIP64 here): export fewer textures');
    if (this.offset + size > 0xfffffff0) throw new RangeError('the ZIP would pass 4 GiB (no ZIP64 here): export fewer textures');
  }

  /**
   * Appends `data` as `name`. A failing sink (a full disk) rejects with its error; a RangeError
   * (see `check`) means nothing was written.
   * @param {string} name @param {Uint8Array} data
   */
  async add(name, data) {
    this.check(data.length);
    await this.entry(name, crc32(data), data.length, data);
  }

  /**
   * Appends as `name` the bytes `produce` hands to its `emit`, as they come: each piece goes to the
   * browser's blob store at once (the page keeps none), and the entry is written when the last one
   * is in, its size and CRC-32 known, so its local header is exact (no data descriptor: every
   * ZIP reader takes a plain stored entry). Rejects like `add`.
   * @param {string} name @param {(emit: (piece: Uint8Array) => void) => Promise<void>} produce
   */
  async addStream(name, produce) {
    this.check(0);
    /** @type {Blob[]} */
    const parts = [];
    let crc = 0;
    let size = 0;
    await produce((piece) => {
      crc = crc32(piece, crc);
      size += piece.length;
      parts.push(new Blob([/** @type {BlobPart} */ (piece)]));
    });
    this.check(size);
    await this.entry(name, crc, size, new Blob(parts));
  }

  /** @param {string} name @param {number} crc @param {number} size @param {Uint8Array | Blob} data */
  async entry(name, crc, size, data) {
    const nm = new TextEncoder().encode(name);
    const local = new Uint8Array(30 + nm.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true); // version needed 2.0
    lv.setUint16(6, 0x0800, true); // bit 11: names are UTF-8
    lv.setUint16(8, 0, true); // stored
    lv.setUint16(12, 0x21, true); // date 1980-01-01
    lv.setUint32(14, crc, true);
    lv.setUint32(18, size, true);
    lv.setUint32(22, size, true);
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
    cv.setUint32(20, size, true);
    cv.setUint32(24, size, true);
    cv.setUint16(28, nm.length, true);
    cv.setUint32(42, this.offset, true);
    cd.set(nm, 46);
    // One Blob a entry: its bytes go to the browser's blob store now, and the sink moves a Blob.
    await this.sink.write(new Blob([local, /** @type {BlobPart} */ (data)]));
    this.central.push(cd);
    this.offset += local.length + size;
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
  /** Downloads the parts as one file `name`. @param {string} name */
  async close(name) {
    download(this.blob('application/zip'), name);
    this.parts = [];
  }
  async abort() {
    this.parts = [];
  }
}

/**
 * A sink writing straight to a file on disk (File System Access: a FileSystemWritableFileStream,
 * which Chromium writes to a temporary file beside the target and moves into place on close):
 * nothing of what was written stays in the page or the browser.
 */
export class FileSink {
  /** @param {FileSystemWritableFileStream} writable */
  constructor(writable) {
    this.writable = writable;
  }
  /** @param {Uint8Array | Blob} part */
  async write(part) {
    await this.writable.write(/** @type {any} */ (part));
  }
  async close() {
    await this.writable.close();
  }
  /** Drops what was written (the target file is left as it was). */
  async abort() {
    await this.writable.abort();
  }
}

/**
 * Where a ZIP named `name` goes. Where the browser lets the page write a file the person picks
 * (showSaveFilePicker: Chromium-based browsers), it asks for the file first and streams into it;
 * elsewhere the entries become Blob parts, which the browser keeps in its blob store (outside the
 * tab, paged to disk when large), downloaded as one file at the end. The picker needs the click's
 * user activation: call this before anything slow. A cancelled picker rejects with AbortError;
 * a refused one (a cross-origin frame) falls back to the download.
 * @param {string} name @returns {Promise<BlobSink | FileSink>}
 */
export async function openZipSink(name) {
  const pick = /** @type {any} */ (globalThis).showSaveFilePicker;
  if (typeof pick !== 'function') return new BlobSink();
  try {
    const handle = await pick({ suggestedName: name, types: [{ description: 'ZIP archive', accept: { 'application/zip': ['.zip'] } }] });
    return new FileSink(await handle.createWritable());
  } catch (e) {
    if (/** @type {Error} */ (e).name === 'AbortError') throw e;
    // Refused (a cross-origin frame, a policy): the download path works everywhere.
    return new BlobSink();
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
