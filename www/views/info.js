// The info panel: every fact about the selected texture (and "Copy JSON"), and the histogram of
// the surface shown with the exposure's white point.
import { drawHistogram } from '../lib/display.js';
import { $, copyText, fmtBytes } from '../util.js';

/** @typedef {import('../types').TextureRecord} TextureRecord */

/** How each stored normal-map layout reads (src/model.rs NormalEncoding), with the view for it. */
const NORMAL_LAYOUTS = {
  rg: 'x in red, y in green (normal view RG)',
  dxt5nm: 'DXT5nm: x in alpha, y in green (normal view AG)',
  rgb: 'x, y, z in red, green, blue (normal view RG)',
  ra: 'x in red (also green, blue), y in alpha (normal view RA)',
};

/** A number for the histogram's label. @param {number} v */
const fmtNum = (v) => (Math.abs(v) >= 1000 || (v !== 0 && Math.abs(v) < 0.001) ? v.toExponential(2) : String(Math.round(v * 1000) / 1000));

/** @param {import('../types').App} app */
export function createInfo(app) {
  const { store, actions } = app;
  const list = $('info');
  const histBox = $('histogram-box');
  /** The facts of the selected texture as JSON (texscope.infoJson, Copy JSON). @type {object | null} */
  let json = null;

  /**
   * A texture's editor thumbnail beside its source: a row whose canvas is drawn when the worker
   * sends it (if the same texture is still shown), at its size (the editor's are 256 px at most).
   * @param {TextureRecord} t @param {number} index
   */
  function thumbnailRow(t, index) {
    const dt = document.createElement('dt');
    dt.textContent = 'Editor thumbnail';
    const dd = document.createElement('dd');
    const c = document.createElement('canvas');
    c.dataset.testid = 'info-thumbnail';
    c.className = 'thumb';
    dd.append(c);
    const thumbnail = /** @type {number} */ (t.thumbnail);
    app.client.call({ op: 'thumb', texture: index, mip: 0, thumbnail, max: 256 }).then((th) => {
      if (store.state.current?.index !== index) return;
      c.width = th.width;
      c.height = th.height;
      /** @type {CanvasRenderingContext2D} */ (c.getContext('2d')).putImageData(new ImageData(/** @type {Uint8ClampedArray<ArrayBuffer>} */ (th.data), th.width, th.height), 0, 0);
      c.dataset.ready = '1';
    }, (e) => { dd.textContent = `not shown: ${e instanceof Error ? e.message : String(e)}`; });
    return [dt, dd];
  }

  /** @param {TextureRecord} t @param {number} mip @param {number} index */
  function render(t, mip, index) {
    const c = t.census;
    const rows = [
      ['File', c.file], ['Name', c.name], ['Engine', c.engine], ['Class', c.class], ['Kind', c.kind],
      ['Format', c.format], ['Native format', String(c.native_format)],
      ['Size', `${c.width}×${c.height}${c.depth > 1 ? `×${c.depth}` : ''}`],
      ['Mips', String(c.mips)], ['Slices', String(c.slices)],
      ['Colour space', t.color_space], ['GPU memory', fmtBytes(/** @type {number} */ (t.gpu_bytes))],
    ];
    if (t.normal_map) rows.push(['Normal map', NORMAL_LAYOUTS[t.normal_map] ?? t.normal_map]);
    const m = t.mips[mip];
    if (m) rows.push(['This mip', `${m.width}×${m.height} · ${m.location_note || 'inline'}${m.present ? '' : ' · missing'}`]);
    for (const [k, v] of t.metadata ?? []) rows.push([k, v]);
    for (const n of t.notes ?? []) rows.push(['Note', n]);
    if (c.error) rows.push(['Error', c.error]);
    // What came over the network of each ?src= file (services/sources.js): the point of reading
    // by range is that this stays near what the texture needs.
    for (const r of store.state.remote) {
      rows.push(['Remote bytes read', `${r.name}: ${fmtBytes(r.bytes)}${r.size ? ` of ${fmtBytes(r.size)}` : ''} in ${r.requests} request${r.requests === 1 ? '' : 's'}${r.whole ? ' (read whole)' : ''}`]);
    }
    json = {
      census: c, color_space: t.color_space, normal_map: t.normal_map, precision: t.precision, block: t.block,
      gpu_bytes: t.gpu_bytes, bottom_first: t.bottom_first, metadata: Object.fromEntries(t.metadata ?? []), notes: t.notes, mips: t.mips,
    };
    list.replaceChildren();
    for (const [k, v] of rows) {
      const dt = document.createElement('dt');
      dt.textContent = k ?? '';
      const dd = document.createElement('dd');
      dd.textContent = v ?? '';
      list.append(dt, dd);
    }
    if (typeof t.thumbnail === 'number' && !t.asset) list.append(...thumbnailRow(t, index));
  }

  function renderHistogram() {
    const h = store.state.hist;
    histBox.hidden = !h;
    if (!h) return;
    const white = 2 ** -store.state.exposure;
    drawHistogram(/** @type {HTMLCanvasElement} */ ($('histogram')), h, white);
    $('histogram-label').textContent = Number.isFinite(h.min)
      ? `${fmtNum(h.min)} … ${fmtNum(h.max)}${h.kind === 'log2' ? ` · white at ${fmtNum(white)} (bins: 2^-16 … 2^16)` : ''}${h.bad ? ` · ${h.bad} NaN/Inf` : ''}`
      : 'no finite values';
  }

  store.subscribe(['current', 'remote'], (s) => {
    if (s.current) render(s.textures[s.current.index], s.current.mip, s.current.index);
  });
  store.subscribe(['hist', 'exposure'], renderHistogram);
  $('hist-fit').addEventListener('click', () => actions.autoExposure());
  $('copy-info').addEventListener('click', async () => {
    if (!json) return;
    const ok = await copyText(JSON.stringify(json, null, 2));
    actions.setStatus(ok ? 'Info copied as JSON' : 'The browser refused the clipboard');
  });

  return { json: () => json };
}
