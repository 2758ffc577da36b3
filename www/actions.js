// The named actions: the only code that changes the store (store.js). Each is a small, synchronous
// function of the current state and its arguments; what it changes is told to the subscribers.
// A new feature adds its keys to State (types.d.ts), their start values (store.js initialState) and
// its actions here (or in a module of its own that calls store.commit the same way).
import { filterSort, nameMatcher } from './lib/vlist.js';

/** @typedef {import('./types').State} State */
/** @typedef {import('./types').Filters} Filters */
/** @typedef {import('./types').TextureRecord} TextureRecord */
/** @typedef {import('./types').ViewImage} ViewImage */

/** The exposure limits, in stops. */
const EV_LIMIT = 16;

/** The engine / format filters keep their value while the catalog still has it. @param {TextureRecord[]} textures @param {Filters} f */
function keptFilters(textures, f) {
  const has = (/** @type {'engine' | 'format'} */ k) => !f[k] || textures.some((t) => t.census[k] === f[k]);
  return { ...f, engine: has('engine') ? f.engine : '', format: has('format') ? f.format : '' };
}

/** The list after filter and sort. @param {TextureRecord[]} textures @param {Filters} filters */
function listing(textures, filters) {
  const { indices, error } = filterSort(textures, filters);
  return { filters, listed: indices, filterError: error };
}

/**
 * Pair indices of `builds` that pass `f` (status, and name or path by substring or /regex/), in
 * key order.
 * @param {import('./types').Builds | null} builds @param {import('./types').BuildsFilter} f
 */
function buildsListing(builds, f) {
  const match = nameMatcher(f.name);
  const listed = [];
  for (const [i, p] of (builds?.pairs ?? []).entries()) {
    if (f.status && p.status !== f.status) continue;
    if (f.name && !match.test(p.name) && !match.test(p.path)) continue;
    listed.push(i);
  }
  return { buildsFilter: f, buildsListed: listed };
}

/** @param {import('./store.js').Store} store */
export function createActions(store) {
  const commit = store.commit.bind(store);
  const st = () => store.state;
  return {
    // ---- the catalog ----------------------------------------------------------------------
    /** Files were given to the worker. @param {import('./types').OpenFile[]} files */
    filesAdded: (files) => commit('filesAdded', { files: [...st().files, ...files] }),
    /** The worker's catalog of every file open so far. @param {TextureRecord[]} textures @param {import('./types').Problem[]} problems */
    catalog: (textures, problems) => commit('catalog', { textures, problems, ...listing(textures, keptFilters(textures, st().filters)) }),
    /** A test's list of census-like records in place of the catalog (texscope.injectList). @param {TextureRecord[]} textures */
    injectList: (textures) => commit('injectList', { textures, problems: [], current: null, ...listing(textures, keptFilters(textures, st().filters)) }),
    /** @param {Partial<Filters>} f */
    setFilters: (f) => commit('setFilters', listing(st().textures, { ...st().filters, ...f })),
    /** @param {boolean} on */
    setGridMode: (on) => commit('setGridMode', { gridMode: on }),
    /** @param {string | undefined} profile */
    setProfile: (profile) => commit('setProfile', { profile }),
    /** @param {string | undefined} unityVersion */
    setUnityVersion: (unityVersion) => commit('setUnityVersion', { unityVersion }),
    /** @param {string | undefined} platform */
    setPlatform: (platform) => commit('setPlatform', { platform }),
    /** A link's container package opened alone (undefined: every package). @param {string | undefined} only */
    setOnly: (only) => commit('setOnly', { only }),
    /** Whether the last open read only that package. @param {boolean} narrowed */
    setNarrowed: (narrowed) => commit('setNarrowed', { narrowed }),
    /** @param {string | null} demo */
    setDemo: (demo) => commit('setDemo', { demo }),
    /** @param {import('./types').ShareView | null} restore */
    setRestore: (restore) => commit('setRestore', { restore }),
    /** @param {import('./types').Sources | null} sources */
    setSources: (sources) => commit('setSources', { sources }),
    /** What was read of the ?src= files so far. @param {import('./types').RemoteRead[]} remote */
    setRemote: (remote) => commit('setRemote', { remote }),

    // ---- the selection and what is on screen ----------------------------------------------
    /**
     * Texture `index`, mip and slice are being shown. Unless the user chose the colour space, it
     * follows the texture: what the file says; unknown is sRGB for 8/16-bit data and linear for
     * float (HDR) data.
     * @param {number} index @param {number} mip @param {number} slice
     */
    select(index, mip, slice) {
      const t = st().textures[index];
      /** @type {Partial<State>} */
      const patch = { current: { index, mip, slice, file: t.census.file, name: t.census.name } };
      if (!st().colourSet) {
        patch.colour = t.color_space === 'srgb' ? 'srgb' : t.color_space === 'linear' || t.precision === 'float' ? 'linear' : 'srgb';
      }
      commit('select', patch);
    },
    /**
     * Puts `image` on screen (a decoded surface, or a placeholder without data: a progressive
     * preview or a streamed VT mip) with its tile grid and stored blocks, for the selection it
     * belongs to (the current one: state.current itself changes as soon as another is asked for).
     * @param {ViewImage} image @param {import('./types').VtGrid | null} grid @param {Uint8Array | null} blocks
     */
    present(image, grid, blocks) {
      const s = st();
      const c = /** @type {import('./types').Selection} */ (s.current);
      const t = s.textures[c.index];
      const sameSize = s.image && s.image.width === image.width && s.image.height === image.height;
      /** @type {Partial<State>} */
      const patch = {
        blocks, image, grid, hist: null, error: '',
        shown: { file: t.census.file, texture: t.census.name, index: c.index, mip: c.mip, slice: c.slice, format: t.census.format },
      };
      if (!sameSize) {
        patch.pin = null;
        if (!s.fit) patch.center = [image.width / 2, image.height / 2];
      }
      commit('present', patch);
    },
    /** The selection could not be shown: nothing is on screen. */
    clearImage: () => commit('clearImage', { image: null, gpuSurface: null, hist: null }),
    /** @param {import('./types').Histogram | null} hist */
    setHistogram: (hist) => commit('setHistogram', { hist }),
    /** What the last paint found: NaN, Inf and negative texels. @param {import('./types').BadCounts} bad */
    painted: (bad) => commit('painted', { bad }),
    /** The view is ready: the caption names it. @param {string} caption */
    ready: (caption) => commit('ready', { caption, phase: 'ready' }),

    // ---- view settings --------------------------------------------------------------------
    /** @param {number} ev */
    setExposure: (ev) => commit('setExposure', { exposure: Math.min(EV_LIMIT, Math.max(-EV_LIMIT, ev)) }),
    /**
     * Range autofit: the exposure (in quarter stops, rounded down) that maps the brightest finite
     * colour value of the surface to 1; NaN, Inf and values <= 0 are ignored.
     */
    autoExposure() {
      const img = st().image;
      if (!img?.data) return;
      const norm = img.precision === 'unorm8' ? 255 : img.precision === 'unorm16' ? 65535 : 1;
      let max = 0;
      const d = img.data;
      for (let i = 0; i < d.length; i += 4) {
        for (let c = 0; c < 3; c++) {
          const v = d[i + c];
          if (v > max && v !== Infinity) max = v;
        }
      }
      if (max > 0) commit('autoExposure', { exposure: Math.min(EV_LIMIT, Math.max(-EV_LIMIT, Math.floor(-Math.log2(max / norm) * 4) / 4)) });
    },
    /** @param {import('./types').Tonemap} tonemap */
    setTonemap: (tonemap) => commit('setTonemap', { tonemap }),
    /** The user chose the colour space (it no longer follows each texture). @param {import('./types').Colour} colour */
    setColour: (colour) => commit('setColour', { colour, colourSet: true }),
    /** @param {import('./types').NormalView} normal */
    setNormal: (normal) => commit('setNormal', { normal }),
    /**
     * One of the view's on/off settings.
     * @param {'flipGreen' | 'flipY' | 'badOverlay' | 'cross' | 'tiles'} key @param {boolean} on
     */
    setToggle: (key, on) => commit(`setToggle:${key}`, { [key]: on }),
    /** @param {Partial<import('./types').Channels>} ch */
    setChannels: (ch) => commit('setChannels', { channels: { ...st().channels, ...ch } }),
    /** @param {import('./types').Background} background @param {string} [colour] */
    setBackground: (background, colour = st().backgroundColour) => commit('setBackground', { background, backgroundColour: colour }),
    /**
     * Zoom and the texel at the viewport's centre; `fit` follows the viewport's size.
     * @param {{ zoom?: number, center?: [number, number], fit?: boolean }} v
     */
    setView: (v) => commit('setView', v),
    /** @param {[number, number] | null} pin */
    setPin: (pin) => commit('setPin', { pin }),
    /** @param {[number, number] | null} hover */
    setHover: (hover) => commit('setHover', { hover }),

    // ---- the GPU path ---------------------------------------------------------------------
    /** @param {boolean} on */
    setGpuOn: (on) => commit('setGpuOn', { gpuOn: on }),
    /** @param {import('./types').GpuSurface | null} surface */
    setGpuSurface: (surface) => commit('setGpuSurface', { gpuSurface: surface }),
    /** @param {string} text */
    setGpuInfo: (text) => commit('setGpuInfo', { gpuInfo: text }),

    // ---- the page around the view ---------------------------------------------------------
    /** @param {import('./types').Phase} phase */
    setPhase: (phase) => commit('setPhase', { phase }),
    /** @param {string} error */
    setError: (error) => commit('setError', { error }),
    /** @param {string} status */
    setStatus: (status) => commit('setStatus', { status }),
    /** Something failed: its message in the error bar. @param {string} message */
    fail: (message) => commit('fail', { error: message, status: '', phase: 'error' }),
    /** Lines of the address's notice (parameters dropped, views not there). @param {string[]} notices */
    setNotices: (notices) => commit('setNotices', { notices }),
    /**
     * The header's progress bar: done of total (0: not known yet); `cancellable`: its Cancel shows
     * (a task of services/tasks.js).
     * @param {number} done @param {number} total @param {string} text @param {boolean} [cancellable]
     */
    progress: (done, total, text, cancellable = false) => commit('progress', { progress: { done, total, text, cancellable } }),
    endProgress: () => commit('endProgress', { progress: null }),
    /** @param {import('./types').ShareNeed | null} need */
    setShareNeed: (need) => commit('setShareNeed', { shareNeed: need }),
    /** @param {string | null} text */
    setSrcNote: (text) => commit('setSrcNote', { srcNote: text }),
    /** @param {boolean} open */
    setHelp: (open) => commit('setHelp', { help: open }),
    // ---- the compare view (issue 21) ------------------------------------------------------
    /**
     * Compares `target` (its result comes with compareDone); null closes the view. A new pair of
     * sizes starts fitted.
     * @param {import('./types').CompareTarget | null} target
     */
    compareOpen: (target) => commit('compare/open', {
      compare: target, compareResult: null, compareError: '', compareHover: null, comparePin: null,
    }),
    /** @param {import('./types').CompareResult} result */
    compareDone(result) {
      const s = st();
      const old = s.compareResult;
      const same = old && old.a.width === result.a.width && old.a.height === result.a.height;
      /** @type {Partial<State>} */
      const patch = { compareResult: result, compareError: '' };
      if (!same && !s.compareView.fit) patch.compareView = { ...s.compareView, center: [result.a.width / 2, result.a.height / 2] };
      commit('compare/done', patch);
    },
    /** @param {string} message */
    compareFailed: (message) => commit('compare/failed', { compareResult: null, compareError: message }),
    /** @param {import('./types').CompareMode} mode */
    setCompareMode: (mode) => commit('compare/mode', { compareMode: mode }),
    /** @param {number} x share of the stage's width, 0..1 */
    setCompareSwipe: (x) => commit('compare/swipe', { compareSwipe: Math.min(1, Math.max(0, x)) }),
    /** @param {'max' | 'channels'} d */
    setCompareDiff: (d) => commit('compare/diff', { compareDiff: d }),
    /** @param {Partial<State['compareView']>} v */
    setCompareView: (v) => commit('compare/view', { compareView: { ...st().compareView, ...v } }),
    /** @param {[number, number] | null} p */
    setCompareHover: (p) => commit('compare/hover', { compareHover: p }),
    /** @param {[number, number] | null} p */
    setComparePin: (p) => commit('compare/pin', { comparePin: p }),
    /** @param {boolean} showB */
    compareFlicker: (showB) => commit('compare/flicker', { compareFlickerB: showB }),
    /** Two builds were opened (pairs not yet classified). @param {import('./types').Builds | null} builds */
    buildsOpened: (builds) => commit('builds/opened', { builds, sidebarTab: builds ? 'builds' : 'textures', ...buildsListing(builds, st().buildsFilter) }),
    /**
     * Pairs `from`.. were classified.
     * @param {number} from @param {import('./types').Classified[]} results
     */
    buildsClassified(from, results) {
      const b = st().builds;
      if (!b) return;
      const pairs = [...b.pairs];
      results.forEach((r, k) => { pairs[from + k] = { ...pairs[from + k], ...r }; });
      const builds = { ...b, pairs, classified: Math.max(b.classified, from + results.length) };
      commit('builds/classified', { builds, ...buildsListing(builds, st().buildsFilter) });
    },
    /** @param {Partial<import('./types').BuildsFilter>} f */
    setBuildsFilter: (f) => commit('builds/filter', buildsListing(st().builds, { ...st().buildsFilter, ...f })),
    /** @param {State['sidebarTab']} tab */
    setSidebarTab: (tab) => commit('setSidebarTab', { sidebarTab: tab }),

    /** Opens drawer `name` on narrow screens (one at a time), or closes it. @param {import('./types').Drawer} name @param {boolean} open */
    setDrawer: (name, open) => {
      const d = st().drawer;
      commit('setDrawer', { drawer: open ? name : d === name ? null : d });
    },
  };
}

/** @typedef {ReturnType<typeof createActions>} Actions */
