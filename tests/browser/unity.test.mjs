// The page side of issue 4 (Unity), in Debian chromium: a player Data folder whose .resS comes
// later, bundle container paths, and the Unity version input. Expected sizes, names and decoded
// pixels come from shared/samples/unity/unitypy_census.json (UnityPy 1.25.4, an independent
// reader; rgba_sha256 is over its RGBA decode, rows top first). Container paths come from UnityPy
// 1.25.4's env.container (the census does not record them; see the test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OUT, openPage, stateWaiter, select, SAMPLES } from './harness.mjs';

const DATA = 'unity/liuruihhh_unityrenderer/Build/UnityRenderer_Data';

const waitState = stateWaiter(30000);
const textures = (page) => page.evaluate(() => window.texscope.textures());
const text = (page, id) => page.evaluate((id) => document.querySelector(`[data-testid=${id}]`)?.textContent ?? '', id);
const sample = (rel) => readFileSync(join(SAMPLES, rel));

async function drop(page, files) {
  await page.setInputFiles('[data-testid=file-input]', files.map(([name, buffer]) => ({ name, mimeType: 'application/octet-stream', buffer })));
}

/** UnityPy's census record of texture `name` in sample file `rel` (path under unity/). */
function censusOf(rel, name) {
  const census = JSON.parse(readFileSync(join(SAMPLES, 'unity/unitypy_census.json'), 'utf8'));
  const file = census.find((e) => e.file === rel);
  assert.ok(file, `unitypy_census.json has no ${rel}`);
  const t = file.textures.find((x) => x.name === name);
  assert.ok(t, `unitypy_census.json has no ${name} in ${rel}`);
  return t;
}

/** Each list row as {name, badge, detail, containerPath}. */
const rows = (page) => page.evaluate(() => [...document.querySelectorAll('[data-testid=texture-list] [data-index]')].map((r) => ({
  name: r.querySelector('.tex-label')?.textContent,
  badge: r.querySelector('.badge')?.textContent,
  detail: r.querySelector('[data-testid=tex-state]')?.textContent,
  containerPath: r.dataset.containerPath,
})));

async function waitRow(page, name, badge) {
  await page.waitForFunction(([name, badge]) => [...document.querySelectorAll('[data-testid=texture-list] [data-index]')]
    .some((r) => r.querySelector('.tex-label')?.textContent === name && r.querySelector('.badge')?.textContent === badge),
  [name, badge], { timeout: 30000 });
}

/** sha256 of the shown image's RGBA bytes, rows top first, read texel by texel through pixel(). */
async function shownSha256(page) {
  const bytes = await page.evaluate(() => {
    const v = window.texscope.view();
    const out = [];
    for (let y = 0; y < v.height; y++) for (let x = 0; x < v.width; x++) out.push(...window.texscope.pixel(x, y));
    return out;
  });
  return createHash('sha256').update(Buffer.from(bytes)).digest('hex');
}

test('a Unity Data folder dropped without its .resS waits for it, then paints when it comes', async (t) => {
  const { page, problems } = await openPage(t);
  await drop(page, [['level0', sample(`${DATA}/level0`)], ['sharedassets0.assets', sample(`${DATA}/sharedassets0.assets`)]]);
  // UnityPy: UISprite and sphere-alpha-map stream from sharedassets0.assets.resS, level0's cubemap from level0.resS.
  const ui = censusOf(`${DATA.slice('unity/'.length)}/sharedassets0.assets`, 'UISprite');
  const sphere = censusOf(`${DATA.slice('unity/'.length)}/sharedassets0.assets`, 'sphere-alpha-map');
  assert.equal(ui.stream.path, 'sharedassets0.assets.resS');
  assert.equal(sphere.stream.path, 'sharedassets0.assets.resS');
  await waitRow(page, 'UISprite', 'waiting');
  await waitRow(page, 'sphere-alpha-map', 'waiting');
  for (const r of (await rows(page)).filter((r) => r.name === 'UISprite' || r.name === 'sphere-alpha-map')) {
    assert.equal(r.detail, 'waiting for sharedassets0.assets.resS', r.name);
  }
  await page.screenshot({ path: join(OUT, 'unity-waiting-ress.png') });

  // The .resS alone, afterwards.
  await drop(page, [['sharedassets0.assets.resS', sample(`${DATA}/sharedassets0.assets.resS`)]]);
  await waitRow(page, 'UISprite', 'ready');
  await waitRow(page, 'sphere-alpha-map', 'ready');
  // level0's cubemap still wants its own .resS.
  const cube = (await rows(page)).find((r) => r.detail?.includes('level0.resS'));
  assert.ok(cube, 'the level0 cubemap still waits for level0.resS');

  const v = await select(page, { texture: 'UISprite' });
  assert.deepEqual([v.width, v.height], [ui.width, ui.height]);
  assert.ok(await page.evaluate(() => window.texscope.pixel(0, 0)));
  // RGBA32 is stored uncompressed, so our decode equals UnityPy's byte for byte.
  assert.equal(ui.format, 'RGBA32');
  assert.equal(await shownSha256(page), ui.rgba_sha256);

  const s = await select(page, { texture: 'sphere-alpha-map' });
  assert.deepEqual([s.width, s.height], [sphere.width, sphere.height]);
  assert.equal((await page.evaluate(([w, h]) => window.texscope.pixel(w - 1, h - 1), [sphere.width, sphere.height]))?.length, 4);
  await page.screenshot({ path: join(OUT, 'unity-ress-ready.png') });
  assert.deepEqual(problems, []);
});

test('a bundle\'s container paths show on its rows', async (t) => {
  const { page, problems } = await openPage(t);
  const rel = 'keijiro_AssetBundleTest/AssetBundles/iOS/bundle002';
  await drop(page, [['bundle002', sample(`unity/${rel}`)]]);
  // unitypy_census.json lists the textures but records no container paths; these are UnityPy
  // 1.25.4's `UnityPy.load(bundle002).container` keys for the Texture2D objects (path ids
  // 7586698629480249417 and 8222658129364085796).
  const want = { Image004: 'assets/images/image004.png', Image005: 'assets/images/image005.png' };
  for (const name of Object.keys(want)) censusOf(rel, name);
  await waitRow(page, 'Image004', 'ready');
  await waitRow(page, 'Image005', 'ready');
  const got = Object.fromEntries((await rows(page)).map((r) => [r.name, r.containerPath]));
  assert.deepEqual(got, want);
  assert.deepEqual(problems, []);
});

test('the Unity version input re-opens files that record none', async (t) => {
  const { page, problems } = await openPage(t);
  // As tests/cli.rs unity_version_option_reads_files_that_say_none: the version string blanked.
  const data = Buffer.from(sample(`${DATA}/sharedassets0.assets`));
  const at = data.indexOf('2021.1.28f1c1');
  assert.ok(at > 0);
  data.write('0.0.000000000', at, 'latin1');
  await drop(page, [['sharedassets0.assets', data], ['sharedassets0.assets.resS', sample(`${DATA}/sharedassets0.assets.resS`)]]);
  await page.waitForFunction(() => window.texscope.textures().length || !document.querySelector('[data-testid=error]').hidden, null, { timeout: 30000 });
  const usable = (list) => list.filter((c) => c.width && !c.error);
  assert.deepEqual(usable(await textures(page)), [], 'nothing usable without a version');

  // Not a version: a message, and nothing changes.
  await page.fill('[data-testid=unity-version]', 'latest');
  await page.dispatchEvent('[data-testid=unity-version]', 'change');
  await page.waitForFunction(() => /not a Unity version/.test(document.querySelector('[data-testid=error]').textContent), null, { timeout: 30000 });
  assert.match(await text(page, 'error'), /"latest" is not a Unity version/);
  assert.equal(await page.inputValue('[data-testid=unity-version]'), '');

  // The version the file said before blanking; UnityPy: UISprite is 32x32.
  const ui = censusOf(`${DATA.slice('unity/'.length)}/sharedassets0.assets`, 'UISprite');
  await page.fill('[data-testid=unity-version]', '2021.1.28f1c1');
  await page.dispatchEvent('[data-testid=unity-version]', 'change');
  await page.waitForFunction(() => window.texscope.textures().some((c) => c.name === 'UISprite' && c.width), null, { timeout: 30000 });
  const got = (await textures(page)).find((c) => c.name === 'UISprite');
  assert.deepEqual([got.width, got.height], [ui.width, ui.height]);
  await waitRow(page, 'UISprite', 'ready');
  const v = await select(page, { texture: 'UISprite' });
  assert.deepEqual([v.width, v.height], [32, 32]);
  assert.equal(await shownSha256(page), ui.rgba_sha256);
  await waitState(page, 'ready');
  assert.equal(await page.isHidden('[data-testid=error]'), true, 'the message about the bad version is gone');
  assert.equal(await page.inputValue('[data-testid=unity-version]'), '2021.1.28f1c1');
  await page.screenshot({ path: join(OUT, 'unity-version-set.png') });
  assert.deepEqual(problems, []);
});
