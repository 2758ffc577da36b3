// The sidebar: the textures as a virtualised list or a grid of thumbnails (the same entries,
// filters and states), the filters and sort, and the files that opened nothing.
import { VirtualList, entryState } from '../lib/vlist.js';
import { ThumbLoader, thumbMip } from '../lib/thumbs.js';
import { $, firstPresentMip, fmtBytes, rowName } from '../util.js';

/** @typedef {import('../types').TextureRecord} TextureRecord */

const CELL = { width: 112, height: 152, overscan: 1 };

/**
 * The folder of a package inside an Unreal container as Unreal users write it, for the row (the
 * name is above it): `Project/Content/Fixtures/T_A.uasset` -> `/Game/Fixtures/`.
 * @param {string} path
 */
export const packageFolder = (path) => path.replace(/^[^/]+\/Content\//, '/Game/').replace(/[^/]*$/, '');

/** @param {HTMLElement} box @param {string} text @param {string} [cls] */
function thumbPlaceholder(box, text, cls = '') {
  const p = document.createElement('div');
  p.className = `thumb-none ${cls}`;
  p.textContent = text;
  box.replaceChildren(p);
}

/** @param {HTMLElement} cell @param {import('../types').ThumbEntry} thumb */
function drawThumb(cell, thumb) {
  const box = /** @type {HTMLElement | null} */ (cell.querySelector('.thumb-box'));
  if (!box) return;
  if ('error' in thumb) {
    thumbPlaceholder(box, 'no preview', 'bad');
    box.title = thumb.error;
    return;
  }
  const c = document.createElement('canvas');
  c.className = 'thumb';
  c.width = thumb.width;
  c.height = thumb.height;
  /** @type {CanvasRenderingContext2D} */ (c.getContext('2d')).putImageData(new ImageData(/** @type {Uint8ClampedArray<ArrayBuffer>} */ (thumb.data), thumb.width, thumb.height), 0, 0);
  box.replaceChildren(c);
}

/** @param {import('../types').App} app */
export function createTextures(app) {
  const { store, actions } = app;
  const el = {
    list: $('texture-list'), grid: $('texture-grid'), count: $('count'), problems: $('problems'), problemList: $('problem-list'),
    name: /** @type {HTMLInputElement} */ ($('filter-name')), engine: /** @type {HTMLSelectElement} */ ($('filter-engine')),
    format: /** @type {HTMLSelectElement} */ ($('filter-format')), size: /** @type {HTMLSelectElement} */ ($('filter-size')),
    sort: /** @type {HTMLSelectElement} */ ($('sort')), filterError: $('filter-error'),
  };
  const thumbs = new ThumbLoader((/** @type {number} */ index, /** @type {number} */ mip) => app.client.call({ op: 'thumb', texture: index, mip }), drawThumb);
  const isSelected = (/** @type {number} */ i) => store.state.current?.index === i;
  // In the compare view (textures of the open files), a texture clicked becomes B.
  const select = (/** @type {number} */ i) => (store.state.compare?.pair === null
    ? app.compare.change({ b: { index: i, mip: null } }).catch(() => {})
    : app.selection.selectFromUi({ index: i, mip: firstPresentMip(store.state.textures[i]), slice: 0 }));

  /** @param {number} i @param {HTMLElement} row */
  function renderRow(i, row) {
    const t = store.state.textures[i];
    const c = t.census;
    row.dataset.index = String(i);
    row.tabIndex = 0;
    row.classList.toggle('selected', isSelected(i));
    row.setAttribute('aria-selected', String(isSelected(i)));
    const st = entryState(t);
    const dims = c.depth > 1 ? `${c.width}×${c.height}×${c.depth}` : `${c.width}×${c.height}`;
    row.replaceChildren();
    const name = rowName(c.name, st.text, st.cls);
    // Unreal containers (census path) and Unity bundles (m_Container) name what is inside them:
    // shown on hover, above the file; an Unreal package path also on the row.
    const path = c.path ?? (t.metadata || []).find(([k]) => k === 'container path')?.[1];
    name.title = path ? `${c.name} — ${path}\n${c.file}` : `${c.name} — ${c.file}`;
    if (path) row.dataset.containerPath = path;
    else delete row.dataset.containerPath;
    const meta = document.createElement('div');
    meta.className = 'tex-meta';
    meta.textContent = `${c.engine} · ${c.format} · ${dims}${c.slices > 1 ? ` · ${c.slices} slices` : ''}`;
    const more = document.createElement('div');
    more.className = `tex-state ${st.cls}`;
    more.dataset.testid = 'tex-state';
    const gpu = `${fmtBytes(t.gpu_bytes ?? 0)} on the GPU`;
    more.textContent = st.detail || (c.path ? `${packageFolder(c.path)} · ${gpu}` : `${gpu} · ${c.file}`);
    more.title = st.detail || (c.path ? `${c.path}\n${c.file}` : c.file);
    row.append(name, meta, more);
    row.onclick = () => select(i);
    row.onkeydown = (e) => { if (e.key === 'Enter') row.click(); };
  }

  /** @param {number} i @param {HTMLElement} cell */
  function renderCell(i, cell) {
    const t = store.state.textures[i];
    const c = t.census;
    const st = entryState(t);
    cell.dataset.index = String(i);
    cell.tabIndex = 0;
    cell.classList.toggle('selected', isSelected(i));
    cell.setAttribute('aria-selected', String(isSelected(i)));
    cell.title = `${c.name} — ${c.format} ${c.width}×${c.height}\n${c.file}${st.detail ? `\n${st.detail}` : ''}`;
    const box = document.createElement('div');
    box.className = 'thumb-box';
    const name = document.createElement('div');
    name.className = 'cell-name';
    name.textContent = c.name;
    const badge = document.createElement('span');
    badge.className = `badge ${st.cls}`;
    badge.dataset.testid = 'cell-state';
    badge.textContent = st.text;
    cell.replaceChildren(box, name, badge);
    delete cell.dataset.thumbKey;
    if (st.cls === 'bad') thumbPlaceholder(box, st.detail, 'bad');
    else {
      const { mip, why } = thumbMip(t);
      if (mip === null) thumbPlaceholder(box, st.cls === 'wait' ? st.detail : `${c.format} · ${why}`, st.cls);
      else thumbs.want(cell, i, mip);
    }
    cell.onclick = () => select(i);
    cell.onkeydown = (e) => { if (e.key === 'Enter') cell.click(); };
  }

  const vlist = new VirtualList(el.list, renderRow);
  const vgrid = new VirtualList(el.grid, renderCell, { ...CELL, className: 'cell' });
  const shownList = () => (store.state.gridMode ? vgrid : vlist);

  /** @param {HTMLSelectElement} select @param {string[]} values @param {string} any @param {string} value */
  function fillFilterOptions(select, values, any, value) {
    select.replaceChildren(new Option(any, ''));
    for (const v of [...new Set(values)].sort()) select.append(new Option(v, v));
    select.value = value;
  }

  function renderListed() {
    const s = store.state;
    el.filterError.textContent = s.filterError;
    el.filterError.hidden = !s.filterError;
    shownList().setItems(s.listed);
    const n = s.textures.length;
    el.count.textContent = n ? (s.listed.length === n ? String(n) : `${s.listed.length} of ${n}`) : '';
  }

  // ---- controls -> actions ---------------------------------------------------------------
  const readFilters = () => actions.setFilters({
    name: el.name.value.trim(), engine: el.engine.value, format: el.format.value,
    minSize: Number(el.size.value), sort: /** @type {import('../types').Filters['sort']} */ (el.sort.value),
  });
  for (const c of [el.name, el.engine, el.format, el.size, el.sort]) c.addEventListener(c === el.name ? 'input' : 'change', readFilters);
  $('mode-list').addEventListener('click', () => actions.setGridMode(false));
  $('mode-grid').addEventListener('click', () => actions.setGridMode(true));
  // Choosing a texture closes the list drawer on narrow screens.
  // (Capture: the row is re-rendered by the selection before the event would bubble up.)
  el.list.addEventListener('click', (e) => { if (/** @type {Element} */ (e.target).closest('.tex')) actions.setDrawer('list', false); }, true);

  // ---- the store -> the sidebar ----------------------------------------------------------
  store.subscribe(['textures', 'problems'], (s) => {
    thumbs.reset(); // a new catalog: indices may name other textures
    fillFilterOptions(el.engine, s.textures.map((t) => t.census.engine), 'Any engine', s.filters.engine);
    fillFilterOptions(el.format, s.textures.map((t) => t.census.format), 'Any format', s.filters.format);
    renderListed();
    el.problemList.replaceChildren();
    for (const p of s.problems) {
      const li = document.createElement('li');
      li.textContent = p.error;
      el.problemList.append(li);
    }
    el.problems.hidden = !s.problems.length;
  });
  store.subscribe(['listed', 'filterError'], (_s, changed) => {
    if (!changed.has('textures')) renderListed();
  });
  store.subscribe(['current'], (s) => {
    const v = shownList();
    v.refresh();
    const pos = s.current ? s.listed.indexOf(s.current.index) : -1;
    if (pos >= 0) v.reveal(pos);
  });
  store.subscribe(['gridMode'], (s) => {
    const on = s.gridMode;
    document.body.classList.toggle('grid-mode', on);
    el.grid.hidden = !on;
    el.list.hidden = on;
    $('mode-grid').setAttribute('aria-pressed', String(on));
    $('mode-list').setAttribute('aria-pressed', String(!on));
    const pos = s.current ? s.listed.indexOf(s.current.index) : -1;
    const v = shownList();
    v.setItems(s.listed);
    if (pos >= 0) v.reveal(pos);
  });
  // Thumbnails wait for a visible drawer on narrow screens.
  store.subscribe(['drawer'], (s) => { if (s.drawer === 'list' && s.gridMode) vgrid.refresh(); });

  return { thumbs };
}

/** @typedef {ReturnType<typeof createTextures>} Textures */
