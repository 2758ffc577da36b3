// `npm run audit`: Lighthouse (mobile, its default form factor: an emulated phone with touch) on the
// production build, for accessibility, best practices and SEO. It builds nothing: run
// `npm run build` first. It serves dist/ on 127.0.0.1 (the browser tests' server), runs the
// Lighthouse CLI in Debian chromium (CHROME_PATH, default /usr/bin/chromium), prints the three
// scores and every audit that lost points, keeps the whole report in test-output/lighthouse.json,
// and fails when a score is under 0.98 (issue 41).
//
//   node scripts/audit.mjs [--query '?demo=ue-classic'] [--min 0.98] [--dist dist]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { serve } from '../tests/browser/server.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'test-output');
const CATEGORIES = ['accessibility', 'best-practices', 'seo'];
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const query = arg('--query', '');
const DIST = resolve(arg('--dist', join(ROOT, 'dist')));
const min = Number(arg('--min', '0.98'));
const lighthouse = join(ROOT, 'node_modules/.bin/lighthouse');

if (!existsSync(join(DIST, 'index.html'))) throw new Error('dist/ is missing: run `npm run build` first');
if (!existsSync(lighthouse)) throw new Error('lighthouse is not installed: npm i -E -D lighthouse@12.2.3');
mkdirSync(OUT, { recursive: true });
const report = join(OUT, 'lighthouse.json');
const server = await serve(DIST);
let status;
try {
  // Asynchronous: this process's server answers Lighthouse's requests meanwhile.
  const run = spawn(lighthouse, [
    server.url + query,
    `--only-categories=${CATEGORIES.join(',')}`,
    '--output=json', `--output-path=${report}`, '--quiet',
    '--chrome-flags=--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking',
  ], { env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH || '/usr/bin/chromium' }, stdio: ['ignore', 'inherit', 'inherit'] });
  status = await new Promise((done) => run.on('close', done));
} finally {
  await server.close();
}
if (status !== 0) throw new Error(`lighthouse exited with ${status}`);

const lhr = JSON.parse(readFileSync(report, 'utf8'));
console.log(`Lighthouse ${lhr.lighthouseVersion}, ${lhr.configSettings.formFactor}, ${lhr.environment.hostUserAgent}`);
console.log(`${server.url}${query}`);
let ok = true;
for (const id of CATEGORIES) {
  const c = lhr.categories[id];
  console.log(`${c.title.padEnd(16)} ${c.score.toFixed(2)}`);
  if (c.score < min) ok = false;
  for (const ref of c.auditRefs) {
    const a = lhr.audits[ref.id];
    if (ref.weight > 0 && a.score !== null && a.score < 1) console.log(`  lost: ${a.id} (${a.title}), weight ${ref.weight}`);
  }
}
if (!ok) {
  console.error(`a score is under ${min}`);
  process.exit(1);
}
