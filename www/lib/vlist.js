// The texture list: filter (name or package path: substring or /regex/; engine, format, size), sort (name, size,
// estimated GPU memory) and a virtualised view that builds DOM rows only for what is on screen, so
// 10,000 entries scroll as smoothly as ten. Entries are the Session's texture records.

export const ROW_HEIGHT = 62; // px; every row has the same height so position = index * ROW_HEIGHT
const OVERSCAN = 6;

/**
 * The state of one entry: ready, waiting for named files, error with its message.
 * @param {import('../types').TextureRecord} t @returns {{ cls: 'bad' | 'wait' | 'part' | 'ok', text: string, detail: string }}
 */
export function entryState(t) {
  if (t.census.error) return { cls: 'bad', text: 'error', detail: t.census.error };
  const absent = t.mips.filter((m) => !m.present);
  const names = [...new Set(absent.flatMap((m) => m.missing))];
  const wants = names.length ? `waiting for ${names.join(', ')}` : 'data not found';
  if (absent.length === t.mips.length) return { cls: 'wait', text: 'waiting', detail: wants };
  if (absent.length) return { cls: 'part', text: `${t.mips.length - absent.length}/${t.mips.length} mips`, detail: wants };
  return { cls: 'ok', text: 'ready', detail: '' };
}

/**
 * A name matcher: text between slashes ("/^T_.*_N$/i") is a regular expression, anything else a
 * case-insensitive substring. Returns {test, error}; a bad regex matches nothing and says why.
 * @param {string} q @returns {{ test: (s: string) => boolean, error: string }}
 */
export function nameMatcher(q) {
  const m = /^\/(.*)\/([a-z]*)$/.exec(q);
  if (m) {
    try {
      const re = new RegExp(m[1], m[2].replace(/[gy]/g, ''));
      return { test: (s) => re.test(s), error: '' };
    } catch (e) {
      return { test: () => false, error: `not a regular expression: ${/** @type {Error} */ (e).message}` };
    }
  }
  const low = q.toLowerCase();
  return { test: (s) => s.toLowerCase().includes(low), error: '' };
}

/**
 * The folder of a package inside an Unreal container as Unreal users write it, for the list's rows
 * (the name is above it) and the search: `Project/Content/Fixtures/T_A.uasset` -> `/Game/Fixtures/`.
 * @param {string} path
 */
export const packageFolder = (path) => path.replace(/^[^/]+\/Content\//, '/Game/').replace(/[^/]*$/, '');

/**
 * What a search is matched against: the name, and for a package inside a container its path there
 * and its path as Unreal users write it (`/Game/Fixtures/T_A`), so a folder finds its textures.
 * @param {import('../types').Census} c @returns {string[]}
 */
const searchable = (c) => (c.path ? [c.name, c.path, packageFolder(c.path) + c.name] : [c.name]);

const texels = (/** @type {import('../types').Census} */ c) => c.width * c.height * Math.max(1, c.depth) * Math.max(1, c.slices);

/**
 * Indices of `textures` that pass `f` ({name, engine, format, minSize}), sorted by `f.sort`.
 * @param {import('../types').TextureRecord[]} textures @param {Partial<import('../types').Filters>} f
 */
export function filterSort(textures, f) {
  const match = nameMatcher(f.name ?? '');
  /** @type {number[]} */
  const out = [];
  for (let i = 0; i < textures.length; i++) {
    const c = textures[i].census;
    if (f.name && !searchable(c).some(match.test)) continue;
    if (f.engine && c.engine !== f.engine) continue;
    if (f.format && c.format !== f.format) continue;
    if (f.minSize && Math.max(c.width, c.height) < f.minSize) continue;
    out.push(i);
  }
  const name = (/** @type {number} */ i) => textures[i].census.name;
  const byName = (/** @type {number} */ a, /** @type {number} */ b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : a - b);
  if (f.sort === 'size') out.sort((a, b) => texels(textures[b].census) - texels(textures[a].census) || byName(a, b));
  else if (f.sort === 'memory') out.sort((a, b) => (textures[b].gpu_bytes ?? 0) - (textures[a].gpu_bytes ?? 0) || byName(a, b));
  else if (f.sort === 'name') out.sort(byName);
  return { indices: out, error: match.error };
}

/**
 * A virtual list in `scroller` (a scrolling element): `render(index, row)` fills a row element for
 * texture `index`. `setItems(indices)` changes what is listed; rows are recycled on scroll.
 * `layout` = {height, width, className, overscan}: with a `width`, items are cells of that size laid out in
 * as many columns as fit (the thumbnail grid); without, full-width rows of `height` (the list),
 * or of `heightOf(item)` when given (the tree's folder rows are lower than its texture rows): the
 * rows' offsets are then summed once per setItems and the first row on screen found by bisection.
 */
export class VirtualList {
  /**
   * @param {HTMLElement} scroller @param {(index: number, row: HTMLElement) => void} render
   * @param {{ height?: number, width?: number, className?: string, overscan?: number, heightOf?: (item: number) => number }} [layout]
   */
  constructor(scroller, render, layout = {}) {
    this.scroller = scroller;
    this.render = render;
    this.height = layout.height ?? ROW_HEIGHT;
    this.width = layout.width ?? 0;
    this.className = layout.className ?? 'tex';
    this.overscan = layout.overscan ?? OVERSCAN; // rows built beyond each edge
    /** @type {((item: number) => number) | null} */
    this.heightOf = layout.heightOf ?? null;
    /** Top of each row and, last, the total height (with `heightOf`). @type {Float64Array | null} */
    this.offsets = null;
    /** @type {number[]} */
    this.items = [];
    this.spacer = document.createElement('div');
    this.spacer.className = 'vlist-spacer';
    scroller.replaceChildren(this.spacer);
    /** position -> element @type {Map<number, HTMLElement>} */
    this.rows = new Map();
    this.frame = 0;
    this.cols = 1;
    scroller.addEventListener('scroll', () => {
      if (!this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.update(); });
    });
    new ResizeObserver(() => this.update()).observe(scroller);
  }

  columns() {
    return this.width ? Math.max(1, Math.floor((this.spacer.clientWidth || this.scroller.clientWidth) / this.width)) : 1;
  }

  /** @param {number[]} items */
  setItems(items) {
    this.items = items;
    this.offsets = null;
    if (this.heightOf && !this.width) {
      const off = new Float64Array(items.length + 1);
      for (let k = 0; k < items.length; k++) off[k + 1] = off[k] + this.heightOf(items[k]);
      this.offsets = off;
    }
    this.clear();
    this.update();
  }

  clear() {
    for (const r of this.rows.values()) r.remove();
    this.rows.clear();
  }

  /** Re-renders the rows on screen (after a state change such as the selection). */
  refresh() {
    for (const [pos, row] of this.rows) this.render(this.items[pos], row);
  }

  update() {
    if (!this.scroller.clientWidth) return; // not displayed: nothing to build (nor to load)
    const cols = this.columns();
    if (cols !== this.cols) { this.cols = cols; this.clear(); }
    const off = this.offsets;
    this.spacer.style.height = `${off ? off[off.length - 1] : Math.ceil(this.items.length / cols) * this.height}px`;
    const top = this.scroller.scrollTop;
    const h = this.scroller.clientHeight || 600;
    const first = off ? Math.max(0, rowAt(off, top) - this.overscan)
      : Math.max(0, (Math.floor(top / this.height) - this.overscan) * cols);
    const last = off ? Math.min(this.items.length, rowAt(off, top + h) + 1 + this.overscan)
      : Math.min(this.items.length, (Math.ceil((top + h) / this.height) + this.overscan) * cols);
    for (const [pos, row] of this.rows) {
      if (pos < first || pos >= last) { row.remove(); this.rows.delete(pos); }
    }
    for (let pos = first; pos < last; pos++) {
      if (this.rows.has(pos)) continue;
      const row = document.createElement('div');
      row.setAttribute('role', 'option');
      row.className = this.className;
      row.style.top = `${off ? off[pos] : Math.floor(pos / cols) * this.height}px`;
      if (this.width) row.style.left = `${(pos % cols) * this.width}px`;
      row.dataset.pos = String(pos);
      this.render(this.items[pos], row);
      this.spacer.append(row);
      this.rows.set(pos, row);
    }
  }

  /** Scrolls so that list position `pos` is visible. */
  /** @param {number} pos */
  reveal(pos) {
    const off = this.offsets;
    const top = off ? off[pos] : Math.floor(pos / this.cols) * this.height;
    const height = off ? off[pos + 1] - off[pos] : this.height;
    const s = this.scroller;
    if (top < s.scrollTop) s.scrollTop = top;
    else if (top + height > s.scrollTop + s.clientHeight) s.scrollTop = top + height - s.clientHeight;
  }
}

/**
 * The row at height `y` of rows whose tops are `off` (ascending; the last entry is the total).
 * @param {Float64Array} off @param {number} y
 */
function rowAt(off, y) {
  let lo = 0;
  let hi = off.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (off[mid] <= y) lo = mid;
    else hi = mid - 1;
  }
  return Math.max(0, lo);
}
