// What the page accepts from its address (issue 9): query / share-link parameters are checked here
// and a bad one is dropped with a sentence for the user, never thrown. Values are only ever used
// as numbers, as ids from a fixed list, as text (textContent), or, for `src`, as an http(s) URL.
//
//   ?demo=ID        open a demo (one of the gallery's ids)
//   ?texture=NAME   then select the texture of that name
//   ?mip=N          then that mip (0-16: 2^16 texels is more than any engine allows per side)
//   ?slice=N        then that slice (0-65535)
//   ?profile=NAME   the Frostbite format profile (checked by the core against its table)
//   ?src=URL        fetch one file from an http(s) URL and open it (the page's CSP lets only this
//                   server and the origins named by ?src= answer: see allowSourceOrigins)

const MAX_VALUE = 2048;
/** @type {Record<'mip' | 'slice', number>} */
const LIMITS = { mip: 16, slice: 65535 };

/**
 * Reads `search` (location.search). Returns `{ values, messages }`: `values` holds only the
 * parameters that passed their check; `messages` says, per parameter dropped, why.
 * @param {unknown} search @param {{ demos?: string[] }} [options]
 */
export function readQuery(search, { demos = [] } = {}) {
  /** @type {{ demo?: string, texture?: string, mip?: number, slice?: number, profile?: string }} */
  const values = {};
  /** @type {string[]} */
  const messages = [];
  let params;
  try {
    params = new URLSearchParams(String(search ?? ''));
  } catch {
    return { values, messages: ['The address could not be read; its parameters were ignored.'] };
  }
  const seen = new Set();
  for (const [key, raw] of params) {
    const shownKey = clip(key, 40);
    if (seen.has(key) && key !== 'src') { // src= repeats: one file per URL
      messages.push(`The parameter “${shownKey}” was given twice; the first value was used.`);
      continue;
    }
    seen.add(key);
    if (raw.length > MAX_VALUE) {
      messages.push(`The parameter “${shownKey}” is longer than ${MAX_VALUE} characters and was ignored.`);
      continue;
    }
    switch (key) {
      case 'mip':
      case 'slice': {
        const n = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
        if (Number.isInteger(n) && n <= LIMITS[key]) values[key] = n;
        else messages.push(`${key}=${clip(raw, 40)} was ignored: it must be a whole number from 0 to ${LIMITS[key]}.`);
        break;
      }
      case 'demo':
        if (demos.includes(raw)) values.demo = raw;
        else messages.push(`There is no demo “${clip(raw, 40)}”; the demos are ${demos.join(', ')}.`);
        break;
      case 'texture':
        if (raw.length) values.texture = raw;
        break;
      case 'profile':
        if (/^[A-Za-z0-9._-]{1,64}$/.test(raw)) values.profile = raw;
        else messages.push(`profile=${clip(raw, 40)} was ignored: it is not a profile name.`);
        break;
      case 'src': {
        const url = httpUrl(raw);
        // Accepted URLs are opened by services/sources.js (share-hash.js parseSources reads them again).
        if (!url) messages.push(`src=${clip(raw, 60)} was ignored: only http: and https: addresses can be opened.`);
        break;
      }
      default:
        messages.push(`The unknown parameter “${shownKey}” was ignored.`);
    }
  }
  return { values, messages };
}

/** `raw` resolved against the page as an http(s) URL string, or null for any other scheme. */
/** @param {string} raw */
export function httpUrl(raw) {
  let url;
  try {
    url = new URL(raw, globalThis.location?.href);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

/** @param {unknown} s @param {number} n */
function clip(s, n) {
  const t = String(s);
  return t.length > n ? `${t.slice(0, n)}…` : t;
}

// Connections (issue 7, open by URL). index.html's own policy allows connect-src 'self' plus any
// http(s) origin, and before any request is made main.js calls allowSourceOrigins, which adds a
// second policy naming only 'self' and the origins of the address's ?src= URLs. A browser enforces
// every policy of a page (CSP3 §"Multiple policies"), so what may be fetched is the intersection:
// this server and exactly the origins the user named. Without ?src= that is 'self' alone, as before.
// A script injected later cannot widen it (policies only ever add restrictions), and the worker
// fetches only its own wasm. The page fetches those URLs with GET and credentials: 'omit'.
const ORIGIN = /^https?:\/\/[a-z0-9.-]{1,253}(:\d{1,5})?$/;

/**
 * The origins to allow for `urls` (http(s) URL strings): each URL's origin, kept only if it is a
 * plain scheme://host[:port] (a host holding other characters, such as ';', could end the CSP
 * directive; such a URL stays blocked and the fetch error says so).
 * @param {string[]} urls
 */
export function sourceOrigins(urls) {
  /** @type {string[]} */
  const out = [];
  for (const u of urls) {
    let o;
    try { o = new URL(u).origin; } catch { continue; }
    if (ORIGIN.test(o) && !out.includes(o)) out.push(o);
  }
  return out;
}

/** Adds the connect-src policy for `urls` (see above); returns the policy text. @param {string[]} urls */
export function allowSourceOrigins(urls) {
  const policy = ["connect-src 'self' ws://127.0.0.1:* ws://localhost:*", ...sourceOrigins(urls)].join(' ');
  const meta = document.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = policy;
  meta.dataset.testid = 'csp-sources';
  document.head.append(meta);
  return policy;
}
