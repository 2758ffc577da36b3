// Open by URL: ?src=<url> (repeatable). The only network reads the page makes besides itself are
// the URLs the address names (the CSP is narrowed to their origins before any request: see
// lib/safety.js allowSourceOrigins). Each is read as a stream with a progress bar and capped in
// size (no unbounded allocation).
import { parseSources, urlFileName } from '../lib/share-hash.js';
import { sourceOrigins } from '../lib/safety.js';
import { fmtBytes } from '../util.js';

const MAX_FETCH = 2 ** 31; // bytes per file

/**
 * Fetches `url` as a File, telling `onBytes(got, total)` as it comes (total 0: unknown).
 * @param {string} url @param {(got: number, total: number) => void} onBytes
 */
async function fetchFile(url, onBytes) {
  let res;
  try {
    res = await fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer' });
  } catch (e) {
    throw new Error(await fetchFailure(url, /** @type {Error} */ (e)), { cause: e });
  }
  if (!res.ok) throw new Error(`${url} could not be fetched: the server answered ${res.status}`);
  const total = Number(res.headers.get('content-length')) || 0;
  if (total > MAX_FETCH) throw new Error(`${url}: ${total} bytes is more than the ${MAX_FETCH}-byte limit`);
  const chunks = [];
  let got = 0;
  const reader = /** @type {ReadableStream<Uint8Array>} */ (res.body).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    got += value.length;
    if (got > MAX_FETCH) throw new Error(`${url}: more than the ${MAX_FETCH}-byte limit`);
    chunks.push(value);
    onBytes(got, total);
  }
  return new File(/** @type {BlobPart[]} */ (chunks), urlFileName(url));
}

/**
 * Why a fetch failed: the browser says only "Failed to fetch". A second, opaque (no-cors) request
 * to the same URL tells a server that answered but does not allow other sites to read it (CORS)
 * from one that could not be reached.
 * @param {string} url @param {Error} e
 */
async function fetchFailure(url, e) {
  if (!sourceOrigins([url]).length) {
    return `${url} could not be fetched: its host name is not a plain name or address, so the page's security policy does not allow it.`;
  }
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

/** @param {import('../types').App} app */
export function createSources(app) {
  const { store, actions } = app;

  /** Fetches and opens the address's ?src= URLs (none: nothing happens). */
  async function open() {
    const { urls, rejected } = parseSources(location.search, location.href);
    if (!urls.length && !rejected.length) return;
    actions.setSources({ urls, rejected, done: false });
    actions.setSrcNote(`Opening ${urls.length} file${urls.length === 1 ? '' : 's'} named in the address (?src=): ${urls.join(', ')}. Nothing else leaves this page.`
      + (rejected.length ? ` Ignored (only http and https URLs): ${rejected.join(', ')}.` : ''));
    const files = [];
    for (let i = 0; i < urls.length; i++) {
      files.push(await fetchFile(urls[i], (got, total) => actions.progress(total ? got : i, total || urls.length, `Fetching ${i + 1} of ${urls.length}: ${fmtBytes(got)}${total ? ` of ${fmtBytes(total)}` : ''}`)));
    }
    actions.endProgress();
    await app.opener.openFiles(files);
    actions.setSources({ urls, rejected, done: true });
    actions.setSrcNote((store.state.srcNote ?? '').replace(/^Opening/, 'Opened'));
  }

  /** The ?src= fetch failed: says so where it said what it was opening. @param {Error} e */
  function failed(e) {
    actions.endProgress();
    if (store.state.srcNote !== null) actions.setSrcNote(store.state.srcNote.replace(/^Opening/, 'Could not open'));
    actions.fail(e.message);
  }

  return { open, failed };
}

/** @typedef {ReturnType<typeof createSources>} Sources */
