// The page: opening files, the texture list, the view and the test contract (window.texscope).
// All parsing and decoding happen in the worker; this thread only paints and shows text.
import { paint, texel } from './view.js';

const $ = (id) => document.getElementById(id);
const el = {
  input: $('file-input'), error: $('error'), status: $('status'), list: $('texture-list'),
  count: $('count'), problems: $('problems'), problemList: $('problem-list'), mip: $('mip'),
  slice: $('slice'), canvas: $('canvas'), empty: $('empty'), viewport: $('viewport'),
  info: $('info'), viewLabel: $('view-label'), pixelLabel: $('pixel-label'),
  exposure: $('exposure'), exposureBox: $('exposure-box'), exposureLabel: $('exposure-label'),
  zoomLabel: $('zoom-label'), dropOverlay: $('drop-overlay'),
};

// ---- worker RPC ---------------------------------------------------------------------------
let worker = null;
let nextId = 1;
const pending = new Map();
const opened = []; // every File opened so far, to rebuild a worker that stopped

function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (ev) => {
    const { id, ok, value, error, fatal } = ev.data;
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (fatal) {
      worker.terminate();
      worker = null;
    }
    if (ok) p.resolve(value);
    else p.reject(new Error(error));
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
    return send({ op: 'add', files: opened }).then(() => send(req));
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
  exposure: 0,
  channels: { r: true, g: true, b: true, a: true },
};

function paintCurrent() {
  if (state.image) paint(el.canvas, state.image, { exposure: state.exposure, channels: state.channels });
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

function texState(t) {
  if (t.census.error) return { cls: 'bad', text: 'error' };
  const missing = t.mips.filter((m) => !m.present).length;
  if (missing === t.mips.length) return { cls: 'wait', text: 'waiting' };
  if (missing) return { cls: 'part', text: `${t.mips.length - missing}/${t.mips.length} mips` };
  return { cls: 'ok', text: 'ready' };
}

// ---- opening ------------------------------------------------------------------------------
async function openFiles(fileList) {
  const files = Array.from(fileList);
  if (!files.length) return;
  setState('loading');
  showError('');
  setStatus(`Opening ${files.length} file${files.length > 1 ? 's' : ''}…`);
  try {
    const { textures, problems } = await call({ op: 'add', files });
    opened.push(...files);
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
      const start = Math.max(0, textures.findIndex((t) => texState(t).cls !== 'bad'));
      await show({ index: start, mip: firstPresentMip(textures[start]), slice: 0 });
    }
  } catch (e) {
    fail(e.message);
  }
}

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
function renderList() {
  el.list.replaceChildren();
  state.textures.forEach((t, i) => {
    const c = t.census;
    const li = document.createElement('li');
    li.className = 'tex';
    li.dataset.index = String(i);
    li.tabIndex = 0;
    const name = document.createElement('div');
    name.className = 'tex-name';
    name.textContent = c.name;
    // Unity bundles name their assets (m_Container): shown on hover, above the file.
    const path = (t.metadata || []).find(([k]) => k === 'container path')?.[1];
    name.title = path ? `${path}\n${c.file}` : `${c.file}`;
    if (path) li.dataset.containerPath = path;
    const meta = document.createElement('div');
    meta.className = 'tex-meta';
    const dims = c.depth > 1 ? `${c.width}×${c.height}×${c.depth}` : `${c.width}×${c.height}`;
    meta.textContent = `${c.engine} · ${c.format} · ${dims}${c.slices > 1 ? ` · ${c.slices} slices` : ''}`;
    const st = texState(t);
    const badge = document.createElement('span');
    badge.className = `badge ${st.cls}`;
    badge.textContent = st.text;
    if (c.error) badge.title = c.error;
    name.append(badge);
    li.append(name, meta);
    li.addEventListener('click', () => selectFromUi({ index: i, mip: firstPresentMip(t), slice: 0 }));
    li.addEventListener('keydown', (e) => { if (e.key === 'Enter') li.click(); });
    el.list.append(li);
  });
  el.count.textContent = state.textures.length ? String(state.textures.length) : '';
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
  el.exposureBox.hidden = t.precision !== 'float';
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
  el.info.replaceChildren();
  for (const [k, v] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v;
    el.info.append(dt, dd);
  }
}

let showSeq = 0;
async function show({ index, mip, slice }) {
  const t = state.textures[index];
  if (!t) throw new Error(`there is no texture ${index}`);
  if (mip < 0 || mip >= t.mips.length) throw new Error(`${t.census.name} has ${t.mips.length} mips; there is no mip ${mip}`);
  const seq = ++showSeq;
  state.current = { index, mip, slice, file: t.census.file, name: t.census.name };
  for (const li of el.list.children) li.classList.toggle('selected', li.dataset.index === String(index));
  renderControls(t, mip, slice);
  renderInfo(t, mip);
  setState('loading');
  try {
    const image = await call({ op: 'decode', texture: index, mip, slice });
    if (seq !== showSeq) return; // a newer selection won
    state.image = image;
    showError('');
    el.empty.hidden = true;
    el.canvas.hidden = false;
    paintCurrent();
    applyZoom();
    const m = t.mips[mip];
    el.viewLabel.textContent = `${t.census.name} · mip ${mip} (${m.width}×${m.height}) · slice ${slice} · ${t.census.format}`;
    setState('ready');
  } catch (e) {
    if (seq !== showSeq) return;
    state.image = null;
    el.canvas.hidden = true;
    el.empty.hidden = false;
    fail(e.message);
    throw e;
  }
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
el.exposure.addEventListener('input', () => {
  state.exposure = Number(el.exposure.value);
  el.exposureLabel.textContent = `${state.exposure > 0 ? '+' : ''}${state.exposure} EV`;
  paintCurrent();
});

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
background.addEventListener('change', () => { el.canvas.dataset.background = background.value; });

// ---- zoom and pixel readout ---------------------------------------------------------------
function fitZoom() {
  if (!state.image) return 1;
  const r = el.viewport.getBoundingClientRect();
  const z = Math.min((r.width - 32) / state.image.width, (r.height - 32) / state.image.height);
  // Whole-number zoom above 1 keeps texels square and crisp; 64x is as close as zoom goes.
  return z >= 1 ? Math.min(64, Math.floor(z)) : z;
}

function applyZoom() {
  if (!state.image) return;
  if (state.fit) state.zoom = fitZoom();
  el.canvas.style.width = `${state.image.width * state.zoom}px`;
  el.canvas.style.height = `${state.image.height * state.zoom}px`;
  el.zoomLabel.textContent = `${Math.round(state.zoom * 100)}%`;
}

function setZoom(z) {
  state.fit = false;
  state.zoom = Math.min(64, Math.max(1 / 64, z));
  applyZoom();
}

$('zoom-fit').addEventListener('click', () => { state.fit = true; applyZoom(); });
$('zoom-1').addEventListener('click', () => setZoom(1));
$('zoom-in').addEventListener('click', () => setZoom(state.zoom * 2));
$('zoom-out').addEventListener('click', () => setZoom(state.zoom / 2));
window.addEventListener('resize', () => { if (state.fit) applyZoom(); });
window.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  if (e.key === 'f' || e.key === 'F') { state.fit = true; applyZoom(); }
  else if (e.key === '1') setZoom(1);
  else if (e.key === '+' || e.key === '=') setZoom(state.zoom * 2);
  else if (e.key === '-') setZoom(state.zoom / 2);
  else if ('rgbaRGBA'.includes(e.key) && e.key.length === 1 && !e.ctrlKey && !e.metaKey) toggleChannel(e.key.toLowerCase(), e.shiftKey);
});

const fmtValue = (v, precision) => (precision === 'float' ? v.map((x) => x.toPrecision(5)) : v).join(', ');

el.canvas.addEventListener('mousemove', (e) => {
  const img = state.image;
  if (!img) return;
  const x = Math.floor(e.offsetX / state.zoom);
  const y = Math.floor(e.offsetY / state.zoom);
  const v = texel(img, x, y);
  el.pixelLabel.textContent = v ? `(${x}, ${y})  ${fmtValue(v, img.precision)}` : '';
});
el.canvas.addEventListener('mouseleave', () => { el.pixelLabel.textContent = ''; });

// ---- demos: files the core generates, opened like dropped files ----------------------------
const DEMOS = [
  { id: 'ue5-vt', title: 'UE5 virtual texture', tag: 'Unreal', text: 'T_Landscape_VT · 8×8 tiles of 64 px, BC1 colour + BC5 normal layers, 3 tiles left out (magenta)' },
  { id: 'ue-classic', title: 'UE mip chain', tag: 'Unreal', text: 'T_Bricks_D · BC1 512², mips 0–1 streamed from .ubulk, 2–9 inline in .uexp' },
  { id: 'frostbite-cas', title: 'Frostbite CAS chunk', tag: 'Frostbite', text: 'crate_d .res header + .chunk of zlib, LZ4 and ZStd blocks' },
  { id: 'hdr', title: 'HDR sky', tag: 'DDS', text: 'sky_hdr.dds · RGBA16F 256×128, sun at 16.0 — try the exposure' },
  { id: 'cubemap', title: 'Cubemap', tag: 'DDS', text: 'sky_cube.dds · 64² RGBA8, six coloured faces, full chain' },
];

async function openDemo(id) {
  setState('loading');
  setStatus('Making the demo files…');
  try {
    const made = await call({ op: 'demo', demo: id });
    await openFiles(made.map((f) => new File([f.data], f.name)));
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

let dragDepth = 0;
window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; el.dropOverlay.hidden = false; });
window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; el.dropOverlay.hidden = true; } });
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  el.dropOverlay.hidden = true;
  if (e.dataTransfer?.files?.length) openFiles(e.dataTransfer.files);
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
  view() {
    const c = state.current;
    if (!c || !state.image) return null;
    const t = state.textures[c.index];
    return {
      file: t.census.file, texture: t.census.name, index: c.index, mip: c.mip, slice: c.slice,
      width: state.image.width, height: state.image.height, format: t.census.format,
    };
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
    return state.image ? texel(state.image, x, y) : null;
  },
  textures() {
    return state.textures.map((t) => t.census);
  },
  // What the canvas shows at (x, y) after the view settings, as RGBA bytes.
  shown(x, y) {
    if (!state.image) return null;
    return Array.from(el.canvas.getContext('2d').getImageData(x, y, 1, 1).data);
  },
};
