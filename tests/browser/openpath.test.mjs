// Issue 8, the page's open path: every stored byte of a shown mip is read from the File once. For
// the formats the inspector's block mode reads (BC1, BC6H, BC7), the worker's decode brings the
// stored bytes along (Session.decode with `stored`) instead of the page asking for them again
// (`surfaceBytes`, which read the mip a second time); the GPU path takes the same bytes.
//
// Where the expected values come from: the files are built here from the DDS definition
// (dds-fixtures.mjs) with seeded xorshift32 block bytes, so every mip's offset and size follow from
// the header and the block sizes (BC1 8 bytes, BC6H/BC7 16 bytes per 4x4 block). The bytes a read
// costs follow the read-ahead rule of src/web/mod.rs (WebFile::read_exact_at): a read of at most
// 4096 bytes is served from the aligned 64 KiB block holding it (read once, then cached), a larger
// read reads exactly its range. The block modes the inspector names are computed here from the
// file's bytes by the format definitions (BC1: colour0 > colour1 as little-endian u16 is the
// 4-colour mode; BC7: the mode is the number of zero bits below the first one in byte 0, Microsoft
// "BC7 Format Mode Reference").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OUT, openPage, launchArgs, stateWaiter, inMenu } from './harness.mjs';
import { header, fourcc } from './dds-fixtures.mjs';

// WebGL2 on SwiftShader (as tests/browser/gpu.test.mjs asks), so the GPU path can be switched on.
launchArgs(['--use-angle=swiftshader', '--enable-unsafe-swiftshader']);

const waitState = stateWaiter(120000);
const hooks = (page, name, arg) => page.evaluate(([n, a]) => window.texscope[n](a), [name, arg]);

const SIDE = 1024;
const MIPS = 11;
const SMALL = 4096; // AHEAD_SMALL
const BLOCK = 64 * 1024; // AHEAD_BLOCK
// name, DDS pixel format (legacy fourcc or DX10 DXGI format), bytes per 4x4 block.
const FORMATS = [
  ['bc1', { pf: { flags: 0x4, fourcc: fourcc('DXT1') } }, 8],
  ['bc6h', { pf: { flags: 0x4, fourcc: fourcc('DX10') }, dx10: { format: 95, arraySize: 1 } }, 16], // BC6H_UF16
  ['bc7', { pf: { flags: 0x4, fourcc: fourcc('DX10') }, dx10: { format: 98, arraySize: 1 } }, 16], // BC7_UNORM
];

const mipBytes = (m, bb) => Math.ceil(Math.max(1, SIDE >> m) / 4) ** 2 * bb;
let dir;
const fx = {};
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'texscope-openpath-'));
  let s = 0x1234567;
  for (const [name, f, bb] of FORMATS) {
    const head = header({ width: SIDE, height: SIDE, mips: MIPS, pitchOrLinearSize: mipBytes(0, bb), linear: true, ...f });
    let total = 0;
    const offsets = [];
    for (let m = 0; m < MIPS; m++) { offsets.push(head.length + total); total += mipBytes(m, bb); }
    const body = Buffer.alloc(total);
    for (let i = 0; i < total; i += 4) {
      s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
      body.writeInt32LE(s | 0, i);
    }
    const bytes = Buffer.concat([head, body]);
    const path = join(dir, `${name}.dds`);
    writeFileSync(path, bytes);
    fx[name] = { path, bytes, offsets, bb, len: bytes.length };
  }
});
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

// Bytes and reads that `ranges` ([offset, length]) cost under the read-ahead rule, blocks cached
// (the few reads here never evict one).
function cost(ranges, len) {
  const blocks = new Set();
  let bytes = 0;
  let reads = 0;
  for (const [at, n] of ranges) {
    if (n > SMALL) { bytes += n; reads++; continue; }
    const start = at - (at % BLOCK);
    if (blocks.has(start)) continue;
    blocks.add(start);
    bytes += Math.max(Math.min(start + BLOCK, len), at + n) - start;
    reads++;
  }
  return { bytes, reads };
}

// What the inspector should name for the block at `at` (see the header comment).
function modeOf(name, b) {
  if (name === 'bc1') return b.readUInt16LE(0) > b.readUInt16LE(2) ? 'BC1 4-colour' : 'BC1 3-colour + transparent';
  if (b[0] === 0) return 'BC7 reserved';
  let m = 0;
  while (!(b[0] & (1 << m))) m++;
  return `BC7 mode ${m}`;
}

test('opening and showing a BC1/BC6H/BC7 mip reads each stored byte once; block mode and the GPU path use that read', { timeout: 300000 }, async (t) => {
  const lines = [];
  for (const [name] of FORMATS) {
    const f = fx[name];
    const { page, problems } = await openPage(t);
    await page.waitForFunction(() => window.texscope);
    await page.setInputFiles('[data-testid=file-input]', [f.path]);
    await waitState(page, 'ready');
    const { events } = await hooks(page, 'paints');
    const pre = events.find((e) => e.kind === 'preview');
    assert.ok(pre && pre.mip >= 2, `${name}: a preview mip came first`);
    assert.deepEqual(events.map((e) => [e.kind, e.mip]), [['preview', pre.mip], ['full', 0]]);
    // The header (a small read at 0), the preview mip, mip 0: nothing twice.
    const want = cost([[0, 148], [f.offsets[pre.mip], mipBytes(pre.mip, f.bb)], [f.offsets[0], mipBytes(0, f.bb)]], f.len);
    const [bytes, reads] = await hooks(page, 'readStats');
    lines.push(`${name}: read ${bytes} bytes in ${reads} reads; header block + mip ${pre.mip} + mip 0 = ${want.bytes} in ${want.reads}`);
    assert.equal(bytes, want.bytes, `${name}: bytes read (mip 0 is ${mipBytes(0, f.bb)})`);
    assert.equal(reads, want.reads, `${name}: reads`);

    // Block mode reads the stored bytes that came with the decode: the right ones, at any block.
    if (name !== 'bc6h') {
      for (const [x, y] of [[0, 0], [517, 3], [1023, 1023], [260, 777], [64, 900]]) {
        const at = f.offsets[0] + (Math.floor(y / 4) * (SIDE / 4) + Math.floor(x / 4)) * f.bb;
        await hooks(page, 'setDisplay', { pin: [x, y] });
        const text = await page.textContent('[data-testid=insp-pin]');
        assert.ok(text.includes(`block (${Math.floor(x / 4)}, ${Math.floor(y / 4)}) · ${modeOf(name, f.bytes.subarray(at, at + f.bb))}`), `${name} (${x}, ${y}): ${text}`);
      }
    }

    // The histogram (www/lib/display.js: max(R, G, B) per texel, 32 equal bins over [0, 1] for 8/16-bit
    // values) from its definition over every decoded texel, against the page's.
    if (name === 'bc7') {
      const [got, want] = await page.evaluate((side) => {
        const bins = new Array(32).fill(0);
        let min = Infinity;
        let max = -Infinity;
        for (let y = 0; y < side; y++) {
          for (let x = 0; x < side; x++) {
            const [r, g, b] = window.texscope.pixel(x, y);
            const v = Math.max(r, g, b) / 255;
            bins[Math.min(31, Math.floor(v * 32))]++;
            min = Math.min(min, v);
            max = Math.max(max, v);
          }
        }
        return [window.texscope.histogram(), { kind: 'linear', lo: 0, bins, zero: 0, bad: 0, min, max }];
      }, SIDE);
      assert.deepEqual(got, want, 'histogram');
    }

    // The GPU path switched on: the view is shown again from one more read of the preview and
    // of mip 0; the upload takes the stored bytes of that read.
    // (Pinning above showed the view again through setDisplay: count from here.)
    const [bytes1, reads1] = await hooks(page, 'readStats');
    await inMenu(page, 'gpu-toggle', (s) => page.click(s));
    await waitState(page, 'ready');
    const g = await hooks(page, 'gpu');
    const [bytes2, reads2] = await hooks(page, 'readStats');
    const again = cost([[f.offsets[pre.mip], mipBytes(pre.mip, f.bb)], [f.offsets[0], mipBytes(0, f.bb)]], f.len);
    lines.push(`${name} on the ${g.path.toUpperCase()} path (${g.info}): ${bytes2 - bytes1} more bytes in ${reads2 - reads1} reads (want ${again.bytes} in ${again.reads})`);
    assert.equal(bytes2 - bytes1, again.bytes, `${name}: bytes read to show it again on the GPU path`);
    assert.equal(reads2 - reads1, again.reads);
    if (name === 'bc7') {
      assert.equal(g.path, 'gpu', g.info);
      await page.screenshot({ path: join(OUT, 'openpath-bc7-gpu.png') });
    }
    assert.deepEqual(problems, []);
    await page.close();
  }
  console.log(lines.join('\n'));
  writeFileSync(join(OUT, 'openpath-reads.txt'), `${lines.join('\n')}\n`);
});
