// The page's file writers (www/lib/encoders.js) run in Node here, without a browser: the same
// module, with Node's CompressionStream and Blob. Issue 19: a PNG entry of a ZIP export is
// streamed in bounded pieces and must come out exact; a failing sink must end the export with its
// error, not hang; an entry past the archive's limits is refused whole. Expected texels are the
// input's own (seeded noise, so deflate cannot shrink it below several IDAT chunks); PNGs and
// ZIPs are read back by the tests' own readers (png.mjs, zip.mjs) and Node's zlib.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import { streamPng, encodePng, ZipWriter, BlobSink } from '../../www/lib/encoders.js';
import { parsePng } from './png.mjs';
import { parseZip } from './zip.mjs';

/** `n` bytes of seeded noise (a 32-bit LCG). */
function noise(n, seed) {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

/** The chunks of a PNG: [type, length]. */
function chunks(buf) {
  const out = [];
  for (let o = 8; o < buf.length; o += 12 + buf.readUInt32BE(o)) out.push([buf.toString('latin1', o + 4, o + 8), buf.readUInt32BE(o)]);
  return out;
}

test('a streamed PNG is exact, split into IDAT chunks of at most 256 KiB, emitted in pieces', async () => {
  const [w, h] = [400, 300]; // 480,000 bytes of texels: two row batches, at least two IDATs
  const px = noise(w * h * 4, 7);
  const pieces = [];
  await streamPng(w, h, px, (p) => { pieces.push(Buffer.from(p)); });
  const png = Buffer.concat(pieces);
  const idats = chunks(png).filter(([t]) => t === 'IDAT');
  assert.ok(idats.length >= 2, `IDAT chunks: ${idats.length}`);
  for (const [, len] of idats) assert.ok(len <= 256 * 1024 + 65536, `IDAT of ${len} bytes`);
  assert.ok(Math.max(...pieces.map((p) => p.length)) <= 256 * 1024 + 65536 + 12, 'no piece holds the whole PNG');
  const p = parsePng(png);
  assert.deepEqual([p.width, p.height, p.depth, p.colour], [w, h, 8, 6]);
  assert.ok(p.pixels.equals(Buffer.from(px)), 'every texel as given');
  // encodePng is the same bytes as one Blob.
  assert.ok(Buffer.from(await (await encodePng(w, h, px)).arrayBuffer()).equals(png));
});

/** `px` (RGBA8) with every alpha 255. */
const opaque = (px) => px.map((v, i) => (i % 4 === 3 ? 255 : v));

test('a PNG of opaque texels is RGB, as the command line writes it', async () => {
  const [w, h] = [300, 200];
  const px = opaque(noise(w * h * 4, 9));
  const p = parsePng(Buffer.from(await (await encodePng(w, h, px)).arrayBuffer()));
  assert.deepEqual([p.depth, p.colour], [8, 2]);
  const rgb = Buffer.from(px.filter((_, i) => i % 4 !== 3));
  assert.ok(p.pixels.equals(rgb), 'every texel\'s RGB as given');
  // One alpha below full keeps RGBA.
  px[4 * 1234 + 3] = 254;
  assert.equal(parsePng(Buffer.from(await (await encodePng(w, h, px)).arrayBuffer())).colour, 6);
});

/** The IHDR and the inflated rows of a PNG (any depth). */
function pngRows(png) {
  let o = 8;
  const idat = [];
  for (const [t, len] of chunks(png)) {
    if (t === 'IDAT') idat.push(png.subarray(o + 8, o + 8 + len));
    o += 12 + len;
  }
  return { depth: png[24], colour: png[25], raw: inflateSync(Buffer.concat(idat)) };
}

test('a streamed 16-bit PNG holds big-endian samples (RGB when every alpha is 65535)', async () => {
  const [w, h] = [300, 200];
  const rgba = new Uint16Array(noise(w * h * 8, 3).buffer);
  const flat = rgba.map((v, i) => (i % 4 === 3 ? 65535 : v));
  const png16 = async (px) => { const pieces = []; await streamPng(w, h, px, (p) => { pieces.push(Buffer.from(p)); }); return pngRows(Buffer.concat(pieces)); };
  const r = await png16(flat);
  assert.deepEqual([r.depth, r.colour, r.raw.length], [16, 2, (w * 6 + 1) * h]);
  for (const [x, y, c] of [[0, 0, 0], [17, 5, 2], [w - 1, h - 1, 1]]) {
    assert.equal(r.raw.readUInt16BE(y * (w * 6 + 1) + 1 + (x * 3 + c) * 2), flat[(y * w + x) * 4 + c], `RGB (${x}, ${y}) channel ${c}`);
  }
  const px = rgba;
  const { depth, colour, raw } = await png16(px);
  assert.deepEqual([depth, colour, raw.length], [16, 6, (w * 8 + 1) * h]);
  for (const [x, y, c] of [[0, 0, 0], [17, 5, 3], [w - 1, h - 1, 2], [150, 100, 1]]) {
    const at = y * (w * 8 + 1) + 1 + (x * 4 + c) * 2;
    assert.equal(raw.readUInt16BE(at), px[(y * w + x) * 4 + c], `(${x}, ${y}) channel ${c}`);
  }
});

test('ZipWriter: streamed and whole entries read back with their CRCs', async () => {
  const sink = new BlobSink();
  const zip = new ZipWriter(sink);
  const px = noise(256 * 256 * 4, 11);
  await zip.addStream('a/tex.png', (emit) => streamPng(256, 256, px, emit));
  await zip.add('b/raw.bin', noise(1000, 5));
  await zip.finish();
  const entries = parseZip(Buffer.from(await sink.blob('application/zip').arrayBuffer()));
  assert.deepEqual(entries.map((e) => e.name), ['a/tex.png', 'b/raw.bin']);
  assert.ok(parsePng(entries[0].data).pixels.equals(Buffer.from(px)));
  assert.ok(entries[1].data.equals(Buffer.from(noise(1000, 5))));
});

test('a sink that fails ends the entry with its error, and does not hang', async () => {
  let writes = 0;
  const full = { write: async () => { if (++writes > 1) throw new Error('disk full'); } };
  const zip = new ZipWriter(full);
  await zip.add('a.bin', new Uint8Array(10)); // one write an entry
  await assert.rejects(zip.add('b.bin', new Uint8Array(10)), /disk full/);
  await assert.rejects(zip.addStream('c.png', (emit) => streamPng(64, 64, noise(64 * 64 * 4, 4), emit)), /disk full/);
  // The emit side failing mid-PNG (the page's sink refusing a piece) aborts the deflate input.
  let n = 0;
  await assert.rejects(streamPng(400, 300, noise(400 * 300 * 4, 1), () => { if (++n === 3) throw new Error('refused'); }), /refused/);
  // The input side failing (texels whose rows cannot be read: subarray throws, after the header
  // is out) ends the output side too, with the input side's error.
  const texels = new Proxy(new Uint8Array(64), {
    get: (t, k) => (k === 'subarray' ? () => { throw new TypeError('no rows'); } : t[k]),
  });
  await assert.rejects(streamPng(4, 4, texels, () => {}), /no rows/);
});

test('an entry past 4 GiB is refused whole (RangeError), nothing written', async () => {
  const parts = [];
  const zip = new ZipWriter({ write: (p) => { parts.push(p); } });
  zip.offset = 0xfffffff0 - 100;
  await assert.rejects(zip.addStream('big.png', (emit) => streamPng(64, 64, noise(64 * 64 * 4, 2), emit)), RangeError);
  await assert.rejects(zip.add('big.bin', new Uint8Array(200)), RangeError);
  assert.equal(parts.length, 0);
  await zip.add('small.bin', new Uint8Array(50));
  assert.equal(parts.length, 1, 'one write: header and data');
  assert.equal(parts[0].size, 30 + 'small.bin'.length + 50);
});
