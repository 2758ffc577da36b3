// The page: opening files, the texture list, the view and the test contract (window.texscope).
// All parsing and decoding happen in the worker; this thread only paints and shows text.
import { paint, texel, composeCross, crossFace, FACE_NAMES, BAD_COLOURS, histogram, drawHistogram, displayBytes, badCounts } from './view.js';
import { GpuView } from './gpu.js';
import { parseShare, formatShare, parseSources, urlFileName } from './share.js';
import { readQuery, showNotice, allowSourceOrigins, sourceOrigins } from './safety.js';
import { VirtualList, filterSort, entryState } from './list.js';
import { ThumbLoader, thumbMip } from './thumbs.js';
import { walkEntries, droppedFiles } from './open.js';
import { blockMode, hasBlockMode } from './blocks.js';
import { encodePng, encodeExr, zipStore, download } from './export.js';
import { WorkerPool } from './pool.js';
import { TileStreamer, streams, previewMip } from './tiles.js';

// First of all, before any request: only this server and the origins ?src= names may be fetched.
allowSourceOrigins(parseSources(location.search, location.href).urls);

const $ = (id) => document.getElementById(id);
const el = {
  input: $('file-input'), error: $('error'), status: $('status'), list: $('texture-list'),
  count: $('count'), problems: $('problems'), problemList: $('problem-list'), mip: $('mip'),
  slice: $('slice'), canvas: $('canvas'), empty: $('empty'), viewport: $('viewport'),
  info: $('info'), viewLabel: $('view-label'), pixelLabel: $('pixel-label'),
  exposure: $('exposure'), exposureBox: $('exposure-box'), exposureLabel: $('exposure-label'),
  zoomLabel: $('zoom-label'), dropOverlay: $('drop-overlay'), overlay: $('overlay'),
  tonemap: $('tonemap'), colour: $('colour'), normal: $('normal'), flipGreen: $('flip-green'),
  flipY: $('flip-y'), badOverlay: $('bad-overlay'), badLabel: $('bad-label'), cross: $('cube-cross'),
  tiles: $('vt-grid'), strip: $('mip-strip'), hover: $('insp-hover'), pin: $('insp-pin'),
  tileInfo: $('tile-info'), help: $('help'), shareNeed: $('share-need'), srcNote: $('src-note'),
  profile: $('frostbite-profile'),
  unityVersion: $('unity-version'),
};

// ---- worker RPC ---------------------------------------------------------------------------
let worker = null;
let nextId = 1;
const pending = new Map();
const opened = []; // every File opened so far, to rebuild a worker that stopped
let profile; // the Frostbite format profile chosen (undefined: the core's default)
let unityVersion; // the Unity version for files that record none (undefined: as the files say)

function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (ev) => {
    const { id, ok, value, error, fatal } = ev.data;
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (ok) p.resolve(value);
    else p.reject(new Error(error));
    if (fatal) {
      // The wasm instance is dead: fail what else was waiting on it, then start a fresh worker
      // with the same files (kept here) so the textures stay usable.
      worker.terminate();
      worker = null;
      for (const q of pending.values()) q.reject(new Error(error));
      pending.clear();
      if (opened.length) call({ op: 'profiles' }).catch(() => {});
    }
  };
  worker.onerror = (ev) => {
    const msg = ev.message || 'the decoder failed to start';
    for (const p of pending.values()) p.reject(new Error(msg));
    pending.clear();
    worker.terminate();
    worker = null;
  };
}

function call(req) {
  const fresh = !worker;
  if (fresh) startWorker();
  const send = (r) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ ...r, id });
  });
  // A fresh worker after a crash has lost the files: reopen them first.
  if (fresh && opened.length) {
    return send({ op: 'add', files: opened, profile, unityVersion }).then(() => send(req));
  }
  return send(req);
}

// ---- state --------------------------------------------------------------------------------
const state = {
  textures: [],
  problems: [],
  current: null, // { index, mip, slice }
  image: null, // decoded surface of the current view
  zoom: 1,
  fit: true,
  center: [0, 0], // the texel coordinate at the viewport's centre
  origin: [0, 0], // where the image's top-left corner is in the viewport (CSS pixels)
  exposure: 0,
  tonemap: 'clamp',
  colour: 'srgb',
  colourSet: false, // the user chose the colour space (else it follows each texture)
  normal: 'off',
  flipGreen: false,
  flipY: false,
  badOverlay: false,
  bad: { nan: 0, inf: 0, negative: 0 },
  channels: { r: true, g: true, b: true, a: true },
  cross: false, // cubes: the six faces as an unfolded cross
  tiles: false, // virtual textures: the tile-grid overlay
  grid: null, // the tile grid of the current VT mip and layer (Session.vtGrid)
  pin: null, // [x, y] pinned texel
  demo: null, // the demo the open files came from (for share links)
  restore: null, // a share link's view waiting for its files
  paints: [], // {mip, kind: 'preview'|'full'|'tiles', time}: what was painted when (test hook)
  stages: [], // {name, time}: the last selection's open-path stages (test hook, stage())
  openedAt: null, // performance.now() when files were last given to the page
  decodeDelay: 0, // test hook: ms to hold a full mip back (to see the progressive first paint)
  gpuOn: null, // draw from the stored blocks on the GPU (issue 8); null: decided on first use
  gpuSurface: null, // the current surface as uploaded to the GPU (gpu.js), or null: CPU path
};

// ---- large virtual textures: tiles on screen only, decoded by a pool of workers (tiles.js) ----
const pool = new WorkerPool(() => ({ files: opened, profile, unityVersion }));
const streamer = new TileStreamer({
  run: (req, key) => pool.run(req, key),
  cancel: (drop) => pool.cancel(drop),
  before: el.overlay,
  onComplete: (e) => state.paints.push({ mip: e.level, kind: 'tiles', tiles: e.tiles, time: e.time }),
});
function streamView() {
  const { w, h } = viewportSize();
  return { zoom: state.zoom, origin: state.origin, w, h, flipY: state.flipY, settings: displaySettings() };
}

function displaySettings() {
  const { exposure, tonemap, colour, normal, flipGreen, flipY, badOverlay, channels } = state;
  return { exposure, tonemap, colour, normal, flipGreen, flipY, badOverlay, channels };
}

function paintCurrent() {
  if (!state.image) return;
  if (state.image.streamed) {
    el.canvas.width = 1;
    el.canvas.height = 1;
    el.canvas.getContext('2d').clearRect(0, 0, 1, 1);
    state.bad = { nan: 0, inf: 0, negative: 0 };
    streamer.render(streamView());
  } else if (state.image.preview) {
    // A progressive preview is a smaller mip painted into the canvas; CSS scales it to the box.
    state.bad = paint(el.canvas, state.image.preview, displaySettings());
  } else {
    state.bad = paintGpu() ?? paint(el.canvas, state.image, displaySettings());
  }
  el.canvas.dataset.path = state.gpuSurface && state.image.data ? 'gpu' : 'cpu';
  const b = state.bad;
  el.badLabel.textContent = state.image.precision === 'float' && (b.nan || b.inf || b.negative)
    ? `${b.nan} NaN · ${b.inf} Inf · ${b.negative} negative` : '';
  drawOverlay();
  renderHistogram();
}

// The histogram of the current surface with the exposure's white point (float: the value shown as 1).
function renderHistogram() {
  const h = state.hist;
  const box = $('histogram-box');
  box.hidden = !h;
  if (!h) return;
  const white = 2 ** -state.exposure;
  drawHistogram($('histogram'), h, white);
  const f = (v) => (Math.abs(v) >= 1000 || (v !== 0 && Math.abs(v) < 0.001) ? v.toExponential(2) : String(Math.round(v * 1000) / 1000));
  $('histogram-label').textContent = Number.isFinite(h.min)
    ? `${f(h.min)} … ${f(h.max)}${h.kind === 'log2' ? ` · white at ${f(white)} (bins: 2^-16 … 2^16)` : ''}${h.bad ? ` · ${h.bad} NaN/Inf` : ''}`
    : 'no finite values';
}

function setState(s) {
  document.body.dataset.state = s;
}

function showError(text) {
  el.error.textContent = text;
  el.error.hidden = !text;
}

function setStatus(text) {
  el.status.textContent = text;
}

const fmtBytes = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);

// ---- opening ------------------------------------------------------------------------------
async function openFiles(fileList) {
  const files = Array.from(fileList);
  if (!files.length) return;
  setState('loading');
  showError('');
  setStatus(`Opening ${files.length} file${files.length > 1 ? 's' : ''}…`);
  state.openedAt = performance.now();
  resetStages();
  stage('open', state.openedAt);
  try {
    const { textures, problems } = await call({ op: 'add', files });
    stage('catalog');
    keepStages = true;
    opened.push(...files);
    state.demo = null; // openDemo sets it back when the files are a demo's
    await showCatalog(textures, problems);
  } catch (e) {
    fail(e.message);
  }
}

/** Lists a catalog the worker sent and keeps (or picks) the view. */
async function showCatalog(textures, problems) {
  gpuGen++;
  gpu.clear();
  state.textures = textures;
  state.problems = problems;
  renderList();
  if (!textures.length) {
    const why = problems.map((p) => p.error).join('\n') || 'No texture was found in the files.';
    fail(why);
    return;
  }
  setStatus(`${textures.length} texture${textures.length > 1 ? 's' : ''} in ${opened.length} file${opened.length > 1 ? 's' : ''}`);
  // Keep the current view when more files arrive (the catalog is rebuilt, so find the texture
  // again by file and name), else show the first texture that decodes.
  const prev = state.current;
  const kept = prev ? textures.findIndex((t) => t.census.file === prev.file && t.census.name === prev.name) : -1;
  if (kept >= 0) {
    await show({ index: kept, mip: prev.mip, slice: prev.slice });
  } else {
    const start = Math.max(0, textures.findIndex((t) => entryState(t).cls !== 'bad'));
    await show({ index: start, mip: firstPresentMip(textures[start]), slice: 0 });
  }
  if (state.restore && !(await needFiles(state.restore)).length) {
    const s = state.restore;
    state.restore = null;
    await applyShare(s);
  }
}

// ---- Frostbite format profile (issue 6): re-opens the files with another game's enum --------
async function setProfile(name) {
  let reply;
  try {
    reply = await call({ op: 'profile', profile: name });
  } catch (e) {
    el.profile.value = profile ?? el.profile.dataset.default ?? '';
    fail(e.message);
    return;
  }
  profile = name;
  el.profile.value = name;
  // A texture that no longer decodes under this profile shows its error (show() puts it up).
  if (opened.length) await showCatalog(reply.textures, reply.problems).catch(() => {});
}
const profilesReady = call({ op: 'profiles' }).then((list) => {
  for (const p of list) {
    const o = document.createElement('option');
    o.value = p.name;
    o.textContent = p.default ? `${p.name} (default)` : p.name;
    o.title = p.games;
    el.profile.append(o);
    if (p.default) { o.selected = true; el.profile.dataset.default = p.name; }
  }
}).catch((e) => fail(e.message));
el.profile.addEventListener('change', () => setProfile(el.profile.value));

// ---- Unity version (issue 4): re-opens the files reading those that record none as this one ----
async function setUnityVersion(value) {
  const v = value.trim();
  let reply;
  try {
    reply = await call({ op: 'unityVersion', version: v });
  } catch (e) {
    el.unityVersion.value = unityVersion ?? '';
    fail(e.message);
    return;
  }
  unityVersion = v || undefined;
  if (opened.length) await showCatalog(reply.textures, reply.problems).catch(() => {});
}
el.unityVersion.addEventListener('change', () => setUnityVersion(el.unityVersion.value));

function firstPresentMip(t) {
  const i = t.mips.findIndex((m) => m.present);
  return i < 0 ? 0 : i;
}

function fail(message) {
  showError(message);
  setStatus('');
  setState('error');
}

// ---- the list -----------------------------------------------------------------------------
const filters = { name: '', engine: '', format: '', minSize: 0, sort: '' };
let listed = []; // texture indices in list order (after filter and sort)

function renderRow(i, row) {
  const t = state.textures[i];
  const c = t.census;
  row.dataset.index = String(i);
  row.tabIndex = 0;
  row.classList.toggle('selected', state.current?.index === i);
  row.setAttribute('aria-selected', String(state.current?.index === i));
  const st = entryState(t);
  const dims = c.depth > 1 ? `${c.width}×${c.height}×${c.depth}` : `${c.width}×${c.height}`;
  row.replaceChildren();
  const name = document.createElement('div');
  name.className = 'tex-name';
  const label = document.createElement('span');
  label.className = 'tex-label';
  label.textContent = c.name;
  // Unity bundles name their assets (m_Container): shown on hover, above the file.
  const path = (t.metadata || []).find(([k]) => k === 'container path')?.[1];
  name.title = path ? `${c.name} — ${path}\n${c.file}` : `${c.name} — ${c.file}`;
  if (path) row.dataset.containerPath = path;
  else delete row.dataset.containerPath;
  const badge = document.createElement('span');
  badge.className = `badge ${st.cls}`;
  badge.textContent = st.text;
  name.append(label, badge);
  const meta = document.createElement('div');
  meta.className = 'tex-meta';
  meta.textContent = `${c.engine} · ${c.format} · ${dims}${c.slices > 1 ? ` · ${c.slices} slices` : ''}`;
  const more = document.createElement('div');
  more.className = `tex-state ${st.cls}`;
  more.dataset.testid = 'tex-state';
  more.textContent = st.detail || `${fmtBytes(t.gpu_bytes ?? 0)} on the GPU · ${c.file}`;
  more.title = st.detail || c.file;
  row.append(name, meta, more);
  row.onclick = () => selectFromUi({ index: i, mip: firstPresentMip(t), slice: 0 });
  row.onkeydown = (e) => { if (e.key === 'Enter') row.click(); };
}

const vlist = new VirtualList(el.list, renderRow);

// ---- the thumbnail grid: the same entries, filters and states as the list ------------------
const CELL = { width: 112, height: 152, overscan: 1 };
const thumbs = new ThumbLoader((index, mip) => call({ op: 'thumb', texture: index, mip }), drawThumb);
let gridMode = false;

function thumbPlaceholder(box, text, cls = '') {
  const p = document.createElement('div');
  p.className = `thumb-none ${cls}`;
  p.textContent = text;
  box.replaceChildren(p);
}

function drawThumb(cell, thumb) {
  const box = cell.querySelector('.thumb-box');
  if (!box) return;
  if (thumb.error) {
    thumbPlaceholder(box, 'no preview', 'bad');
    box.title = thumb.error;
    return;
  }
  const c = document.createElement('canvas');
  c.className = 'thumb';
  c.width = thumb.width;
  c.height = thumb.height;
  c.getContext('2d').putImageData(new ImageData(thumb.data, thumb.width, thumb.height), 0, 0);
  box.replaceChildren(c);
}

function renderCell(i, cell) {
  const t = state.textures[i];
  const c = t.census;
  const st = entryState(t);
  cell.dataset.index = String(i);
  cell.tabIndex = 0;
  cell.classList.toggle('selected', state.current?.index === i);
  cell.setAttribute('aria-selected', String(state.current?.index === i));
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
  cell.onclick = () => selectFromUi({ index: i, mip: firstPresentMip(t), slice: 0 });
  cell.onkeydown = (e) => { if (e.key === 'Enter') cell.click(); };
}

const vgrid = new VirtualList($('texture-grid'), renderCell, { ...CELL, className: 'cell' });

function setGridMode(on) {
  gridMode = on;
  document.body.classList.toggle('grid-mode', on);
  $('texture-grid').hidden = !on;
  el.list.hidden = on;
  $('mode-grid').setAttribute('aria-pressed', String(on));
  $('mode-list').setAttribute('aria-pressed', String(!on));
  const pos = state.current ? listed.indexOf(state.current.index) : -1;
  const v = on ? vgrid : vlist;
  v.setItems(listed);
  if (pos >= 0) v.reveal(pos);
}
$('mode-list').addEventListener('click', () => setGridMode(false));
$('mode-grid').addEventListener('click', () => setGridMode(true));

function fillFilterOptions(select, values, any) {
  const keep = select.value;
  select.replaceChildren(new Option(any, ''));
  for (const v of [...new Set(values)].sort()) select.append(new Option(v, v));
  select.value = values.includes(keep) ? keep : '';
}

function applyFilters() {
  filters.name = $('filter-name').value.trim();
  filters.engine = $('filter-engine').value;
  filters.format = $('filter-format').value;
  filters.minSize = Number($('filter-size').value);
  filters.sort = $('sort').value;
  const { indices, error } = filterSort(state.textures, filters);
  listed = indices;
  $('filter-error').textContent = error;
  $('filter-error').hidden = !error;
  (gridMode ? vgrid : vlist).setItems(listed);
  const n = state.textures.length;
  el.count.textContent = n ? (listed.length === n ? String(n) : `${listed.length} of ${n}`) : '';
}
for (const id of ['filter-name', 'filter-engine', 'filter-format', 'filter-size', 'sort']) {
  $(id).addEventListener(id === 'filter-name' ? 'input' : 'change', applyFilters);
}

function renderList() {
  thumbs.reset(); // a new catalog: indices may name other textures
  fillFilterOptions($('filter-engine'), state.textures.map((t) => t.census.engine), 'Any engine');
  fillFilterOptions($('filter-format'), state.textures.map((t) => t.census.format), 'Any format');
  applyFilters();
  el.problemList.replaceChildren();
  for (const p of state.problems) {
    const li = document.createElement('li');
    li.textContent = p.error;
    el.problemList.append(li);
  }
  el.problems.hidden = !state.problems.length;
}

// ---- the view -----------------------------------------------------------------------------
function fillSelect(select, count, label, value) {
  select.replaceChildren();
  for (let i = 0; i < count; i++) {
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = label(i);
    select.append(o);
  }
  select.value = String(value);
  select.disabled = count < 2;
}

function renderControls(t, mip, slice) {
  fillSelect(el.mip, t.mips.length, (i) => {
    const m = t.mips[i];
    return `${i}: ${m.width}×${m.height}${m.present ? '' : ' (missing)'}`;
  }, mip);
  const faces = ['+X', '−X', '+Y', '−Y', '+Z', '−Z'];
  const surfaces = t.mips[mip]?.surfaces ?? t.census.slices;
  fillSelect(el.slice, surfaces, (i) => (t.census.kind === 'cube' ? `${i}: ${faces[i % 6]}${surfaces > 6 ? ` [${Math.floor(i / 6)}]` : ''}` : String(i)), slice);
  el.cross.hidden = t.census.kind !== 'cube';
  el.tiles.hidden = !t.census.virtual;
  if (!state.colourSet) {
    // What the file says; unknown is sRGB for 8/16-bit data and linear for float (HDR) data.
    state.colour = t.color_space === 'srgb' ? 'srgb' : t.color_space === 'linear' || t.precision === 'float' ? 'linear' : 'srgb';
    el.colour.value = state.colour;
  }
  renderStrip(t, mip);
}

// The mip strip: every mip with its size and where it lives; missing mips name the file to drop.
function renderStrip(t, mip) {
  el.strip.replaceChildren();
  t.mips.forEach((m, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `mip-chip${m.present ? '' : ' missing'}${i === mip ? ' selected' : ''}`;
    b.dataset.testid = `mip-chip-${i}`;
    const where = m.present ? (/inline|^$/.test(m.location_note) ? 'inline' : 'streamed') : 'missing';
    b.dataset.where = where;
    const size = document.createElement('span');
    size.className = 'mip-size';
    size.textContent = `${i} · ${m.width}×${m.height}${m.depth > 1 ? `×${m.depth}` : ''}`;
    const loc = document.createElement('span');
    loc.className = 'mip-loc';
    loc.textContent = m.present
      ? `${where} · ${m.files.join(', ') || m.location_note || t.census.file}`
      : `missing · drop ${m.missing.join(', ') || m.location_note}`;
    b.title = `${m.location_note}${m.files.length ? ` — ${m.files.join(', ')}` : ''}${m.missing.length ? ` — not opened: ${m.missing.join(', ')}` : ''}`;
    b.append(size, loc);
    b.addEventListener('click', () => {
      const c = state.current;
      if (c) selectFromUi({ index: c.index, mip: i, slice: Math.min(c.slice, m.surfaces - 1) });
    });
    el.strip.append(b);
  });
}

function renderInfo(t, mip) {
  const c = t.census;
  const rows = [
    ['File', c.file], ['Name', c.name], ['Engine', c.engine], ['Class', c.class], ['Kind', c.kind],
    ['Format', c.format], ['Native format', String(c.native_format)],
    ['Size', `${c.width}×${c.height}${c.depth > 1 ? `×${c.depth}` : ''}`],
    ['Mips', String(c.mips)], ['Slices', String(c.slices)],
    ['Colour space', t.color_space], ['GPU memory', fmtBytes(t.gpu_bytes)],
  ];
  if (t.normal_map) rows.push(['Normal map', t.normal_map]);
  const m = t.mips[mip];
  if (m) rows.push(['This mip', `${m.width}×${m.height} · ${m.location_note || 'inline'}${m.present ? '' : ' · missing'}`]);
  for (const [k, v] of t.metadata) rows.push([k, v]);
  for (const n of t.notes) rows.push(['Note', n]);
  if (c.error) rows.push(['Error', c.error]);
  state.infoJson = {
    census: c, color_space: t.color_space, normal_map: t.normal_map, precision: t.precision, block: t.block,
    gpu_bytes: t.gpu_bytes, bottom_first: t.bottom_first, metadata: Object.fromEntries(t.metadata), notes: t.notes, mips: t.mips,
  };
  el.info.replaceChildren();
  for (const [k, v] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v;
    el.info.append(dt, dd);
  }
}

// The open path's stages (issue 8), as performance marks and in state.stages ({name, time}, for
// texscope.stages()): each names the end of a stage; the worker's own stages of a decode (read,
// decode, copy out of wasm, the reply's trip to this thread) are added when the reply comes.
function stage(name, time = performance.now()) {
  performance.mark(name, { startTime: time });
  state.stages.push({ name, time });
}
// A new list of stages; the last one's marks go (the timeline would otherwise grow per selection).
function resetStages() {
  for (const s of state.stages) performance.clearMarks(s.name);
  state.stages = [];
}
function workerStages(what, img) {
  const got = performance.now();
  if (img.stages) {
    const [read, decode, copy] = img.stages;
    const sent = img.posted - performance.timeOrigin;
    stage(`${what}: worker start`, sent - copy - decode - read);
    stage(`${what}: worker read`, sent - copy - decode);
    stage(`${what}: worker decode`, sent - copy);
    stage(`${what}: worker copy out`, sent);
    stage(`${what}: reply arrived`, got);
  }
  return img;
}

// Resolves after the next frame is drawn (or after 100 ms when frames are not drawn, as in a hidden tab).
const afterFrame = () => new Promise((resolve) => {
  const timer = setTimeout(resolve, 100);
  requestAnimationFrame(() => setTimeout(() => { clearTimeout(timer); resolve(); }, 0));
});

let showSeq = 0;
let keepStages = false;
async function show({ index, mip, slice }) {
  const t = state.textures[index];
  if (!t) throw new Error(`there is no texture ${index}`);
  if (mip < 0 || mip >= t.mips.length) throw new Error(`${t.census.name} has ${t.mips.length} mips; there is no mip ${mip}`);
  const seq = ++showSeq;
  state.current = { index, mip, slice, file: t.census.file, name: t.census.name };
  const v = gridMode ? vgrid : vlist;
  v.refresh();
  const pos = listed.indexOf(index);
  if (pos >= 0) v.reveal(pos);
  renderControls(t, mip, slice);
  renderInfo(t, mip);
  setState('loading');
  state.selectedAt = performance.now();
  // Opening files keeps the stages openFiles began.
  if (keepStages) keepStages = false;
  else resetStages();
  stage('select');
  try {
    let image;
    const streamed = !state.cross && streams(t, mip);
    const pre = state.cross || streamed ? -1 : previewMip(t, mip, slice, viewportSize());
    if (pre >= 0) {
      // Progressive display: a small mip first, scaled to the asked mip's box, then the mip itself.
      const small = workerStages('preview', await call({ op: 'decode', texture: index, mip: pre, slice }));
      if (seq !== showSeq) return;
      const m = t.mips[mip];
      streamer.setTexture(null);
      state.gpuSurface = null;
      present({ width: m.width, height: m.height, precision: small.precision, data: null, preview: small, previewMip: pre }, null, null);
      state.paints.push({ mip: pre, kind: 'preview', time: performance.now() });
      stage('preview painted');
    }
    if (streamed) {
      const layout = await call({ op: 'vtLayout', texture: index });
      const m = t.mips[mip];
      image = { width: m.width, height: m.height, precision: t.precision, data: null, streamed: true, layout };
    } else if (state.cross && t.census.kind === 'cube') {
      const base = slice - (slice % 6);
      const faces = [];
      for (let f = 0; f < 6; f++) faces.push(await call({ op: 'decode', texture: index, mip, slice: base + f }));
      image = composeCross(faces);
    } else {
      // The stored bytes come with the decode (one read of the mip) when the inspector's block
      // mode or the GPU path may want them (the GPU is probed while the worker decodes).
      const stored = hasBlockMode(t.census.format) || (state.gpuOn !== false && !t.census.virtual);
      const asked = call({ op: 'decode', texture: index, mip, slice, stored });
      // The GPU probe (a WebGL context on first use: measured 15-30 ms) while the worker decodes;
      // not during the preview's decode, which it outlasted, delaying the first paint.
      gpuWhy(t, false);
      image = workerStages('full', await asked);
      if (state.decodeDelay) await new Promise((r) => setTimeout(r, state.decodeDelay)); // test hook
    }
    // The grid is an overlay: if the core cannot give it, the image still shows.
    const grid = state.tiles && t.census.virtual ? await call({ op: 'vtGrid', texture: index, mip, layer: slice }).catch(() => null) : null;
    if (seq !== showSeq) return; // a newer selection won
    // The GPU path (issue 8) takes the stored blocks of a whole decoded surface; streamed VT mips
    // and previews stay on the CPU.
    const stored = image.stored ?? null;
    delete image.stored;
    const onGpu = image.streamed
      ? { surface: null, info: 'CPU decode: virtual textures are assembled from tiles on the CPU' }
      : await gpuUpload(t, index, mip, slice, image, stored);
    if (seq !== showSeq) return;
    stage('gpu path decided');
    state.gpuSurface = onGpu.surface;
    setGpuInfo(onGpu.info);
    streamer.setTexture(image.streamed ? { index, mip, layer: slice, layout: image.layout } : null);
    // The stored blocks, for the inspector's block mode (BC1/BC6H/BC7), came with the decode.
    present(image, grid, hasBlockMode(t.census.format) && !image.cross && image.data ? stored : null);
    state.paints.push({ mip, kind: image.streamed ? 'streamed' : 'full', time: performance.now() });
    if (image.data) {
      // The histogram after the frame that shows the mip (it took ~110 ms of a 4096² open, which
      // held the paint back); the view is "ready" once it is there.
      await afterFrame();
      if (seq !== showSeq) return;
      stage('frame');
      state.hist = histogram(image);
      renderHistogram();
      stage('histogram');
    }
    const m = t.mips[mip];
    el.viewLabel.textContent = `${t.census.name} · mip ${mip} (${m.width}×${m.height}) · slice ${slice} · ${t.census.format}`;
    setState('ready');
    stage('ready');
  } catch (e) {
    if (seq !== showSeq) return;
    state.image = null;
    state.gpuSurface = null;
    state.hist = null;
    streamer.setTexture(null);
    renderHistogram();
    el.canvas.hidden = true;
    el.overlay.hidden = true;
    el.empty.hidden = false;
    fail(e.message);
    throw e;
  }
}

// Puts `image` on screen (a decoded surface, or a placeholder without data: a progressive preview
// or a streamed VT mip) with its tile grid and stored blocks.
function present(image, grid, blocks) {
  state.blocks = blocks;
  const sameSize = state.image && state.image.width === image.width && state.image.height === image.height;
  state.image = image;
  // What view() reports: the selection this image belongs to (callers present only the current
  // selection's images; state.current itself changes as soon as another is asked for).
  const c = state.current;
  const t = state.textures[c.index];
  state.shown = { file: t.census.file, texture: t.census.name, index: c.index, mip: c.mip, slice: c.slice, format: t.census.format };
  state.hist = null; // show() adds the histogram of a decoded surface after the paint
  state.grid = grid;
  if (!sameSize) {
    state.pin = null;
    if (!state.fit) state.center = [image.width / 2, image.height / 2];
  }
  showError('');
  el.empty.hidden = true;
  el.canvas.hidden = false;
  $('export-button').disabled = false;
  applyZoom();
  paintCurrent();
  renderInspector();
  if (image.data) stage('painted');
}

// The decoded value of texel (x, y) of the view: a streamed VT mip answers from its cached tiles.
function valueAt(x, y) {
  return state.image.streamed ? streamer.texel(x, y) : texel(state.image, x, y);
}

function selectFromUi(v) {
  show(v).catch(() => {}); // the error is already on screen
}

el.mip.addEventListener('change', () => {
  const c = state.current;
  if (c) selectFromUi({ index: c.index, mip: Number(el.mip.value), slice: Math.min(c.slice, state.textures[c.index].mips[Number(el.mip.value)].surfaces - 1) });
});
el.slice.addEventListener('change', () => {
  const c = state.current;
  if (c) selectFromUi({ index: c.index, mip: c.mip, slice: Number(el.slice.value) });
});
function setExposure(ev) {
  state.exposure = Math.min(16, Math.max(-16, ev));
  el.exposure.value = String(state.exposure);
  el.exposureLabel.textContent = `${state.exposure > 0 ? '+' : ''}${state.exposure} EV`;
  paintCurrent();
}
el.exposure.addEventListener('input', () => setExposure(Number(el.exposure.value)));
// Range autofit: the exposure (in quarter stops, rounded down) that maps the brightest finite
// colour value of the surface to 1; NaN, Inf and values <= 0 are ignored.
function autoExposure() {
  const img = state.image;
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
  if (max > 0) setExposure(Math.floor(-Math.log2(max / norm) * 4) / 4);
}
$('exposure-auto').addEventListener('click', autoExposure);
$('hist-fit').addEventListener('click', autoExposure);
el.tonemap.addEventListener('change', () => { state.tonemap = el.tonemap.value; paintCurrent(); });
el.colour.addEventListener('change', () => { state.colour = el.colour.value; state.colourSet = true; paintCurrent(); });
el.normal.addEventListener('change', () => { state.normal = el.normal.value; paintCurrent(); });
function setToggle(button, key, on) {
  state[key] = on;
  button.setAttribute('aria-pressed', String(on));
}
el.flipGreen.addEventListener('click', () => { setToggle(el.flipGreen, 'flipGreen', !state.flipGreen); paintCurrent(); });
el.flipY.addEventListener('click', () => { setToggle(el.flipY, 'flipY', !state.flipY); paintCurrent(); renderInspector(); });
el.badOverlay.addEventListener('click', () => { setToggle(el.badOverlay, 'badOverlay', !state.badOverlay); paintCurrent(); });
function reshow() {
  const c = state.current;
  return c ? show({ index: c.index, mip: c.mip, slice: c.slice }) : Promise.resolve();
}
el.cross.addEventListener('click', () => { setToggle(el.cross, 'cross', !state.cross); reshow().catch(() => {}); });
el.tiles.addEventListener('click', () => { setToggle(el.tiles, 'tiles', !state.tiles); reshow().catch(() => {}); });

// ---- channels and background (view only: pixel() keeps the decoded values) ----------------
const channelButtons = document.querySelectorAll('[data-channel]');
function setChannels(ch) {
  Object.assign(state.channels, ch);
  for (const b of channelButtons) b.setAttribute('aria-pressed', String(state.channels[b.dataset.channel]));
  paintCurrent();
}
function toggleChannel(c, solo) {
  if (solo) setChannels({ r: c === 'r', g: c === 'g', b: c === 'b', a: c === 'a' });
  else setChannels({ [c]: !state.channels[c] });
}
for (const b of channelButtons) {
  // Shift-click shows that channel alone (as grey); a click on a solo channel brings all back.
  b.addEventListener('click', (e) => {
    const c = b.dataset.channel;
    const soloNow = Object.entries(state.channels).every(([k, v]) => v === (k === c));
    if (soloNow) setChannels({ r: true, g: true, b: true, a: true });
    else toggleChannel(c, e.shiftKey);
  });
}
const background = $('background');
const bgColour = $('bg-colour');
function applyBackground() {
  el.canvas.dataset.background = background.value;
  bgColour.hidden = background.value !== 'custom';
  // A chosen colour is set through the CSSOM (the CSP allows no inline style attributes).
  el.canvas.style.background = background.value === 'custom' ? bgColour.value : '';
}
background.addEventListener('change', applyBackground);
bgColour.addEventListener('input', applyBackground);

// ---- the GPU path (issue 8, www/gpu.js): stored blocks drawn by a shader ---------------------
const gpu = new GpuView();
let gpuGen = 0; // bumped when the catalog is rebuilt (texture indices change)
let gpuSoftware = false; // WebGL is a software renderer: the GPU path starts switched off

function setGpuInfo(text) {
  $('gpu-info').textContent = text;
}

// Why the GPU path will not draw texture `t` (a cube cross when `cross`), or null when it will.
function gpuWhy(t, cross) {
  if (state.gpuOn === null) {
    // A software WebGL (SwiftShader when the browser has no GPU) drew a 2048² view in 1-3 s
    // where the wasm decode plus displayBytes took 0.3-0.7 s (tests/browser/gpu.test.mjs), so
    // it starts off there; the toggle still turns it on.
    gpuSoftware = gpu.software();
    setToggle($('gpu-toggle'), 'gpuOn', !gpuSoftware);
  }
  return !state.gpuOn ? (gpuSoftware ? 'WebGL here is a software renderer, slower than the CPU decode (the GPU button uses it anyway)' : 'the GPU path is switched off')
    : cross ? 'the cube cross is put together on the CPU'
      : t.census.virtual ? 'virtual textures are assembled from tiles on the CPU'
        : gpu.unsupported(t.census.format);
}

// Uploads the stored bytes of the surface shown when the GPU can draw them (`stored` when the
// decode brought them, else they are read now); else says why not.
async function gpuUpload(t, index, mip, slice, image, stored) {
  const fmt = t.census.format;
  const why = gpuWhy(t, !!image.cross);
  if (why) return { surface: null, info: `CPU decode: ${why}` };
  try {
    const bytes = stored ?? await call({ op: 'surfaceBytes', texture: index, mip, slice });
    const s = gpu.upload(`${gpuGen}:${index}:${slice}`, fmt, mip, image.width, image.height, bytes);
    const what = t.block[0] > 1 || t.block[1] > 1 ? 'blocks' : 'texels';
    return { surface: s, bytes, info: `GPU: ${fmt} ${what} uploaded${s.cached ? '' : ` (${s.uploadMs.toFixed(1)} ms)`}` };
  } catch (e) {
    return { surface: null, info: `CPU decode: ${e.message}` };
  }
}

const badCache = new WeakMap();
// Draws the current surface on the GPU into the view canvas; null when it cannot (CPU path).
function paintGpu() {
  const s = state.gpuSurface;
  if (!s) return null;
  const t = state.textures[state.current.index];
  const out = gpu.draw(s, state.image.precision, displaySettings(), t.bottom_first);
  if (!out) {
    state.gpuSurface = null;
    setGpuInfo('CPU decode: the WebGL context was lost');
    return null;
  }
  el.canvas.width = out.width; // also clears it
  el.canvas.height = out.height;
  el.canvas.getContext('2d').drawImage(out, 0, 0);
  if (!badCache.has(state.image)) badCache.set(state.image, badCounts(state.image));
  return badCache.get(state.image);
}

$('gpu-toggle').addEventListener('click', () => {
  gpuSoftware = false; // the user chose
  setToggle($('gpu-toggle'), 'gpuOn', !state.gpuOn);
  reshow().catch(() => {});
});

// ---- zoom, pan, the overlay and the inspector ----------------------------------------------
// The canvas holds the image at its own resolution and is scaled by CSS (pixelated, i.e. nearest
// neighbour, from 1:1 up; smooth below). Its box is exactly the image, so screen -> texel is a
// division. `state.center` is the texel at the viewport's centre; zoom and pan move it.
const MAX_ZOOM = 64;
const MIN_ZOOM = 1 / 64;
const GRID_ZOOM = 8; // the texel grid shows from this zoom up

function viewportSize() {
  return { w: el.viewport.clientWidth, h: el.viewport.clientHeight };
}

function fitZoom() {
  if (!state.image) return 1;
  const { w, h } = viewportSize();
  const z = Math.min((w - 32) / state.image.width, (h - 32) / state.image.height);
  // Whole-number zoom above 1 keeps texels square and crisp.
  return z >= 1 ? Math.min(MAX_ZOOM, Math.floor(z)) : Math.max(MIN_ZOOM, z);
}

function applyZoom() {
  const img = state.image;
  if (!img) return;
  if (state.fit) {
    state.zoom = fitZoom();
    state.center = [img.width / 2, img.height / 2];
  }
  const { w, h } = viewportSize();
  const z = state.zoom;
  el.canvas.style.width = `${img.width * z}px`;
  el.canvas.style.height = `${img.height * z}px`;
  state.origin = [Math.round(w / 2 - state.center[0] * z), Math.round(h / 2 - state.center[1] * z)];
  el.canvas.style.left = `${state.origin[0]}px`;
  el.canvas.style.top = `${state.origin[1]}px`;
  el.canvas.dataset.rendering = z >= 1 ? 'pixelated' : 'smooth';
  el.zoomLabel.textContent = `${z >= 1 ? Math.round(z * 100) : (z * 100).toFixed(1)}%`;
  if (img.streamed) streamer.render(streamView());
  drawOverlay();
}

function setZoom(z, anchor) {
  const img = state.image;
  if (!img) return;
  const nz = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, z));
  // Keep the texel under `anchor` (viewport pixels; default the centre) where it is.
  const { w, h } = viewportSize();
  const [ax, ay] = anchor ?? [w / 2, h / 2];
  // From where the canvas really is (its position is rounded to whole pixels).
  const ux = (ax - state.origin[0]) / state.zoom;
  const uy = (ay - state.origin[1]) / state.zoom;
  state.center = [ux - (ax - w / 2) / nz, uy - (ay - h / 2) / nz];
  state.fit = false;
  state.zoom = nz;
  applyZoom();
}

function setFit() {
  state.fit = true;
  applyZoom();
}

function panBy(dx, dy) {
  state.fit = false;
  state.center = [state.center[0] - dx / state.zoom, state.center[1] - dy / state.zoom];
  applyZoom();
}

$('zoom-fit').addEventListener('click', setFit);
$('zoom-1').addEventListener('click', () => setZoom(1));
$('zoom-in').addEventListener('click', () => setZoom(state.zoom * 2));
$('zoom-out').addEventListener('click', () => setZoom(state.zoom / 2));
// The viewport also changes size without the window doing so (the grid widens the sidebar, the
// bar wraps): keep the fit and the centre then too.
new ResizeObserver(() => applyZoom()).observe(el.viewport);

el.viewport.addEventListener('wheel', (e) => {
  if (!state.image) return;
  e.preventDefault();
  const r = el.viewport.getBoundingClientRect();
  // One wheel notch (100 px of delta) is a factor of sqrt(2).
  setZoom(state.zoom * Math.pow(2, -e.deltaY / 200), [e.clientX - r.left, e.clientY - r.top]);
}, { passive: false });

// Screen point -> texel (x, y) of the image, accounting for the Y flip; null outside.
function texelAt(clientX, clientY) {
  const img = state.image;
  if (!img) return null;
  const r = el.canvas.getBoundingClientRect();
  const x = Math.floor(((clientX - r.left) / r.width) * img.width);
  let y = Math.floor(((clientY - r.top) / r.height) * img.height);
  if (x < 0 || y < 0 || x >= img.width || y >= img.height) return null;
  if (state.flipY) y = img.height - 1 - y;
  return [x, y];
}

let drag = null;
// Touch (pointer events): one finger pans (the drag above), two fingers pinch: the zoom follows
// the distance between them and the texel under their midpoint stays under it as it moves; a
// double tap fits the image. `touches` holds each finger's last position (viewport pixels).
const touches = new Map();
let pinch = null; // at the pinch's start: finger distance, zoom and the texel under the midpoint
let lastTap = null; // { time, x, y } of the last single tap
const DOUBLE_TAP_MS = 350;
const DOUBLE_TAP_PX = 30;
function pinchGeometry() {
  const [[ax, ay], [bx, by]] = [...touches.values()];
  const r = el.viewport.getBoundingClientRect();
  return { dist: Math.hypot(bx - ax, by - ay), mid: [(ax + bx) / 2 - r.left, (ay + by) / 2 - r.top] };
}
el.viewport.addEventListener('pointerdown', (e) => {
  if (!state.image || e.button !== 0) return;
  if (e.pointerType === 'touch') {
    touches.set(e.pointerId, [e.clientX, e.clientY]);
    if (touches.size === 2) {
      drag = null; // the first finger's pan becomes a pinch
      const g = pinchGeometry();
      const { w, h } = viewportSize();
      const texel = [state.center[0] + (g.mid[0] - w / 2) / state.zoom, state.center[1] + (g.mid[1] - h / 2) / state.zoom];
      pinch = { dist: g.dist, zoom: state.zoom, texel };
      el.viewport.setPointerCapture?.(e.pointerId);
      return;
    }
    if (touches.size > 2) return;
  }
  drag = { x: e.clientX, y: e.clientY, moved: false, id: e.pointerId };
  el.viewport.setPointerCapture?.(e.pointerId);
});
function endTouch(e) {
  if (!touches.delete(e.pointerId)) return false;
  if (pinch) {
    if (touches.size < 2) pinch = null;
    drag = null;
    lastTap = null;
    return true; // a pinch is neither a pan nor a tap
  }
  return false;
}
el.viewport.addEventListener('pointercancel', (e) => {
  endTouch(e);
  if (drag?.id === e.pointerId) { drag = null; el.viewport.classList.remove('dragging'); }
});
el.viewport.addEventListener('pointermove', (e) => {
  if (pinch && touches.has(e.pointerId)) {
    touches.set(e.pointerId, [e.clientX, e.clientY]);
    // From the start of the pinch each time (no rounding builds up): the zoom is the start zoom
    // times the spread, and the start texel goes under the fingers' midpoint.
    const g = pinchGeometry();
    const { w, h } = viewportSize();
    const z = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, pinch.dist > 0 ? pinch.zoom * (g.dist / pinch.dist) : state.zoom));
    state.fit = false;
    state.zoom = z;
    state.center = [pinch.texel[0] - (g.mid[0] - w / 2) / z, pinch.texel[1] - (g.mid[1] - h / 2) / z];
    applyZoom();
    return;
  }
  if (touches.has(e.pointerId)) touches.set(e.pointerId, [e.clientX, e.clientY]);
  if (drag && drag.id === e.pointerId) {
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (drag.moved || Math.abs(dx) + Math.abs(dy) > 3) {
      drag.moved = true;
      drag.x = e.clientX;
      drag.y = e.clientY;
      el.viewport.classList.add('dragging');
      panBy(dx, dy);
    }
  }
  hover(texelAt(e.clientX, e.clientY));
});
el.viewport.addEventListener('pointerup', (e) => {
  if (endTouch(e)) return;
  if (!drag || drag.id !== e.pointerId) return;
  const wasDrag = drag.moved;
  drag = null;
  el.viewport.classList.remove('dragging');
  if (!wasDrag && e.pointerType === 'touch') {
    const now = performance.now();
    const near = lastTap && Math.hypot(e.clientX - lastTap.x, e.clientY - lastTap.y) < DOUBLE_TAP_PX;
    if (near && now - lastTap.time < DOUBLE_TAP_MS) {
      lastTap = null;
      setFit();
      return;
    }
    lastTap = { time: now, x: e.clientX, y: e.clientY };
  }
  if (!wasDrag) {
    const t = texelAt(e.clientX, e.clientY);
    if (t) setPin(t);
  }
});
el.viewport.addEventListener('pointerleave', () => { if (!drag) hover(null); });

const fmtValue = (v, precision) => (precision === 'float' ? v.map((x) => x.toPrecision(5)) : v).join(', ');

// What the inspector says about texel (x, y): coordinates (face and face texel in the cross),
// the raw decoded value, the block (block formats) and the VT tile.
function describeTexel(x, y) {
  const img = state.image;
  const v = valueAt(x, y);
  if (!v) return null;
  const t = state.textures[state.current.index];
  const parts = [`(${x}, ${y})`];
  let fx = x;
  let fy = y;
  if (img.cross) {
    const f = crossFace(img, x, y);
    if (!f) return { text: `(${x}, ${y}) outside the cross`, value: null };
    parts.push(`face ${FACE_NAMES[f.face]} (${f.x}, ${f.y})`);
    fx = f.x;
    fy = f.y;
  }
  const [bw, bh] = t.block ?? [1, 1];
  if (bw > 1 || bh > 1) {
    const bx = Math.floor(fx / bw);
    const by = Math.floor(fy / bh);
    parts.push(`block (${bx}, ${by})`);
    const sb = state.blocks;
    if (sb && !img.cross) {
      const at = (by * Math.ceil(img.width / bw) + bx) * t.block[2];
      const mode = blockMode(t.census.format, sb.subarray(at, at + t.block[2]));
      if (mode) parts.push(mode);
    }
  }
  return { text: `${parts.join(' · ')}  ${fmtValue(v, img.precision)}`, value: v };
}

function hover(p) {
  state.hover = p;
  if (!p || !state.image) {
    el.pixelLabel.textContent = '';
    el.hover.textContent = '—';
    renderTile(null);
    return;
  }
  const [x, y] = p;
  const v = valueAt(x, y);
  el.pixelLabel.textContent = v ? `(${x}, ${y})  ${fmtValue(v, state.image.precision)}` : '';
  el.hover.textContent = describeTexel(x, y)?.text ?? '—';
  renderTile(p);
}

// The VT tile under texel p: (tx, ty), Morton address, tile index, chunk and byte range, or
// "no tile" when the cell holds none.
function tileAt(p) {
  const g = state.grid;
  if (!g || !p) return null;
  const tx = Math.floor(p[0] / g.tile_size);
  const ty = Math.floor(p[1] / g.tile_size);
  return g.tiles[ty * g.width_tiles + tx] ?? null;
}

function renderTile(p) {
  const tile = tileAt(p ?? state.pin);
  el.tileInfo.hidden = !state.grid;
  if (!state.grid) return;
  const g = state.grid;
  if (!tile) {
    el.tileInfo.textContent = `tiles ${g.width_tiles}×${g.height_tiles} of ${g.tile_size} px · chunk ${g.chunk} in ${[...g.chunk_files, ...g.chunk_missing].join(', ') || '?'}`;
    return;
  }
  const head = `tile (${tile.x}, ${tile.y}) · Morton ${tile.morton}`;
  if (tile.tile_index === null || tile.tile_index === undefined) {
    el.tileInfo.textContent = `${head} · no tile (fallback colour)`;
  } else {
    const end = tile.offset + tile.length;
    el.tileInfo.textContent = `${head} · index ${tile.tile_index} · chunk ${g.chunk} · bytes ${tile.offset}–${end - 1} (${tile.length})${tile.present ? '' : ' · chunk not opened'}`;
  }
}

function setPin(p) {
  const img = state.image;
  if (!img || !p) return;
  const x = Math.min(img.width - 1, Math.max(0, p[0]));
  const y = Math.min(img.height - 1, Math.max(0, p[1]));
  state.pin = [x, y];
  renderInspector();
  drawOverlay();
}

function renderInspector() {
  const p = state.pin;
  const d = p && state.image ? describeTexel(p[0], p[1]) : null;
  el.pin.textContent = d ? d.text : 'click a texel';
  renderTile(state.hover);
}

// Overlay canvas (viewport-sized, no pointer events): texel grid at high zoom, VT tile grid with
// missing tiles crossed out, the pinned texel.
function drawOverlay() {
  const img = state.image;
  const c = el.overlay;
  const { w, h } = viewportSize();
  c.hidden = !img;
  if (!img) return;
  if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
  const ctx = c.getContext('2d');
  ctx.clearRect(0, 0, w, h);
  const z = state.zoom;
  const [left, top] = state.origin;
  // Display row of texel row y (the Y flip mirrors rows).
  const rowTop = (y) => (state.flipY ? top + (img.height - y - 1) * z : top + y * z);
  const x0 = Math.max(0, Math.floor(-left / z));
  const x1 = Math.min(img.width, Math.ceil((w - left) / z));
  const y0 = Math.max(0, Math.floor(-top / z));
  const y1 = Math.min(img.height, Math.ceil((h - top) / z));
  state.texelGrid = z >= GRID_ZOOM;
  if (state.texelGrid) {
    ctx.strokeStyle = 'rgba(16, 16, 16, 0.7)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let x = x0; x <= x1; x++) { ctx.moveTo(left + x * z + 0.5, top + y0 * z); ctx.lineTo(left + x * z + 0.5, top + y1 * z); }
    for (let y = y0; y <= y1; y++) { ctx.moveTo(left + x0 * z, top + y * z + 0.5); ctx.lineTo(left + x1 * z, top + y * z + 0.5); }
    ctx.stroke();
  }
  const g = state.grid;
  if (g) {
    const ts = g.tile_size * z;
    for (const t of g.tiles) {
      if (t.present) continue;
      // A cell with no tile (fallback) or whose chunk is not open: hatched red.
      const x = left + t.x * ts;
      const y = state.flipY ? top + img.height * z - (t.y + 1) * ts : top + t.y * ts;
      ctx.fillStyle = t.tile_index === null || t.tile_index === undefined ? 'rgba(239, 91, 91, 0.28)' : 'rgba(224, 163, 58, 0.35)';
      ctx.fillRect(x, y, ts, ts);
      ctx.strokeStyle = 'rgba(239, 91, 91, 0.9)';
      ctx.beginPath();
      ctx.moveTo(x, y); ctx.lineTo(x + ts, y + ts);
      ctx.moveTo(x + ts, y); ctx.lineTo(x, y + ts);
      ctx.stroke();
    }
    ctx.strokeStyle = 'rgba(255, 255, 255, 0.75)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let i = 0; i <= g.width_tiles; i++) { ctx.moveTo(left + i * ts + 0.5, top); ctx.lineTo(left + i * ts + 0.5, top + img.height * z); }
    for (let j = 0; j <= g.height_tiles; j++) { ctx.moveTo(left, top + j * ts + 0.5); ctx.lineTo(left + img.width * z, top + j * ts + 0.5); }
    ctx.stroke();
  }
  if (state.pin) {
    const [px, py] = state.pin;
    const s = Math.max(z, 6);
    const cx = left + (px + 0.5) * z;
    const cy = rowTop(py) + z / 2;
    ctx.strokeStyle = '#ffd23f';
    ctx.lineWidth = 2;
    ctx.strokeRect(cx - s / 2 - 1, cy - s / 2 - 1, s + 2, s + 2);
  }
}

// ---- keyboard ------------------------------------------------------------------------------
const SHORTCUTS = [
  ['+ / −', 'zoom in / out (or the mouse wheel)'], ['0 or F', 'fit to view'], ['1', 'actual size (1:1)'],
  ['drag', 'pan'], ['click', 'pin the texel under the mouse'],
  ['pinch / one finger / double tap', 'touch: zoom / pan / fit'], ['← → ↑ ↓', 'move the pinned texel (Shift: 8)'],
  ['R G B A', 'toggle a channel'], ['Shift+R/G/B/A', 'that channel alone, as grey'],
  ['E / Shift+E', 'exposure +/− 1 EV'], ['W', 'auto exposure (brightest value to 1)'], ['M', 'next tonemap'], ['N', 'normal-map view'],
  ['V', 'flip vertically'], ['X', 'mark NaN / Inf / negative'], ['C', 'cube cross'], ['T', 'VT tile grid'],
  ['[ / ]', 'previous / next mip'], ['#', 'textures as a list / as a grid of thumbnails'], ['L', 'copy a link to this view'], ['?', 'this list'], ['Esc', 'close this list'],
];
(() => {
  const table = $('help-table');
  for (const [k, v] of SHORTCUTS) {
    const tr = document.createElement('tr');
    const a = document.createElement('td');
    a.className = 'key';
    a.textContent = k;
    const b = document.createElement('td');
    b.textContent = v;
    tr.append(a, b);
    table.append(tr);
  }
})();
const toggleHelp = (on = el.help.hidden) => { el.help.hidden = !on; };
$('help-button').addEventListener('click', () => toggleHelp());
$('help-close').addEventListener('click', () => toggleHelp(false));
el.help.addEventListener('click', (e) => { if (e.target === el.help) toggleHelp(false); });

function stepMip(d) {
  const c = state.current;
  if (!c) return;
  const t = state.textures[c.index];
  const mip = c.mip + d;
  if (mip < 0 || mip >= t.mips.length) return;
  selectFromUi({ index: c.index, mip, slice: Math.min(c.slice, t.mips[mip].surfaces - 1) });
}

window.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key;
  if (k === 'Escape') { toggleHelp(false); return; }
  if (k === '?') { toggleHelp(); return; }
  if (k.startsWith('Arrow') && state.pin) {
    e.preventDefault();
    const step = e.shiftKey ? 8 : 1;
    const [x, y] = state.pin;
    const up = state.flipY ? step : -step; // arrows move on screen
    const d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, up], ArrowDown: [0, -up] }[k];
    setPin([x + d[0], y + d[1]]);
    return;
  }
  if (k === 'f' || k === 'F' || k === '0') setFit();
  else if (k === '1') setZoom(1);
  else if (k === '+' || k === '=') setZoom(state.zoom * 2);
  else if (k === '-' || k === '_') setZoom(state.zoom / 2);
  else if (k === 'w' || k === 'W') autoExposure();
  else if (k === 'e') setExposure(state.exposure + 1);
  else if (k === 'E') setExposure(state.exposure - 1);
  else if (k === 'm' || k === 'M') { const o = ['clamp', 'reinhard', 'aces']; state.tonemap = o[(o.indexOf(state.tonemap) + 1) % 3]; el.tonemap.value = state.tonemap; paintCurrent(); }
  else if (k === 'n' || k === 'N') { state.normal = state.normal === 'off' ? 'rg' : 'off'; el.normal.value = state.normal; paintCurrent(); }
  else if (k === 'v' || k === 'V') el.flipY.click();
  else if (k === 'x' || k === 'X') el.badOverlay.click();
  else if ((k === 'c' || k === 'C') && !el.cross.hidden) el.cross.click();
  else if ((k === 't' || k === 'T') && !el.tiles.hidden) el.tiles.click();
  else if (k === '#') setGridMode(!gridMode);
  else if (k === '[') stepMip(-1);
  else if (k === ']') stepMip(1);
  else if (k === 'l' || k === 'L') $('share').click();
  else if ('rgbaRGBA'.includes(k) && k.length === 1) toggleChannel(k.toLowerCase(), e.shiftKey);
});

// ---- info JSON and share link ----------------------------------------------------------------
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false; // no clipboard permission: the text stays selectable in the status
  }
}
$('copy-info').addEventListener('click', async () => {
  if (!state.infoJson) return;
  const ok = await copyText(JSON.stringify(state.infoJson, null, 2));
  setStatus(ok ? 'Info copied as JSON' : 'The browser refused the clipboard');
});

// A local file's fingerprint for share links: size and SHA-256 of its first MiB followed by its
// last MiB (the whole file when it is 2 MiB or less), so a link can tell a different file apart
// without reading gigabytes.
const MIB = 1 << 20;
const fingerprints = new WeakMap();
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

// The last opened file of each name (a later drop of the same name replaces the earlier one).
function openedByName() {
  const m = new Map();
  for (const f of opened) m.set(f.name, f);
  return m;
}

async function shareState() {
  const c = state.current;
  if (!c) return null;
  const t = state.textures[c.index];
  const local = state.demo || state.sources ? [] : [...openedByName().values()].slice(0, 64);
  const fileMeta = await Promise.all(local.map(fingerprint));
  return {
    demo: state.demo ?? undefined,
    fileMeta,
    files: state.demo || state.sources ? undefined : [...new Set(opened.map((f) => f.name))],
    texture: t.census.name, mip: c.mip, slice: c.slice, channels: { ...state.channels },
    exposure: state.exposure, tonemap: state.tonemap, colour: state.colour, normal: state.normal,
    flipGreen: state.flipGreen, flipY: state.flipY, badOverlay: state.badOverlay, tiles: state.tiles,
    cross: state.cross, zoom: state.fit ? 'fit' : state.zoom, center: state.center, pin: state.pin ?? undefined,
  };
}

async function shareLink() {
  const s = await shareState();
  if (!s) return null;
  const url = new URL(location.href);
  url.hash = formatShare(s);
  return url.href;
}

$('share').addEventListener('click', async () => {
  const link = await shareLink();
  if (!link) return;
  history.replaceState(null, '', link);
  const ok = await copyText(link);
  setStatus(ok ? 'Link copied' : 'Link in the address bar');
});

// Applies a parsed share link once its texture is open: selection, then every view setting.
async function applyShare(s) {
  // The latest texture of that name: a file dropped again replaces the earlier one.
  const index = s.texture !== undefined ? state.textures.findLastIndex((t) => t.census.name === s.texture) : 0;
  if (index < 0) return false;
  const t = state.textures[index];
  if (s.channels) setChannels(s.channels);
  if (s.exposure !== undefined) setExposure(s.exposure);
  if (s.tonemap) { state.tonemap = s.tonemap; el.tonemap.value = s.tonemap; }
  if (s.colour) { state.colour = s.colour; state.colourSet = true; el.colour.value = s.colour; }
  if (s.normal) { state.normal = s.normal; el.normal.value = s.normal; }
  for (const [key, button] of [['flipGreen', el.flipGreen], ['flipY', el.flipY], ['badOverlay', el.badOverlay], ['tiles', el.tiles], ['cross', el.cross]]) {
    if (s[key] !== undefined) setToggle(button, key, s[key]);
  }
  const mip = s.mip !== undefined && s.mip < t.mips.length ? s.mip : firstPresentMip(t);
  const slice = s.slice !== undefined && s.slice < (t.mips[mip]?.surfaces ?? 1) ? s.slice : 0;
  await show({ index, mip, slice });
  if (s.zoom === 'fit' || s.zoom === undefined) setFit();
  else {
    state.fit = false;
    state.zoom = s.zoom;
    if (s.center) state.center = s.center;
    applyZoom();
  }
  if (s.pin && s.pin[0] < state.image.width && s.pin[1] < state.image.height) setPin(s.pin);
  return true;
}

// A link for local files lists their names (and sizes and fingerprints): ask for them, say which
// are missing or differ, restore once none is missing.
async function needFiles(s) {
  const have = openedByName();
  const missing = (s.files ?? []).filter((f) => !have.has(f));
  const differ = [];
  for (const m of s.fileMeta ?? []) {
    const f = have.get(m.name);
    if (!f) continue;
    if (f.size !== m.size) differ.push(`${m.name} (${f.size} bytes, the link's has ${m.size})`);
    else if ((await fingerprint(f)).hash !== m.hash) differ.push(`${m.name} (same size, different content)`);
  }
  const parts = [];
  if (missing.length) parts.push(`This link shows ${s.texture ?? 'a texture'} from files on someone's machine: drop ${missing.join(', ')} to see it.`);
  if (differ.length) parts.push(`Not the linked file${differ.length > 1 ? 's' : ''}: ${differ.join('; ')}. The view may differ.`);
  el.shareNeed.hidden = !parts.length;
  el.shareNeed.textContent = parts.join(' ');
  el.shareNeed.dataset.missing = missing.join('\n');
  el.shareNeed.dataset.differ = differ.join('\n');
  return missing;
}

async function restoreFromHash() {
  const s = parseShare(location.hash);
  if (!Object.keys(s).length) return;
  if (s.demo) {
    await openDemo(s.demo);
    await applyShare(s).catch(() => {});
  } else if (s.files) {
    state.restore = s;
    await needFiles(s);
  }
}

// ---- exports: PNG, EXR, DDS and a ZIP of the listed textures --------------------------------
const safeName = (s) => String(s).replace(/[^\w.-]+/g, '_').slice(0, 120) || 'texture';
let exportAbort = null;

function progress(done, total, text) {
  $('progress').hidden = false;
  $('progress-bar').max = total;
  $('progress-bar').value = done;
  $('progress-label').textContent = text;
}

async function exportCurrent(kind) {
  const c = state.current;
  if (!c || !state.image) return;
  // A streamed or preview view holds no full mip: decode it now (the core's limits refuse sizes
  // that cannot fit).
  const img = state.image.data ? state.image : await call({ op: 'decode', texture: c.index, mip: c.mip, slice: c.slice });
  const t = state.textures[c.index];
  const base = `${safeName(t.census.name)}__mip${c.mip}__s${c.slice}`;
  if (kind === 'png-view') {
    // What the canvas shows: every view setting (exposure, tonemap, channels, flip, overlay) applied.
    const blob = await new Promise((res) => el.canvas.toBlob(res, 'image/png'));
    download(blob, `${base}__view.png`);
  } else if (kind === 'png-raw') {
    if (img.precision === 'float') throw new Error(`${t.census.name} holds float values, which PNG cannot keep: export EXR instead`);
    download(await encodePng(img.width, img.height, img.data), `${base}.png`);
  } else if (kind === 'exr') {
    let data = img.data;
    if (img.precision !== 'float') {
      const norm = img.precision === 'unorm16' ? 65535 : 255;
      data = Float32Array.from(img.data, (v) => v / norm);
    }
    download(encodeExr(img.width, img.height, data), `${base}.exr`);
  } else if (kind === 'dds') {
    const bytes = await call({ op: 'exportDds', texture: c.index });
    download(new Blob([bytes], { type: 'application/octet-stream' }), `${safeName(t.census.name)}.dds`);
  } else if (kind === 'zip') {
    await exportZip(listed.slice());
    return;
  }
  setStatus(`Exported ${t.census.name}`);
}

// Every listed texture as a lossless DDS in one store-only ZIP; textures that cannot be written
// (missing data, unsupported) are named with the reason in errors.txt.
async function exportZip(indices) {
  if (!indices.length) return;
  exportAbort = new AbortController();
  const errors = [];
  const used = new Set();
  const entries = indices.map((i) => async () => {
    const t = state.textures[i];
    let name = `${safeName(t.census.name)}.dds`;
    for (let k = 2; used.has(name); k++) name = `${safeName(t.census.name)}_${k}.dds`;
    used.add(name);
    try {
      return { name, data: await call({ op: 'exportDds', texture: i }) };
    } catch (e) {
      errors.push(`${t.census.name} (${t.census.file}): ${e.message}`);
      return null;
    }
  });
  const kept = [];
  // Fetch one by one so cancel takes effect between textures, then write the ZIP.
  try {
    for (let k = 0; k < entries.length; k++) {
      if (exportAbort.signal.aborted) throw new DOMException('cancelled', 'AbortError');
      progress(k, entries.length, `Exporting ${k + 1} of ${entries.length}…`);
      const e = await entries[k]();
      if (e) kept.push(e);
      if (state.exportDelay) await new Promise((r) => setTimeout(r, state.exportDelay)); // test hook
    }
    if (errors.length) kept.push({ name: 'errors.txt', data: new TextEncoder().encode(`${errors.join('\n')}\n`) });
    const blob = await zipStore(kept.map((e) => () => e), { signal: exportAbort.signal });
    download(blob, 'texscope-export.zip');
    setStatus(`Exported ${kept.length - (errors.length ? 1 : 0)} of ${indices.length} textures as DDS in a ZIP${errors.length ? ` (${errors.length} failed: see errors.txt)` : ''}`);
  } catch (e) {
    if (e.name === 'AbortError') setStatus('Export cancelled');
    else throw e;
  } finally {
    exportAbort = null;
    $('progress').hidden = true;
  }
}

$('progress-cancel').addEventListener('click', () => exportAbort?.abort());
$('export-button').addEventListener('click', (e) => { e.stopPropagation(); $('export-menu').hidden = !$('export-menu').hidden; });
for (const b of document.querySelectorAll('[data-export]')) {
  b.addEventListener('click', () => {
    $('export-menu').hidden = true;
    exportCurrent(b.dataset.export).catch((e) => showError(e.message));
  });
}
document.addEventListener('click', (e) => { if (!$('export-menu').contains(e.target)) $('export-menu').hidden = true; });

// ---- drawers on narrow screens (style.css shows the toggles below 1100 / 900 px) -------------
function setDrawer(name, open) {
  document.body.classList.toggle(`show-${name}`, open);
  $(`${name}-toggle`).setAttribute('aria-expanded', String(open));
  if (open) setDrawer(name === 'list' ? 'info' : 'list', false); // one drawer at a time
  if (open && name === 'list' && gridMode) vgrid.refresh(); // thumbnails wait for a visible drawer
}
for (const name of ['list', 'info']) {
  $(`${name}-toggle`).addEventListener('click', () => setDrawer(name, !document.body.classList.contains(`show-${name}`)));
}
// Choosing a texture, or touching the view, closes the list drawer.
// (Capture: the row is re-rendered by the selection before the event would bubble up.)
el.list.addEventListener('click', (e) => { if (e.target.closest('.tex')) setDrawer('list', false); }, true);
el.viewport.addEventListener('pointerdown', () => { setDrawer('list', false); setDrawer('info', false); });
window.addEventListener('keydown', (e) => { if (e.key === 'Escape') { setDrawer('list', false); setDrawer('info', false); } });

// ---- demos: files the core generates, opened like dropped files ----------------------------
const DEMOS = [
  { id: 'ue5-vt', title: 'UE5 virtual texture', tag: 'Unreal', text: 'T_Landscape_VT · 8×8 tiles of 64 px, BC1 colour + BC5 normal layers, 3 tiles left out (magenta)' },
  { id: 'ue-classic', title: 'UE mip chain', tag: 'Unreal', text: 'T_Bricks_D · BC1 512², mips 0–1 streamed from .ubulk, 2–9 inline in .uexp' },
  { id: 'frostbite-cas', title: 'Frostbite CAS chunk', tag: 'Frostbite', text: 'crate_d .res header + .chunk of zlib, LZ4 and ZStd blocks' },
  { id: 'hdr', title: 'HDR sky', tag: 'DDS', text: 'sky_hdr.dds · RGBA16F 256×128, sun at 16.0 — try the exposure' },
  { id: 'cubemap', title: 'Cubemap', tag: 'DDS', text: 'sky_cube.dds · 64² RGBA8, six coloured faces, full chain' },
];

async function openDemo(id, without = [], only = null) {
  setState('loading');
  setStatus('Making the demo files…');
  try {
    const made = await call({ op: 'demo', demo: id });
    // A share link can name the demo only while nothing else is open.
    const firstOpen = !opened.length;
    const prevDemo = state.demo;
    await openFiles(made.filter((f) => !without.includes(f.name) && (!only || only.includes(f.name))).map((f) => new File([f.data], f.name)));
    state.demo = !without.length && !only && (firstOpen || prevDemo === id) ? id : null;
  } catch (e) {
    fail(e.message);
  }
}

function renderDemos(container) {
  for (const d of DEMOS) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'demo';
    b.dataset.testid = `demo-${d.id}`;
    b.innerHTML = '<span class="demo-thumb"></span><span class="demo-body"><span class="demo-title"></span><span class="demo-text"></span></span>';
    b.querySelector('.demo-thumb').dataset.demo = d.id;
    b.querySelector('.demo-title').textContent = `${d.title} `;
    const tag = document.createElement('span');
    tag.className = 'demo-tag';
    tag.textContent = d.tag;
    b.querySelector('.demo-title').append(tag);
    b.querySelector('.demo-text').textContent = d.text;
    b.addEventListener('click', () => { $('demo-menu').hidden = true; openDemo(d.id); });
    container.append(b);
  }
}
renderDemos($('demo-gallery'));
renderDemos($('demo-menu'));
$('demo-button').addEventListener('click', (e) => { e.stopPropagation(); $('demo-menu').hidden = !$('demo-menu').hidden; });
document.addEventListener('click', (e) => { if (!$('demo-menu').contains(e.target)) $('demo-menu').hidden = true; });

// ---- opening by picking or dropping -------------------------------------------------------
el.input.addEventListener('change', () => {
  const files = el.input.files;
  openFiles(files).finally(() => { el.input.value = ''; });
});

$('folder-input').addEventListener('change', () => {
  openFiles($('folder-input').files).finally(() => { $('folder-input').value = ''; });
});

let dragDepth = 0;
window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; el.dropOverlay.hidden = false; });
window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; el.dropOverlay.hidden = true; } });
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  el.dropOverlay.hidden = true;
  droppedFiles(e.dataTransfer).then((files) => openFiles(files)).catch((err) => fail(err.message));
});

// ---- the test contract (issue 2): stable from now on --------------------------------------
function resolveTexture(spec) {
  if (spec === undefined) return state.current?.index ?? 0;
  if (typeof spec === 'number') return spec;
  const i = state.textures.findIndex((t) => t.census.name === spec);
  if (i < 0) throw new Error(`no texture named ${spec}`);
  return i;
}

window.texscope = {
  // What is on screen (a selection still decoding shows once its image has arrived).
  view() {
    const s = state.shown;
    if (!s || !state.image) return null;
    return { ...s, width: state.image.width, height: state.image.height };
  },
  async select({ texture, mip, slice } = {}) {
    const index = resolveTexture(texture);
    const same = state.current && state.current.index === index;
    await show({
      index,
      mip: mip ?? (same ? state.current.mip : 0),
      slice: slice ?? (same ? state.current.slice : 0),
    });
    return this.view();
  },
  pixel(x, y) {
    return state.image ? valueAt(x, y) : null;
  },
  // Issue 8 test hooks: what was painted when ({openedAt, selectedAt, events: [{mip, kind, time}]}),
  // a delay before a full mip is painted, the tile streamer's counters, and a timed decode.
  paints() {
    return { openedAt: state.openedAt, selectedAt: state.selectedAt, events: state.paints.map((p) => ({ ...p })) };
  },
  clearPaints() {
    state.paints = [];
  },
  // The last selection's stages ([{name, time}], time = performance.now() at the stage's end).
  stages() {
    return state.stages.map((s) => ({ ...s }));
  },
  setDecodeDelay(ms) {
    state.decodeDelay = ms;
  },
  tiles() {
    return { ...streamer.info(), poolSize: pool.size, view: state.image?.streamed ? streamer.visible(streamView()) : null };
  },
  resetTiles() {
    streamer.reset();
    if (state.image?.streamed) streamer.setTexture(streamer.texture);
  },
  redraw() {
    applyZoom();
  },
  async timeDecode({ texture, mip = 0, slice = 0 } = {}) {
    const t0 = performance.now();
    const img = await call({ op: 'decode', texture: resolveTexture(texture), mip, slice });
    return { ms: performance.now() - t0, width: img.width, height: img.height, stages: img.stages };
  },
  textures() {
    return state.textures.map((t) => t.census);
  },
  // [bytes, reads] the worker has read from opened files, and its wasm memory size (issue 8).
  readStats: () => call({ op: 'readStats' }),
  // Test hook (issue 9): makes the decoder panic; the page shows the error and restarts it.
  async debugPanic() {
    try {
      await call({ op: 'panic' });
    } catch (e) {
      fail(e.message);
      return e.message;
    }
    return null;
  },
  // What the canvas shows at (x, y) after the view settings, as RGBA bytes.
  shown(x, y) {
    if (!state.image) return null;
    return Array.from(el.canvas.getContext('2d').getImageData(x, y, 1, 1).data);
  },
  // The view settings (issue 7): zoom, pan centre, rendering, channels, HDR and overlay state.
  display() {
    if (!state.image) return null;
    const r = el.canvas.getBoundingClientRect();
    return {
      zoom: state.zoom, fit: state.fit, center: [...state.center], rendering: el.canvas.dataset.rendering,
      texelGrid: Boolean(state.texelGrid), canvasBox: { x: r.x, y: r.y, width: r.width, height: r.height },
      channels: { ...state.channels }, exposure: state.exposure, tonemap: state.tonemap, colour: state.colour,
      normal: state.normal, flipGreen: state.flipGreen, flipY: state.flipY, badOverlay: state.badOverlay,
      bad: { ...state.bad }, cross: Boolean(state.image.cross), tiles: Boolean(state.grid),
      pin: state.pin ? [...state.pin] : null, hover: state.hover ? [...state.hover] : null,
    };
  },
  // Sets view settings without going through the controls (tests and share links use the same path).
  async setDisplay(s) {
    await applyShare({ texture: state.textures[state.current?.index ?? 0]?.census.name, mip: state.current?.mip, slice: state.current?.slice, ...s });
    return this.display();
  },
  grid() {
    return state.grid;
  },
  // The GPU path (issue 8): what the browser offers, which path drew the view and why.
  gpu() {
    return { on: state.gpuOn, path: state.gpuSurface ? 'gpu' : 'cpu', info: $('gpu-info').textContent, ...gpu.capabilities() };
  },
  async setGpu(on) {
    if (on !== Boolean(state.gpuOn)) $('gpu-toggle').click();
    await reshow();
    return this.gpu();
  },
  // Test hook: the WebGL context is lost (as after a driver reset); the view is painted again.
  async debugLoseGpu() {
    await gpu.loseContext();
    paintCurrent();
    return this.gpu();
  },
  // The current view drawn by both paths at 1:1: GPU readPixels and the CPU's displayBytes, as
  // base64 RGBA rows top first. Null when the GPU path is not drawing this surface.
  gpuCompare() {
    const s = state.gpuSurface;
    if (!s || !state.image) return null;
    const t = state.textures[state.current.index];
    if (!gpu.draw(s, state.image.precision, displaySettings(), t.bottom_first)) return null;
    const b64 = (u8) => {
      let str = '';
      for (let i = 0; i < u8.length; i += 0x8000) str += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
      return btoa(str);
    };
    const cpu = displayBytes(state.image, displaySettings()).bytes;
    return { width: state.image.width, height: state.image.height, gpu: b64(gpu.pixels()), cpu: b64(new Uint8Array(cpu.buffer, cpu.byteOffset, cpu.length)) };
  },
  // Timings (ms) of the current surface, `runs` times: read + CPU decode + transfer (the worker's
  // decode) against read of the stored bytes, and their upload + one draw (GPU), each run fresh.
  async gpuBench(runs = 5) {
    const c = state.current;
    const t = state.textures[c.index];
    const out = { decode: [], read: [], upload: [], firstDraw: [], redrawGpu: [], redrawCpu: [] };
    const lap = (list, t0) => { const now = performance.now(); list.push(now - t0); return now; };
    for (let i = 0; i < runs; i++) {
      let t0 = performance.now();
      const img = await call({ op: 'decode', texture: c.index, mip: c.mip, slice: c.slice });
      t0 = lap(out.decode, t0);
      const bytes = await call({ op: 'surfaceBytes', texture: c.index, mip: c.mip, slice: c.slice });
      t0 = lap(out.read, t0);
      gpu.forget('bench');
      const s = gpu.upload('bench', t.census.format, c.mip, img.width, img.height, bytes);
      t0 = lap(out.upload, t0);
      gpu.draw(s, img.precision, displaySettings(), t.bottom_first);
      gpu.finish();
      t0 = lap(out.firstDraw, t0);
      // A repaint after a view change (exposure): the shader again, against displayBytes.
      const changed = { ...displaySettings(), exposure: 1 + i };
      gpu.draw(s, img.precision, changed, t.bottom_first);
      gpu.finish();
      t0 = lap(out.redrawGpu, t0);
      displayBytes(img, changed);
      lap(out.redrawCpu, t0);
    }
    gpu.forget('bench');
    return out;
  },
  histogram() {
    return state.hist ?? null;
  },
  // Opens demo `id`, leaving out the named files (to see what a missing sibling looks like).
  async openDemo(id, { without = [], only = null } = {}) {
    await openDemo(id, without, only);
    return this.view();
  },
  infoJson() {
    return state.infoJson ?? null;
  },
  // The list (issue 7): what is listed after filter and sort, and how many rows are in the DOM.
  list() {
    return {
      total: state.textures.length, listed: listed.map((i) => state.textures[i].census.name),
      rows: el.list.querySelectorAll('.tex').length,
    };
  },
  // The grid (issue 7): mode, cells in the DOM, every thumbnail request sent (texture index, mip)
  // and the cache size.
  thumbs() {
    return {
      grid: gridMode, cells: $('texture-grid').querySelectorAll('.cell').length,
      drawn: $('texture-grid').querySelectorAll('canvas.thumb').length,
      requested: thumbs.log.map((r) => ({ ...r, name: state.textures[r.index]?.census.name })),
      cached: thumbs.cache.size, inflight: thumbs.inflight.size, limit: thumbs.limit,
    };
  },
  // RGBA of thumbnail texel (x, y) of texture `index` (from the cache), or null.
  thumbPixel(index, x, y) {
    const m = thumbMip(state.textures[index]).mip;
    const th = thumbs.cache.get(`${index}:${m}`);
    if (!th || th.error || x >= th.width || y >= th.height) return null;
    const i = (y * th.width + x) * 4;
    return { width: th.width, height: th.height, rgba: Array.from(th.data.subarray(i, i + 4)) };
  },
  setThumbCacheLimit(n) {
    thumbs.setLimit(n);
  },
  // Test hook: replaces the catalog with `entries` (census-like records) to exercise the list alone.
  injectList(entries) {
    // `mipList` (optional) stands for the Session's per-mip records, e.g. to show a waiting entry.
    state.textures = entries.map((c) => ({ census: c, mips: c.mipList ?? [{ present: true, missing: [] }], gpu_bytes: c.gpu_bytes ?? 0 }));
    state.problems = [];
    state.current = null;
    renderList();
    return state.textures.length;
  },
  // The files of demo `id` as {name, data: number[]} (tests drop them through the file input).
  async demoFiles(id) {
    const made = await call({ op: 'demo', demo: id });
    return made.map((f) => ({ name: f.name, data: Array.from(f.data) }));
  },
  // Walks FileSystemEntry-like objects as a folder drop does and opens what it finds.
  async openEntries(entries) {
    const files = await walkEntries(entries);
    await openFiles(files);
    return files.map((f) => f.name);
  },
  // Test hook: a pause after each texture of a ZIP export, to see the progress bar and cancel.
  setExportDelay(ms) {
    state.exportDelay = ms;
  },
  // A promise of the link (local files are fingerprinted first).
  shareLink() {
    return shareLink();
  },
  sources() {
    return state.sources ?? null;
  },
  parseShare(hash) {
    return parseShare(hash);
  },
};

// ---- open by URL: ?src=<url> (repeatable) -------------------------------------------------
// The only network reads the page makes besides itself: the URLs the address names. Each is read
// as a stream with a progress bar and capped in size (no unbounded allocation).
const MAX_FETCH = 2 ** 31; // bytes per file
async function fetchFile(url, onBytes) {
  let res;
  try {
    res = await fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer' });
  } catch (e) {
    throw new Error(await fetchFailure(url, e));
  }
  if (!res.ok) throw new Error(`${url} could not be fetched: the server answered ${res.status}`);
  const total = Number(res.headers.get('content-length')) || 0;
  if (total > MAX_FETCH) throw new Error(`${url}: ${total} bytes is more than the ${MAX_FETCH}-byte limit`);
  const chunks = [];
  let got = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    got += value.length;
    if (got > MAX_FETCH) throw new Error(`${url}: more than the ${MAX_FETCH}-byte limit`);
    chunks.push(value);
    onBytes(got, total);
  }
  return new File(chunks, urlFileName(url));
}

// Why a fetch failed: the browser says only "Failed to fetch". A second, opaque (no-cors) request
// to the same URL tells a server that answered but does not allow other sites to read it (CORS)
// from one that could not be reached.
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

async function openSources() {
  const { urls, rejected } = parseSources(location.search, location.href);
  if (!urls.length && !rejected.length) return;
  state.sources = { urls, rejected, done: false };
  el.srcNote.hidden = false;
  el.srcNote.textContent = `Opening ${urls.length} file${urls.length === 1 ? '' : 's'} named in the address (?src=): ${urls.join(', ')}. Nothing else leaves this page.`
    + (rejected.length ? ` Ignored (only http and https URLs): ${rejected.join(', ')}.` : '');
  const files = [];
  for (let i = 0; i < urls.length; i++) {
    files.push(await fetchFile(urls[i], (got, total) => progress(total ? got : i, total || urls.length, `Fetching ${i + 1} of ${urls.length}: ${fmtBytes(got)}${total ? ` of ${fmtBytes(total)}` : ''}`)));
  }
  $('progress').hidden = true;
  await openFiles(files);
  state.sources.done = true;
  el.srcNote.textContent = el.srcNote.textContent.replace(/^Opening/, 'Opened');
}

// applyQuery (below) waits for this before it selects the texture, mip and slice the address names.
const sourcesOpened = restoreFromHash().then(openSources).catch((e) => {
  $('progress').hidden = true;
  el.srcNote.textContent = el.srcNote.textContent.replace(/^Opening/, 'Could not open');
  fail(e.message);
});
// A link pasted into this tab's address bar changes only the hash.
window.addEventListener('hashchange', () => restoreFromHash().catch((e) => fail(e.message)));

// ---- the address: share-link parameters, checked in safety.js ------------------------------
async function applyQuery() {
  const { values, messages } = readQuery(location.search, { demos: DEMOS.map((d) => d.id) });
  const note = [...messages];
  showNotice(note);
  await profilesReady;
  if (values.profile) {
    const known = [...el.profile.options].find((o) => o.value.toLowerCase() === values.profile.toLowerCase());
    if (known) await setProfile(known.value);
    else note.push(`There is no Frostbite profile “${values.profile}”; the default is used.`);
  }
  // ?src= URLs (repeatable) are fetched by openSources, which reads them with parseSources.
  if (values.demo) await openDemo(values.demo);
  else await sourcesOpened;
  if (state.textures.length && (values.texture !== undefined || values.mip !== undefined || values.slice !== undefined)) {
    try {
      await window.texscope.select({ texture: values.texture, mip: values.mip, slice: values.slice });
    } catch (e) {
      note.push(`The address asked for a view that is not there (${e.message}).`);
    }
  }
  showNotice(note);
}
applyQuery().catch((e) => showNotice([`The address could not be applied: ${e.message}`]));
