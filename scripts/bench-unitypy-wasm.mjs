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
// usage: node scripts/bench-unitypy-wasm.mjs OUT_DIR FOLDER...   prints one JSON line:
// {"textures": N, "decoded": N, "errors": N, "ms": wall time inside node after module compile}
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { initSync, Session } from '../www/pkg/texscope.js';

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
initSync({ module: readFileSync(join(ROOT, 'www/pkg/texscope_bg.wasm')) });
const t0 = performance.now();
let textures = 0;
let decoded = 0;
let errors = 0;
for (const files of folders.flatMap((f) => groups(f))) {
  const fds = [];
  const session = new Session();
  session.add(files.map((p) => diskFile(p, fds)));
  for (const t of session.textures()) {
    textures++;
    if (t.census.error) { errors++; continue; }
    try {
      const img = session.decode(t.index, 0, 0);
      writeFileSync(join(outDir, `${decoded}.rgba`), img.data);
      decoded++;
    } catch {
      errors++;
    }
  }
  session.free();
  for (const fd of fds) closeSync(fd);
}
console.log(JSON.stringify({ textures, decoded, errors, ms: performance.now() - t0 }));
