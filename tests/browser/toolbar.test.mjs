// The toolbar (issue 20): one row at 1280x720 and 1440x900, the frequent controls in it, the rest
// in three menus (HDR, Normal, View) that open, work and close from the keyboard alone. Expected
// values: the range input's step (index.html: 0.25 EV), the HDR demo's brightest value (the sun's
// 16, src/fixtures/demo.rs SUN, so auto exposure is -log2(16) = -4 EV) and the menus' option order
// in index.html.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { OUT, openPage, stateWaiter } from './harness.mjs';

const waitState = stateWaiter(30000);
const display = (page) => page.evaluate(() => window.texscope.display());

async function openDemo(page, id) {
  await page.click(`[data-testid=demo-gallery] [data-testid=demo-${id}]`);
  await waitState(page, 'ready');
}

// Every control a bar shows (the toolbar, or the header above it), with its box; and the bar's box.
const layout = (page, selector = '[data-testid=toolbar]') => page.evaluate((selector) => {
  const bar = document.querySelector(selector);
  const box = (e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height }; };
  const controls = [...bar.querySelectorAll('button, select, input, label.button, .zoom-label')]
    .filter((e) => e.getClientRects().length && !e.closest('[hidden]'))
    .map((e) => ({ id: e.id || e.dataset.testid || e.textContent, ...box(e) }));
  return { bar: box(bar), controls };
}, selector);

// One row: the bar is less than two controls high and every control's middle is on it, inside it.
function assertOneRow({ bar, controls }, w, what) {
  const tallest = Math.max(...controls.map((c) => c.height));
  assert.ok(bar.height < 2 * tallest, `${what} at ${w}: ${bar.height} px high, controls ${tallest} px`);
  const mid = (bar.top + bar.bottom) / 2;
  for (const c of controls) {
    assert.ok(Math.abs((c.top + c.bottom) / 2 - mid) <= 4, `${what} at ${w}: ${c.id} off the row (${c.top}-${c.bottom}, row middle ${mid})`);
    assert.ok(c.left >= bar.left && c.right <= Math.min(bar.right, w), `${what} at ${w}: ${c.id} outside the bar`);
  }
}

for (const [w, h] of [[1280, 720], [1440, 900]]) {
  test(`toolbar: one row at ${w}x${h}, every control inside it`, async (t) => {
    // The widest toolbars: a cube (slices, Cross) and a virtual texture (layers, Tiles).
    let page, problems;
    for (const demo of ['cubemap', 'ue5-vt', 'ue-classic']) {
      ({ page, problems } = await openPage(t, '', { viewport: { width: w, height: h }, colorScheme: 'dark' }));
      await openDemo(page, demo);
      const bars = await layout(page);
      assert.ok(bars.controls.length >= 14, `${demo}: ${bars.controls.length} controls shown`);
      assertOneRow(bars, w, `${demo}: toolbar`);
      const ids = bars.controls.map((c) => c.id);
      for (const id of ['mip', 'slice', 'zoom-fit', 'zoom-1', 'channel-r', 'channel-a', 'hdr-button', 'normal-button', 'view-button', 'compare-button', 'share', 'help-button']) {
        assert.ok(ids.includes(id), `${demo} at ${w}: ${id} in the toolbar`);
      }
      assert.ok(ids.includes(demo === 'cubemap' ? 'cube-cross' : demo === 'ue5-vt' ? 'vt-grid' : 'mip'), `${demo}: its own toggle shows`);
      // The header above it: open, Builds (issue 21), Export (issue 19), demos, the reading options.
      const header = await layout(page, 'header.bar');
      assertOneRow(header, w, `${demo}: header`);
      const inHeader = header.controls.map((c) => c.id);
      for (const id of ['builds-button', 'export-button', 'demo-button', 'frostbite-profile', 'unity-version']) {
        assert.ok(inHeader.includes(id), `${demo} at ${w}: ${id} in the header (${inHeader.join(', ')})`);
      }
      assert.deepEqual(problems, []);
    }
    // The last demo (the UE mip chain) for the screenshot: docs/img/viewer-*.png are taken from these.
    await page.screenshot({ path: join(OUT, `toolbar-${w}.png`) });
  });
}

test('toolbar menus: open, work and close from the keyboard; a click elsewhere closes them', async (t) => {
  const { page, problems } = await openPage(t, '', { colorScheme: 'dark' });
  await openDemo(page, 'hdr');
  const active = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.dataset.testid || document.activeElement?.tagName);
  const isOpen = (id) => page.$eval(`#${id}`, (e) => e.matches(':popover-open'));
  const expanded = (id) => page.getAttribute(`[data-testid=${id}]`, 'aria-expanded');
  // A menu opened from the keyboard moves the focus to its first control when it has opened (the
  // popover's toggle event, a task after the key).
  const focusMovesTo = (id) => page.waitForFunction((id) => document.activeElement?.id === id, id, { timeout: 5000 });
  for (const id of ['hdr-menu', 'normal-menu', 'view-menu']) assert.equal(await isOpen(id), false, `${id} starts closed`);

  // HDR: Enter opens it and puts the focus on its first control, the exposure slider.
  await page.focus('[data-testid=hdr-button]');
  await page.keyboard.press('Enter');
  await focusMovesTo('exposure');
  assert.equal(await isOpen('hdr-menu'), true);
  assert.equal(await expanded('hdr-button'), 'true');
  await page.keyboard.press('ArrowLeft'); // one step of the range: 0.25 EV
  assert.equal((await display(page)).exposure, -0.25);
  await page.keyboard.press('Tab');
  assert.equal(await active(), 'exposure-auto');
  await page.keyboard.press('Enter');
  assert.equal((await display(page)).exposure, -4, 'auto exposure brings the sun (16) to 1');
  await page.keyboard.press('Tab');
  assert.equal(await active(), 'tonemap');
  await page.keyboard.press('ArrowDown'); // Clamp -> Reinhard
  assert.equal((await display(page)).tonemap, 'reinhard');
  await page.keyboard.press('Tab');
  assert.equal(await active(), 'bad-overlay');
  await page.keyboard.press('Space');
  assert.equal((await display(page)).badOverlay, true);
  await page.screenshot({ path: join(OUT, 'toolbar-menu-hdr.png') });
  // Esc closes it and gives the focus back to its button, which now shows the exposure.
  await page.keyboard.press('Escape');
  assert.equal(await isOpen('hdr-menu'), false);
  assert.equal(await expanded('hdr-button'), 'false');
  assert.equal(await active(), 'hdr-button');
  assert.match(await page.textContent('[data-testid=hdr-button]'), /HDR -4 EV/);

  // Normal: the next button in the toolbar.
  await page.keyboard.press('Tab');
  assert.equal(await active(), 'normal-button');
  await page.keyboard.press('Enter');
  await focusMovesTo('normal');
  await page.keyboard.press('ArrowDown'); // Colour (off) -> XY in RG
  assert.equal((await display(page)).normal, 'rg');
  await page.keyboard.press('Tab');
  assert.equal(await active(), 'flip-green');
  await page.keyboard.press('Space');
  assert.equal((await display(page)).flipGreen, true);
  await page.keyboard.press('Escape');
  assert.equal(await isOpen('normal-menu'), false);

  // View: values, background, then the vertical flip.
  await page.keyboard.press('Tab');
  assert.equal(await active(), 'view-button');
  await page.keyboard.press('Enter');
  await focusMovesTo('colour');
  await page.keyboard.press('Tab');
  assert.equal(await active(), 'background');
  await page.keyboard.press('Tab');
  assert.equal(await active(), 'flip-y');
  await page.keyboard.press('Enter');
  assert.equal((await display(page)).flipY, true);
  await page.keyboard.press('Escape');
  assert.equal(await isOpen('view-menu'), false);
  // Each menu's button says a setting inside it is changed.
  for (const id of ['hdr-button', 'normal-button', 'view-button']) assert.equal(await page.getAttribute(`[data-testid=${id}]`, 'data-active'), 'true', id);

  // With the menus closed the shortcuts still work (focus on a toolbar button): E is +1 EV.
  await page.keyboard.press('e');
  assert.equal((await display(page)).exposure, -3);
  // A click opens a menu without taking the focus from the page; a click elsewhere closes it.
  await page.click('[data-testid=hdr-button]');
  assert.equal(await isOpen('hdr-menu'), true);
  await page.mouse.click(300, 400); // the viewport
  assert.equal(await isOpen('hdr-menu'), false);

  // Compare (issue 21) is a toolbar button too: Enter opens the compare view (the HDR demo's one
  // texture against its next mip). Esc with a menu open closes the menu only, the next Esc the
  // compare view.
  const comparing = () => page.evaluate(() => window.texscope.compare() !== null);
  await page.focus('[data-testid=compare-button]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.texscope.compare()?.figures);
  // The toolbar's zoom buttons zoom the compare view while it is open; the single view keeps its zoom.
  const zooms = () => page.evaluate(() => [window.texscope.compare().view.zoom, window.texscope.display().zoom]);
  const [z0, single] = await zooms();
  await page.click('#zoom-in');
  assert.deepEqual(await zooms(), [z0 * 2, single]);
  await page.click('[data-testid=view-button]');
  assert.equal(await isOpen('view-menu'), true);
  await page.keyboard.press('Escape');
  assert.equal(await isOpen('view-menu'), false);
  assert.equal(await comparing(), true, 'Esc in a menu leaves the compare view open');
  await page.keyboard.press('Escape');
  assert.equal(await comparing(), false);
  assert.deepEqual(problems, []);
});
