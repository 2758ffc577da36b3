// What every browser test file shares: the built page served on 127.0.0.1, one Debian chromium, and
// pages that record page errors, console errors and any request beyond the page itself.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serve, routes } from './server.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist');
/** Screenshots go here (git-ignored); look at them. */
export const OUT = join(ROOT, 'test-output');
/** The shared sample files, read in place: ../shared/samples beside the repository, else /work's. */
export const SAMPLES = [join(ROOT, '../shared/samples'), '/work/shared/samples'].find((d) => existsSync(d));

/** A function waiting (at most `timeout` ms) until the page's body says data-state="<state>". */
export const stateWaiter = (timeout) => (page, state) =>
  page.waitForFunction((want) => document.body.dataset.state === want, state, { timeout });
/** Selects a texture / mip / slice through the page's test API. */
export const select = (page, v) => page.evaluate((v) => window.texscope.select(v), v);
/** The paths of the .wasm files `page` (or its workers) fetches from now on, as they arrive. */
export function wasmFetched(page) {
  const paths = new Set();
  page.on('response', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.endsWith('.wasm')) paths.add(path);
  });
  return paths;
}
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

let server, browser;
let extraArgs = [];

/** Extra Chromium flags for this test file's browser (call at the top level, before the tests). */
export function launchArgs(args) {
  extraArgs = args;
}

before(async () => {
  assert.ok(existsSync(join(DIST, 'index.html')), 'dist/ is missing: run `npm run build` (npm test does)');
  mkdirSync(OUT, { recursive: true });
  server = await serve(DIST);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // playwright-core gives every launch a fresh temporary profile (it refuses --user-data-dir).
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-sync', '--disable-quic', ...extraArgs],
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Serves `body` at `path` on the test server (same origin as the page); returns its URL. */
export function route(path, body) {
  routes.set(path, body);
  return new URL(path, server.url).href;
}

/**
 * A fresh 1280x720 page on the viewer; `problems` collects what a test must find empty. `options`
 * are extra browser.newPage options (e.g. another viewport, hasTouch).
 */
export async function openPage(t, query = '', options = {}) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, ...options });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  // Nothing may be fetched but the page itself: files are read locally and demos are generated.
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(server.url) && !u.startsWith('data:') && !u.startsWith('blob:')) problems.push(`request: ${u}`);
  });
  t.after(() => page.close());
  await page.goto(server.url + query);
  return { page, problems };
}

/**
 * Scrolls the element `selector` from top to bottom in 40 steps and returns the time of each step
 * (set scrollTop, wait two frames), sorted, with a diagnostic line: the virtualised list and grid
 * must keep the 90th percentile under 100 ms (a frame budget with room for a loaded machine).
 */
export async function scrollSteps(t, page, selector) {
  const times = await page.evaluate(async (sel) => {
    const s = document.querySelector(sel);
    const out = [];
    for (let k = 1; k <= 40; k++) {
      const t0 = performance.now();
      s.scrollTop = (s.scrollHeight * k) / 40;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      out.push(performance.now() - t0);
    }
    return out;
  }, selector);
  times.sort((a, b) => a - b);
  t.diagnostic(`${selector} scroll step (set scrollTop, two frames): median ${times[20].toFixed(1)} ms, p90 ${times[36].toFixed(1)} ms`);
  assert.ok(times[36] < 100, `90th percentile scroll step ${times[36].toFixed(1)} ms`);
  return times;
}

/**
 * Runs `act(selector)` on the toolbar control `testid`. Controls used less often sit in the
 * toolbar's menus (issue 20: HDR, Normal, View): when the control is in a closed menu, its button
 * is clicked first, and the menu is closed again (Esc) after `act`, so it covers nothing later.
 */
export async function inMenu(page, testid, act) {
  const sel = `[data-testid=${testid}]`;
  const button = await page.$eval(sel, (e) => {
    const panel = e.closest('[popover]');
    return panel && !panel.matches(':popover-open') ? `[popovertarget="${panel.id}"]` : null;
  });
  if (button) await page.click(button);
  const out = await act(sel);
  if (button) await page.keyboard.press('Escape');
  return out;
}
