// The overlay canvas over the viewport (viewport-sized, no pointer events): the texel grid at high
// zoom, the VT tile grid with missing tiles crossed out, the layers other views add (the UDIM
// blocks, views/udim.js), and the pinned texel.

export const GRID_ZOOM = 8; // the texel grid shows from this zoom up

/**
 * @param {HTMLCanvasElement} c
 * @param {import('../store.js').Store} store
 * @param {() => { origin: [number, number], w: number, h: number }} geometry where the image is, and the viewport's size
 */
export function createOverlay(c, store, geometry) {
  /** @type {((ctx: CanvasRenderingContext2D, at: OverlayGeometry) => void)[]} */
  const layers = [];
  const overlay = {
    /** The texel grid is drawn (zoom >= GRID_ZOOM). */
    texelGrid: false,
    draw,
    /** Adds a painter called on every draw, after the tile grid and before the pin. @param {(ctx: CanvasRenderingContext2D, at: OverlayGeometry) => void} fn */
    addLayer(fn) {
      layers.push(fn);
    },
  };

  function draw() {
    const s = store.state;
    const img = s.image;
    const { origin, w, h } = geometry();
    c.hidden = !img;
    if (!img) return;
    if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
    const ctx = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
    ctx.clearRect(0, 0, w, h);
    const z = s.zoom;
    const [left, top] = origin;
    // Display row of texel row y (the Y flip mirrors rows).
    const rowTop = (/** @type {number} */ y) => (s.flipY ? top + (img.height - y - 1) * z : top + y * z);
    const x0 = Math.max(0, Math.floor(-left / z));
    const x1 = Math.min(img.width, Math.ceil((w - left) / z));
    const y0 = Math.max(0, Math.floor(-top / z));
    const y1 = Math.min(img.height, Math.ceil((h - top) / z));
    overlay.texelGrid = z >= GRID_ZOOM;
    if (overlay.texelGrid) {
      ctx.strokeStyle = 'rgba(16, 16, 16, 0.7)';
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (let x = x0; x <= x1; x++) { ctx.moveTo(left + x * z + 0.5, top + y0 * z); ctx.lineTo(left + x * z + 0.5, top + y1 * z); }
      for (let y = y0; y <= y1; y++) { ctx.moveTo(left + x0 * z, top + y * z + 0.5); ctx.lineTo(left + x1 * z, top + y * z + 0.5); }
      ctx.stroke();
    }
    const g = s.grid;
    if (g) {
      const ts = g.tile_size * z;
      for (const t of g.tiles) {
        if (t.present) continue;
        // A cell with no tile (fallback) or whose chunk is not open: hatched red.
        const x = left + t.x * ts;
        const y = s.flipY ? top + img.height * z - (t.y + 1) * ts : top + t.y * ts;
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
    for (const f of layers) f(ctx, { left, top, zoom: z, width: img.width, height: img.height, flipY: s.flipY, w, h });
    if (s.pin) {
      const [px, py] = s.pin;
      const side = Math.max(z, 6);
      const cx = left + (px + 0.5) * z;
      const cy = rowTop(py) + z / 2;
      ctx.strokeStyle = '#ffd23f';
      ctx.lineWidth = 2;
      ctx.strokeRect(cx - side / 2 - 1, cy - side / 2 - 1, side + 2, side + 2);
    }
  }

  store.subscribe(['pin'], draw);
  return overlay;
}

/**
 * Where the image is on the overlay: its top-left corner (CSS pixels), the zoom, the image's size
 * in texels, the Y flip and the overlay's size.
 * @typedef {{ left: number, top: number, zoom: number, width: number, height: number, flipY: boolean, w: number, h: number }} OverlayGeometry
 */
/** @typedef {ReturnType<typeof createOverlay>} Overlay */
