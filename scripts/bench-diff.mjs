// The two-builds benchmark (issue 21): `texscope diff` over two generated builds of N textures
// where a share changed, against `texscope census` of both builds (listing them, the least any diff
// must do) in the same run, turn by turn. Checks that only the changed pairs were decoded (the
// `decodes=` of TEXSCOPE_STATS is 2 per changed pair) and prints medians and the ratio.
//
//   node scripts/bench-diff.mjs [--textures 10000] [--changed 0.01] [--folders 100] [--rounds 3]
//                               [--bin target/release/texscope] [--bin-b OTHER] [--jobs N] [--keep]
//
// With --bin-b, each turn also runs OTHER's diff (a build before a change, say), alternating with
// --bin's, and prints its times and ratio too.
//
// Files: BC1 128x128 .dds with a full mip chain (8 mips, 10,936 bytes of blocks) under a legacy
// DXT1 header, blocks of seeded random bytes, `folders` folders of equal share; a changed texture
// has one byte of one mip-0 block flipped in NEW. Written to the system temp folder and removed
// afterwards (unless --keep).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const N = Number(opt('textures', 10000));
const SHARE = Number(opt('changed', 0.01));
const FOLDERS = Number(opt('folders', 100));
const ROUNDS = Number(opt('rounds', 3));
const BIN = opt('bin', 'target/release/texscope');
const BIN_B = opt('bin-b', null);
const JOBS = opt('jobs', null);
const KEEP = args.includes('--keep');

const SIDE = 128;
const MIPS = 8; // 128 .. 1
// The DDS header (DDS_HEADER, 124 bytes after the 'DDS ' magic): size, flags (CAPS | HEIGHT | WIDTH
// | PIXELFORMAT | MIPMAPCOUNT | LINEARSIZE), height, width, linear size, depth, mip count, 11
// reserved words, then DDS_PIXELFORMAT (size 32, DDPF_FOURCC, 'DXT1', 5 zero words), caps
// (TEXTURE | COMPLEX | MIPMAP), caps2..4, reserved (Microsoft's DDS file layout documentation).
function ddsHeader() {
  const h = Buffer.alloc(128);
  h.write('DDS ', 0, 'latin1');
  const words = [124, 0x1 | 0x2 | 0x4 | 0x1000 | 0x20000 | 0x80000, SIDE, SIDE, (SIDE / 4) ** 2 * 8, 0, MIPS];
  words.forEach((v, i) => h.writeUInt32LE(v, 4 + 4 * i));
  h.writeUInt32LE(32, 76);
  h.writeUInt32LE(0x4, 80);
  h.write('DXT1', 84, 'latin1');
  h.writeUInt32LE(0x1000 | 0x8 | 0x400000, 108);
  return h;
}
const HEADER = ddsHeader();
let blockBytes = 0;
for (let m = 0; m < MIPS; m++) blockBytes += Math.max(1, Math.ceil((SIDE >> m) / 4)) ** 2 * 8;

// xorshift32 bytes, seeded per texture.
function blocks(seed) {
  const b = Buffer.alloc(blockBytes);
  let s = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < b.length; i += 4) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    b.writeUInt32LE(s, i);
  }
  return b;
}

const root = join(tmpdir(), `texscope-bench-diff-${process.pid}`);
const every = Math.max(1, Math.round(1 / SHARE));
let changed = 0;
console.log(`writing 2 x ${N} textures (${blockBytes + 128} bytes each) in ${FOLDERS} folders to ${root} ...`);
for (let i = 0; i < N; i++) {
  const folder = `f${String(i % FOLDERS).padStart(3, '0')}`;
  const name = `T_${String(i).padStart(6, '0')}.dds`;
  const body = blocks(i + 1);
  for (const side of ['old', 'new']) mkdirSync(join(root, side, folder), { recursive: true });
  writeFileSync(join(root, 'old', folder, name), Buffer.concat([HEADER, body]));
  if (i % every === every - 1) {
    changed++;
    body[(i * 8) % ((SIDE / 4) ** 2 * 8)] ^= 0xff; // one byte of one mip-0 block
  }
  writeFileSync(join(root, 'new', folder, name), Buffer.concat([HEADER, body]));
}

function timed(cmd, bin = BIN) {
  const jobs = JOBS ? ['--jobs', JOBS] : [];
  const t = process.hrtime.bigint();
  const r = spawnSync(bin, [cmd, join(root, 'old'), join(root, 'new'), ...jobs], {
    env: { ...process.env, TEXSCOPE_STATS: '1' },
    maxBuffer: 1 << 30,
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} exited ${r.status}: ${r.stderr}`);
  const stats = /read_bytes=(\d+) reads=(\d+) decodes=(\d+)/.exec(r.stderr.toString());
  return { ms, out: r.stdout.toString(), readBytes: +stats[1], decodes: +stats[3] };
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const census = [];
const diff = [];
const diffB = [];
let last;
/** Runs `bin`'s diff and checks what it found. */
function diffRun(bin) {
  const run = timed('diff', bin);
  const summary = JSON.parse(run.out.trim().split('\n').pop()).summary;
  if (summary.changed !== changed || summary.unchanged !== N - changed || run.decodes !== 2 * changed) {
    throw new Error(`${bin}: expected ${changed} changed, ${N - changed} unchanged, ${2 * changed} decodes; got ${JSON.stringify(summary)}, ${run.decodes} decodes`);
  }
  return run;
}
try {
  for (let r = 0; r < ROUNDS; r++) {
    census.push(timed('census').ms);
    // With two builds, which goes first alternates.
    const order = BIN_B && r % 2 ? [BIN_B, BIN] : BIN_B ? [BIN, BIN_B] : [BIN];
    for (const bin of order) {
      const run = diffRun(bin);
      if (bin === BIN) { last = run; diff.push(run.ms); } else diffB.push(run.ms);
    }
  }
} finally {
  if (!KEEP) rmSync(root, { recursive: true, force: true });
}
console.log(JSON.stringify({
  textures: N,
  changed,
  decodes: last.decodes,
  diff_read_mb: +(last.readBytes / 1e6).toFixed(1),
  census_ms: { min: Math.min(...census), median: median(census), max: Math.max(...census) },
  diff_ms: { min: Math.min(...diff), median: median(diff), max: Math.max(...diff) },
  diff_over_census: +(median(diff.map((d, i) => d / census[i]))).toFixed(2),
  ...(BIN_B ? {
    b_diff_ms: { min: Math.min(...diffB), median: median(diffB), max: Math.max(...diffB) },
    b_over_census: +(median(diffB.map((d, i) => d / census[i]))).toFixed(2),
    diff_over_b: +(median(diff.map((d, i) => d / diffB[i]))).toFixed(2),
  } : {}),
}, (k, v) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v)));
