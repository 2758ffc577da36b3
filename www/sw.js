// The service worker of the production build (dist/sw.js; the dev server registers none): the page
// keeps working with the network gone once it has been visited, which is the visible proof that
// nothing is uploaded. Written by hand, no library: scripts/precache.mjs copies this file into dist/
// with the build's list of files (path, size, SHA-256) in place of PRECACHE below.
//
// - Install: every file of the list but the two full wasm builds is fetched, checked against its
//   size and SHA-256, and stored in the cache named by the build's version. One that fails the
//   check after a second fetch fails the install: the worker in charge (or none) stays, and the
//   page keeps working from the network. The full module (plain or relaxed SIMD) is stored when
//   the page first fetches it, or when the page asks (`warm`) once it is idle after load.
// - Fetch: a listed file comes from this build's cache, checked again (size and hash: a copy cut
//   short or damaged on disk is dropped and fetched anew), else from the network (stored when it
//   matches the list). The page's address (any query) is index.html, from the cache only when
//   every file it needs is there. Hashed files (assets/) of earlier builds come from their caches
//   (a tab still running the last build loads its own files, never this build's) or the network;
//   nothing else is touched (other origins, and same-origin ?src= files read by range).
// - Updates: a new build is a new sw.js (its list changed), installed beside the running one; it
//   waits until it is told to take over: by the running worker when the only tab reloads (see
//   `takeOver`), or by the page (www/services/offline.js: the update notice's button). It then keeps
//   its own cache and that of the build that ran before it; a failed install leaves no cache.

/**
 * @typedef {{ path: string, size: number, sha256: string, lazy?: string }} Entry
 * @typedef {{ version: string, files: Entry[] }} Precache
 * @typedef {{ waitUntil(p: Promise<unknown>): void }} ExtendableEvent
 * @typedef {ExtendableEvent & { request: Request, respondWith(r: Promise<Response>): void }} FetchEvent
 * @typedef {ExtendableEvent & { data: unknown }} MessageEventLike
 */

// This file runs as a service worker; the type check reads it with the DOM's types, so the members
// of the worker scope it uses are named here with their service worker signatures.
const sw = /** @type {{
  location: Location,
  registration: { scope: string, waiting: ServiceWorker | null },
  clients: { claim(): Promise<void>, matchAll(o: { type: string, includeUncontrolled: boolean }): Promise<readonly unknown[]> },
  skipWaiting(): Promise<void>,
  addEventListener(type: string, fn: (e: any) => void): void,
}} */ (/** @type {unknown} */ (self));

// Replaced by the build (scripts/precache.mjs); the source itself precaches nothing.
const PRECACHE = /** @type {Precache} */ ({ version: 'dev', files: [] });

const PREFIX = 'texscope-';
const CACHE = PREFIX + PRECACHE.version;
/** url (no query) -> its entry */
const byUrl = new Map(PRECACHE.files.map((e) => [new URL(e.path, sw.location.href).href, e]));
const shell = PRECACHE.files.filter((e) => !e.lazy);
const INDEX = new URL('index.html', sw.location.href).href;
const SCOPE = sw.registration.scope;
// Vite's output folder for hashed files (vite.config.js: the default build.assetsDir).
const ASSETS = new URL('assets/', sw.location.href).href;
// Written into a build's cache when its worker takes over, with the time: the next build keeps the
// cache of the one that ran last (its tabs may still be open), not merely the newest one made.
const ACTIVATED = new URL('.texscope-activated', sw.location.href).href;

/** Lowercase hex SHA-256 of `buf`. @param {ArrayBuffer} buf */
async function sha256(buf) {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', buf));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * `res`'s body when it is exactly `entry`'s file, else null.
 * @param {Response} res @param {Entry} entry
 */
async function checked(res, entry) {
  if (!res.ok) return null;
  try {
    const body = await res.arrayBuffer();
    return body.byteLength === entry.size && (await sha256(body)) === entry.sha256 ? body : null;
  } catch {
    return null; // a body that broke off while read
  }
}

/** A response with `body` and `res`'s headers (a checked body is read once, then served). @param {ArrayBuffer} body @param {Response} res */
const rebuilt = (body, res) => new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });

/**
 * `entry`'s file from the network, checked; stored in this build's cache when it matches. A
 * response that does not match (a newer deployment's index.html, a cut-short transfer) is given to
 * the page as it came but not kept.
 * @param {Entry} entry @param {RequestCache} [mode]
 */
async function fromNetwork(entry, mode = 'no-cache') {
  const url = new URL(entry.path, sw.location.href).href;
  const res = await fetch(url, { cache: mode });
  const body = await checked(res.clone(), entry);
  if (!body) return { res, ok: false };
  const cache = await caches.open(CACHE);
  await cache.put(url, rebuilt(body, res));
  return { res: rebuilt(body, res), ok: true };
}

/** `entry`'s file from this build's cache, checked; a bad copy is dropped. @param {Entry} entry */
async function fromCache(entry) {
  const url = new URL(entry.path, sw.location.href).href;
  const cache = await caches.open(CACHE);
  const res = await cache.match(url);
  if (!res) return null;
  const body = await checked(res.clone(), entry);
  if (body) return rebuilt(body, res);
  await cache.delete(url);
  return null;
}

/** `entry`'s file: the cache's copy, else the network's. @param {Entry} entry */
async function serve(entry) {
  return (await fromCache(entry)) ?? (await fromNetwork(entry)).res;
}

/** Whether every file the page needs at start is in this build's cache. */
async function shellComplete() {
  const cache = await caches.open(CACHE);
  const have = new Set((await cache.keys()).map((r) => r.url));
  return shell.every((e) => have.has(new URL(e.path, sw.location.href).href));
}

/** The page: this build's index.html when the cache holds it all, else the network's. @param {Request} request */
async function page(request) {
  const entry = /** @type {Entry} */ (byUrl.get(INDEX));
  if (await shellComplete()) {
    const res = await fromCache(entry);
    if (res) return res;
  }
  try {
    return await fetch(request);
  } catch (e) {
    // Offline with an incomplete cache (a file found damaged since): this build's page still beats
    // an error page. Never another build's: its scripts name files this worker may not have.
    const res = await (await caches.open(CACHE)).match(INDEX);
    if (res) return res;
    throw e;
  }
}

// What the only tab gets when it reloads while a new build waits: a page of its own (no script or
// style of either build, no icon to fetch) that loads the address again once the new build's
// worker controls it. The reload cannot be answered with the new build directly: the waiting worker takes over only
// after this worker has finished every request it is handling, this one included.
const UPDATING = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Texscope</title>
<meta name="color-scheme" content="dark light"><link rel="icon" href="data:,"><p style="font:16px system-ui;margin:2em">Updating Texscope…</p>
<script>
let done = false;
const again = () => { if (!done) location.reload(); done = true; };
navigator.serviceWorker.addEventListener('controllerchange', again);
navigator.serviceWorker.getRegistration().then((r) => {
  if (!r?.waiting) again();
  else r.waiting.addEventListener('statechange', (e) => { if (e.target.state !== 'installed') again(); });
});
setTimeout(again, 3000);
</script>`;

// When this worker first told a waiting one to take over, by the waiting worker: one that has not
// taken over within TAKE_OVER_MS is given up on (the page's own build is served, its notice offers
// the update), so a worker that never activates cannot keep the tab updating forever.
const asked = new WeakMap();
const TAKE_OVER_MS = 10000;

/**
 * Starts the waiting build when the page is reloaded in its only tab: tells the waiting worker to
 * take over and answers with UPDATING, else null. A reload is the request a reload makes
 * (`cache: 'no-cache'`, as Chromium and Firefox send for F5 and location.reload()); a plain visit
 * (a new tab, a link) is not, as the tab already open may be the one counted. With another tab of
 * the page open (controlled or not) the update waits: that tab runs this build, and would be left
 * with a worker of another build and no way to tell.
 * @param {Request} request
 */
async function takeOver(request) {
  const waiting = sw.registration.waiting;
  if (!waiting || waiting.state !== 'installed' || request.cache !== 'no-cache') return null;
  const tabs = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  if (tabs.length > 1) return null;
  const first = asked.get(waiting) ?? Date.now();
  if (Date.now() - first > TAKE_OVER_MS) return null;
  asked.set(waiting, first);
  waiting.postMessage({ type: 'skipWaiting' });
  return new Response(UPDATING, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
}

sw.addEventListener('install', (/** @type {ExtendableEvent} */ e) => {
  if (!PRECACHE.files.length) throw new Error('sw.js without its precache list: build with vite build');
  e.waitUntil((async () => {
    // A cache of this name already there belongs to a worker with the same list (a deployment that
    // changed only sw.js itself), which may be the one in charge.
    const shared = await caches.has(CACHE);
    const cache = await caches.open(CACHE);
    const have = new Set((await cache.keys()).map((r) => r.url));
    try {
      for (const entry of shell) {
        if (have.has(new URL(entry.path, sw.location.href).href)) continue;
        // A second try past the HTTP cache, which may hold a copy cut short.
        if (!(await fromNetwork(entry)).ok && !(await fromNetwork(entry, 'reload')).ok) {
          throw new Error(`${entry.path} does not match this build's list (size ${entry.size}, SHA-256 ${entry.sha256})`);
        }
      }
    } catch (err) {
      // A file missing, wrong or cut off (the network gone mid-install): this worker is dropped and
      // the page runs from the network (or the worker in charge). The cache it was filling goes
      // too, so nothing serves from it and the browser's next try starts afresh; one it shares
      // keeps what it held before.
      if (shared) await Promise.all(shell.map((f) => new URL(f.path, sw.location.href).href).filter((u) => !have.has(u)).map((u) => cache.delete(u)));
      else await caches.delete(CACHE);
      throw err;
    }
  })());
});

sw.addEventListener('activate', (/** @type {ExtendableEvent} */ e) => {
  e.waitUntil((async () => {
    await (await caches.open(CACHE)).put(ACTIVATED, new Response(String(Date.now())));
    // Keep this build's cache and the one of the build that ran before (tabs still running it load
    // their own files from it); drop the rest, among them any a failed or replaced install left.
    // Caches of builds older than the activation mark count as activated in the order made.
    const earlier = (await caches.keys()).filter((k) => k.startsWith(PREFIX) && k !== CACHE);
    let keep = earlier[earlier.length - 1];
    let last = -1;
    for (const k of earlier) {
      const mark = await (await caches.open(k)).match(ACTIVATED);
      const at = mark ? Number(await mark.text()) : -1;
      if (at > last) [keep, last] = [k, at];
    }
    await Promise.all(earlier.filter((k) => k !== keep).map((k) => caches.delete(k)));
    await sw.clients.claim();
  })());
});

sw.addEventListener('message', (/** @type {MessageEventLike} */ e) => {
  const msg = /** @type {{ type?: string, relaxed?: boolean }} */ (e.data ?? {});
  if (msg.type === 'skipWaiting') {
    e.waitUntil(sw.skipWaiting());
  } else if (msg.type === 'warm') {
    // The page is idle after load: store the full module this browser would load.
    const entry = PRECACHE.files.find((f) => f.lazy === (msg.relaxed ? 'relaxed' : 'full'));
    if (entry) e.waitUntil((async () => { if (!(await fromCache(entry))) await fromNetwork(entry); })().catch(() => {}));
  }
});

sw.addEventListener('fetch', (/** @type {FetchEvent} */ e) => {
  const { request } = e;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== sw.location.origin) return; // ?src= URLs: the page's own business
  if (request.mode === 'navigate') {
    if (url.href.split('?')[0] === SCOPE || url.pathname === new URL(INDEX).pathname) {
      e.respondWith(takeOver(request).catch(() => null).then((res) => res ?? page(request)));
    }
    return;
  }
  const entry = byUrl.get(url.origin + url.pathname);
  if (entry && !url.search) {
    e.respondWith(serve(entry));
  } else if (url.href.startsWith(ASSETS) && !url.search) {
    // A hashed file of an earlier build (a tab still running it): that build's cache, else the network.
    e.respondWith(caches.match(request).then((res) => res ?? fetch(request)));
  }
  // Anything else (same-origin ?src= files, read by range) goes to the network untouched.
});
