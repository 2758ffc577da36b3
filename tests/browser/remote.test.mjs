// Open by URL from other origins (issue 7): ?src= may name a file on another server. The page's
// policy lets it fetch exactly the origins named in ?src= (www/lib/safety.js allowSourceOrigins), and
// says clearly when the other server does not allow cross-origin reads (CORS) or cannot be reached.
// Expected texels come from the fixture's own rule (tests/browser/dds-fixtures.mjs, built byte by
// byte from Microsoft's DDS_HEADER documentation).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { OUT, openPage, select, stateWaiter } from './harness.mjs';
import { rgba8Dds, rgba8Texel } from './dds-fixtures.mjs';
import { rangeServer, sent } from './range-server.mjs';

const ROOT = resolve(import.meta.dirname, '../..');

const waitState = stateWaiter(30000);

// A second server on 127.0.0.1 (another port, so another origin): /cors/* sends
// Access-Control-Allow-Origin: *, /plain/* sends no CORS header.
let other;
const hits = [];
before(async () => {
  const body = rgba8Dds(4, 4, 2);
  const srv = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/cors/remote.dds') res.writeHead(200, { 'content-type': 'application/octet-stream', 'access-control-allow-origin': '*', 'content-length': body.length }).end(body);
    else if (path === '/plain/remote.dds') res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  other = { srv, port: srv.address().port, origin: `http://127.0.0.1:${srv.address().port}` };
});
after(() => new Promise((r) => other.srv.close(r)));

// Requests to the second server are the point of these tests; everything else must stay empty.
const otherThan = (problems, origin) => problems.filter((p) => !p.includes(origin) && !p.includes(`localhost:${other.port}`));

test('?src= on another origin that allows CORS opens; other origins stay blocked', async (t) => {
  const url = `${other.origin}/cors/remote.dds`;
  const { page, problems } = await openPage(t, `?src=${encodeURIComponent(url)}`);
  await waitState(page, 'ready');
  const v = await page.evaluate(() => window.texscope.view());
  assert.deepEqual([v.texture, v.width, v.height], ['remote', 4, 4]);
  assert.deepEqual(await page.evaluate(() => window.texscope.pixel(3, 2)), rgba8Texel(3, 2, 0));
  // The added policy names this page and that origin only.
  const policy = await page.getAttribute('meta[data-testid=csp-sources]', 'content');
  assert.equal(policy, `connect-src 'self' ws://127.0.0.1:* ws://localhost:* ${other.origin}`);
  // An origin nobody named (same server under another host name) is refused by the policy.
  const blocked = await page.evaluate(async (u) => {
    const seen = [];
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    let fetched = true;
    try { await fetch(u); } catch { fetched = false; }
    await new Promise((r) => setTimeout(r, 50));
    return { fetched, seen };
  }, `http://localhost:${other.port}/cors/remote.dds`);
  assert.equal(blocked.fetched, false);
  assert.ok(blocked.seen.some((s) => s.startsWith('connect-src')), JSON.stringify(blocked.seen));
  await page.screenshot({ path: join(OUT, 'remote-cors.png') });
  assert.deepEqual(otherThan(problems, other.origin), []);
});

test('?src= on a server without CORS, or one that is down: a readable error naming the URL', async (t) => {
  const url = `${other.origin}/plain/remote.dds`;
  const { page, problems } = await openPage(t, `?src=${encodeURIComponent(url)}`);
  await waitState(page, 'error');
  const msg = await page.textContent('[data-testid=error]');
  assert.ok(msg.includes(url), msg);
  assert.match(msg, /does not allow other sites to read the file \(no Access-Control-Allow-Origin header\)/);
  await page.screenshot({ path: join(OUT, 'remote-no-cors.png') });
  // Chromium logs the CORS refusal on the console; nothing else may appear.
  assert.deepEqual(otherThan(problems, other.origin).filter((p) => !/CORS policy|Failed to load resource/.test(p)), []);

  // A port nothing listens on (the second server's port after closing a third one).
  const gone = createServer();
  await new Promise((r) => gone.listen(0, '127.0.0.1', r));
  const port = gone.address().port;
  await new Promise((r) => gone.close(r));
  const down = `http://127.0.0.1:${port}/x.dds`;
  const { page: p2 } = await openPage(t, `?src=${encodeURIComponent(down)}`);
  await waitState(p2, 'error');
  const m2 = await p2.textContent('[data-testid=error]');
  assert.ok(m2.includes(down), m2);
  assert.match(m2, /the server could not be reached/);
});

test('without ?src= the page may fetch nothing but itself', async (t) => {
  const { page } = await openPage(t);
  const seen = hits.length;
  const policy = await page.getAttribute('meta[data-testid=csp-sources]', 'content');
  assert.equal(policy, "connect-src 'self' ws://127.0.0.1:* ws://localhost:*");
  const fetched = await page.evaluate(async (u) => { try { await fetch(u); return true; } catch { return false; } }, `${other.origin}/cors/remote.dds`);
  assert.equal(fetched, false, 'a CORS-enabled server is still refused when ?src= does not name it');
  assert.equal(hits.length, seen, 'the request never reached the other server');
});

// ---- Files read by range (issue 41) ----------------------------------------------------------
// A range server on another origin (range-server.mjs) counts what it sends. The container comes
// from examples/remote_fixture.rs (the project's fixture writers): 3 GiB, sparse, T_Far's blocks
// in its last 16 MiB; T_Far.mip0 holds its mip 0 as written (B, G, R, A per texel), so expected
// pixels come from the writer's input, not from a decoder. The small files are
// dds-fixtures.mjs's RGBA8 DDS (texels from the DDS_HEADER rule).
const FIXTURE_LEN = 3 * 2 ** 30;
const waitRemote = stateWaiter(120000);
const tmp = mkdtempSync(join(tmpdir(), 'texscope-remote-'));
const fx = JSON.parse(execFileSync('cargo', ['run', '--quiet', '--example', 'remote_fixture', '--', tmp, String(FIXTURE_LEN)],
  { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
// 256x256 RGBA8: 256 KiB, so its mip is read past the first request's 64 KiB.
const bigDds = rgba8Dds(256, 256, 1);
const smallDds = rgba8Dds(4, 4, 2);
let ranges;
let elsewhere;
before(async () => {
  elsewhere = await rangeServer({ 'small.dds': smallDds });
  ranges = await rangeServer({
    'Remote.utoc': join(tmp, 'Remote.utoc'), 'Remote.ucas': join(tmp, 'Remote.ucas'),
    'Spread.utoc': join(tmp, 'Spread.utoc'), 'Spread.ucas': join(tmp, 'Spread.ucas'),
    'big.dds': bigDds, 'small.dds': smallDds, 'A.pak': join(tmp, 'A.pak'), 'B.pak': join(tmp, 'B.pak'), 'Vt.pak': join(tmp, 'Vt.pak'),
  }, { elsewhere: elsewhere.origin });
});
after(async () => {
  await ranges.close();
  await elsewhere.close();
  rmSync(tmp, { recursive: true, force: true });
});
/** `?src=` for `urls`, then `hash`. */
const srcQuery = (urls, hash = '') => `?${urls.map((u) => `src=${encodeURIComponent(u)}`).join('&')}${hash}`;
/** The page's problems except the range servers' (their refusals are the point of a test). */
const besidesServers = (problems) => problems.filter((p) => !p.includes(ranges.origin) && !p.includes(elsewhere.origin)
  && !/Failed to load resource|CORS policy/.test(p));

test('a texture inside a 3 GiB remote container opens by range, reading about what a local open reads', async (t) => {
  // The local open first: the same files dropped (disk-backed Files), T_Far selected.
  const local = await openPage(t);
  await local.page.setInputFiles('[data-testid=file-input]', [join(tmp, 'Remote.utoc'), join(tmp, 'Remote.ucas')]);
  await waitRemote(local.page, 'ready');
  await select(local.page, { texture: 'T_Far', mip: 0 });
  const [localBytes, localReads] = await local.page.evaluate(() => window.texscope.readStats());

  ranges.reset();
  const urls = [`${ranges.origin}/r/Remote.utoc`, `${ranges.origin}/r/Remote.ucas`];
  const { page, problems } = await openPage(t, srcQuery(urls, '#v=1&tex=T_Far&mip=0&slice=0&ev=0&tm=clamp&z=fit'));
  // Shown, and its mip 0 painted in full (a preview of a smaller mip may come first).
  await page.waitForFunction(() => window.texscope.view()?.texture === 'T_Far' && document.body.dataset.state === 'ready'
    && window.texscope.paints().events.some((e) => e.mip === 0 && e.kind === 'full'), null, { timeout: 120000 });
  const v = await page.evaluate(() => window.texscope.view());
  assert.deepEqual([v.width, v.height, v.mip], [fx.side, fx.side, 0]);
  const net = sent(ranges, '/r/Remote');
  const [bytes, reads] = await page.evaluate(() => window.texscope.readStats());
  const remote = await page.evaluate(() => window.texscope.remote());
  console.log(`3 GiB container: local open read ${localBytes} bytes in ${localReads} reads; remote: the core read ${bytes} bytes in ${reads} reads, `
    + `the server sent ${net.bytes} bytes in ${net.requests} requests (+${net.preflights} preflights); page counted ${JSON.stringify(remote.map((r) => [r.name, r.bytes, r.requests]))}`);
  // About what a local open reads (measured: 1,680,548 bytes in 14 requests against 2,811,004
  // bytes in 48 reads locally, which also decoded T_First first; 1,680,591 bytes in 11 requests
  // once the link's package is opened alone: here the 200 other packages' headers all sit in the
  // first request's 64 KiB, so it saves requests, not bytes): bound by the local open plus, per
  // file, the first request's 64 KiB and a read-ahead block.
  assert.ok(net.bytes <= localBytes + 4 * 65536, `sent ${net.bytes}, local read ${localBytes}`);
  // What the page counted is what the server sent.
  assert.equal(remote.reduce((n, r) => n + r.bytes, 0), net.bytes);
  assert.equal(remote.reduce((n, r) => n + r.requests, 0), net.requests);
  // Pixels: the stored B, G, R, A bytes as R, G, B, A.
  const mip0 = readFileSync(join(tmp, 'T_Far.mip0'));
  const spots = [[0, 0], [fx.side - 1, fx.side - 1], [fx.side - 1, 0], [0, fx.side - 1], [123, 321], [400, 17]];
  const got = await page.evaluate((s) => s.map(([x, y]) => window.texscope.pixel(x, y)), spots);
  spots.forEach(([x, y], i) => {
    const at = (y * fx.side + x) * 4;
    assert.deepEqual(got[i], [mip0[at + 2], mip0[at + 1], mip0[at], mip0[at + 3]], `texel ${x},${y}`);
  });
  // Info says what was read of each remote file.
  const info = await page.textContent('#info');
  assert.match(info, /Remote bytes read.*Remote\.ucas: [\d.]+ (KiB|MiB) of 3072\.0 MiB in \d+ requests/);
  await page.screenshot({ path: join(OUT, 'remote-range-container.png') });
  await page.evaluate(() => [...document.querySelectorAll('#info dt')].find((d) => d.textContent === 'Remote bytes read')?.scrollIntoView());
  await page.screenshot({ path: join(OUT, 'remote-range-info.png') });
  assert.deepEqual(besidesServers(problems), []);

  // The share link made from this view reproduces it, names the URLs and no key.
  const link = new URL(await page.evaluate(() => window.texscope.shareLink()));
  assert.deepEqual(link.searchParams.getAll('src'), urls);
  const hash = new URLSearchParams(link.hash.slice(1));
  assert.deepEqual([hash.get('tex'), hash.get('mip'), hash.getAll('file'), hash.getAll('f')], ['T_Far', '0', [], []]);
});

test('servers that cannot answer ranges usably: the file is read whole once, and the page says why', async (t) => {
  for (const [mode, why] of [
    ['norange', /ignores byte ranges/],
    ['nolength', /ignores byte ranges .*without saying its size/],
    ['noexpose', /does not let other sites read the Content-Range header/],
  ]) {
    ranges.reset();
    const url = `${ranges.origin}/${mode}/big.dds`;
    const { page, problems } = await openPage(t, srcQuery([url]));
    await waitRemote(page, 'ready');
    assert.deepEqual(await page.evaluate(() => window.texscope.pixel(255, 77)), rgba8Texel(255, 77, 0), mode);
    const note = await page.textContent('#src-note');
    assert.match(note, why, `${mode}: ${note}`);
    assert.ok(note.includes(`${url} was read whole`), note);
    const net = sent(ranges, `/${mode}/`);
    // One ranged first request, then (when its answer was not the whole file) one whole read.
    assert.ok(net.requests <= 2 && net.bytes <= bigDds.length + 65536, `${mode}: ${JSON.stringify(net)}`);
    assert.deepEqual(besidesServers(problems), [], mode);
  }
  // A server without HEAD that answers ranges: read by range (the page never sends HEAD).
  ranges.reset();
  const url = `${ranges.origin}/headless/big.dds`;
  const { page } = await openPage(t, srcQuery([url]));
  await waitRemote(page, 'ready');
  assert.deepEqual(await page.evaluate(() => window.texscope.pixel(17, 200)), rgba8Texel(17, 200, 0));
  const net = sent(ranges, '/headless/');
  assert.ok(!ranges.stats.get('/headless/big.dds').ranges.includes('HEAD'));
  assert.ok(net.requests >= 2, 'the mip was read by a range request after the first');
  // A server that fails every other request: retried, then read.
  ranges.reset();
  const flaky = await openPage(t, srcQuery([`${ranges.origin}/flaky/big.dds`]));
  await waitRemote(flaky.page, 'ready');
  assert.deepEqual(await flaky.page.evaluate(() => window.texscope.pixel(200, 3)), rgba8Texel(200, 3, 0));
});

test('bad servers: a clear error naming the URL, never mixed bytes; the other files stay usable', async (t) => {
  const good = `${ranges.origin}/r/small.dds`;
  for (const [mode, what] of [
    ['wrongrange', /wrong range \(Content-Range: bytes \d+-\d+\/\d+\)/],
    ['short', /sent \d+ bytes where its Content-Range promised \d+/],
    ['r416', /416 \(range not satisfiable\)/],
    ['html', /answered with a web page \(text\/html/],
    ['changing', /changed on the server while it was being read \(its ETag was "v1", now "v2"\)/],
    ['redirect', /redirects it to another address, which this link does not name/],
  ]) {
    ranges.reset();
    const bad = `${ranges.origin}/${mode}/big.dds`;
    const { page, problems } = await openPage(t, srcQuery([bad, good]));
    // The texture list holds the good file; the bad one's error is on the page, naming its URL.
    await page.waitForFunction((u) => {
      const text = [document.querySelector('[data-testid=error]')?.textContent ?? '', ...document.querySelectorAll('#info dd, .problems, [data-testid=problems]')]
        .map((e) => (typeof e === 'string' ? e : e.textContent)).join('\n');
      return text.includes(u);
    }, bad, { timeout: 60000 }).catch(() => {});
    const shown = await page.evaluate(() => [document.querySelector('[data-testid=error]')?.textContent ?? '', document.body.innerText].join('\n'));
    assert.ok(shown.includes(bad), `${mode}: the URL is named:\n${shown.slice(0, 2000)}`);
    assert.match(shown, what, mode);
    // The good file opens and shows its own texels.
    await select(page, { texture: 'small', mip: 0 });
    assert.deepEqual(await page.evaluate(() => window.texscope.pixel(3, 2)), rgba8Texel(3, 2, 0), mode);
    assert.deepEqual(besidesServers(problems).filter((p) => !p.includes(bad)), [], mode);
    if (mode === 'changing') await page.screenshot({ path: join(OUT, 'remote-changed.png') });
  }
});

test('a body past the cap is refused while it streams', async (t) => {
  // The cap lowered for the test (probe.fetchCap reads texscopeFetchCap; it can only lower it),
  // set before the page's scripts run; the page loaded again with the ?src= link.
  const { page, problems } = await openPage(t);
  await page.addInitScript(() => { globalThis.texscopeFetchCap = 100000; });
  const url = `${ranges.origin}/nolength/big.dds`;
  await page.goto(`${new URL(page.url()).origin}/${srcQuery([url])}`);
  await waitRemote(page, 'error');
  const msg = await page.textContent('[data-testid=error]');
  assert.ok(msg.includes(url), msg);
  assert.match(msg, /more than 100000 bytes/);
  assert.deepEqual(besidesServers(problems), []);
});

test('several ?src= files pair as dropped ones do: a UE package trio, a Unity file and its .resS past 4 GiB', async (t) => {
  const d = mkdtempSync(join(tmpdir(), 'texscope-remote-pairs-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  // examples/unreal_page_fixtures.rs: a UDIM virtual texture of flat BC1 blocks whose colours it
  // prints; examples/sparse_fixture.rs: issue 8's 4.5 GiB Unity pair, the texture past 4 GiB.
  const colours = JSON.parse(execFileSync('cargo', ['run', '-q', '--example', 'unreal_page_fixtures', '--', d],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })).udim_colours;
  const sp = JSON.parse(execFileSync('cargo', ['run', '-q', '--example', 'sparse_fixture', '--', d],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  const names = ['T_Udim_Gap.uasset', 'T_Udim_Gap.uexp', 'T_Udim_Gap.ubulk', 'big.assets', 'big.resS'];
  const srv = await rangeServer(Object.fromEntries(names.map((n) => [n, join(d, n)])));
  t.after(() => srv.close());

  // The trio: BC1 flat colours expanded from RGB565 (BC1 specification), 1012 the fallback magenta.
  const trio = await openPage(t, srcQuery(names.slice(0, 3).map((n) => `${srv.origin}/r/${n}`), '#v=1&tex=T_Udim_Gap&mip=0'));
  await trio.page.waitForFunction(() => window.texscope.view()?.texture === 'T_Udim_Gap' && document.body.dataset.state === 'ready', null, { timeout: 120000 });
  const expand = (c) => { const r = (c >> 11) & 31, g = (c >> 5) & 63, b = c & 31; return [(r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)]; };
  const want = colours.map(([r, g, b]) => [...expand(((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3)), 255]);
  for (const [x, y, rgba] of [[10, 10, want[0]], [200, 60, want[1]], [60, 200, want[2]], [200, 200, [255, 0, 255, 255]]]) {
    await trio.page.waitForFunction(([x, y]) => window.texscope.pixel(x, y) !== null, [x, y]);
    assert.deepEqual(await trio.page.evaluate(([x, y]) => window.texscope.pixel(x, y), [x, y]), rgba, `(${x}, ${y})`);
  }
  assert.deepEqual(besidesServers(trio.problems).filter((p) => !p.includes(srv.origin)), []);

  // The Unity pair: header ranges and the mip past 4 GiB, rows reversed (Unity stores them bottom first).
  srv.reset();
  const unity = await openPage(t, srcQuery(names.slice(3).map((n) => `${srv.origin}/r/${n}`)));
  await unity.page.waitForFunction(() => window.texscope.view()?.texture === 'T_Fuzz' && document.body.dataset.state === 'ready', null, { timeout: 120000 });
  const net = sent(srv, '/r/big');
  assert.ok(net.bytes <= sp.assets_len + sp.mip_bytes + 4 * 65536, `sent ${net.bytes} for ${sp.assets_len} + ${sp.mip_bytes}`);
  const fd = openSync(join(d, 'big.resS'), 'r');
  const stored = Buffer.alloc(sp.mip_bytes);
  readSync(fd, stored, 0, stored.length, sp.offset);
  closeSync(fd);
  const spots = [[0, 0], [sp.side - 1, sp.side - 1], [7, 900], [1000, 3]].map(([x, y]) => [x % sp.side, y % sp.side]);
  const got = await unity.page.evaluate((s) => s.map(([x, y]) => window.texscope.pixel(x, y)), spots);
  spots.forEach(([x, y], i) => {
    const at = ((sp.side - 1 - y) * sp.side + x) * 4;
    assert.deepEqual(got[i], [...stored.subarray(at, at + 4)], `texel ${x},${y}`);
  });
  console.log(`Unity pair past 4 GiB by range: ${net.bytes} bytes in ${net.requests} requests (serialized file ${sp.assets_len}, mip ${sp.mip_bytes})`);
  assert.deepEqual(besidesServers(unity.problems).filter((p) => !p.includes(srv.origin)), []);
});

test('Cancel during a remote open stops its requests; the page stays usable', async (t) => {
  ranges.reset();
  const urls = [`${ranges.origin}/slow/Remote.utoc`, `${ranges.origin}/slow/Remote.ucas`];
  const { page, problems } = await openPage(t, srcQuery(urls));
  // The open's bar (the first requests are fast; the worker's range reads take 1.5 s each).
  await page.waitForFunction(() => /Opening/.test(document.getElementById('progress-label')?.textContent ?? '')
    && !document.getElementById('progress-cancel').hidden, null, { timeout: 60000 });
  const label = await page.textContent('#progress-label');
  assert.match(label, /fetched in \d+ requests/, label);
  await page.screenshot({ path: join(OUT, 'remote-progress.png') });
  // Cancel while the worker waits for a range (the two first requests answered at once).
  while (sent(ranges, '/slow/').requests < 3) await new Promise((r) => setTimeout(r, 50));
  const atClick = sent(ranges, '/slow/').requests;
  await page.click('#progress-cancel');
  await page.waitForFunction(() => document.getElementById('progress').hidden, null, { timeout: 10000 });
  // Chromium lets a worker ended during a synchronous request run on for up to 2 s, each request
  // failing at once; lib/remote.js then stops asking for that file, so at most one more request
  // a file may reach the server, and none after that.
  await new Promise((r) => setTimeout(r, 2500));
  const settled = sent(ranges, '/slow/').requests;
  assert.ok(settled <= atClick + urls.length, `${settled} requests after Cancel at ${atClick}: ${JSON.stringify([...ranges.stats])}`);
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(sent(ranges, '/slow/').requests, settled, 'no request once the worker ended');
  assert.equal(await page.textContent('[data-testid=status]'), 'Opening cancelled');
  assert.deepEqual(besidesServers(problems), []);
});

test('a Paks folder given as several .pak URLs opens as one, the linked texture shown first', async (t) => {
  // examples/remote_fixture.rs: A.pak holds T_PakA (BGRA8 64x64, mip 0 in its .ubulk, stored in
  // T_PakA.mip0), B.pak T_PakB. Both are smaller than the first request's 64 KiB, so each comes
  // whole in one request.
  ranges.reset();
  const { page, problems } = await openPage(t, srcQuery([`${ranges.origin}/r/A.pak`, `${ranges.origin}/r/B.pak`], '#v=1&tex=T_PakA&mip=0'));
  await page.waitForFunction(() => window.texscope.view()?.texture === 'T_PakA' && document.body.dataset.state === 'ready', null, { timeout: 60000 });
  // The link names T_PakA, so its package alone is opened (B.pak's index is read, T_PakB's
  // package is not), and the note says so.
  assert.deepEqual(await page.evaluate(() => window.texscope.textures().map((x) => x.name)), ['T_PakA']);
  assert.match(await page.textContent('#src-note'), /Only T_PakA was read from the containers/);
  const mip0 = readFileSync(join(tmp, 'T_PakA.mip0'));
  for (const [x, y] of [[0, 0], [63, 63], [5, 40]]) {
    const at = (y * 64 + x) * 4;
    assert.deepEqual(await page.evaluate(([x, y]) => window.texscope.pixel(x, y), [x, y]), [mip0[at + 2], mip0[at + 1], mip0[at], mip0[at + 3]], `texel ${x},${y}`);
  }
  assert.equal(sent(ranges, '/r/').requests, 2);
  // Every package on request: both textures, still no request (each .pak came whole at first).
  await page.click('[data-testid=src-widen]');
  await page.waitForFunction(() => window.texscope.textures().length === 2, null, { timeout: 60000 });
  assert.deepEqual(await page.evaluate(() => window.texscope.textures().map((x) => x.name).sort()), ['T_PakA', 'T_PakB']);
  assert.equal(sent(ranges, '/r/').requests, 2);
  assert.deepEqual(besidesServers(problems), []);
});

test('a link to a texture inside a remote container reads the index and that package, nothing of the other 200', async (t) => {
  // Spread.utoc/.ucas (examples/remote_fixture.rs): 3 GiB, the 200 other packages (87 KiB each)
  // spread through the file, T_Far after them from spread_far_at. Opening every package reads at
  // least the first block of each: spread_header_blocks bytes, the writer's own sum of what it
  // stored. Expected pixels: Spread_T_Far.mip0, the writer's input (B, G, R, A per texel).
  const urls = [`${ranges.origin}/r/Spread.utoc`, `${ranges.origin}/r/Spread.ucas`];
  const pkg = 'Game/Content/Far/T_Far.uasset';
  const seeFar = (page) => page.waitForFunction(() => window.texscope.view()?.texture === 'T_Far' && document.body.dataset.state === 'ready'
    && window.texscope.paints().events.some((e) => e.mip === 0 && e.kind === 'full'), null, { timeout: 120000 });
  // Ranges of the .ucas inside the other packages' part, but for the first request (0-65535),
  // which every ?src= file gets.
  const intoOthers = () => (ranges.stats.get('/r/Spread.ucas')?.ranges ?? [])
    .map((r) => r.split('-').map(Number)).filter(([a]) => a > 0 && a < fx.spread_far_at);

  // The link as the page writes it now (tex and pkg), then an older one (tex alone), then the
  // address's ?texture=: the same reads.
  for (const hash of [`#v=1&tex=T_Far&pkg=${encodeURIComponent(pkg)}&mip=0`, '#v=1&tex=T_Far&mip=0', '&texture=T_Far']) {
    ranges.reset();
    const { page, problems } = await openPage(t, srcQuery(urls, hash));
    await seeFar(page);
    const net = sent(ranges, '/r/Spread');
    console.log(`link ${hash}: ${net.bytes} bytes in ${net.requests} requests; every package's first block alone is ${fx.spread_header_blocks} bytes`);
    assert.ok(net.bytes < fx.spread_header_blocks / 4, `${hash}: sent ${net.bytes}, the other packages' first blocks are ${fx.spread_header_blocks}`);
    assert.deepEqual(intoOthers(), [], hash);
    assert.deepEqual(await page.evaluate(() => window.texscope.textures().map((x) => x.name)), ['T_Far'], hash);
    const mip0 = readFileSync(join(tmp, 'Spread_T_Far.mip0'));
    for (const [x, y] of [[0, 0], [fx.side - 1, fx.side - 1], [fx.side - 1, 0], [77, 300]]) {
      const at = (y * fx.side + x) * 4;
      assert.deepEqual(await page.evaluate(([x, y]) => window.texscope.pixel(x, y), [x, y]), [mip0[at + 2], mip0[at + 1], mip0[at], mip0[at + 3]], `${hash}: texel ${x},${y}`);
    }
    const note = await page.textContent('#src-note');
    assert.match(note, /Only (Game\/Content\/Far\/T_Far\.uasset|T_Far) was read from the container/, note);
    assert.deepEqual(besidesServers(problems), [], hash);
    if (hash.includes('pkg')) {
      await page.screenshot({ path: join(OUT, 'remote-link-one-package.png') });
      // Its share link names the package, so whoever follows it reads the same.
      const link = new URL(await page.evaluate(() => window.texscope.shareLink()));
      assert.equal(new URLSearchParams(link.hash.slice(1)).get('pkg'), pkg);
      // The rest on request: every package's header is read, T_First joins the list, the view stays.
      await page.click('[data-testid=src-widen]');
      await page.waitForFunction(() => window.texscope.textures().length === 2 && document.body.dataset.state === 'ready', null, { timeout: 120000 });
      assert.deepEqual(await page.evaluate(() => window.texscope.textures().map((x) => x.name).sort()), ['T_Far', 'T_First']);
      assert.equal(await page.evaluate(() => window.texscope.view()?.texture), 'T_Far');
      assert.ok(sent(ranges, '/r/Spread').bytes >= fx.spread_header_blocks);
      assert.equal(await page.locator('[data-testid=src-widen]').count(), 0);
    } else if (hash.startsWith('#')) {
      // Files given later open with every package, the link's container's too (a drop of the two
      // .pak files, whose paths differ from Spread's).
      await page.setInputFiles('[data-testid=file-input]', [join(tmp, 'A.pak'), join(tmp, 'B.pak')]);
      await page.waitForFunction(() => window.texscope.textures().length === 4 && document.body.dataset.state === 'ready', null, { timeout: 120000 });
      assert.deepEqual(await page.evaluate(() => window.texscope.textures().map((x) => `${x.file} ${x.name}`).sort()),
        ['A.pak T_PakA', 'B.pak T_PakB', 'Spread.utoc T_Far', 'Spread.utoc T_First']);
    }
  }

  // A link naming a texture no package is: every package is read, and the page says so.
  ranges.reset();
  const { page, problems } = await openPage(t, srcQuery(urls, '#v=1&tex=T_Nowhere&mip=0'));
  await waitRemote(page, 'ready');
  await page.waitForFunction(() => /every package was read/.test(document.getElementById('src-note')?.textContent ?? ''), null, { timeout: 60000 });
  assert.match(await page.textContent('#src-note'), /The link's texture T_Nowhere is not a package in the containers' indexes, so every package was read/);
  assert.deepEqual(await page.evaluate(() => window.texscope.textures().map((x) => x.name).sort()), ['T_Far', 'T_First']);
  assert.ok(sent(ranges, '/r/Spread').bytes >= fx.spread_header_blocks);
  assert.deepEqual(besidesServers(problems).filter((p) => !/not there/.test(p)), []);
});

test('the decode pool starts from what the page fetched: a remote .pak\'s index is asked for once, not once per pool worker', async (t) => {
  // examples/remote_fixture.rs: Vt.pak (stored) holds T_VtPak, a 2048 x 2048 virtual texture whose
  // tiles the page streams through its pool of decode workers, each of which opens the .pak too.
  // The pak index lies after the entries; the footer (pak version 12: magic 0x5A6F12E1, version,
  // then the index's offset, UE's FPakInfo) says where.
  const pak = readFileSync(join(tmp, 'Vt.pak'));
  const magic = pak.lastIndexOf(Buffer.from([0xe1, 0x12, 0x6f, 0x5a]));
  const indexAt = Number(pak.readBigUInt64LE(magic + 8));
  ranges.reset();
  // Served with Cache-Control: no-store, as many servers answer ranges: the browser's HTTP cache
  // cannot answer a pool worker's repeat of the main worker's request.
  const { page, problems } = await openPage(t, srcQuery([`${ranges.origin}/nostore/Vt.pak`]));
  await page.waitForFunction(() => window.texscope.view()?.texture === 'T_VtPak' && document.body.dataset.state === 'ready', null, { timeout: 120000 });
  await page.waitForFunction(() => window.texscope.tiles().inFlight === 0 && window.texscope.tiles().decoded > 0, null, { timeout: 120000 });
  const tiles = await page.evaluate(() => window.texscope.tiles());
  assert.ok(tiles.view && tiles.poolSize >= 2, JSON.stringify(tiles));
  const asked = ranges.stats.get('/nostore/Vt.pak').ranges.filter((r) => r !== 'OPTIONS');
  // The requests that read the footer and index (the server logs each as "start-end"): the main
  // worker's open makes them; a pool worker's open, starting from what the main worker fetched,
  // must not make them again (without that, each worker asked for the same ranges once more).
  const index = asked.filter((r) => Number(/^\d+-(\d+)$/.exec(r)?.[1] ?? -1) >= indexAt);
  const again = index.filter((r, i) => index.indexOf(r) !== i);
  t.diagnostic(`Vt.pak: ${asked.length} requests, ${index.length} in its footer and index (from ${indexAt}); ${tiles.decoded} tiles decoded by a pool of ${tiles.poolSize}`);
  assert.ok(index.length >= 1, JSON.stringify(asked));
  assert.deepEqual(again, [], `asked again: ${JSON.stringify(index)}`);
  assert.deepEqual(besidesServers(problems), []);
});
