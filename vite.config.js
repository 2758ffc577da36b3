import { defineConfig } from 'vite';
import { resolve } from 'node:path';
import { writeServiceWorker } from './scripts/precache.mjs';

const ROOT = import.meta.dirname;

/**
 * The offline service worker (issue 33), production builds only: names it in index.html's head
 * (www/services/offline.js registers what the <meta> names; the dev server has none, so `npm start`
 * serves the files as they are on disk) and, once dist/ is written, puts dist/sw.js there with the
 * build's precache list (scripts/precache.mjs).
 */
function serviceWorker() {
  let outDir = 'dist';
  return {
    name: 'texscope-service-worker',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    transformIndexHtml(html, ctx) {
      // Only the app: bench.html is a measuring page and stays out of the worker's cache.
      if (!ctx.filename.endsWith('index.html')) return html;
      return { html, tags: [{ tag: 'meta', attrs: { name: 'texscope-sw', content: 'sw.js' }, injectTo: 'head' }] };
    },
    closeBundle() {
      const { version, files } = writeServiceWorker(outDir, resolve(ROOT, 'www/sw.js'), {
        core: resolve(ROOT, 'www/pkg/texscope_bg.wasm'),
        full: resolve(ROOT, 'www/pkg-full/texscope_bg.wasm'),
        relaxed: resolve(ROOT, 'www/pkg-full/texscope_bg_relaxed.wasm'),
      });
      const bytes = files.reduce((n, f) => n + f.size, 0);
      this.info?.(`sw.js: build ${version}, ${files.length} files (${(bytes / 1e6).toFixed(1)} MB) precached`);
    },
  };
}

// The page is index.html at the root; www/ holds its scripts and the generated wasm (www/pkg).
export default defineConfig({
  // Relative asset URLs: dist/ runs from any static host, also under a sub-path (a project page).
  base: './',
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
  // The decode worker imports the wasm bindings as an ES module.
  worker: { format: 'es' },
  plugins: [serviceWorker()],
  // bench.html: the browser half of the decode benchmark (scripts/bench.sh, tests/browser/bench.test.mjs).
  build: { outDir: 'dist', target: 'es2022', rollupOptions: { input: ['index.html', 'bench.html'] } },
});
