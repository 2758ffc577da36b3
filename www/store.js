// The page's state: one object (the State of types.d.ts), changed only through `commit`, which the
// named actions of actions.js call. Views subscribe to the keys they show and re-render when an
// action changes one of them. Notification is synchronous, in subscription order; a subscriber may
// itself run an action (its subscribers are told at once, before the outer action's later ones).

/** @typedef {import('./types').State} State */
/** @typedef {keyof State} Key */
/** @typedef {(state: Readonly<State>, changed: Set<Key>, action: string) => void} Listener */

/** Values equal for the store: the same value, or arrays of the same elements (zoom centres, pins). @param {unknown} a @param {unknown} b */
function same(a, b) {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  return a.every((v, i) => v === b[i]);
}

export class Store {
  /** @type {State} */
  #state;
  /** @type {{ keys: Set<Key>, fn: Listener }[]} */
  #listeners = [];
  /** The last actions run (newest last), for debugging: `texscope.actions()`. */
  /** @type {string[]} */
  log = [];
  /** Inside `batch`: the keys changed so far, told at its end. */
  /** @type {Set<Key> | null} */
  #batched = null;

  /** @param {State} initial */
  constructor(initial) {
    this.#state = initial;
  }

  /** The current state: read it freshly after every await (actions replace its values). */
  get state() {
    return /** @type {Readonly<State>} */ (this.#state);
  }

  /**
   * Runs action `action`: sets the keys of `patch` and tells the subscribers of the keys whose
   * value changed. Only actions.js calls this.
   * @param {string} action
   * @param {Partial<State>} patch
   */
  commit(action, patch) {
    /** @type {Set<Key>} */
    const changed = new Set();
    const s = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (this.#state));
    for (const [k, v] of Object.entries(patch)) {
      if (same(s[k], v)) continue;
      s[k] = v;
      changed.add(/** @type {Key} */ (k));
    }
    if (!changed.size) return;
    this.log.push(action);
    if (this.log.length > 50) this.log.shift();
    if (this.#batched) {
      for (const k of changed) this.#batched.add(k);
      return;
    }
    this.#notify(changed, action);
  }

  /**
   * Runs `fn` (which runs several actions) and tells the subscribers once, at the end, as action
   * `action` (a share link sets a dozen view settings: the view is painted once, not per setting).
   * @param {string} action
   * @param {() => void} fn
   */
  batch(action, fn) {
    if (this.#batched) { fn(); return; }
    /** @type {Set<Key>} */
    const changed = new Set();
    this.#batched = changed;
    try {
      fn();
    } finally {
      this.#batched = null;
    }
    if (changed.size) this.#notify(changed, action);
  }

  /** @param {Set<Key>} changed @param {string} action */
  #notify(changed, action) {
    for (const l of [...this.#listeners]) {
      for (const k of changed) {
        if (l.keys.has(k)) {
          l.fn(this.#state, changed, action);
          break;
        }
      }
    }
  }

  /**
   * Calls `fn` after every action that changes one of `keys`; returns the unsubscribe function.
   * @param {Key[]} keys
   * @param {Listener} fn
   */
  subscribe(keys, fn) {
    const l = { keys: new Set(keys), fn };
    this.#listeners.push(l);
    return () => { this.#listeners = this.#listeners.filter((x) => x !== l); };
  }
}

/** The state of a page that has opened nothing. @returns {State} */
export function initialState() {
  return {
    files: [],
    profile: undefined,
    unityVersion: undefined,
    platform: undefined,
    only: undefined,
    narrowed: false,
    textures: [],
    problems: [],
    filters: { name: '', engine: '', format: '', minSize: 0, sort: '' },
    listed: [],
    filterError: '',
    gridMode: false,
    demo: null,
    restore: null,
    sources: null,
    remote: [],
    needsKey: [],
    keyNote: null,

    current: null,
    shown: null,
    image: null,
    grid: null,
    blocks: null,
    hist: null,
    bad: { nan: 0, inf: 0, negative: 0 },
    caption: '',

    zoom: 1,
    fit: true,
    center: [0, 0],
    exposure: 0,
    tonemap: 'clamp',
    colour: 'srgb',
    colourSet: false,
    normal: 'off',
    flipGreen: false,
    flipY: false,
    badOverlay: false,
    channels: { r: true, g: true, b: true, a: true },
    cross: false,
    tiles: false,
    background: 'checker',
    backgroundColour: '#3366cc',
    pin: null,
    hover: null,

    gpuOn: null,
    gpuSurface: null,
    gpuInfo: '',

    phase: 'empty',
    error: '',
    status: '',
    notices: [],
    progress: null,
    shareNeed: null,
    srcNote: null,
    help: false,
    drawer: null,

    compare: null,
    compareResult: null,
    compareError: '',
    compareMode: 'side',
    compareSwipe: 0.5,
    compareDiff: 'max',
    compareView: { zoom: 1, center: [0, 0], fit: true },
    compareHover: null,
    comparePin: null,
    compareFlickerB: false,
    builds: null,
    buildsFilter: { status: '', name: '' },
    buildsListed: [],
    sidebarTab: 'textures',
  };
}
