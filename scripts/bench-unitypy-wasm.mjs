// The wasm half of the UnityPy benchmark (scripts/bench-unitypy.sh): the page's own module
// (www/pkg, built by scripts/build-wasm.sh) in node, opening each folder the way the page's worker
// does (Session.add with every file of the folder), listing every texture and decoding mip 0,
// slice 0 of each to RGBA8 (written to OUT_DIR/<n>.rgba as the native `export --format rgba` and
// UnityPy do).
//
// The worker reads a dropped File by range with FileReaderSync, which node lacks; here a stand-in
// File whose slice() is read synchronously from disk (fs.readSync at the offset) plays that part,
// so the core does the same ranged reads it does in the browser.
//
// Like the worker (www/worker.js), it starts with the core module and, the first time a texture or
// file needs a decoder the core leaves out (a `NotInBuild` error, or `needsFull()` after opening),
// loads the full module (www/pkg-full) once and reopens the folder in it; later folders stay there.
//
// usage: node scripts/bench-unitypy-wasm.mjs OUT_DIR FOLDER...   prints one JSON line:
// {"textures": N, "decoded": N, "errors": N, "module": "core" or "full", "ms": wall time inside node
// after the core module compiled}
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import * as core from '../www/pkg/texscope.js';

const ROOT = resolve(import.meta.dirname, '..');

// A Blob-like range of a file on disk; FileReaderSync below reads it.
class DiskSlice {
  constructor(fd, start, end) { Object.assign(this, { fd, start, end }); }
  read() {
    const out = new Uint8Array(this.end - this.start);
    let done = 0;
    while (done < out.length) {
      const n = readSync(this.fd, out, done, out.length - done, this.start + done);
      if (n === 0) break;
      done += n;
    }
    return out.buffer;
  }
}

globalThis.FileReaderSync = class {
  readAsArrayBuffer(slice) { return slice.read(); }
};

function diskFile(path, fds) {
  const fd = openSync(path, 'r');
  fds.push(fd);
  const size = fstatSync(fd).size;
  return { name: basename(path), size, slice: (a, b) => new DiskSlice(fd, a, Math.min(b, size)) };
}

/** Every folder holding files under `dir`, each with its files (sorted), as the CLI groups them. */
function groups(dir, out = []) {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  const files = entries.filter((e) => e.isFile()).map((e) => join(dir, e.name));
  if (files.length) out.push(files);
  for (const e of entries) if (e.isDirectory()) groups(join(dir, e.name), out);
  return out;
}

const [outDir, ...folders] = process.argv.slice(2);
mkdirSync(outDir, { recursive: true });
let wasm = core;
wasm.initSync({ module: readFileSync(join(ROOT, 'www/pkg/texscope_bg.wasm')) });
const t0 = performance.now();
let textures = 0;
let decoded = 0;
let errors = 0;

async function useFull() {
  wasm = await import('../www/pkg-full/texscope.js');
  wasm.initSync({ module: readFileSync(join(ROOT, 'www/pkg-full/texscope_bg.wasm')) });
}

/** Lists and decodes one folder; throws a `NotInBuild` error before writing anything if the
 * current module lacks a decoder the folder needs. */
function folder(files) {
  const fds = [];
  const session = new wasm.Session();
  try {
    session.add(files.map((p) => diskFile(p, fds)));
    if (session.needsFull()) throw Object.assign(new Error('needs the full module'), { name: 'NotInBuild' });
    const images = [];
    let failed = 0;
    for (const t of session.textures()) {
      if (t.census.error) { failed++; continue; }
      try {
        images.push(session.decode(t.index, 0, 0).data);
      } catch (e) {
        if (e?.name === 'NotInBuild') throw e;
        failed++;
      }
    }
    return { listed: images.length + failed, images, failed };
  } finally {
    session.free();
    for (const fd of fds) closeSync(fd);
  }
}

for (const files of folders.flatMap((f) => groups(f))) {
  let r;
  try {
    r = folder(files);
  } catch (e) {
    if (e?.name !== 'NotInBuild' || wasm !== core) throw e;
    await useFull();
    r = folder(files);
  }
  textures += r.listed;
  errors += r.failed;
  for (const data of r.images) writeFileSync(join(outDir, `${decoded++}.rgba`), data);
}
console.log(JSON.stringify({ textures, decoded, errors, module: wasm === core ? 'core' : 'full', ms: performance.now() - t0 }));
