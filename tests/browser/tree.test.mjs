// The texture list as a tree of paths (issue 17; www/lib/tree.js, views/textures.js): loose files
// under the folders of a folder drop, textures inside Unreal containers (the engine-cooked UE 5.8
// set of shared/samples/unreal/cue4parse-fixtures, read in place) under the container, then the
// package's folders. Folders open and close by mouse and keyboard, filters and the search keep a
// match's folders (opened), a texture picked in the tree is shown; 100,000 entries scroll as
// smoothly as the flat list (harness scrollSteps), and building the tree is timed against the flat
// list. Screenshots: test-output/tree-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OUT, SAMPLES, openPage, scrollSteps, stateWaiter } from './harness.mjs';
import { rgba8Dds } from './dds-fixtures.mjs';

const waitState = stateWaiter(60000);
const shot = (page, name) => page.screenshot({ path: join(OUT, name) });
const SET = SAMPLES && join(SAMPLES, 'unreal/cue4parse-fixtures/UE5_8');
const ZLIB = 'IoStore/Unversioned/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows';
const ANDROID = 'AndroidPak/CUE4ParseFixtures-Android-Textures.pak';
const haveSet = SET && existsSync(join(SET, `${ZLIB}.utoc`));

/** The list's rows as `depth` spaces + folder label (count) or texture name, one string each. */
const outline = (page) => page.evaluate(() => window.texscope.tree().rows.map((r) => `${' '.repeat(r.depth)}${'folder' in r
  ? `${r.open ? '-' : '+'} ${r.folder} (${r.count === r.total ? r.count : `${r.count} of ${r.total}`})` : r.texture}`));
const focused = (page) => page.evaluate(() => {
  const e = /** @type {HTMLElement} */ (document.activeElement);
  return e?.dataset.folder ?? e?.querySelector('.tex-label')?.textContent ?? e?.tagName;
});
/** Scrolls the list to its top (the virtual list builds the rows on screen only). */
const toTop = (page) => page.$eval('[data-testid=texture-list]', (s) => new Promise((r) => { s.scrollTop = 0; requestAnimationFrame(() => requestAnimationFrame(r)); }));
const folderRow = (key) => `[data-testid=texture-list] [data-folder="${key}"]`;

test('tree: folders of a drop and containers by mount path; keyboard; search and filters; selection', { skip: !haveSet && 'no UE 5.8 fixture set' }, async (t) => {
  const { page, problems } = await openPage(t);
  // A folder drop (Folder… picks `drop`; its own name is not part of the paths).
  const dir = await mkdtemp(join(tmpdir(), 'texscope-tree-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'drop', 'a', 'b'), { recursive: true });
  await writeFile(join(dir, 'drop', 'a', 'b', 'one.dds'), rgba8Dds(4, 4, 1));
  await writeFile(join(dir, 'drop', 'a', 'two.dds'), rgba8Dds(4, 4, 1));
  await writeFile(join(dir, 'drop', 'top.dds'), rgba8Dds(4, 4, 1));
  await page.setInputFiles('[data-testid=folder-input]', join(dir, 'drop'));
  await page.waitForFunction(() => window.texscope.textures().length === 3, null, { timeout: 30000 });
  await waitState(page, 'ready');
  assert.deepEqual(await outline(page), ['- a (2)', ' - b (1)', '  one', ' two', 'top']);
  assert.equal(await page.getAttribute('[data-testid=texture-list]', 'role'), 'tree');

  // Two containers (the IoStore's .utoc + .ucas, an Android .pak) join the catalog.
  await page.setInputFiles('[data-testid=file-input]', [`${ZLIB}.utoc`, `${ZLIB}.ucas`, ANDROID].map((f) => join(SET, f)));
  await page.waitForFunction(() => window.texscope.textures().length > 30, null, { timeout: 60000 });
  await waitState(page, 'ready');
  const census = await page.evaluate(() => window.texscope.textures());
  const inIo = census.filter((c) => c.file.endsWith('.utoc'));
  const inPak = census.filter((c) => c.file.endsWith('.pak'));
  assert.equal(inPak.length, 10, 'the Android pak holds 10 textures');
  assert.ok(inIo.length >= 21, `the IoStore lists its 21 fixture textures and the landscape's (${inIo.length})`);
  assert.ok(census.every((c) => c.file.endsWith('.dds') ? !c.path : c.path?.startsWith('CUE4ParseFixtures/Content/')));
  let rows = await outline(page);
  await shot(page, 'tree-containers.png');
  const pakAt = rows.indexOf('- CUE4ParseFixtures-Android-Textures.pak (10)');
  assert.ok(pakAt >= 0, rows.join('\n'));
  // One row for the folder chain inside the pak, then its textures sorted by name.
  assert.deepEqual(rows.slice(pakAt + 1, pakAt + 4), [' - CUE4ParseFixtures/Content/PlatformFixtures/Android (10)', '  T_ASTC_10x10', '  T_ASTC_12x12']);
  const ioAt = rows.indexOf(`- CUE4ParseFixtures-Minimal-Zlib-Windows.utoc (${inIo.length})`);
  assert.ok(ioAt > pakAt, rows.join('\n'));
  assert.deepEqual(rows.slice(ioAt + 1, ioAt + 3), [` - CUE4ParseFixtures/Content/Fixtures (${inIo.length})`, '  - Maps (2)']);
  const texAt = rows.indexOf(`  - Textures (${inIo.length - 2})`);
  assert.ok(texAt > ioAt && rows[texAt + 1] === '   T_Array', rows.join('\n'));
  assert.deepEqual(rows.slice(-5), ['- a (2)', ' - b (1)', '  one', ' two', 'top'], 'the loose folders follow, loose files last');
  assert.ok((await page.evaluate(() => window.texscope.list().rows)) < 60, 'rows are virtualised');

  // Keyboard: Left closes a folder, Right opens it then goes in, Up/Down move, Left goes up.
  const pakKey = 'c:CUE4ParseFixtures-Android-Textures.pak';
  await toTop(page);
  await page.focus(folderRow(pakKey));
  await page.keyboard.press('ArrowLeft');
  rows = await outline(page);
  assert.equal(rows[pakAt], '+ CUE4ParseFixtures-Android-Textures.pak (10)');
  assert.ok(!rows.includes('  T_ASTC_4x4'), 'a closed folder hides its textures');
  assert.equal(await page.getAttribute(folderRow(pakKey), 'aria-expanded'), 'false');
  assert.equal(await focused(page), pakKey, 'the focus stays on the folder row');
  await page.keyboard.press('ArrowRight');
  assert.equal((await outline(page))[pakAt], '- CUE4ParseFixtures-Android-Textures.pak (10)');
  await page.keyboard.press('ArrowRight');
  const innerKey = `${pakKey}\0CUE4ParseFixtures/Content/PlatformFixtures/Android`;
  assert.equal(await focused(page), innerKey);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(page), 'T_ASTC_12x12');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await focused(page), innerKey, 'Left on a texture goes to its folder');
  await page.keyboard.press('Enter');
  assert.equal((await outline(page))[pakAt + 1], ' + CUE4ParseFixtures/Content/PlatformFixtures/Android (10)');
  await page.keyboard.press(' ');
  assert.equal((await outline(page))[pakAt + 1], ' - CUE4ParseFixtures/Content/PlatformFixtures/Android (10)');
  // Enter on a texture row shows it (the full module decodes ASTC).
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.texscope.view()?.texture === 'T_ASTC_10x10', null, { timeout: 60000 });
  await waitState(page, 'ready');

  // The search: only matches, under their folders, opened even where the user closed them.
  await toTop(page);
  await page.click(folderRow('c:CUE4ParseFixtures-Minimal-Zlib-Windows.utoc'));
  assert.equal((await outline(page)).find((r) => r.includes('Minimal-Zlib')), `+ CUE4ParseFixtures-Minimal-Zlib-Windows.utoc (${inIo.length})`);
  await page.fill('[data-testid=filter-name]', 't_bc1');
  assert.deepEqual(await outline(page), [
    `- CUE4ParseFixtures-Minimal-Zlib-Windows.utoc (1 of ${inIo.length})`, ` - CUE4ParseFixtures/Content/Fixtures (1 of ${inIo.length})`,
    `  - Textures (1 of ${inIo.length - 2})`, '   T_BC1']);
  await shot(page, 'tree-search.png');
  // Picking the match shows it.
  await page.click('[data-testid=texture-list] .tex:not(.tree-folder)');
  await page.waitForFunction(() => window.texscope.view()?.texture === 'T_BC1', null, { timeout: 60000 });
  await waitState(page, 'ready');
  assert.equal(await page.getAttribute('[data-testid=texture-list] .tex.selected', 'aria-selected'), 'true');
  assert.deepEqual(await page.evaluate(() => window.texscope.view()).then((v) => [v.width, v.height, v.format]), [64, 64, 'BC1']);
  // The search also finds a package's path, as stored in the container and as the rows show it
  // (/Game/...): the IoStore's map holds 2 textures (the outline above: Maps (2)), the Android pak
  // textures of the pak (its census, above) under PlatformFixtures/Android; neither string is in
  // any texture's name.
  const listed = async () => (await page.evaluate(() => window.texscope.list().listed)).sort();
  await page.fill('[data-testid=filter-name]', 'Fixtures/Maps/');
  assert.deepEqual(await listed(), inIo.filter((c) => c.path.includes('/Maps/')).map((c) => c.name).sort());
  assert.equal((await listed()).length, 2);
  await page.fill('[data-testid=filter-name]', '/Game/PlatformFixtures/Android/');
  assert.deepEqual(await listed(), inPak.map((c) => c.name).sort());
  // Clearing the search gives the folders back as the user left them (the IoStore closed).
  await page.fill('[data-testid=filter-name]', '');
  rows = await outline(page);
  assert.equal(rows.find((r) => r.includes('Minimal-Zlib')), `+ CUE4ParseFixtures-Minimal-Zlib-Windows.utoc (${inIo.length})`);
  // A texture selected from elsewhere (a share link, the test API) opens its folders.
  await page.evaluate(() => window.texscope.select({ texture: 'T_BC7' }));
  rows = await outline(page);
  assert.ok(rows.includes('   T_BC7') && rows.includes(`- CUE4ParseFixtures-Minimal-Zlib-Windows.utoc (${inIo.length})`), rows.join('\n'));
  assert.equal(await page.textContent('[data-testid=texture-list] .tex.selected .tex-label'), 'T_BC7');

  // The filters count per folder and drop the folders left empty.
  const astc = inPak.find((c) => c.name === 'T_ASTC_4x4').format;
  await page.selectOption('[data-testid=filter-format]', astc);
  rows = await outline(page);
  assert.deepEqual(rows, ['- CUE4ParseFixtures-Android-Textures.pak (1 of 10)', ' - CUE4ParseFixtures/Content/PlatformFixtures/Android (1 of 10)', '  T_ASTC_4x4']);
  await page.selectOption('[data-testid=filter-format]', '');
  // The grid stays a grid of every listed texture.
  await page.click('[data-testid=mode-grid]');
  assert.equal(await page.evaluate(() => window.texscope.tree().tree), false);
  await page.click('[data-testid=mode-list]');
  assert.equal(await page.evaluate(() => window.texscope.tree().tree), true);
  await shot(page, 'tree-final.png');
  assert.deepEqual(problems, []);
});

test('tree: a single dropped file, or files at the top of a drop, stay a flat list', async (t) => {
  const { page, problems } = await openPage(t);
  const dir = await mkdtemp(join(tmpdir(), 'texscope-tree-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'one.dds'), rgba8Dds(4, 4, 1));
  await writeFile(join(dir, 'two.dds'), rgba8Dds(4, 4, 1));
  await page.setInputFiles('[data-testid=file-input]', join(dir, 'one.dds'));
  await waitState(page, 'ready');
  assert.deepEqual(await page.evaluate(() => window.texscope.tree()), { tree: false, rows: [{ depth: 0, texture: 'one' }] });
  assert.equal(await page.getAttribute('[data-testid=texture-list]', 'role'), 'listbox');
  await page.setInputFiles('[data-testid=file-input]', join(dir, 'two.dds'));
  await page.waitForFunction(() => window.texscope.textures().length === 2);
  assert.equal(await page.evaluate(() => window.texscope.tree().tree), false);
  assert.equal(await page.$$eval('[data-testid=texture-list] .tree-folder', (e) => e.length), 0);
  assert.deepEqual(problems, []);
});

// 100,000 entries as a game's containers list them: two containers, 1,000 folders of 100
// packages under Game/Content/Props/G<n>/D<nnn>, in catalog order (not by folder: the build must
// not depend on it). Made in the page (a 100,000-object argument is slow to send).
const synthSource = `(n, withPaths) => Array.from({ length: n }, (_, i) => {
  const d = String(i % 1000).padStart(3, '0');
  const name = 'T_Prop_' + String(i).padStart(6, '0');
  return {
    file: withPaths ? 'Paks/pakchunk' + (i % 2) + '-Windows.utoc' : 'pack' + (i % 10) + '.pak', name,
    path: withPaths ? 'Game/Content/Props/G' + d[0] + '/D' + d + '/' + name + '.uasset' : null,
    engine: 'unreal', format: ['BC1', 'BC7'][i % 2], width: 256, height: 256, depth: 1, slices: 1, kind: '2d', gpu_bytes: 65536,
  };
})`;
/** The tree view's summary, computed in the page: whether a tree, the row count, the first rows. */
const treeSummary = (page, first = 6) => page.evaluate((first) => {
  const t = window.texscope.tree();
  return { tree: t.tree, rows: t.rows.length, first: t.rows.slice(0, first).map((r) => r.folder ?? r.texture) };
}, first);

test('tree: 100,000 entries listed and scrolled as smoothly as the flat list', async (t) => {
  const { page, problems } = await openPage(t);
  // The time to list (filter, sort, tree, first rows) on the page's thread, flat and as a tree.
  const timeInject = (withPaths) => page.evaluate(async ([src, withPaths]) => {
    const e = (0, eval)(src)(100000, withPaths);
    const t0 = performance.now();
    window.texscope.injectList(e);
    const ms = performance.now() - t0;
    // Settle before the scroll is measured: the listing's garbage (100,000 records replaced) is
    // collected in idle time, not in the middle of the scroll steps.
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    await new Promise((r) => requestIdleCallback(() => r(0), { timeout: 2000 }));
    return ms;
  }, [synthSource, withPaths]);
  const flatMs = await timeInject(false);
  assert.equal((await treeSummary(page)).tree, false);
  await scrollSteps(t, page, '[data-testid=texture-list]');
  const treeMs = await timeInject(true);
  t.diagnostic(`listing 100,000 entries on the page's thread: flat ${flatMs.toFixed(0)} ms, tree ${treeMs.toFixed(0)} ms`);
  const view = await treeSummary(page);
  assert.equal(view.tree, true);
  // Per container: its row, Game/Content/Props (one row), G0..G9, and the 500 D folders it holds.
  assert.equal(view.rows, 1 + 2 * (1 + 1 + 10 + 500) + 100000, 'every folder row and texture row');
  assert.deepEqual(view.first, ['Paks', 'pakchunk0-Windows.utoc', 'Game/Content/Props', 'G0', 'D000', 'T_Prop_000000']);
  // Building the tree adds little to the flat list's own listing (its filter and sort): ~75 ms
  // here when the machine is quiet; the bound only catches a build that is no longer linear.
  assert.ok(treeMs < flatMs + 1000, `the tree adds ${(treeMs - flatMs).toFixed(0)} ms to listing 100,000 entries`);
  assert.ok((await page.evaluate(() => window.texscope.list().rows)) < 80, 'rows are virtualised');
  await scrollSteps(t, page, '[data-testid=texture-list]');
  const last = await page.$$eval('[data-testid=texture-list] .tex .tex-label', (els) => els.map((e) => e.textContent));
  assert.ok(last.includes('T_Prop_099999'), 'the last entry is reachable');
  await shot(page, 'tree-100000.png');
  // Closing a container (a click) lists 50,000 rows fewer, quickly.
  await toTop(page);
  const closeMs = await page.evaluate(async () => {
    const row = /** @type {HTMLElement} */ (document.querySelector('[data-testid=texture-list] [data-folder="c:Paks/pakchunk0-Windows.utoc"]'));
    const t0 = performance.now();
    row.click();
    await new Promise((r) => requestAnimationFrame(r));
    return performance.now() - t0;
  });
  t.diagnostic(`closing a folder of 50,000 textures: ${closeMs.toFixed(0)} ms`);
  assert.equal((await treeSummary(page)).rows, 1 + 1 + (1 + 1 + 10 + 500) + 50000);
  assert.ok(closeMs < 300, `closing a folder took ${closeMs.toFixed(0)} ms`);
  // The search over 100,000: the match with its folders, opened inside the closed container.
  await page.fill('[data-testid=filter-name]', 'T_Prop_042000');
  assert.deepEqual(await treeSummary(page, 10), { tree: true, rows: 6, first: ['Paks', 'pakchunk0-Windows.utoc', 'Game/Content/Props', 'G0', 'D000', 'T_Prop_042000'] });
  assert.deepEqual(problems, []);
});
