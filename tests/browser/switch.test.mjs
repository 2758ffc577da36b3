// The page side of issue 32 (Switch), in Debian chromium: a Unity Switch atlas stored block-linear
// is untiled in the page (Info says its layout; texels equal UnityPy 1.25.4's decode within 1, the
// expected values read from UnityPy at test time), and the Platform menu re-opens files with the
// chosen console's layout and back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OUT, openPage, stateWaiter, select, SAMPLES } from './harness.mjs';

const waitState = stateWaiter(60000);
const FOXIARY = join(SAMPLES, 'console/switch/Foxiary+unlogical-vi-patch/romfs/Data/sharedassets16.assets');
const NAME = 'sactx-0-1024x2048-ASTC 4x4-PassWord-289d7772';
const info = (page) => page.evaluate(() => document.querySelector('[data-testid=info]')?.textContent ?? '');
/** The census record of texture `name`. */
const record = (page, name) => page.evaluate((n) => window.texscope.textures().find((c) => c.name === n), name);

/** UnityPy 1.25.4's RGBA of the atlas (rows top first), or null (with a note) without UnityPy. */
function unitypyRgba() {
  const out = join(mkdtempSync(join(tmpdir(), 'texscope-switch-')), 'atlas.rgba');
  const py = `import sys, UnityPy
env = UnityPy.load(sys.argv[1])
t = [o.read() for o in env.objects if o.type.name == 'Texture2D'][0]
open(sys.argv[2], 'wb').write(t.image.convert('RGBA').tobytes())`;
  try {
    execFileSync('python3', ['-c', py, FOXIARY, out]);
  } catch (e) {
    if (process.env.CI === 'true') throw e;
    console.log(`*** SKIPPED the UnityPy comparison: python3 with UnityPy 1.25.4 is not available (${e.message.split('\n')[0]}) ***`);
    return null;
  }
  return readFileSync(out);
}

test('a Switch Unity atlas is untiled: Info says its layout, texels equal UnityPy\'s', async (t) => {
  const { page, problems } = await openPage(t);
  await page.setInputFiles('[data-testid=file-input]', [{ name: 'sharedassets16.assets', mimeType: 'application/octet-stream', buffer: readFileSync(FOXIARY) }]);
  await page.waitForFunction((n) => window.texscope.textures().some((c) => c.name === n), NAME, { timeout: 60000 });
  const c = await record(page, NAME);
  assert.deepEqual([c.platform, c.tiling], ['switch', 'block_linear']);
  const v = await select(page, { texture: NAME });
  assert.deepEqual([v.width, v.height], [1024, 2048]);
  await waitState(page, 'ready');
  assert.match(await info(page), /Switch block-linear, block height 16/);
  const want = unitypyRgba();
  if (want) {
    // A grid of 48 x 96 texels over the whole atlas (pixel() reads texel by texel).
    const got = await page.evaluate(() => {
      const out = [];
      for (let y = 5; y < 2048; y += 21) for (let x = 3; x < 1024; x += 21) out.push([x, y, ...window.texscope.pixel(x, y)]);
      return out;
    });
    let max = 0;
    for (const [x, y, ...rgba] of got) {
      for (let k = 0; k < 4; k++) max = Math.max(max, Math.abs(rgba[k] - want[(y * 1024 + x) * 4 + k]));
    }
    assert.ok(max <= 1, `shown texels differ from UnityPy's by up to ${max}`);
  }
  await page.screenshot({ path: join(OUT, 'switch-atlas.png') });
  assert.deepEqual(problems, []);
});

test('the Platform menu re-opens files with the chosen console\'s layout', async (t) => {
  const { page, problems } = await openPage(t);
  // T_Bricks_D (src/fixtures/demo.rs): a loose Unreal package that says no platform.
  await page.evaluate(() => window.texscope.openDemo('ue-classic'));
  await waitState(page, 'ready');
  const before = await record(page, 'T_Bricks_D');
  assert.deepEqual([before.platform, before.tiling], [null, 'linear']);
  await page.selectOption('[data-testid=platform]', 'switch');
  await page.waitForFunction(() => window.texscope.textures().find((c) => c.name === 'T_Bricks_D')?.tiling === 'block_linear', null, { timeout: 60000 });
  const chosen = await record(page, 'T_Bricks_D');
  assert.equal(chosen.platform, 'switch');
  await select(page, { texture: 'T_Bricks_D' });
  await page.waitForFunction(() => /Switch block-linear, block height \d+/.test(document.querySelector('[data-testid=info]')?.textContent ?? ''), null, { timeout: 60000 });
  await page.selectOption('[data-testid=platform]', '');
  await page.waitForFunction(() => window.texscope.textures().find((c) => c.name === 'T_Bricks_D')?.tiling === 'linear', null, { timeout: 60000 });
  assert.deepEqual(problems, []);
});
