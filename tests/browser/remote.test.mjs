// Open by URL from other origins (issue 7): ?src= may name a file on another server. The page's
// policy lets it fetch exactly the origins named in ?src= (www/lib/safety.js allowSourceOrigins), and
// says clearly when the other server does not allow cross-origin reads (CORS) or cannot be reached.
// Expected texels come from the fixture's own rule (tests/browser/dds-fixtures.mjs, built byte by
// byte from Microsoft's DDS_HEADER documentation).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { OUT, openPage, stateWaiter } from './harness.mjs';
import { rgba8Dds, rgba8Texel } from './dds-fixtures.mjs';

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
