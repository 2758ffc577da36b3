import { defineConfig } from 'vite';

// The page is index.html at the root; www/ holds its scripts and the generated wasm (www/pkg).
export default defineConfig({
  // Relative asset URLs: dist/ runs from any static host, also under a sub-path (a project page).
  base: './',
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
  // The decode worker imports the wasm bindings as an ES module.
  worker: { format: 'es' },
  // bench.html: the browser half of the decode benchmark (scripts/bench.sh, tests/browser/bench.test.mjs).
  build: { outDir: 'dist', target: 'es2022', rollupOptions: { input: ['index.html', 'bench.html'] } },
});
