// The page's safety bullets of issue 9, and the Frostbite profile chooser of issue 6, in Debian
// chromium. Expected texels come from the .dds fixtures (tests/browser/dds-fixtures.mjs, built from
// the DDS definition); expected format names from Frosty's enum dumps in
// shared/samples/frostbite/renderformat/*.tsv; expected sentences from the examples of issue 9.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { OUT, openPage, stateWaiter, select, SAMPLES } from './harness.mjs';
import { rgba8Dds, rgba8Texel, bc1Dds, bc1Expected } from './dds-fixtures.mjs';

const ROOT = resolve(import.meta.dirname, '../..');

const waitState = stateWaiter(30000);
const pixel = (page, x, y) => page.evaluate(([x, y]) => window.texscope.pixel(x, y), [x, y]);
const view = (page) => page.evaluate(() => window.texscope.view());
const text = (page, id) => page.evaluate((id) => document.querySelector(`[data-testid=${id}]`)?.textContent ?? '', id);

async function drop(page, files) {
  await page.setInputFiles('[data-testid=file-input]', files.map(([name, buffer]) => ({ name, mimeType: 'application/octet-stream', buffer })));
}

/** Enum name at `ordinal` in a renderformat .tsv (`value<TAB>name` rows). */
function tsvName(file, ordinal) {
  const rows = readFileSync(join(SAMPLES, 'frostbite/renderformat', file), 'utf8').split('\n');
  const row = rows.map((l) => l.split('\t')).find(([v]) => v === String(ordinal));
  assert.ok(row, `${file} has no ordinal ${ordinal}`);
  return row[1];
}
const TSV_2014_4 = 'RenderFormat__StarWarsSDK_MirrorsEdgeSDK_NFS16SDK_NFSEDGESDK_PVZ2SDK.tsv';
const TSV_BF4 = 'RenderFormat__BF4SDK_BFHSDK_NFS14SDK_PVZ1SDK.tsv';

/** Bytes from a xorshift32 generator: stands in for ciphertext or any noise. */
function noise(n, seed = 0x9e3779b9) {
  const out = Buffer.alloc(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

test('Frostbite profile chooser: the same ordinal reads as another format after switching', async (t) => {
  const { page, problems } = await openPage(t);
  // One option per enum table dumped in renderformat/ (RenderFormat x3, TextureFormat x2).
  const tables = readdirSync(join(SAMPLES, 'frostbite/renderformat')).filter((f) => /^(Render|Texture)Format__/.test(f));
  await page.waitForFunction((n) => document.querySelector('[data-testid=frostbite-profile]').options.length === n, tables.length);
  assert.equal(await page.inputValue('[data-testid=frostbite-profile]'), '2014.4');

  // The Frostbite demo's header says ordinal 18 (src/fixtures/demo.rs).
  await page.click('[data-testid=demo-gallery] [data-testid=demo-frostbite-cas]');
  await waitState(page, 'ready');
  const census = async () => (await page.evaluate(() => window.texscope.textures()))[0];
  assert.equal(tsvName(TSV_2014_4, 18), 'RenderFormat_R8G8B8A8_UNORM');
  assert.equal((await census()).native_format, 'RenderFormat_R8G8B8A8_UNORM');
  assert.equal((await view(page)).format, 'RGBA8');

  // BF4's enum has R32F at 18: same bytes (4 per texel), another meaning.
  assert.equal(tsvName(TSV_BF4, 18), 'RenderFormat_R32F');
  await page.selectOption('[data-testid=frostbite-profile]', 'bf4');
  await page.waitForFunction(() => window.texscope.view()?.format === 'R32F', null, { timeout: 30000 });
  assert.equal((await census()).native_format, 'RenderFormat_R32F');
  assert.match(await text(page, 'texture-list'), /R32F/, 'the list shows the new format name');
  assert.match(await text(page, 'info'), /RenderFormat_R32F/);
  await page.screenshot({ path: join(OUT, 'frostbite-profile-bf4.png') });

  await page.selectOption('[data-testid=frostbite-profile]', '2014.4');
  await page.waitForFunction(() => window.texscope.view()?.format === 'RGBA8', null, { timeout: 30000 });
  assert.deepEqual(problems, []);
});

test('file names made of HTML and script are shown as text', async (t) => {
  const { page, problems } = await openPage(t);
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  // No "/" or "\\" (both separate folders in names), so the script tag is left unclosed.
  const name = '"><img src=x onerror="window.__xss=1;alert(1)"><svg onload=alert(2)><script>alert(3)';
  await drop(page, [[`${name}.dds`, rgba8Dds(4, 4, 1)]]);
  await waitState(page, 'ready');
  assert.equal((await view(page)).texture, name);
  const shown = await page.evaluate(() => ({
    list: document.querySelector('[data-testid=texture-list]').textContent,
    info: document.querySelector('[data-testid=info]').textContent,
    injected: document.querySelectorAll('body img, body svg, body script, [onerror], [onload]').length,
    xss: window.__xss ?? null,
  }));
  assert.ok(shown.list.includes(name), shown.list);
  assert.ok(shown.info.includes(`${name}.dds`), shown.info);
  assert.equal(shown.injected, 0, 'no element came from the name');
  assert.equal(shown.xss, null);
  // The texels are still those of the fixture.
  assert.deepEqual(await pixel(page, 1, 2), rgba8Texel(1, 2, 0));
  await page.waitForTimeout(300); // an onerror/onload would have fired by now
  assert.deepEqual(dialogs, []);
  await page.screenshot({ path: join(OUT, 'html-file-name.png') });
  assert.deepEqual(problems, []);
});

test('a texture name stored inside a file, made of HTML, is shown as text', async (t) => {
  const { page, problems } = await openPage(t);
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  // The UE classic demo (src/fixtures/demo.rs) names its texture T_Bricks_D in the package's name map; an
  // HTML string of the same length (10 bytes) keeps every offset of the package valid, so the
  // export's object name becomes the HTML. The file names stay as they are (they pair the files).
  const evil = '"><u>X</u>';
  const files = await page.evaluate(() => window.texscope.demoFiles('ue-classic'));
  const patched = files.map(({ name, data }) => {
    const bytes = Buffer.from(data);
    if (name.endsWith('.uasset')) {
      const from = Buffer.from('T_Bricks_D');
      let at = bytes.indexOf(from);
      assert.ok(at >= 0, 'the demo package names T_Bricks_D');
      for (; at >= 0; at = bytes.indexOf(from, at + 1)) bytes.write(evil, at, 'latin1');
    }
    return [name, bytes];
  });
  await drop(page, patched);
  await waitState(page, 'ready');
  assert.equal((await view(page)).texture, evil);
  const shown = await page.evaluate(() => ({
    list: document.querySelector('[data-testid=texture-list]').textContent,
    info: document.querySelector('[data-testid=info]').textContent,
    injected: document.querySelectorAll('u').length,
  }));
  assert.ok(shown.list.includes(evil), shown.list);
  assert.ok(shown.info.includes(evil), shown.info);
  assert.equal(shown.injected, 0, 'no element came from the name');
  await page.screenshot({ path: join(OUT, 'html-texture-name.png') });
  assert.deepEqual(dialogs, []);
  assert.deepEqual(problems, []);
});

test('Content-Security-Policy: no inline script allowed, none present, an injected one is blocked', async (t) => {
  // The built page: every <script> loads a file; no inline handlers.
  const html = readFileSync(join(ROOT, 'dist/index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  assert.ok(scripts.length > 0);
  for (const [, attrs, body] of scripts) {
    assert.match(attrs, /\bsrc=/, `inline script: ${attrs}`);
    assert.equal(body.trim(), '');
  }
  assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'no inline event handler');
  assert.doesNotMatch(html, /javascript:/i);

  const { page, problems } = await openPage(t);
  const csp = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? '');
  const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([k, ...v]) => [k, v]));
  assert.ok(directives['script-src'], csp);
  assert.ok(!directives['script-src'].includes("'unsafe-inline'"), csp);
  assert.ok(!directives['script-src'].includes("'unsafe-eval'"), csp);
  assert.deepEqual(directives['object-src'], ["'none'"]);
  // Enforced, not only written: an inline script added to the DOM does not run.
  const result = await page.evaluate(async () => {
    const violations = [];
    document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective));
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true;';
    document.body.append(s);
    await new Promise((r) => setTimeout(r, 100));
    return { ran: window.__inlineRan ?? false, violations };
  });
  assert.equal(result.ran, false);
  assert.ok(result.violations.some((v) => v.startsWith('script-src')), JSON.stringify(result.violations));
  // That violation is reported on the console as an error; nothing else may be.
  assert.deepEqual(problems.filter((p) => !/Content Security Policy/.test(p)), []);
});

test('query parameters: bad values are ignored with a message, good ones apply', async (t) => {
  const { page, problems } = await openPage(t);
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  const base = page.url();
  const cases = [
    ['?mip=-1', /mip=-1 was ignored/],
    ['?mip=99999999999999999999', /mip=9+.* was ignored/],
    ['?slice=1e3', /slice=1e3 was ignored/],
    ['?src=javascript:alert(document.domain)', /only http: and https:/],
    ['?src=data:text/html,<script>alert(1)</script>', /only http: and https:/],
    ['?foo=bar', /unknown parameter “foo”/],
    ['?demo=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E', /There is no demo “<img src=x onerror=alert\(1\)>”/],
    ['?profile=%3Cscript%3E', /profile=<script> was ignored/],
    ['?profile=frostbite9', /no Frostbite profile “frostbite9”/],
    ['?mip=1&mip=2', /given twice/],
  ];
  for (const [query, want] of cases) {
    await page.goto(new URL(query, base).href);
    await page.waitForFunction(() => !document.querySelector('[data-testid=notice]')?.hidden && document.querySelector('[data-testid=notice]')?.textContent, null, { timeout: 20000 });
    const notice = await text(page, 'notice');
    assert.match(notice, want, query);
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'empty', query);
    assert.equal(await page.evaluate(() => document.querySelectorAll('body img').length), 0, query);
  }
  await page.screenshot({ path: join(OUT, 'query-bad.png') });

  // A share link: a demo, a mip and a profile. The HDR demo is 256x128 (src/fixtures/demo.rs), so mip 1 is 128x64.
  await page.goto(new URL('?demo=hdr&mip=1', base).href);
  await page.waitForFunction(() => window.texscope.view()?.mip === 1, null, { timeout: 30000 });
  assert.deepEqual([(await view(page)).width, (await view(page)).height], [128, 64]);
  await page.goto(new URL('?demo=frostbite-cas&profile=bf4', base).href);
  await page.waitForFunction(() => window.texscope.view()?.format === 'R32F', null, { timeout: 30000 });
  assert.equal(await page.inputValue('[data-testid=frostbite-profile]'), 'bf4');
  // A mip the texture does not have is a message, not an exception.
  await page.goto(new URL('?demo=hdr&mip=16', base).href);
  await page.waitForFunction(() => document.querySelector('[data-testid=notice]')?.textContent.includes('not there'), null, { timeout: 30000 });
  // src= with an http URL of this server that does not exist: a clear error.
  await page.goto(new URL(`?src=${encodeURIComponent(new URL('nonesuch.dds', base).href)}`, base).href);
  await waitState(page, 'error');
  assert.match(await text(page, 'error'), /nonesuch\.dds could not be fetched: the server answered 404/);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(problems.filter((p) => !p.includes('404')), []);
});

test('a drop-and-view session and a demo make no request beyond 127.0.0.1', async (t) => {
  const { page, problems } = await openPage(t);
  const urls = [];
  page.on('request', (r) => urls.push(r.url()));
  await drop(page, [['bc1.dds', bc1Dds()], ['rgba8.dds', rgba8Dds(4, 4, 2)]]);
  await waitState(page, 'ready');
  await select(page, { texture: 'rgba8', mip: 1 });
  await select(page, { texture: 'bc1', mip: 0 });
  assert.deepEqual(await pixel(page, 0, 0), bc1Expected[0]);
  await page.click('[data-testid=demo-button]');
  await page.click('#demo-menu [data-testid=demo-ue-classic]');
  // The demo's files join the open ones; the view stays where it was until another is picked.
  await page.waitForFunction(() => window.texscope.textures().some((c) => c.name === 'T_Bricks_D'), null, { timeout: 30000 });
  await waitState(page, 'ready');
  await select(page, { texture: 'T_Bricks_D', mip: 2 });
  await page.selectOption('[data-testid=frostbite-profile]', 'fifa17');
  await waitState(page, 'ready');
  for (const u of urls) {
    const url = new URL(u);
    assert.ok(url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1', u);
  }
  assert.deepEqual(problems, []);
});

test('a wasm panic in the worker is shown, the worker restarts, the files stay usable', async (t) => {
  const { page, problems } = await openPage(t);
  let workers = 0;
  page.on('worker', () => workers++);
  await drop(page, [['bc1.dds', bc1Dds()], ['rgba8.dds', rgba8Dds(4, 4, 2)]]);
  await waitState(page, 'ready');
  await page.selectOption('[data-testid=frostbite-profile]', 'bf4');
  // The re-open under the profile ends with the view ready again: the state is 'ready' before it
  // starts too, and a re-open still under way would put it back after the panic below.
  await page.waitForFunction(() => { const l = window.texscope.actions(); const i = l.lastIndexOf('setProfile'); return i >= 0 && l.indexOf('ready', i) > i; });
  await waitState(page, 'ready');
  const before = workers;
  const message = await page.evaluate(() => window.texscope.debugPanic());
  assert.match(message, /internal error/);
  assert.match(message, /debugPanic\(\) was called/, 'the panic message, not "unreachable"');
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'error');
  assert.match(await text(page, 'error'), /internal error/);
  await page.screenshot({ path: join(OUT, 'worker-panic.png') });
  // A fresh worker was started at once, with the same File objects.
  await page.waitForFunction(() => true);
  await page.waitForTimeout(200);
  assert.ok(workers > before, `a new worker was started (${workers} after ${before})`);
  const v = await select(page, { texture: 'rgba8', mip: 1 });
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'ready');
  assert.deepEqual([v.texture, v.mip, v.width], ['rgba8', 1, 2]);
  for (let y = 0; y < 2; y++) for (let x = 0; x < 2; x++) assert.deepEqual(await pixel(page, x, y), rgba8Texel(x, y, 1));
  assert.equal(await page.inputValue('[data-testid=frostbite-profile]'), 'bf4', 'the profile survives');
  // The panic hook prints the panic to the console as an error; nothing else may be.
  assert.deepEqual(problems.filter((p) => !/debugPanic|panicked|unreachable|RuntimeError/.test(p)), []);
});

test('files of no known kind say what they look like', async (t) => {
  const { page } = await openPage(t);
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), noise(64, 1)]);
  const zip = Buffer.concat([Buffer.from('504b0304', 'hex'), noise(124, 2)]);
  await drop(page, [
    ['photo.png', png],
    ['pakchunk0-WindowsNoEditor.pak', noise(512, 3)],
    ['mods.zip', zip],
    ['data_0001.bundle', noise(4096, 4)],
  ]);
  await waitState(page, 'error');
  const error = await text(page, 'error');
  // The sentences issue 9 asks for.
  assert.match(error, /photo\.png is a PNG image/);
  assert.match(error, /pakchunk0-WindowsNoEditor\.pak is a \.pak file without an Unreal pak footer/);
  assert.match(error, /mods\.zip is a ZIP archive/);
  assert.match(error, /data_0001\.bundle .*an encrypted Unity bundle/);
  await page.screenshot({ path: join(OUT, 'unknown-kinds.png') });
});

test('hundreds of unreadable files: the Not opened list shows 500 and says how many more, the good file stays usable', async (t) => {
  const { page } = await openPage(t);
  // 502 files named .dds that are 16 bytes of noise (no DDS header fits), and one good DDS.
  const bad = Array.from({ length: 502 }, (_, i) => [`bad_${String(i).padStart(3, '0')}.dds`, noise(16, i + 1)]);
  await drop(page, [['good.dds', rgba8Dds(4, 4)], ...bad]);
  await waitState(page, 'ready');
  await page.waitForSelector('#problems:not([hidden])');
  const items = await page.$$eval('#problem-list li', (li) => li.map((x) => x.textContent));
  // 500 of the 502 dropped, then the 2 left: the count comes from what this test dropped.
  assert.equal(items.length, 501);
  assert.equal(items[500], 'and 2 more');
  assert.match(items[0], /bad_\d{3}\.dds/);
  assert.equal(await page.evaluate(() => window.texscope.textures().length), 1);
});
