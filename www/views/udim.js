// The UDIM view (issue 18): which block of a UDIM virtual texture covers which UV tile. With the
// VT tile grid on (T), every block is outlined on the overlay with its UV tile number — block
// (x, y) is tile 1001 + x + 10 y, 1001 top left, 1002 to its right, 1011 below it, as the engine
// lays them out (docs/unreal.md) — and a UV tile no tile holds data for is shaded and labelled
// "empty"; the inspector panel lists the blocks, and the tile inspector names the block under the
// pointer (views/inspector.js asks `label(blockAt(p))`). The blocks come with the store's `grid`
// (services/selection.js lays them out with lib/udim.js from the core's grid).
import { $ } from '../util.js';

/** @typedef {import('../types').VtBlock} VtBlock */

const OUTLINE = '#4fd1ff';
const EMPTY_FILL = 'rgba(16, 16, 16, 0.55)';

/** @param {import('../types').App} app */
export function createUdim(app) {
  const { store } = app;
  const el = $('udim-info');
  /** What the last overlay draw put on screen (CSS pixels of the viewport), for the tests. */
  /** @type {{ udim: number, empty: boolean, label: string, box: [number, number, number, number] }[]} */
  let drawn = [];

  /**
   * The blocks with `rect`, their [x, y, w, h] in the pixels of the mip shown (the mip-0
   * rectangle scaled by the mip's size, fractional once a block is under a texel).
   */
  function blocks() {
    const s = store.state;
    const t = s.current ? s.textures[s.current.index] : null;
    const current = s.grid?.blocks ?? [];
    if (!current.length || !s.image || !t) return [];
    const sx = s.image.width / t.census.width;
    const sy = s.image.height / t.census.height;
    return current.map((b) => ({ ...b, rect: [b.pixels[0] * sx, b.pixels[1] * sy, b.pixels[2] * sx, b.pixels[3] * sy] }));
  }

  /** The block holding texel p of the shown mip, or null. @param {[number, number] | null} p */
  function blockAt(p) {
    if (!p) return null;
    const [x, y] = p;
    return blocks().find((b) => x >= b.rect[0] && x < b.rect[0] + b.rect[2] && y >= b.rect[1] && y < b.rect[1] + b.rect[3]) ?? null;
  }

  /** "UDIM 1002", or "UDIM 1012 (empty)". @param {VtBlock} b */
  const label = (b) => `UDIM ${b.udim}${b.tiles_present === 0 ? ' (empty)' : ''}`;

  /** A rectangle of the shown mip: "128×128 at (128, 0)", fractions kept short. @param {number[]} r */
  const fmtRect = ([x, y, w, h]) => {
    const n = (/** @type {number} */ v) => String(Math.round(v * 100) / 100);
    return `${n(w)}×${n(h)} at (${n(x)}, ${n(y)})`;
  };

  function render() {
    const bs = blocks();
    el.hidden = bs.length === 0;
    el.replaceChildren();
    if (!bs.length) return;
    const across = Math.max(...bs.map((b) => b.x)) + 1;
    const down = Math.max(...bs.map((b) => b.y)) + 1;
    const head = document.createElement('div');
    head.textContent = `UDIM: ${across}×${down} blocks (UV tile = 1001 + x + 10 y)`;
    el.append(head);
    for (const b of bs) {
      const row = document.createElement('div');
      row.className = 'udim-block';
      row.dataset.udim = String(b.udim);
      row.dataset.empty = String(b.tiles_present === 0);
      const state = b.tiles_present === 0 ? 'empty: no tile holds data' : `${b.tiles_present}/${b.tiles} tiles`;
      row.textContent = `${b.udim} · block (${b.x}, ${b.y}) · ${fmtRect(b.rect)} · ${state}`;
      el.append(row);
    }
  }

  /**
   * The overlay layer: outlines, UV tile numbers, empty blocks shaded.
   * @param {CanvasRenderingContext2D} ctx @param {import('./overlay.js').OverlayGeometry} at
   */
  function paint(ctx, at) {
    drawn = [];
    const z = at.zoom;
    ctx.save();
    ctx.font = '600 13px ui-monospace, Menlo, Consolas, monospace';
    ctx.textBaseline = 'top';
    for (const b of blocks()) {
      const [bx, by, bw, bh] = b.rect;
      const x = at.left + bx * z;
      const y = at.flipY ? at.top + (at.height - by - bh) * z : at.top + by * z;
      const w = bw * z;
      const h = bh * z;
      const empty = b.tiles_present === 0;
      if (empty) {
        ctx.fillStyle = EMPTY_FILL;
        ctx.fillRect(x, y, w, h);
      }
      ctx.strokeStyle = OUTLINE;
      ctx.lineWidth = 2;
      ctx.strokeRect(x + 1, y + 1, Math.max(0, w - 2), Math.max(0, h - 2));
      const text = empty ? `${b.udim} empty` : String(b.udim);
      const tw = ctx.measureText(text).width;
      ctx.fillStyle = 'rgba(0, 0, 0, 0.75)';
      ctx.fillRect(x + 4, y + 4, tw + 8, 19);
      ctx.fillStyle = OUTLINE;
      ctx.fillText(text, x + 8, y + 7);
      drawn.push({ udim: b.udim, empty, label: text, box: [x, y, w, h] });
    }
    ctx.restore();
  }

  app.viewport.overlay.addLayer(paint);
  store.subscribe(['grid', 'image'], render);
  return { blockAt, label, render, drawn: () => drawn.map((d) => ({ ...d, box: [...d.box] })) };
}

/** @typedef {ReturnType<typeof createUdim>} Udim */
