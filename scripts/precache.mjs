// Writes dist/sw.js: the service worker (www/sw.js) with the build's precache list put in, so the
// page works offline after one visit (docs/page.md, "Offline and installing"). Called by the Vite
// plugin in vite.config.js after every production build (so `npm run build` and scripts/check.sh's
// `vite build` both write it), and by tests/browser/offline.test.mjs to make a "next deployment"
// of a copied dist/.
//
// The list names every file of dist/ with its size and SHA-256 (the worker checks both before it
// keeps or serves a copy, so a response cut short is never kept), and the build's version: a hash
// of that list, which names the worker's cache. sw.js changes whenever any file does, which is how
// the browser learns of a new deployment.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

// What the source leaves as the list; replaced by the build's (the worker refuses to run without).
const MARKER = "({ version: 'dev', files: [] })";
// Not precached: the worker itself (the browser keeps it) and the benchmark page with its files
// (bench.html is a measuring tool, not the app; its scripts are listed only when the app shares them).
const SKIP = new Set(['sw.js', 'bench.html']);

/** Every file under `dir`, as '/'-separated paths relative to it, sorted. @param {string} dir */
function walk(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

const sha256 = (/** @type {Buffer} */ b) => createHash('sha256').update(b).digest('hex');

/**
 * The precache list of `dist`. `wasm` names the source modules (www/pkg*), which tell which of
 * dist's hashed .wasm files is which: the core one is precached at once, the two full builds (plain
 * and relaxed SIMD) only when first needed or once the page is idle, and then only the one this
 * browser loads (the other ~1 MB is never fetched where it cannot run).
 * @param {string} dist
 * @param {{ core: string, full: string, relaxed: string }} wasm paths of the source modules
 */
export function precacheList(dist, wasm) {
  const source = Object.fromEntries(Object.entries(wasm).map(([k, p]) => [sha256(readFileSync(p)), k]));
  const files = [];
  const seen = new Set();
  for (const path of walk(dist)) {
    if (SKIP.has(path)) continue;
    const body = readFileSync(join(dist, path));
    const hash = sha256(body);
    /** @type {{ path: string, size: number, sha256: string, lazy?: string }} */
    const entry = { path, size: body.length, sha256: hash };
    if (path.endsWith('.wasm')) {
      const kind = source[hash];
      if (!kind) throw new Error(`precache: ${path} is none of the wasm modules built in www/pkg*; run scripts/build-wasm.sh and vite build again`);
      if (kind !== 'core') entry.lazy = kind;
      seen.add(kind);
    }
    files.push(entry);
  }
  for (const kind of ['core', 'full', 'relaxed']) {
    if (!seen.has(kind)) throw new Error(`precache: dist/ holds no copy of the ${kind} wasm module (${wasm[kind]})`);
  }
  const version = createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 16);
  return { version, files };
}

/**
 * Writes `dist`/sw.js from the worker's source `swSource` and the list of `dist`; returns the list.
 * @param {string} dist @param {string} swSource @param {{ core: string, full: string, relaxed: string }} wasm
 */
export function writeServiceWorker(dist, swSource, wasm) {
  const list = precacheList(dist, wasm);
  const src = readFileSync(swSource, 'utf8');
  const at = src.indexOf(MARKER);
  if (at < 0 || src.indexOf(MARKER, at + 1) >= 0) throw new Error(`precache: ${swSource} must hold ${MARKER} exactly once`);
  writeFileSync(join(dist, 'sw.js'), src.slice(0, at) + `(${JSON.stringify(list)})` + src.slice(at + MARKER.length));
  return list;
}
