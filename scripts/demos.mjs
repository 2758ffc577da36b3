// Writes the page's demo files, made by the full wasm module's builders (src/fixtures/demo.rs), to DIR
// (default public/demos, git-ignored; Vite serves and copies public/ as the site root):
// DIR/<id>.json lists the file names of demo <id> (names may hold folders, as a game's do), and
// DIR/<id>/<n> holds the n-th file. The page's
// first module leaves the builders out (issue 8, size) and fetches these instead.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initSync, demoIds, demoFiles } from '../www/pkg-full/texscope.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2] ?? join(ROOT, 'public/demos');
initSync({ module: readFileSync(join(ROOT, 'www/pkg-full/texscope_bg.wasm')) });
rmSync(out, { recursive: true, force: true });
for (const id of demoIds()) {
  const files = demoFiles(id);
  const names = [];
  mkdirSync(join(out, id), { recursive: true });
  for (const { name, data } of files) {
    writeFileSync(join(out, id, String(names.length)), data);
    names.push(name);
  }
  writeFileSync(join(out, `${id}.json`), JSON.stringify(names));
}
console.log(`demos: ${demoIds().length} written to ${out}`);
