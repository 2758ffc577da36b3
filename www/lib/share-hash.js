// The share link: the view as URL-hash parameters, and back. This is the one place that parses
// them: every value is checked and a bad one is dropped (never thrown), so a link typed by hand
// or edited by someone else cannot break the page. Kept free of DOM access so it can be tested alone.

/** @typedef {import('../types').ShareView} ShareView */

const DEMO_IDS = ['ue5-vt', 'ue-classic', 'frostbite-cas', 'hdr', 'cubemap'];
/** @type {import('../types').Tonemap[]} */
const TONEMAPS = ['clamp', 'reinhard', 'aces'];
/** @type {import('../types').Colour[]} */
const COLOURS = ['srgb', 'linear', 'gamma'];
/** @type {import('../types').NormalView[]} */
const NORMALS = ['off', 'rg', 'ag', 'ra'];
// eslint-disable-next-line no-control-regex -- the control characters are what it keeps out
const NAME = /^[^\u0000-\u001f\u007f]{1,200}$/; // any printable text, bounded
// eslint-disable-next-line no-control-regex -- as NAME: a builds' pair's path, possibly empty
const PAIR_PATH = /^[^\u0000-\u001f\u007f]{0,400}$/;
// eslint-disable-next-line no-control-regex -- as NAME: a package's path inside its container
const PACKAGE_PATH = /^[^\u0000-\u001f\u007f]{1,400}$/;
const MAX_FILES = 64;

/** @param {string | null | undefined} v @param {number} lo @param {number} hi */
const int = (v, lo, hi) => (typeof v === 'string' && /^-?\d{1,9}$/.test(v) && +v >= lo && +v <= hi ? +v : undefined);
/** @param {string | null | undefined} v @param {number} lo @param {number} hi */
const num = (v, lo, hi) => (typeof v === 'string' && /^-?\d{1,9}(\.\d{1,6})?$/.test(v) && +v >= lo && +v <= hi ? +v : undefined);
/** @template {string} T @param {string | null} v @param {readonly T[]} list @returns {T | undefined} */
const oneOf = (v, list) => (list.includes(/** @type {T} */ (v)) ? /** @type {T} */ (v) : undefined);
/** @param {string | null} v */
const flag = (v) => (v === '1' ? true : v === '0' ? false : undefined);

/** Parses a location hash ("#v=1&tex=..."); returns only the fields that passed validation. @param {unknown} hash */
export function parseShare(hash) {
  /** @type {ShareView} */
  const out = {};
  if (typeof hash !== 'string' || hash.length > 8192) return out;
  let p;
  try {
    p = new URLSearchParams(hash.replace(/^#/, ''));
  } catch {
    return out;
  }
  if (p.get('v') !== '1') return out;
  /** @template {keyof ShareView} K @param {K} k @param {ShareView[K] | undefined} v */
  const set = (k, v) => { if (v !== undefined) out[k] = v; };
  set('demo', oneOf(p.get('demo'), DEMO_IDS));
  const files = p.getAll('file').filter((f) => NAME.test(f)).slice(0, MAX_FILES);
  // f=<size>~<sha256 hex of the first and last MiB>~<name>: a local file, to check when reopened.
  const meta = [];
  for (const f of p.getAll('f').slice(0, MAX_FILES)) {
    const m = /^(\d{1,16})~([0-9a-f]{64})~(.+)$/.exec(f);
    if (m && NAME.test(m[3]) && Number.isSafeInteger(+m[1])) meta.push({ name: m[3], size: +m[1], hash: m[2] });
  }
  for (const m of meta) if (!files.includes(m.name)) files.push(m.name);
  if (meta.length) out.fileMeta = meta;
  if (files.length) out.files = files;
  const tex = p.get('tex');
  if (tex !== null && NAME.test(tex)) out.texture = tex;
  // pkg=<path>: the texture's package inside its container (census path), so a link to a file on
  // a server opens that package alone (services/sources.js); links without it open by tex.
  const pkg = p.get('pkg');
  if (pkg !== null && PACKAGE_PATH.test(pkg)) out.path = pkg;
  set('mip', int(p.get('mip'), 0, 31));
  set('slice', int(p.get('slice'), 0, 65535));
  const ch = p.get('ch');
  if (ch !== null && /^[rgba]{0,4}$/.test(ch)) out.channels = { r: ch.includes('r'), g: ch.includes('g'), b: ch.includes('b'), a: ch.includes('a') };
  set('exposure', num(p.get('ev'), -16, 16));
  set('tonemap', oneOf(p.get('tm'), TONEMAPS));
  set('colour', oneOf(p.get('cs'), COLOURS));
  set('normal', oneOf(p.get('nm'), NORMALS));
  set('flipGreen', flag(p.get('fg')));
  set('flipY', flag(p.get('fy')));
  set('badOverlay', flag(p.get('bad')));
  set('tiles', flag(p.get('tiles')));
  set('cross', flag(p.get('cross')));
  const z = p.get('z');
  if (z === 'fit') out.zoom = 'fit';
  else set('zoom', num(z, 1 / 64, 64));
  const c = (p.get('c') ?? '').split(',');
  const cx = num(c[0], -1e6, 1e6);
  const cy = num(c[1], -1e6, 1e6);
  if (c.length === 2 && cx !== undefined && cy !== undefined) out.center = [cx, cy];
  const pin = (p.get('pin') ?? '').split(',');
  const px = int(pin[0], 0, 1 << 20);
  const py = int(pin[1], 0, 1 << 20);
  if (pin.length === 2 && px !== undefined && py !== undefined) out.pin = [px, py];
  // The compare view (issue 21): cmp=1, then B (cb: its texture name, cbm: its mip, absent =
  // matched to A, cbs: its slice) or a builds' pair (cpp: path, cpn: name; A is OLD, B is NEW),
  // the mode (cm), the swipe line (cw: share of the width) and the difference (cd).
  if (p.get('cmp') === '1') {
    /** @type {import('../types').ShareCompare} */
    const cmp = {};
    /** @template {keyof import('../types').ShareCompare} K @param {K} k @param {import('../types').ShareCompare[K] | undefined} v */
    const put = (k, v) => { if (v !== undefined) cmp[k] = v; };
    const b = p.get('cb');
    if (b !== null && NAME.test(b)) cmp.b = b;
    put('bMip', int(p.get('cbm'), 0, 31));
    put('bSlice', int(p.get('cbs'), 0, 65535));
    const pp = p.get('cpp');
    const pn = p.get('cpn');
    if (pp !== null && pn !== null && PAIR_PATH.test(pp) && NAME.test(pn)) {
      cmp.pairPath = pp;
      cmp.pairName = pn;
    }
    put('mode', oneOf(p.get('cm'), ['side', 'swipe', 'flicker', 'diff']));
    put('swipe', num(p.get('cw'), 0, 1));
    put('diff', oneOf(p.get('cd'), ['max', 'channels']));
    if (cmp.b !== undefined || cmp.pairName !== undefined) out.compare = cmp;
  }
  return out;
}

const round = (/** @type {number} */ v) => String(Math.round(v * 1000) / 1000);

/** The hash for view `s` (the same field names parseShare returns). @param {ShareView} s */
export function formatShare(s) {
  const p = new URLSearchParams();
  p.set('v', '1');
  if (s.demo) p.set('demo', s.demo);
  else if (s.fileMeta?.length) for (const f of s.fileMeta) p.append('f', `${f.size}~${f.hash}~${f.name}`);
  else for (const f of s.files ?? []) p.append('file', f);
  if (s.texture !== undefined) p.set('tex', s.texture);
  if (s.path !== undefined) p.set('pkg', s.path);
  p.set('mip', String(s.mip ?? 0));
  p.set('slice', String(s.slice ?? 0));
  /** @type {Partial<import('../types').Channels>} */
  const ch = s.channels ?? {};
  p.set('ch', /** @type {const} */ (['r', 'g', 'b', 'a']).filter((k) => ch[k] !== false).join(''));
  p.set('ev', round(s.exposure ?? 0));
  p.set('tm', s.tonemap ?? 'clamp');
  if (s.colour) p.set('cs', s.colour);
  if (s.normal && s.normal !== 'off') p.set('nm', s.normal);
  if (s.flipGreen) p.set('fg', '1');
  if (s.flipY) p.set('fy', '1');
  if (s.badOverlay) p.set('bad', '1');
  if (s.tiles) p.set('tiles', '1');
  if (s.cross) p.set('cross', '1');
  p.set('z', s.zoom === 'fit' ? 'fit' : round(s.zoom ?? 1));
  if (s.center && s.zoom !== 'fit') p.set('c', `${round(s.center[0])},${round(s.center[1])}`);
  if (s.pin) p.set('pin', `${s.pin[0]},${s.pin[1]}`);
  const cmp = s.compare;
  if (cmp) {
    p.set('cmp', '1');
    if (cmp.pairName !== undefined) {
      p.set('cpp', cmp.pairPath ?? '');
      p.set('cpn', cmp.pairName);
    } else if (cmp.b !== undefined) {
      p.set('cb', cmp.b);
      if (cmp.bMip !== undefined && cmp.bMip !== null) p.set('cbm', String(cmp.bMip));
      p.set('cbs', String(cmp.bSlice ?? 0));
    }
    p.set('cm', cmp.mode ?? 'side');
    p.set('cw', round(cmp.swipe ?? 0.5));
    p.set('cd', cmp.diff ?? 'max');
  }
  return `#${p.toString()}`;
}

const MAX_SOURCES = 16;

/**
 * The `?src=<url>` parameters of a page address (repeatable): only absolute http(s) URLs without
 * user name or password, at most 2048 characters each and 16 in all. Returns {urls, rejected}
 * with the rejected values (for the page to name them). Relative URLs resolve against `base`.
 * @param {unknown} search @param {string} base
 */
export function parseSources(search, base) {
  /** @type {{ urls: string[], rejected: string[] }} */
  const out = { urls: [], rejected: [] };
  if (typeof search !== 'string' || search.length > 40000) return out;
  let p;
  try {
    p = new URLSearchParams(search.replace(/^\?/, ''));
  } catch {
    return out;
  }
  for (const v of p.getAll('src')) {
    let u;
    try {
      u = v.length <= 2048 ? new URL(v, base) : null;
    } catch {
      u = null;
    }
    if (!u || !['http:', 'https:'].includes(u.protocol) || u.username || u.password || out.urls.length >= MAX_SOURCES) {
      out.rejected.push(v.slice(0, 200));
    } else if (!out.urls.includes(u.href)) out.urls.push(u.href);
  }
  return out;
}

/** The file name a URL names (its last path segment, decoded), else "download". @param {string} href */
export function urlFileName(href) {
  try {
    const seg = new URL(href).pathname.split('/').filter(Boolean).pop() ?? '';
    const name = decodeURIComponent(seg);
    return NAME.test(name) && !/[\\/]/.test(name) ? name : 'download';
  } catch {
    return 'download';
  }
}
