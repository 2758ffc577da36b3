// Share links: the view (selection and every view setting) in the address's hash, local files
// named with a fingerprint so a link can tell a different file apart; and the way back, applying a
// link once its files are open (lib/share-hash.js parses and formats the hash).
import { parseShare, formatShare, parseSources } from '../lib/share-hash.js';
import { copyText, firstPresentMip } from '../util.js';

/** @typedef {import('../types').ShareView} ShareView */
/** @typedef {import('../types').FileMeta} FileMeta */

// A local file's fingerprint for share links: size and SHA-256 of its first MiB followed by its
// last MiB (the whole file when it is 2 MiB or less), so a link can tell a different file apart
// without reading gigabytes.
const MIB = 1 << 20;
/** @type {WeakMap<File, Promise<FileMeta>>} */
const fingerprints = new WeakMap();
/** @param {File} file */
function fingerprint(file) {
  let p = fingerprints.get(file);
  if (!p) {
    const parts = [file.slice(0, MIB)];
    if (file.size > MIB) parts.push(file.slice(Math.max(MIB, file.size - MIB)));
    p = new Blob(parts).arrayBuffer()
      .then((b) => crypto.subtle.digest('SHA-256', b))
      .then((d) => ({ name: file.name, size: file.size, hash: Array.from(new Uint8Array(d), (x) => x.toString(16).padStart(2, '0')).join('') }));
    fingerprints.set(file, p);
  }
  return p;
}

/** @param {import('../types').App} app */
export function createShare(app) {
  const { store, actions } = app;

  /** The last opened file of each name (a later drop of the same name replaces the earlier one). */
  function openedByName() {
    /** @type {Map<string, File>} */
    const m = new Map();
    for (const f of store.state.files) if (f instanceof File) m.set(f.name, f);
    return m;
  }

  /** The view as a share link describes it, or null when nothing is selected. @returns {Promise<ShareView | null>} */
  async function shareState() {
    const s = store.state;
    const c = s.current;
    const cmp = s.compare;
    if (!c && !cmp) return null;
    const local = s.demo || s.sources ? [] : [...openedByName().values()].slice(0, 64);
    const fileMeta = await Promise.all(local.map(fingerprint));
    // Comparing textures of the open files: A is the texture the link names; a builds' pair names
    // itself (its files are the two builds, opened again by whoever follows the link).
    const a = cmp?.pair === null ? { texture: cmp.a.name, mip: s.compareResult?.plan.a_mip ?? cmp.a.mip ?? 0, slice: cmp.a.slice } : null;
    const t = c ? s.textures[c.index] : null;
    /** @type {import('../types').ShareCompare | undefined} */
    let compare;
    if (cmp) {
      const pair = cmp.pair !== null ? s.builds?.pairs[cmp.pair] : null;
      compare = {
        ...(pair ? { pairPath: pair.path, pairName: pair.name } : { b: cmp.b.name, bMip: cmp.b.mip, bSlice: cmp.b.slice }),
        mode: s.compareMode, swipe: s.compareSwipe, diff: s.compareDiff,
      };
    }
    return {
      demo: s.demo ?? undefined,
      fileMeta,
      files: s.demo || s.sources ? undefined : [...new Set(s.files.map((f) => f.name))],
      texture: a?.texture ?? t?.census.name, path: a ? undefined : t?.census.path ?? undefined, mip: a?.mip ?? c?.mip ?? 0, slice: a?.slice ?? c?.slice ?? 0, channels: { ...s.channels },
      exposure: s.exposure, tonemap: s.tonemap, colour: s.colour, normal: s.normal,
      flipGreen: s.flipGreen, flipY: s.flipY, badOverlay: s.badOverlay, tiles: s.tiles,
      cross: s.cross, zoom: s.fit ? 'fit' : s.zoom, center: s.center, pin: s.pin ?? undefined, compare,
    };
  }

  /** A link to the view (local files are fingerprinted first), or null. */
  async function link() {
    const s = await shareState();
    if (!s) return null;
    const url = new URL(location.href);
    url.hash = formatShare(s);
    return url.href;
  }

  /** The Link button (L): the link goes in the address bar and, where allowed, the clipboard. */
  async function copyLink() {
    const l = await link();
    if (!l) return;
    history.replaceState(null, '', l);
    const ok = await copyText(l);
    actions.setStatus(ok ? 'Link copied' : 'Link in the address bar');
  }

  /**
   * Applies a parsed share link once its texture is open: selection, then every view setting.
   * Tests' texscope.setDisplay uses the same path.
   * @param {ShareView} v @returns {Promise<boolean>} false when the texture is not open
   */
  async function apply(v) {
    // The latest texture of that name: a file dropped again replaces the earlier one.
    const s = store.state;
    const index = v.texture !== undefined ? s.textures.findLastIndex((t) => t.census.name === v.texture) : 0;
    if (index < 0) return false;
    const t = s.textures[index];
    store.batch('applyShare', () => {
      if (v.channels) actions.setChannels(v.channels);
      if (v.exposure !== undefined) actions.setExposure(v.exposure);
      if (v.tonemap) actions.setTonemap(v.tonemap);
      if (v.colour) actions.setColour(v.colour);
      if (v.normal) actions.setNormal(v.normal);
      for (const key of /** @type {const} */ (['flipGreen', 'flipY', 'badOverlay', 'tiles', 'cross'])) {
        const on = v[key];
        if (on !== undefined) actions.setToggle(key, on);
      }
    });
    const mip = v.mip !== undefined && v.mip < t.mips.length ? v.mip : firstPresentMip(t);
    const slice = v.slice !== undefined && v.slice < (t.mips[mip]?.surfaces ?? 1) ? v.slice : 0;
    await app.selection.show({ index, mip, slice });
    if (v.zoom === 'fit' || v.zoom === undefined) app.viewport.fit();
    else actions.setView({ fit: false, zoom: v.zoom, ...(v.center ? { center: v.center } : {}) });
    const img = store.state.image;
    if (v.pin && img && v.pin[0] < img.width && v.pin[1] < img.height) app.inspector.pin(v.pin);
    if (v.compare) await applyCompare(v.compare, index, mip, slice);
    return true;
  }

  /** A link's compare view waiting for two builds to be opened. @type {import('../types').ShareCompare | null} */
  let pendingPair = null;

  /**
   * Opens the link's compare view: A is texture `index` (mip, slice), B by name; or the builds'
   * pair the link names, once two builds are open.
   * @param {import('../types').ShareCompare} c @param {number} index @param {number} mip @param {number} slice
   */
  async function applyCompare(c, index, mip, slice) {
    store.batch('applyShare:compare', () => {
      if (c.mode) actions.setCompareMode(c.mode);
      if (c.swipe !== undefined) actions.setCompareSwipe(c.swipe);
      if (c.diff) actions.setCompareDiff(c.diff);
    });
    if (c.pairName !== undefined) {
      pendingPair = c;
      await openPendingPair();
      return;
    }
    const b = store.state.textures.findLastIndex((t) => t.census.name === c.b);
    if (b < 0) return;
    await app.compare.open({ index, mip, slice }, { index: b, mip: c.bMip ?? null, slice: c.bSlice ?? 0 }).catch(() => {});
  }

  /** The pending builds' pair, when the builds that hold it are open. */
  async function openPendingPair() {
    const c = pendingPair;
    const pairs = store.state.builds?.pairs;
    if (!c || !pairs) {
      if (c) actions.setShareNeed({ text: `This link compares ${c.pairName} (${c.pairPath}) between two builds: open them with Builds… to see it.`, missing: [], differ: [] });
      return;
    }
    pendingPair = null;
    actions.setShareNeed(null);
    const i = pairs.findIndex((p) => p.path === c.pairPath && p.name === c.pairName);
    if (i >= 0) await app.compare.openPair(i).catch(() => {});
  }
  store.subscribe(['builds'], (_s, _c, action) => { if (action === 'builds/opened' && pendingPair) openPendingPair(); });

  /**
   * A link for local files lists their names (and sizes and fingerprints): says which are missing
   * or differ; resolves with the names still missing.
   * @param {ShareView} v
   */
  async function needFiles(v) {
    const have = openedByName();
    const missing = (v.files ?? []).filter((f) => !have.has(f));
    const differ = [];
    for (const m of v.fileMeta ?? []) {
      const f = have.get(m.name);
      if (!f) continue;
      if (f.size !== m.size) differ.push(`${m.name} (${f.size} bytes, the link's has ${m.size})`);
      else if ((await fingerprint(f)).hash !== m.hash) differ.push(`${m.name} (same size, different content)`);
    }
    const parts = [];
    if (missing.length) parts.push(`This link shows ${v.texture ?? 'a texture'} from files on someone's machine: drop ${missing.join(', ')} to see it.`);
    if (differ.length) parts.push(`Not the linked file${differ.length > 1 ? 's' : ''}: ${differ.join('; ')}. The view may differ.`);
    actions.setShareNeed(parts.length ? { text: parts.join(' '), missing, differ } : null);
    return missing;
  }

  /** The link in the address's hash: a demo's is shown at once, local files' once dropped. */
  async function restoreFromHash() {
    const v = parseShare(location.hash);
    if (!Object.keys(v).length) return;
    if (v.demo) {
      await app.demos.open(v.demo);
      await apply(v).catch(() => {});
    } else if (v.files) {
      actions.setRestore(v);
      await needFiles(v);
    } else if (parseSources(location.search, location.href).urls.length) {
      // A view of ?src= files: the address's URLs open them (services/sources.js), then the
      // catalog shows this view first (open.js showCatalog).
      actions.setRestore(v);
    } else if (v.compare?.pairName !== undefined) {
      // Two builds' pair: shown once the user opens the builds.
      await applyCompare(v.compare, 0, 0, 0);
    }
  }

  /**
   * After a catalog change: the link waiting for its files is shown once none is missing.
   * Resolves with whether it was (its texture is open).
   */
  async function restorePending() {
    const v = store.state.restore;
    if (v && !(await needFiles(v)).length) {
      actions.setRestore(null);
      return apply(v);
    }
    return false;
  }

  // A link pasted into this tab's address bar changes only the hash.
  window.addEventListener('hashchange', () => restoreFromHash().catch((e) => actions.fail(e.message)));

  return { link, copyLink, apply, restoreFromHash, restorePending };
}

/** @typedef {ReturnType<typeof createShare>} Share */
