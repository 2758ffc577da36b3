// Issue 40 in Debian chromium: editor (uncooked) Unreal packages dropped as a project's Content/
// folder would be, read in place from shared/samples/unreal-editor. Three packages:
// - sofa_tex.uasset (RoboWorld, UE 4.22): a Texture2D whose source is a PNG stored plain at the end
//   of the file;
// - RobotRenderTarget2D.uasset (same project): a render target, which has an editor thumbnail but
//   no source art (the set holds only textures and render targets, so this stands for the
//   materials and meshes a Content/ folder holds: an asset shown by its thumbnail alone);
// - T_ColorGrid.uasset (TestBuild, UE 5.1): a TSCF_PNG source inside an Oodle FCompressedBuffer in
//   the package trailer (Oodle is in the full wasm module only, so the worker switches to it).
// Expected values and where they come from: MANIFEST.tsv (class, source format and compression,
// thumbnail kind and size, written by the set's maintainers from the packages); the sources' sizes
// from the committed originals MANIFEST.md names (sofa_tex.jpg is 626x525) and the T_ColorGrid
// package's own SizeX/SizeY (tests/unreal_editor.rs holds every source to the set); the grid's
// thumbnail sizes by lib/thumbs.js's rule (longer side scaled to 96 px, the other rounded).
// Compare: a source against itself must differ nowhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { OUT, openPage, stateWaiter, select, SAMPLES } from './harness.mjs';

const SET = join(SAMPLES, 'unreal-editor');
const ROBO = join(SET, 'Mukudori+RoboWorld_UE4.22/Content');
const FILES = [
  join(ROBO, 'MyAssets/House/sofa_tex.uasset'),
  join(ROBO, 'Blueprint/UI/RobotRenderTarget2D.uasset'),
  join(SET, 'AnimaStudios+TestBuild0.9.8/Content/_CORE/Assets/CompletedTestAssets/Materials/ColorCalibrator/T_ColorGrid.uasset'),
];

const waitState = stateWaiter(120000);
const shot = (page, name) => page.screenshot({ path: join(OUT, name) });
const api = (page, name, ...args) => page.evaluate(([n, a]) => window.texscope[n](...a), [name, args]);
const info = (page) => page.textContent('[data-testid=info]');

test('a Content/ folder of editor packages: list, grid of thumbnails, sources, Info', async (t) => {
  const { page, problems } = await openPage(t);
  await page.waitForFunction(() => window.texscope);
  await page.setInputFiles('[data-testid=file-input]', FILES);
  await page.waitForFunction(() => window.texscope.textures().length === 3, null, { timeout: 120000 });
  const list = await api(page, 'textures');
  const byName = Object.fromEntries(list.map((c, i) => [c.name, { ...c, index: i }]));
  // MANIFEST.tsv's classes.
  assert.equal(byName.sofa_tex?.class, 'Texture2D');
  assert.equal(byName.T_ColorGrid?.class, 'Texture2D');
  assert.equal(byName.RobotRenderTarget2D?.class, 'TextureRenderTarget2D');
  // The list names each asset's class.
  const metas = await page.$$eval('[data-testid=tex-meta]', (els) => els.map((e) => e.textContent));
  for (const cls of ['Texture2D', 'TextureRenderTarget2D']) assert.ok(metas.some((m) => m.includes(cls)), `${cls} in ${metas}`);

  // The grid: every asset by its editor thumbnail, the render target's too (it has no texels).
  await page.click('[data-testid=texture-list]');
  await page.keyboard.press('#');
  await page.waitForFunction(() => window.texscope.thumbs().drawn === 3, null, { timeout: 120000 });
  const th = await api(page, 'thumbs');
  assert.equal(th.grid, true);
  // MANIFEST.tsv: sofa_tex png 256x214, RobotRenderTarget2D png 256x256, T_ColorGrid jpeg 256x256;
  // scaled to 96 on the longer side: 96x80 (214 / 256 * 96 = 80.25), 96x96, 96x96.
  const size = async (name) => {
    const p = await api(page, 'thumbPixel', byName[name].index, 0, 0);
    return p && [p.width, p.height];
  };
  assert.deepEqual(await size('sofa_tex'), [96, 80]);
  assert.deepEqual(await size('RobotRenderTarget2D'), [96, 96]);
  assert.deepEqual(await size('T_ColorGrid'), [96, 96]);
  await shot(page, 'editor-grid.png');

  // A texture's source paints at its size, with its thumbnail beside it in Info.
  const v = await select(page, { texture: 'sofa_tex' });
  await waitState(page, 'ready');
  assert.deepEqual([v.width, v.height], [626, 525]);
  await page.waitForFunction(() => document.querySelector('[data-testid=info-thumbnail]')?.dataset.ready === '1', null, { timeout: 60000 });
  const c = await page.$eval('[data-testid=info-thumbnail]', (e) => [e.width, e.height]);
  assert.deepEqual(c, [256, 214]);
  const text = await info(page);
  for (const want of ['editor package', 'UE 4.22.3', 'TSF_BGRA8', 'PNG', 'end of the file']) assert.ok(text.includes(want), `Info says ${want}: ${text}`);
  await shot(page, 'editor-sofa-source.png');

  // UE 5.1: the PNG source in an Oodle-compressed trailer payload (the full module).
  const g = await select(page, { texture: 'T_ColorGrid' });
  await waitState(page, 'ready');
  // The package's SizeX / SizeY and ImportedSize: 512x512.
  assert.deepEqual([g.width, g.height], [512, 512]);
  const gtext = await info(page);
  for (const want of ['editor package', 'UE 5.1.1', 'TSF_BGRA8', 'TSCF_PNG', 'package trailer']) assert.ok(gtext.includes(want), `Info says ${want}: ${gtext}`);
  await shot(page, 'editor-colorgrid-source.png');

  // The render target: no source, said in one sentence (its record's error, which its list row
  // and grid badge carry); its thumbnail is in the grid (above).
  assert.match(byName.RobotRenderTarget2D.error, /render target/);
  await page.keyboard.press('#');
  await page.waitForFunction(() => !window.texscope.thumbs().grid);
  const rows = await page.$$eval('#texture-list .tex', (els) => els.map((e) => e.textContent));
  assert.ok(rows.some((r) => r.includes('RobotRenderTarget2D') && r.includes('render target')), rows.join('\n'));
  await shot(page, 'editor-render-target.png');

  // Compare works on sources: a source against itself differs nowhere (the same decode twice), and
  // against another source (512² against 626x525: scaled to A) gives figures.
  const waitCompare = () => page.waitForFunction(() => ['ready', 'error'].includes(window.texscope.compare()?.state), null, { timeout: 120000 });
  await page.evaluate(() => window.texscope.compareOpen({ a: 'sofa_tex', b: 'sofa_tex' }));
  await waitCompare();
  let cmp = await api(page, 'compare');
  assert.equal(cmp.error, null);
  assert.equal(cmp.figures.differing_texels, 0);
  await page.evaluate(() => window.texscope.compareOpen({ a: 'sofa_tex', b: 'T_ColorGrid' }));
  await waitCompare();
  cmp = await api(page, 'compare');
  assert.equal(cmp.error, null);
  assert.equal(cmp.plan.scaled, true);
  assert.ok(cmp.figures.differing_texels > 0);
  await shot(page, 'editor-compare.png');
  assert.deepEqual(problems, []);
});
