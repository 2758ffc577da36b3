// Open by URL: ?src=<url> (repeatable). The only network reads the page makes besides itself are
// the URLs the address names (the CSP is narrowed to their origins before any request: see
// lib/safety.js allowSourceOrigins).
//
// A file is read as a dropped one is, by byte range: one first request here (a GET of the first
// 64 KiB with a Range header) learns the size (Content-Range) and the validators (ETag,
// Last-Modified), and the decode worker then asks the server for each range the core reads
// (lib/remote.js), checking every answer against them. A server that cannot answer ranges
// usably (it ignores Range, does not let the page read Content-Range, does not say the size) has
// the file read whole once, streamed, capped in size, with a progress bar, and the page says why.
// The bar and the Info panel count the bytes and requests of every file.
import { parseSources, urlFileName } from '../lib/share-hash.js';
import { readQuery, sourceOrigins } from '../lib/safety.js';
import { parseContentRange } from '../lib/remote.js';
import { isCancel } from './tasks.js';
import { probe } from '../probe.js';
import { fmtBytes } from '../util.js';

/**
 * The first request's range: the worker's read-ahead block (src/web/mod.rs AHEAD_BLOCK), so the
 * core's first reads (every file's sniff, a header) are served from these bytes.
 */
const FIRST = 64 * 1024;
/** A first request that fails with a 5xx, 408 or 429 is tried twice more, after 0.25 s then 1 s. */
const BACKOFF_MS = [250, 1000];

/** @typedef {import('../types').OpenFile} OpenFile */
/** @typedef {import('../types').RemoteRead} RemoteRead */

/**
 * Why a fetch failed: the browser says only "Failed to fetch". A request that does not follow
 * redirects tells a redirect (to an address the page may not fetch); a second, opaque (no-cors)
 * request to the same URL tells a server that answered but does not allow other sites to read it
 * (CORS) from one that could not be reached.
 * @param {string} url @param {Error} e
 */
async function fetchFailure(url, e) {
  if (!sourceOrigins([url]).length) {
    return `${url} could not be fetched: its host name is not a plain name or address, so the page's security policy does not allow it.`;
  }
  try {
    const r = await fetch(url, { redirect: 'manual', credentials: 'omit', referrerPolicy: 'no-referrer', cache: 'no-store' });
    if (r.type === 'opaqueredirect') {
      return `${url} could not be read: its server redirects it to another address, which this link does not name. Link the file's own address.`;
    }
  } catch { /* not a redirect this page could see */ }
  let answered = false;
  try {
    await fetch(url, { mode: 'no-cors', credentials: 'omit', referrerPolicy: 'no-referrer' });
    answered = true;
  } catch { /* not reachable either */ }
  if (answered) {
    return `${url} could not be read: its server answered but does not allow other sites to read the file (no Access-Control-Allow-Origin header). Its owner must allow it (CORS), or download the file and drop it here.`;
  }
  const mixed = location.protocol === 'https:' && url.startsWith('http:') ? ', or this https page may not fetch an http address (use https)' : '';
  return `${url} could not be fetched (${e.message}): the server could not be reached${mixed}.`;
}

/**
 * GET `url` (with `headers`), retried on a 5xx, 408 or 429 answer; a network failure throws at
 * once with what fetchFailure found out.
 * @param {string} url @param {Record<string, string>} headers @param {AbortSignal} signal
 */
async function get(url, headers, signal) {
  let status = '';
  for (let attempt = 0; attempt <= BACKOFF_MS.length; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, BACKOFF_MS[attempt - 1]));
    let res;
    try {
      res = await fetch(url, { headers, signal, credentials: 'omit', referrerPolicy: 'no-referrer', cache: 'no-store' });
    } catch (e) {
      if (isCancel(e)) throw e;
      throw new Error(await fetchFailure(url, /** @type {Error} */ (e)), { cause: e });
    }
    if (res.status < 500 && res.status !== 408 && res.status !== 429) {
      checkAnswer(url, res);
      return res;
    }
    status = `${res.status}`;
    await res.body?.cancel();
  }
  throw new Error(`${url} could not be fetched: the server answered ${status} ${BACKOFF_MS.length + 1} times.`);
}

/** What no answer about a file may be: a redirect elsewhere, a web page. @param {string} url @param {Response} res */
function checkAnswer(url, res) {
  if (res.redirected && new URL(res.url).origin !== new URL(url).origin) {
    throw new Error(`${url} could not be read: its server redirects it to ${res.url}, another site. Link the file's own address.`);
  }
  const type = res.headers.get('content-type') ?? '';
  if (res.ok && /^text\/html\b/i.test(type)) {
    throw new Error(`${url} could not be read: the server answered with a web page (${type}), not the file. Is the link to the file itself?`);
  }
}

/**
 * The body of `res`, at most `cap` bytes, telling `onBytes(got)` as it comes.
 * @param {string} url @param {Response} res @param {number} cap @param {(got: number) => void} onBytes
 */
async function body(url, res, cap, onBytes) {
  const chunks = [];
  let got = 0;
  const reader = /** @type {ReadableStream<Uint8Array>} */ (res.body).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    got += value.length;
    if (got > cap) {
      await reader.cancel();
      throw new Error(`${url}: the server sent more than ${cap} bytes, the most this page reads of a file${cap === FIRST ? ' for its first range' : ''}.`);
    }
    chunks.push(value);
    onBytes(got);
  }
  return chunks;
}

/**
 * Reads `url` whole from `res` (an answer with the whole file) into a File, capped.
 * @param {string} url @param {Response} res @param {(got: number, total: number) => void} onBytes
 */
async function whole(url, res, onBytes) {
  const cap = probe.fetchCap;
  const total = Number(res.headers.get('content-length')) || 0;
  if (total > cap) {
    await res.body?.cancel();
    throw new Error(`${url}: ${total} bytes is more than the ${cap}-byte limit of a file read whole, and its server does not answer byte ranges.`);
  }
  const chunks = await body(url, res, cap, (got) => onBytes(got, total));
  if (total && chunks.reduce((n, c) => n + c.length, 0) !== total) {
    throw new Error(`${url}: the server sent fewer bytes than the ${total} its Content-Length promised.`);
  }
  return new File(/** @type {BlobPart[]} */ (chunks), urlFileName(url));
}

/**
 * Opens `url` for the worker: a remote file read by range when the server answers ranges usably,
 * else the file read whole (`why` says why).
 * @param {string} url @param {AbortSignal} signal
 * @param {(got: number, total: number) => void} onBytes a whole read's progress
 * @returns {Promise<{ file: OpenFile, read: RemoteRead }>}
 */
async function openUrl(url, signal, onBytes) {
  const name = urlFileName(url);
  /** @type {RemoteRead} */
  const read = { url, resolved: url, name, size: 0, bytes: 0, requests: 1, whole: null };
  const counted = (/** @type {number} */ got, /** @type {number} */ total) => { read.bytes = got; onBytes(got, total); };
  /** @param {Response} res @param {string} why */
  const readWhole = async (res, why) => {
    read.whole = why;
    const file = await whole(url, res, counted);
    read.size = file.size;
    return { file, read };
  };
  const res = await get(url, { Range: `bytes=0-${FIRST - 1}` }, signal);
  if (res.status === 200) {
    return readWhole(res, `its server ignores byte ranges (it answered 200 with the whole file${res.headers.get('content-length') ? '' : ', without saying its size'})`);
  }
  if (res.status === 416) {
    throw new Error(`${url}: the server answered 416 (range not satisfiable) to a request for its first ${FIRST} bytes: the file is empty, or the server's ranges are broken.`);
  }
  if (res.status !== 206) throw new Error(`${url} could not be fetched: the server answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}.`);
  const header = res.headers.get('content-range');
  const cr = parseContentRange(header);
  /** @param {string} why */
  const again = async (why) => {
    await res.body?.cancel();
    read.requests++;
    const full = await get(url, {}, signal);
    if (full.status !== 200) throw new Error(`${url}: the server answered ${full.status} to a request for the whole file.`);
    return readWhole(full, why);
  };
  if (header === null) {
    return again('its server does not let other sites read the Content-Range header (Access-Control-Expose-Headers), so the file\'s size is not known');
  }
  if (!cr || cr.start !== 0 || cr.end >= FIRST || (cr.total >= 0 && cr.end >= cr.total)) {
    await res.body?.cancel();
    throw new Error(`${url}: the server answered the request for bytes 0-${FIRST - 1} with the wrong range (Content-Range: ${header}).`);
  }
  if (cr.total < 0) return again('its server does not say the file\'s size (Content-Range ends in /*)');
  if (cr.total > Number.MAX_SAFE_INTEGER) throw new Error(`${url}: the server says the file has ${cr.total} bytes, more than this page can address.`);
  const chunks = await body(url, res, FIRST, (got) => { read.bytes = got; });
  const head = new Uint8Array(await new Blob(/** @type {BlobPart[]} */ (chunks)).arrayBuffer());
  if (head.length !== cr.end + 1) {
    throw new Error(`${url}: the server sent ${head.length} bytes where its Content-Range promised ${cr.end + 1}.`);
  }
  read.size = cr.total;
  read.resolved = res.url || url;
  // A file no bigger than the first range came whole.
  if (head.length === cr.total) return { file: new File([head], name), read };
  const file = {
    remote: /** @type {const} */ (true), url: read.resolved, name, size: cr.total,
    etag: res.headers.get('etag'), lastModified: res.headers.get('last-modified'), head,
  };
  return { file, read };
}

/** @param {import('../types').App} app */
export function createSources(app) {
  const { store, actions } = app;

  // The workers' range requests for remote files, added to what each file has read so far.
  /** @param {[string, [number, number]][]} fetched */
  const onFetched = (fetched) => {
    const list = store.state.remote.map((r) => ({ ...r }));
    for (const [url, [bytes, requests]] of fetched) {
      const r = list.find((x) => x.url === url || x.resolved === url);
      if (r) { r.bytes += bytes; r.requests += requests; }
    }
    actions.setRemote(list);
  };
  app.client.onFetched = onFetched;
  app.pool.onFetched = onFetched;
  // The pool's workers open the same remote files: they start from what the main worker fetched.
  app.pool.seed = () => app.client.call({ op: 'remoteKept' });

  /** Fetches and opens the address's ?src= URLs (none: nothing happens). */
  async function open() {
    const { urls, rejected } = parseSources(location.search, location.href);
    if (!urls.length && !rejected.length) return;
    probe.sourcesAt = performance.now();
    actions.setSources({ urls, rejected, done: false });
    const what = `${urls.length} file${urls.length === 1 ? '' : 's'} named in the address (?src=): ${urls.join(', ')}`;
    actions.setSrcNote(`Opening ${what}. Nothing else leaves this page.`
      + (rejected.length ? ` Ignored (only http and https URLs): ${rejected.join(', ')}.` : ''));
    /** @type {{ file: OpenFile, read: RemoteRead }[]} */
    const opened = [];
    /** @type {string[]} */
    const failures = [];
    const fetchedText = () => {
      const all = [...opened.map((o) => o.read)];
      return `${fmtBytes(all.reduce((n, r) => n + r.bytes, 0))} fetched in ${all.reduce((n, r) => n + r.requests, 0)} requests`;
    };
    // The first requests (and any whole read) as a task: Cancel stops them.
    if (urls.length) await app.tasks.run(`Fetching ${urls.length === 1 ? 'the file' : `${urls.length} files`}…`, urls.length, async (task) => {
      for (let i = 0; i < urls.length; i++) {
        const step = (/** @type {number} */ got, /** @type {number} */ total) => task.step(total ? got : i, total || urls.length,
          `Fetching ${i + 1} of ${urls.length} whole: ${fmtBytes(got)}${total ? ` of ${fmtBytes(total)}` : ''}`);
        try {
          opened.push(await openUrl(urls[i], task.signal, step));
        } catch (e) {
          if (isCancel(e)) throw e;
          failures.push(/** @type {Error} */ (e).message);
        }
        task.step(i + 1, urls.length, `Fetched the first bytes of ${i + 1} of ${urls.length} files: ${fetchedText()}`);
      }
    });
    actions.setRemote(opened.map((o) => o.read));
    if (urls.length && !opened.length) throw new Error(failures.join('\n'));
    const wholeNotes = opened.filter((o) => o.read.whole).map((o) => `${o.read.url} was read whole (${fmtBytes(o.read.bytes)}): ${o.read.whole}.`);
    if (wholeNotes.length) actions.setSrcNote(`${store.state.srcNote ?? ''} ${wholeNotes.join(' ')}`);
    // A link to one texture inside a container (#…&pkg=PATH&tex=NAME, or ?texture=NAME) opens
    // that package alone: the containers' indexes are read, the other packages' headers are not
    // (src/lib.rs OpenOptions::only).
    const view = store.state.restore;
    const asked = readQuery(location.search).values.texture;
    const name = view?.texture ?? asked;
    const only = view?.path ?? name;
    const containers = opened.filter((o) => /\.(utoc|pak)$/i.test(o.file.name)).length;
    actions.setOnly(containers && only !== undefined ? only : undefined);
    // (No URL was accepted: openFiles opens nothing.)
    await app.opener.openFiles(opened.map((o) => o.file));
    if (store.state.only !== undefined) await afterNarrowed(store.state.only, name, view, containers);
    // The files that could not be read are named once the others are open (the open clears the error bar).
    if (failures.length) actions.setError(failures.join('\n'));
    actions.setSources({ urls, rejected, done: true });
    actions.setSrcNote((store.state.srcNote ?? '').replace(/^Opening/, failures.length ? 'Opened some of' : 'Opened'));
  }

  /**
   * After a link's open of package `only` alone: says so, or, when the texture `name` the link
   * names is not among what it opened, opens every package (once more, if only that package was
   * read) and says why.
   * @param {string} only @param {string | undefined} name @param {import('../types').ShareView | null} view
   * @param {number} containers how many of the files are containers
   */
  async function afterNarrowed(only, name, view, containers) {
    const s = store.state;
    const found = name === undefined || s.textures.some((t) => t.census.name === name);
    const note = (/** @type {string} */ text) => actions.setSrcNote(`${s.srcNote ?? ''} ${text}`);
    if (s.narrowed && found) {
      note(`Only ${only} was read from the container${containers === 1 ? '' : 's'}: the link names it, and the other packages were left unread.`);
      return;
    }
    const what = `The link's ${name === only ? 'texture' : 'package'} ${only}`;
    if (!s.narrowed) {
      // The core found no such package and opened every one.
      actions.setOnly(undefined);
      note(`${what} is not a package in the containers' indexes, so every package was read.`);
      return;
    }
    note(`${what} does not hold the texture ${name}, so every package is read.`);
    if ((await app.opener.widen()) && view) await app.share.apply(view).catch(() => {});
  }

  /** The ?src= fetch failed: says so where it said what it was opening. @param {Error} e */
  function failed(e) {
    actions.endProgress();
    if (isCancel(e)) {
      if (store.state.srcNote !== null) actions.setSrcNote(store.state.srcNote.replace(/^Opening/, 'Cancelled opening'));
      actions.setPhase('empty');
      actions.setStatus('Opening cancelled');
      return;
    }
    if (store.state.srcNote !== null) actions.setSrcNote(store.state.srcNote.replace(/^Opening/, 'Could not open'));
    actions.fail(e.message);
  }

  return { open, failed };
}

/** @typedef {ReturnType<typeof createSources>} Sources */
