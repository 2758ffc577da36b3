// The screenshots of the page in docs/img (README, docs/page.md, docs/compare.md): the built page
// (dist/, as the browser tests serve it) in Debian chromium, dark theme, at 1280x720 and 1440x900
// with a demo open, the compare view at 1280x720, and a phone (390x844) with its menu open.
// Each is then reduced to a 256-colour PNG when Python's Pillow is there (about a third of the size;
// the page's flat colours survive it), else kept as Chromium wrote it.
//
//   npm run build && node scripts/screenshots.mjs
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../tests/browser/server.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs/img');
const SHOTS = [
  // The UE mip chain demo as it opens: the list, the toolbar, the view, the mip strip, the info.
  { name: 'viewer-1280.png', width: 1280, height: 720, demo: 'ue-classic' },
  // The UE5 virtual texture with its tile grid and a pinned texel: the inspector names the tile.
  { name: 'viewer-1440.png', width: 1440, height: 900, demo: 'ue5-vt', display: { tiles: true, pin: [200, 150] } },
  // The compare view: T_Bricks_D against layer 0 of T_Landscape_VT (the two Unreal demos), swipe
  // mode, a pinned texel (the inspector's A, B and B - A).
  {
    name: 'compare.png', width: 1280, height: 720, demo: 'ue-classic',
    async prepare(page) {
      await page.evaluate(() => window.texscope.openDemo('ue5-vt'));
      await page.waitForFunction(() => document.body.dataset.state === 'ready');
      await page.evaluate(() => window.texscope.compareOpen({ a: 'T_Bricks_D', b: 'T_Landscape_VT' }));
      await page.click('[data-testid=compare-mode-swipe]');
      await page.click('[data-testid=compare-pane-a]', { position: { x: 300, y: 300 } });
    },
  },
  // A phone (390x844, touch) with the menu open: the header's tools and the toolbar as one sheet
  // at the bottom, the texture above it.
  {
    name: 'phone.png', width: 390, height: 844, demo: 'ue-classic', options: { hasTouch: true, isMobile: true },
    async prepare(page) {
      await page.tap('[data-testid=menu-toggle]');
    },
  },
];

mkdirSync(OUT, { recursive: true });
const server = await serve(join(ROOT, 'dist'));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  for (const s of SHOTS) {
    const page = await browser.newPage({ viewport: { width: s.width, height: s.height }, colorScheme: 'dark', ...s.options });
    await page.goto(server.url);
    await page.click(`[data-testid=demo-gallery] [data-testid=demo-${s.demo}]`);
    await page.waitForFunction(() => document.body.dataset.state === 'ready');
    if (s.display) await page.evaluate((d) => window.texscope.setDisplay(d), s.display);
    if (s.prepare) await s.prepare(page);
    if (!s.options?.hasTouch) await page.mouse.move(0, s.height - 1); // no hover highlight
    const path = join(OUT, s.name);
    await page.screenshot({ path });
    await page.close();
    const raw = statSync(path).size;
    const py = spawnSync('python3', ['-c', `
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert('RGB')
im.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(sys.argv[1], optimize=True)
`, path]);
    console.log(`${path}: ${raw} bytes${py.status === 0 ? ` -> ${statSync(path).size} (256 colours)` : ' (Pillow not found: kept as taken)'}`);
  }
} finally {
  await browser.close();
  await server.close();
}
