// The sidebar: the textures as a virtualised list or a grid of thumbnails (the same entries,
// filters and states), the filters and sort, and the files that opened nothing.
import { ROW_HEIGHT, VirtualList, entryState, packageFolder } from '../lib/vlist.js';
import { ancestors, buildTree, rowDepth, treeRows } from '../lib/tree.js';
import { ThumbLoader, thumbMip } from '../lib/thumbs.js';
import { $, firstPresentMip, fmtBytes, problemText, rowName, showProblems } from '../util.js';

/** @typedef {import('../types').TextureRecord} TextureRecord */

const CELL = { width: 112, height: 152, overscan: 1 };
/** A folder row of the tree (CSS .tex.tree-folder: its height less 2 px). A texture row is ROW_HEIGHT. */
const FOLDER_HEIGHT = 30;
const INDENT = 10; // px a tree level, for the first MAX_INDENT levels (the sidebar is narrow)
const MAX_INDENT = 5;
/** The left padding of a row at `depth`. @param {number} depth */
const indent = (depth) => `${8 + Math.min(depth, MAX_INDENT) * INDENT}px`;


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
  // An editor package's asset (texture or not) is drawn from the editor's own thumbnail.
  const thumbs = new ThumbLoader((/** @type {number} */ index, /** @type {number} */ mip) => {
    const thumbnail = store.state.textures[index]?.thumbnail;
    return app.client.call(typeof thumbnail === 'number' ? { op: 'thumb', texture: index, mip, thumbnail } : { op: 'thumb', texture: index, mip });
  }, drawThumb);
  const isSelected = (/** @type {number} */ i) => store.state.current?.index === i;
  // In the compare view (textures of the open files), a texture clicked becomes B.
  const select = (/** @type {number} */ i) => (store.state.compare?.pair === null
    ? app.compare.change({ b: { index: i, mip: null } }).catch(() => {})
    : app.selection.selectFromUi({ index: i, mip: firstPresentMip(store.state.textures[i]), slice: 0 }));

  // ---- the tree of paths (issue 17; lib/tree.js) --------------------------------------------
  /** @type {import('../lib/tree.js').Tree | null} */
  let tree = null; // of the catalog's textures; null when none sits in a folder (a flat list)
  /** @type {number[]} */
  let rows = []; // what the list shows: s.listed, or the tree's rows (folder = -1 - id)
  /** Listed textures under each folder. @type {Int32Array} */
  let count = new Int32Array(0);
  const collapsed = new Set(); // folder keys the user closed (kept across catalogs)
  // While a name is searched, the folders holding matches are open unless closed during the search.
  const searchCollapsed = new Set();
  let searched = '';
  const isOpen = (/** @type {import('../lib/tree.js').Folder} */ f) => !(store.state.filters.name ? searchCollapsed : collapsed).has(f.key);
  /** @param {import('../lib/tree.js').Folder} f @param {boolean} open */
  function setOpen(f, open) {
    const set = store.state.filters.name ? searchCollapsed : collapsed;
    if (open) set.delete(f.key);
    else set.add(f.key);
  }
  function treeListed() {
    const s = store.state;
    if (s.filters.name !== searched) { searched = s.filters.name; searchCollapsed.clear(); }
    if (!tree || s.gridMode) { rows = s.listed; return; }
    ({ rows, count } = treeRows(tree, s.listed, isOpen));
  }
  /** Rebuilds the rows after a folder opened or closed, keeping the focus on row `pos`. @param {number} pos */
  function relist(pos) {
    treeListed();
    vlist.setItems(rows);
    focusRow(pos);
  }
  /** @param {number} pos */
  function focusRow(pos) {
    if (pos < 0 || pos >= rows.length) return;
    vlist.reveal(pos);
    vlist.update();
    /** @type {HTMLElement | undefined} */ (vlist.rows.get(pos))?.focus();
  }
  /** Opens the folders above texture `index` (a selection from elsewhere must be visible). @param {number} index */
  function openAbove(index) {
    if (!tree || store.state.gridMode) return false;
    let changed = false;
    for (const id of ancestors(tree, index)) {
      if (!isOpen(tree.folders[id])) { setOpen(tree.folders[id], true); changed = true; }
    }
    return changed;
  }
  /**
   * Keys on a list row: Up / Down move between rows; on a folder Right opens it (then goes to its
   * first row), Left closes it (else goes to its parent), Enter or Space toggles; on a texture
   * Left goes to its folder and Enter shows it.
   * @param {KeyboardEvent} e @param {HTMLElement} row @param {number} item
   */
  function rowKey(e, row, item) {
    const pos = Number(row.dataset.pos);
    const folder = tree && item < 0 ? tree.folders[-1 - item] : null;
    const parentRow = () => {
      if (!tree) return -1;
      const up = folder ? folder.shownParent : tree.leafFolder[item];
      return up > 0 ? rows.lastIndexOf(-1 - up, pos) : -1;
    };
    let to = -1;
    if (e.key === 'ArrowDown') to = pos + 1;
    else if (e.key === 'ArrowUp') to = pos - 1;
    else if (e.key === 'Home') to = 0;
    else if (e.key === 'End') to = rows.length - 1;
    else if (folder && (e.key === 'Enter' || e.key === ' ')) { setOpen(folder, !isOpen(folder)); relist(pos); }
    else if (folder && e.key === 'ArrowRight') { if (isOpen(folder)) to = pos + 1; else { setOpen(folder, true); relist(pos); } }
    else if (folder && e.key === 'ArrowLeft') { if (isOpen(folder)) { setOpen(folder, false); relist(pos); } else to = parentRow(); }
    else if (!folder && e.key === 'ArrowLeft') to = parentRow();
    else if (!folder && e.key === 'Enter') row.click();
    else return;
    // The row's keys are the list's: the page's shortcuts (arrows move a pinned texel) do not see them.
    e.preventDefault();
    e.stopPropagation();
    if (to >= 0) focusRow(to);
  }

  /** @param {number} id @param {HTMLElement} row */
  function renderFolder(id, row) {
    const f = /** @type {import('../lib/tree.js').Tree} */ (tree).folders[id];
    const open = isOpen(f);
    row.classList.add('tree-folder');
    row.classList.remove('selected');
    row.dataset.folder = f.key;
    row.tabIndex = 0;
    row.setAttribute('role', 'treeitem');
    row.setAttribute('aria-expanded', String(open));
    row.setAttribute('aria-level', String(f.depth + 1));
    row.style.paddingLeft = indent(f.depth);
    const twisty = document.createElement('span');
    twisty.className = 'tree-twisty';
    twisty.textContent = open ? '▾' : '▸';
    const label = document.createElement('span');
    label.className = `tree-label ${f.kind}`;
    label.textContent = `\u200e${f.label}\u200e`;
    const n = document.createElement('span');
    n.className = 'tree-count';
    n.dataset.testid = 'tree-count';
    const shown = count[id];
    n.textContent = shown === f.total ? String(shown) : `${shown} of ${f.total}`;
    row.title = `${f.kind === 'container' ? f.key.slice(2) : f.label} — ${n.textContent} texture${f.total > 1 ? 's' : ''}`;
    row.replaceChildren(twisty, label, n);
    row.onclick = () => { setOpen(f, !open); relist(Number(row.dataset.pos)); };
    row.onkeydown = (e) => rowKey(e, row, -1 - id);
  }

  /** @param {number} i @param {HTMLElement} row */
  function renderRow(i, row) {
    if (i < 0) { renderFolder(-1 - i, row); return; }
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
    // An editor package's asset says its class (Material, StaticMesh, TextureRenderTarget2D ...).
    const cls = typeof t.thumbnail === 'number' ? ` · ${c.class}` : '';
    meta.textContent = `${c.engine}${cls} · ${c.format} · ${dims}${c.slices > 1 ? ` · ${c.slices} slices` : ''}`;
    meta.dataset.testid = 'tex-meta';
    const more = document.createElement('div');
    more.className = `tex-state ${st.cls}`;
    more.dataset.testid = 'tex-state';
    const gpu = `${fmtBytes(t.gpu_bytes ?? 0)} on the GPU`;
    more.textContent = st.detail || (c.path ? `${packageFolder(c.path)} · ${gpu}` : `${gpu} · ${c.file}`);
    more.title = st.detail || (c.path ? `${c.path}\n${c.file}` : c.file);
    row.append(name, meta, more);
    if (tree) {
      row.setAttribute('role', 'treeitem');
      row.setAttribute('aria-level', String(rowDepth(tree, i) + 1));
      row.style.paddingLeft = indent(rowDepth(tree, i));
    }
    row.onclick = () => select(i);
    row.onkeydown = (e) => rowKey(e, row, i);
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
    // A render target has no texels but has the editor's thumbnail: that is shown.
    if (st.cls === 'bad' && typeof t.thumbnail !== 'number') thumbPlaceholder(box, st.detail, 'bad');
    else {
      const { mip, why } = thumbMip(t);
      if (mip === null) thumbPlaceholder(box, st.cls === 'wait' ? st.detail : `${c.format} · ${why}`, st.cls);
      else thumbs.want(cell, i, mip);
    }
    cell.onclick = () => select(i);
    cell.onkeydown = (e) => { if (e.key === 'Enter') cell.click(); };
  }

  const vlist = new VirtualList(el.list, renderRow, { heightOf: (item) => (item < 0 ? FOLDER_HEIGHT : ROW_HEIGHT) });
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
    treeListed();
    el.list.setAttribute('role', tree && !s.gridMode ? 'tree' : 'listbox');
    shownList().setItems(s.gridMode ? s.listed : rows);
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
  el.list.addEventListener('click', (e) => { if (/** @type {Element} */ (e.target).closest('.tex:not(.tree-folder)')) actions.setDrawer('list', false); }, true);

  // ---- the store -> the sidebar ----------------------------------------------------------
  store.subscribe(['textures', 'problems'], (s) => {
    thumbs.reset(); // a new catalog: indices may name other textures
    const built = buildTree(s.textures);
    tree = built.hasFolders ? built : null;
    fillFilterOptions(el.engine, s.textures.map((t) => t.census.engine), 'Any engine', s.filters.engine);
    fillFilterOptions(el.format, s.textures.map((t) => t.census.format), 'Any format', s.filters.format);
    renderListed();
    showProblems(el.problems, el.problemList, s.problems.map(problemText));
  });
  store.subscribe(['listed', 'filterError'], (_s, changed) => {
    if (!changed.has('textures')) renderListed();
  });
  store.subscribe(['current'], (s) => {
    const v = shownList();
    if (s.current && openAbove(s.current.index)) { treeListed(); v.setItems(rows); } else v.refresh();
    const pos = s.current ? (s.gridMode ? s.listed : rows).indexOf(s.current.index) : -1;
    if (pos >= 0) v.reveal(pos);
  });
  store.subscribe(['gridMode'], (s) => {
    const on = s.gridMode;
    document.body.classList.toggle('grid-mode', on);
    el.grid.hidden = !on;
    el.list.hidden = on;
    $('mode-grid').setAttribute('aria-pressed', String(on));
    $('mode-list').setAttribute('aria-pressed', String(!on));
    if (s.current) openAbove(s.current.index);
    treeListed();
    const shown = on ? s.listed : rows;
    const pos = s.current ? shown.indexOf(s.current.index) : -1;
    const v = shownList();
    v.setItems(shown);
    if (pos >= 0) v.reveal(pos);
  });
  // Thumbnails wait for a visible drawer on narrow screens.
  store.subscribe(['drawer'], (s) => { if (s.drawer === 'list' && s.gridMode) vgrid.refresh(); });

  /**
   * The list's rows as shown, for tests (texscope.tree): folders with their depth, label, kind,
   * counts and whether open; textures with their depth and name.
   */
  function treeView() {
    const s = store.state;
    return {
      tree: !!tree && !s.gridMode,
      rows: rows.map((r) => (r < 0 && tree
        ? { depth: rowDepth(tree, r), folder: tree.folders[-1 - r].label, kind: tree.folders[-1 - r].kind, count: count[-1 - r], total: tree.folders[-1 - r].total, open: isOpen(tree.folders[-1 - r]) }
        : { depth: tree ? rowDepth(tree, r) : 0, texture: s.textures[r].census.name })),
    };
  }

  return { thumbs, treeView };
}

/** @typedef {ReturnType<typeof createTextures>} Textures */
