// The inspector: the texel under the pointer and the pinned one (coordinates, the face of a cube
// cross, the raw decoded value, the block and its BCn mode, the VT tile with its byte range), and
// the pixel readout of the status bar.
import { crossFace, FACE_NAMES } from '../lib/display.js';
import { blockMode } from '../lib/blocks.js';
import { $ } from '../util.js';

/** @param {ArrayLike<number>} v @param {string} precision */
const fmtValue = (v, precision) => (precision === 'float' ? Array.from(v, (x) => x.toPrecision(5)) : Array.from(v)).join(', ');

/** @param {import('../types').App} app */
export function createInspector(app) {
  const { store, actions } = app;
  const el = { hover: $('insp-hover'), pin: $('insp-pin'), tileInfo: $('tile-info'), pixel: $('pixel-label') };

  /**
   * What the inspector says about texel (x, y), or null when it has no value.
   * @param {number} x @param {number} y @returns {{ text: string, value: ArrayLike<number> | null } | null}
   */
  function describeTexel(x, y) {
    const s = store.state;
    const img = /** @type {import('../types').ViewImage} */ (s.image);
    const v = app.viewport.valueAt(x, y);
    if (!v) return null;
    const t = s.textures[/** @type {import('../types').Selection} */ (s.current).index];
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
    const [bw, bh, bytes] = t.block ?? [1, 1, 0];
    if (bw > 1 || bh > 1) {
      const bx = Math.floor(fx / bw);
      const by = Math.floor(fy / bh);
      parts.push(`block (${bx}, ${by})`);
      const sb = s.blocks;
      if (sb && !img.cross) {
        const at = (by * Math.ceil(img.width / bw) + bx) * bytes;
        const mode = blockMode(t.census.format, sb.subarray(at, at + bytes));
        if (mode) parts.push(mode);
      }
    }
    return { text: `${parts.join(' · ')}  ${fmtValue(v, img.precision)}`, value: v };
  }

  /** The VT tile under texel p, or null. @param {[number, number] | null} p */
  function tileAt(p) {
    const g = store.state.grid;
    if (!g || !p) return null;
    const tx = Math.floor(p[0] / g.tile_size);
    const ty = Math.floor(p[1] / g.tile_size);
    return g.tiles[ty * g.width_tiles + tx] ?? null;
  }

  /**
   * The VT tile under texel p: (tx, ty), Morton address, tile index, chunk and byte range, or "no
   * tile" when the cell holds none; the grid's summary when p is on no tile.
   * @param {[number, number] | null} p
   */
  function renderTile(p) {
    const g = store.state.grid;
    const tile = tileAt(p ?? store.state.pin);
    el.tileInfo.hidden = !g;
    if (!g) return;
    if (!tile) {
      el.tileInfo.textContent = `tiles ${g.width_tiles}×${g.height_tiles} of ${g.tile_size} px · chunk ${g.chunk} in ${[...g.chunk_files, ...g.chunk_missing].join(', ') || '?'}`;
      return;
    }
    const head = `tile (${tile.x}, ${tile.y}) · Morton ${tile.morton}`;
    // A UDIM texture: the UV tile of the block under the texel (views/udim.js).
    const block = app.udim.blockAt(p ?? store.state.pin);
    const udim = block ? ` · ${app.udim.label(block)}` : '';
    if (tile.tile_index === null || tile.tile_index === undefined) {
      el.tileInfo.textContent = `${head} · no tile (fallback colour)${udim}`;
    } else {
      const end = tile.offset + tile.length;
      el.tileInfo.textContent = `${head} · index ${tile.tile_index} · chunk ${g.chunk} · bytes ${tile.offset}–${end - 1} (${tile.length})${tile.present ? '' : ' · chunk not opened'}${udim}`;
    }
  }

  /** The pointer is over texel p (null: off the image). @param {[number, number] | null} p */
  function hover(p) {
    actions.setHover(p);
    const img = store.state.image;
    if (!p || !img) {
      el.pixel.textContent = '';
      el.hover.textContent = '—';
      renderTile(null);
      return;
    }
    const [x, y] = p;
    const v = app.viewport.valueAt(x, y);
    el.pixel.textContent = v ? `(${x}, ${y})  ${fmtValue(v, img.precision)}` : '';
    el.hover.textContent = describeTexel(x, y)?.text ?? '—';
    renderTile(p);
  }

  /** Pins texel p (clamped to the image). @param {[number, number]} p */
  function pin(p) {
    const img = store.state.image;
    if (!img || !p) return;
    actions.setPin([Math.min(img.width - 1, Math.max(0, p[0])), Math.min(img.height - 1, Math.max(0, p[1]))]);
  }

  function render() {
    const p = store.state.pin;
    const d = p && store.state.image ? describeTexel(p[0], p[1]) : null;
    el.pin.textContent = d ? d.text : 'click a texel';
    renderTile(store.state.hover);
  }

  store.subscribe(['image', 'pin', 'flipY'], render);
  return { hover, pin, render, describeTexel };
}

/** @typedef {ReturnType<typeof createInspector>} Inspector */
