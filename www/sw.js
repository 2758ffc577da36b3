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
//   waits until the page asks it to take over (www/services/offline.js: the update notice's
//   button), then keeps its own cache and the previous build's only.

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
  registration: { scope: string },
  clients: { claim(): Promise<void> },
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
    // Offline with an incomplete cache: whatever copy there is beats an error page.
    const res = await caches.match(INDEX);
    if (res) return res;
    throw e;
  }
}

sw.addEventListener('install', (/** @type {ExtendableEvent} */ e) => {
  if (!PRECACHE.files.length) throw new Error('sw.js without its precache list: build with vite build');
  e.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const have = new Set((await cache.keys()).map((r) => r.url));
    for (const entry of shell) {
      if (have.has(new URL(entry.path, sw.location.href).href)) continue;
      // A second try past the HTTP cache, which may hold a copy cut short.
      if (!(await fromNetwork(entry)).ok && !(await fromNetwork(entry, 'reload')).ok) {
        throw new Error(`${entry.path} does not match this build's list (size ${entry.size}, SHA-256 ${entry.sha256})`);
      }
    }
  })());
});

sw.addEventListener('activate', (/** @type {ExtendableEvent} */ e) => {
  e.waitUntil((async () => {
    // Keep this build's cache and the newest earlier one (tabs still running that build load their
    // own files from it); drop the rest. caches.keys() lists caches in the order they were made.
    const ours = (await caches.keys()).filter((k) => k.startsWith(PREFIX) && k !== CACHE);
    await Promise.all(ours.slice(0, -1).map((k) => caches.delete(k)));
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
    if (url.href.split('?')[0] === SCOPE || url.pathname === new URL(INDEX).pathname) e.respondWith(page(request));
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
