// A ZIP reader for the tests (PKWARE APPNOTE 6.3.x: end of central directory, central entries,
// local headers; stored entries only, what the page writes), checking every entry's CRC-32.
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';

/** The entries of `buf` in central-directory order: { name, data }. */
export function parseZip(buf) {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, 'end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let o = buf.readUInt32LE(eocd + 16);
  const out = [];
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(o), 0x02014b50);
    const crc = buf.readUInt32LE(o + 16);
    const size = buf.readUInt32LE(o + 20);
    const nl = buf.readUInt16LE(o + 28);
    const name = buf.toString('utf8', o + 46, o + 46 + nl);
    const local = buf.readUInt32LE(o + 42);
    assert.equal(buf.readUInt32LE(local), 0x04034b50);
    assert.equal(buf.readUInt16LE(local + 8), 0, 'stored');
    const data = buf.subarray(local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28), local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28) + size);
    assert.equal(crc32(data), crc, `${name} CRC-32`);
    out.push({ name, data });
    o += 46 + nl + buf.readUInt16LE(o + 30) + buf.readUInt16LE(o + 32);
  }
  return out;
}

