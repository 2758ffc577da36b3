// Accessibility (issue 41): axe-core (through @axe-core/playwright) finds no serious or critical
// violation on the landing page, a demo open, the compare view and the Builds dialog, at 1280x800
// and on a 390x844 phone with touch, in the dark and the light theme; and the keyboard reaches every
// control, each showing where the focus is. The expected values are the rules' own: axe's impact
// levels (its documentation: "serious" and "critical" are the two highest), and for the focus a
// visible outline of at least 1 px (WCAG 2.4.7 "Focus Visible").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { OUT, openPage, stateWaiter } from './harness.mjs';

const waitState = stateWaiter(60000);
const SIZES = [
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
  { name: 'phone', options: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true } },
];

/** The serious and critical violations axe finds on the page as it is, one line each. */
async function violations(page) {
  // Legacy mode runs axe in the page itself (no second page of the context for the results: the
  // harness's pages have a context of their own, which playwright does not let open another).
  const { violations: found } = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}${n.failureSummary ? ` (${n.failureSummary.replace(/\s+/g, ' ').slice(0, 160)})` : ''}`).join('; ')}`);
}

for (const { name, options } of SIZES) {
  for (const colorScheme of ['dark', 'light']) {
    test(`axe: no serious or critical violation, ${name}, ${colorScheme} theme: landing, a demo, compare, Builds`, async (t) => {
      const { page, problems } = await openPage(t, '', { ...options, colorScheme });
      const found = {};
      await page.waitForSelector('[data-testid=demo-gallery] .demo');
      found.landing = await violations(page);
      await page.evaluate(() => window.texscope.openDemo('ue-classic'));
      await waitState(page, 'ready');
      await page.evaluate(() => window.texscope.openDemo('hdr'));
      await waitState(page, 'ready');
      found.demo = await violations(page);
      if (name === 'phone') {
        // The phone's menu and drawers, each open in turn.
        await page.tap('[data-testid=menu-toggle]');
        found.menu = await violations(page);
        await page.tap('[data-testid=list-toggle]');
        found.list = await violations(page);
        await page.tap('[data-testid=info-toggle]');
        found.info = await violations(page);
        await page.keyboard.press('Escape');
      }
      await page.evaluate(() => window.texscope.compareOpen({ a: 'T_Bricks_D', b: 'sky_hdr' }));
      await page.waitForFunction(() => window.texscope.compare()?.state === 'ready', null, { timeout: 60000 });
      await page.click('[data-testid=compare-mode-swipe]');
      found.compare = await violations(page);
      await page.screenshot({ path: join(OUT, `a11y-${name}-${colorScheme}-compare.png`) });
      await page.keyboard.press('Escape');
      await page.evaluate(() => document.getElementById('builds-button').click());
      await page.waitForSelector('[data-testid=builds-dialog]:not([hidden])');
      found.builds = await violations(page);
      await page.screenshot({ path: join(OUT, `a11y-${name}-${colorScheme}-builds.png`) });
      for (const [view, list] of Object.entries(found)) t.diagnostic(`${view}: ${list.length ? list.join(' | ') : 'none'}`);
      assert.deepEqual(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length)), {});
      assert.deepEqual(problems, []);
    });
  }
}

// The element that has the focus: its name for messages, whether it shows, and whether the focus
// shows on it (an outline of at least 1 px that is not transparent, or a box shadow).
function focused() {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const cs = getComputedStyle(e);
  const r = e.getBoundingClientRect();
  const outline = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 1 && !/rgba\(.*,\s*0\)$|transparent/.test(cs.outlineColor);
  return {
    id: e.id || e.dataset.testid || `${e.tagName.toLowerCase()}.${e.className}`,
    shown: r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < innerWidth && r.top < innerHeight,
    ring: outline || cs.boxShadow !== 'none',
  };
}

// Every control a keyboard should reach on the page as it is: shown, enabled buttons, selects and
// fields outside closed menus; a listbox is reached through its selected row (one tab stop).
function controls() {
  return [...document.querySelectorAll('button, select, input, [tabindex="0"]')]
    .filter((e) => e.checkVisibility({ visibilityProperty: true }) && !e.disabled && !e.closest('[hidden], [popover]:not(:popover-open)'))
    .filter((e) => !e.closest('[role=listbox]'))
    .map((e) => e.id || e.dataset.testid || `${e.tagName.toLowerCase()}.${e.className}`);
}

test('keyboard: Tab reaches every control of the page with a demo open, each with a visible focus', async (t) => {
  const { page, problems } = await openPage(t, '', { viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
  await page.evaluate(() => window.texscope.openDemo('hdr'));
  await waitState(page, 'ready');
  const want = await page.evaluate(controls);
  const seen = new Set();
  const noRing = [];
  for (let i = 0; i < 4 * want.length; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(focused);
    if (!f) continue;
    if (f.shown && !f.ring) noRing.push(f.id);
    if (seen.has(f.id) && seen.size >= want.length) break;
    seen.add(f.id);
  }
  assert.deepEqual(want.filter((id) => !seen.has(id)), [], 'controls Tab never reached');
  assert.deepEqual(noRing, [], 'focused controls without a visible focus');
  // The file buttons open the file picker from the keyboard.
  const chooser = page.waitForEvent('filechooser', { timeout: 15000 });
  await page.focus('#open-files');
  await page.keyboard.press('Enter');
  assert.equal((await chooser).isMultiple(), true);
  await page.screenshot({ path: join(OUT, 'a11y-focus.png') });
  assert.deepEqual(problems, []);
});

test('keyboard: the Builds and help dialogs keep the focus inside and give it back; an arrow pins a texel; the swipe line moves with the arrows', async (t) => {
  const { page, problems } = await openPage(t, '', { viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
  const active = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.dataset.testid || document.activeElement?.tagName);
  await page.focus('[data-testid=builds-button]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=builds-dialog]:not([hidden])');
  assert.equal(await active(), 'builds-close', 'the dialog takes the focus');
  // Tab goes round the dialog's controls: Close, four file buttons, the key (Compare is disabled).
  for (let i = 0; i < 6; i++) await page.keyboard.press('Tab');
  assert.equal(await active(), 'builds-close', 'six Tabs come back to Close');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await active(), 'builds-key');
  await page.keyboard.press('Escape');
  assert.equal(await page.isHidden('[data-testid=builds-dialog]'), true);
  assert.equal(await active(), 'builds-button', 'the focus is back on the button that opened it');

  await page.evaluate(() => window.texscope.openDemo('ue-classic'));
  await waitState(page, 'ready');
  await page.evaluate(() => window.texscope.openDemo('hdr'));
  await waitState(page, 'ready');
  await page.focus('[data-testid=help-button]');
  await page.keyboard.press('Enter');
  assert.equal(await active(), 'help-close');
  await page.keyboard.press('Enter');
  assert.equal(await page.isHidden('[data-testid=help]'), true);
  assert.equal(await active(), 'help-button');

  // With nothing pinned, an arrow pins the texel at the view's centre (T_Bricks_D stays shown, 512²
  // fitted: the centre of the view is the centre of the image, texel (256, 256) or a neighbour).
  await page.evaluate(() => document.activeElement?.blur());
  assert.equal((await page.evaluate(() => window.texscope.display())).pin, null);
  await page.keyboard.press('ArrowRight');
  const pin = (await page.evaluate(() => window.texscope.display())).pin;
  assert.equal((await page.evaluate(() => window.texscope.view())).texture, 'T_Bricks_D');
  assert.ok(pin && Math.abs(pin[0] - 256) <= 1 && Math.abs(pin[1] - 256) <= 1, `pinned ${pin}`);

  await page.evaluate(() => window.texscope.compareOpen({ a: 'T_Bricks_D', b: 'sky_hdr' }));
  await page.waitForFunction(() => window.texscope.compare()?.state === 'ready', null, { timeout: 60000 });
  await page.focus('[data-testid=compare-mode-swipe]');
  await page.keyboard.press('Enter');
  await page.focus('#cmp-handle');
  const swipe = () => page.evaluate(() => window.texscope.compare().swipe);
  assert.equal(await swipe(), 0.5);
  await page.keyboard.press('ArrowRight'); // 5 % a press
  await page.keyboard.press('ArrowRight');
  assert.ok(Math.abs(await swipe() - 0.6) < 1e-9, `swipe ${await swipe()}`);
  await page.keyboard.press('Home');
  assert.equal(await swipe(), 0);
  assert.equal(await page.getAttribute('#cmp-handle', 'aria-valuenow'), '0');
  assert.deepEqual(problems, []);
});
