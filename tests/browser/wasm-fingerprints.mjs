// Prints the codec fingerprints (`codecFingerprints`, the JSON `texscope fingerprints FILES...`
// prints) of one build of the full wasm module: `node tests/browser/wasm-fingerprints.mjs WASM
// FILES...`. A process of its own, so that tests/browser/wasm-native.test.mjs can run the
// relaxed-SIMD build with the engine flag node may need for it.
import { readFileSync } from 'node:fs';
import { initSync, codecFingerprints } from '../../www/pkg-full/texscope.js';

const [wasm, ...files] = process.argv.slice(2);
initSync({ module: readFileSync(wasm) });
const names = files.map((f) => f.split('/').pop());
process.stdout.write(codecFingerprints(names, files.map((f) => readFileSync(f))));
