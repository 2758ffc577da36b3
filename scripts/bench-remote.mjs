// Remote-file benchmark (issue 41): a texture inside a 3 GiB IoStore container opened from a share
// link whose ?src= URLs name a range-capable server on another origin, against the same open
// from the files dropped (disk-backed Files). Not a test: it prints numbers.
//
//   bash scripts/build-wasm.sh && node_modules/.bin/vite build --logLevel warn
//   node scripts/bench-remote.mjs [DIR] [--rounds N] [--len BYTES] [--delay MS] [--dist DIR]
//                                 [--container Remote|Spread] [--link tex|pkg]
//
// DIR (default /tmp/texscope-bench-remote) receives Remote.utoc + a sparse Remote.ucas of --len
// bytes (default 3 GiB) from examples/remote_fixture.rs (the project's fixture writers): 200
// small packages and T_First at the start, T_Far (B8G8R8A8 512x512, mip 0 in its .ubulk) in the
// last 16 MiB; --container Spread opens Spread.utoc/.ucas instead, where the 200 other packages
// are 87 KiB textures spread through the file (each one's header a read of its own). Both opens
// go through a share link naming T_Far (#...&tex=T_Far; --link pkg adds its path inside the
// container, &pkg=Game/Content/Far/T_Far.uasset, as the page's links now do), so neither decodes
// another texture first, and the remote one opens T_Far's package alone (OpenOptions::only).
// Each round, in a fresh headless Chromium:
// - remote: the page loaded with ?src=<utoc>&src=<ucas>#v=1&tex=T_Far; the range server
//   (tests/browser/range-server.mjs, 127.0.0.1, another port) counts the body bytes and requests
//   it answered (CORS preflights apart; --delay holds each range answer back MS ms, as a distant
//   server's round trip would); time to first paint = the first paint of T_Far after
//   the page began reading its ?src= files (probe.sourcesAt), and after the page's navigation
//   start;
// - local: the page loaded with #v=1&file=Remote.utoc&file=Remote.ucas&tex=T_Far, the files
//   given to the file input by path; bytes and reads as the worker read them (texscope.readStats);
//   time to first paint after the files were given (probe.openedAt);
// - every package: the page loaded with the ?src= URLs and no texture named, so every package's
//   header is read and the first texture (T_First) shown: bytes and requests until it paints.
// Prints each round as a JSON line on stderr and a Markdown table (medians) on stdout.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../tests/browser/server.mjs';
import { rangeServer, sent } from '../tests/browser/range-server.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args.splice(i, 2)[1] : def; };
const root = resolve(import.meta.dirname, '..');
const rounds = Number(opt('--rounds', '3'));
const len = Number(opt('--len', String(3 * 2 ** 30)));
const delay = Number(opt('--delay', '0'));
const dist = resolve(opt('--dist', join(root, 'dist')));
const stem = opt('--container', 'Remote');
const link = opt('--link', 'tex');
if (!['Remote', 'Spread'].includes(stem) || !['tex', 'pkg'].includes(link)) throw new Error('--container is Remote or Spread, --link tex or pkg');
const dir = resolve(args[0] ?? '/tmp/texscope-bench-remote');
if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist} has no index.html: build the page first (see the top of this file)`);
if (!existsSync(join(dir, `${stem}.ucas`)) || statSync(join(dir, `${stem}.ucas`)).size !== len) {
  execFileSync('cargo', ['run', '--release', '--quiet', '--example', 'remote_fixture', '--', dir, String(len)], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
const utoc = join(dir, `${stem}.utoc`);
const ucas = join(dir, `${stem}.ucas`);
const view = `#v=1&tex=T_Far${link === 'pkg' ? '&pkg=Game%2FContent%2FFar%2FT_Far.uasset' : ''}&mip=0`;

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

/**
 * The first paint after the open began (a preview of a smaller mip when the page shows one first)
 * and the paint of mip 0 in full, as performance.now() of the page.
 */
const firstPaint = (page) => page.evaluate(() => {
  const p = window.texscope.paints();
  const after = p.events.filter((e) => e.time >= (p.sourcesAt ?? p.openedAt ?? 0));
  return { sourcesAt: p.sourcesAt, openedAt: p.openedAt, first: after[0]?.time ?? null, full: after.find((e) => e.mip === 0 && e.kind === 'full')?.time ?? null };
});

async function round(pageServer, files) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync', '--disable-quic'],
  });
  try {
    const seeTFar = (page) => page.waitForFunction(() => window.texscope?.view()?.texture === 'T_Far' && document.body.dataset.state === 'ready'
      && window.texscope.paints().events.some((e) => e.mip === 0 && e.kind === 'full'), null, { timeout: 300000 });
    // Remote.
    files.reset();
    const urls = [`${files.origin}/r/${stem}.utoc`, `${files.origin}/r/${stem}.ucas`];
    const query = `?${urls.map((u) => `src=${encodeURIComponent(u)}`).join('&')}`;
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${pageServer.url}${query}${view}`);
    await seeTFar(page);
    const rp = await firstPaint(page);
    const net = sent(files, `/r/${stem}`);
    const remote = { bytes: net.bytes, requests: net.requests, preflights: net.preflights, ttfp: rp.first - rp.sourcesAt, full: rp.full - rp.sourcesAt, fromLoad: rp.first };
    await page.close();
    // Local.
    const lp = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await lp.goto(`${pageServer.url}#v=1&file=${stem}.utoc&file=${stem}.ucas&tex=T_Far&mip=0`);
    await lp.waitForFunction(() => window.texscope && document.querySelector('[data-testid=file-input]'));
    const [b0, r0] = await lp.evaluate(() => window.texscope.readStats());
    await lp.setInputFiles('[data-testid=file-input]', [utoc, ucas]);
    await seeTFar(lp);
    const [b1, r1] = await lp.evaluate(() => window.texscope.readStats());
    const p = await firstPaint(lp);
    const local = { bytes: b1 - b0, reads: r1 - r0, ttfp: p.first - p.openedAt, full: p.full - p.openedAt };
    await lp.close();
    // Every package (no texture named): until the first texture shown paints in full.
    files.reset();
    const ap = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await ap.goto(`${pageServer.url}${query}`);
    await ap.waitForFunction(() => document.body.dataset.state === 'ready' && window.texscope.view()
      && window.texscope.paints().events.some((e) => e.kind === 'full'), null, { timeout: 300000 });
    const allNet = sent(files, `/r/${stem}`);
    const aq = await firstPaint(ap);
    const all = { bytes: allNet.bytes, requests: allNet.requests, ttfp: aq.first - aq.sourcesAt, full: aq.full === null ? aq.first - aq.sourcesAt : aq.full - aq.sourcesAt };
    await ap.close();
    return { remote, local, all };
  } finally {
    await browser.close();
  }
}

const pageServer = await serve(dist);
const files = await rangeServer({ [`${stem}.utoc`]: utoc, [`${stem}.ucas`]: ucas }, { delay });
const all = [];
try {
  for (let i = 0; i < rounds; i++) {
    const r = await round(pageServer, files);
    process.stderr.write(`${JSON.stringify(r)}\n`);
    all.push(r);
  }
} finally {
  await files.close();
  await pageServer.close();
}
const m = (f) => median(all.map(f));
const kib = (b) => `${(b / 1024).toFixed(0)} KiB`;
const ms = (v) => `${v.toFixed(0)} ms`;
console.log(`| open of T_Far in a ${(len / 2 ** 30).toFixed(0)} GiB ${stem}.utoc/.ucas (median of ${rounds}${delay ? `, ${delay} ms a range answer` : ''}; link: ${link}) | bytes | requests / reads | first paint | mip 0 in full |`);
console.log('|---|---:|---:|---:|---:|');
console.log(`| share link, ?src= on a range server (another origin), from the first request | ${kib(m((r) => r.remote.bytes))} sent | ${m((r) => r.remote.requests)} requests (+${m((r) => r.remote.preflights)} CORS preflights) | ${ms(m((r) => r.remote.ttfp))} (${ms(m((r) => r.remote.fromLoad))} after navigation) | ${ms(m((r) => r.remote.full))} |`);
console.log(`| the same files dropped, from the drop | ${kib(m((r) => r.local.bytes))} read | ${m((r) => r.local.reads)} reads | ${ms(m((r) => r.local.ttfp))} | ${ms(m((r) => r.local.full))} |`);
console.log(`| ?src= without a texture named: every package's header read, the first texture (T_First) shown | ${kib(m((r) => r.all.bytes))} sent | ${m((r) => r.all.requests)} requests | ${ms(m((r) => r.all.ttfp))} | ${ms(m((r) => r.all.full))} |`);
