// Renders the app icons (public/icons/*.png, committed) from the two SVGs drawn for Texscope
// (public/icons/icon.svg: rounded, for "any"; icon-maskable.svg: full bleed for launchers that cut
// their own shape) with the Debian Chromium the browser tests use. Run again after changing an SVG:
//   node scripts/icons.mjs
// Sizes: 192 and 512 are the two Chrome and Edge ask of an installable manifest; 180 is the
// apple-touch-icon iOS uses on the home screen; 32 is the tab's icon where SVG icons are not used.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const DIR = resolve(import.meta.dirname, '../public/icons');
const OUT = [
  ['icon.svg', 32, 'icon-32.png'],
  ['icon.svg', 180, 'apple-touch-icon.png'],
  ['icon.svg', 192, 'icon-192.png'],
  ['icon.svg', 512, 'icon-512.png'],
  ['icon-maskable.svg', 192, 'maskable-192.png'],
  ['icon-maskable.svg', 512, 'maskable-512.png'],
];

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  for (const [svg, size, png] of OUT) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    const data = `data:image/svg+xml;base64,${readFileSync(join(DIR, svg)).toString('base64')}`;
    await page.setContent(`<style>html,body{margin:0;background:transparent}</style><img src="${data}" width="${size}" height="${size}">`);
    await page.waitForFunction(() => document.images[0].complete);
    writeFileSync(join(DIR, png), await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }));
    await page.close();
    console.log(`${png}: ${size}x${size} from ${svg}`);
  }
} finally {
  await browser.close();
}
