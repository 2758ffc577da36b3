// The viewport: the image canvas (CPU paint, the GPU path's draw, or tiles streamed for large
// virtual textures), its zoom and pan, and the overlay (views/overlay.js). The canvas holds the
// image at its own resolution and is scaled by CSS (pixelated, i.e. nearest neighbour, from 1:1
// up; smooth below). Its box is exactly the image, so screen -> texel is a division. The store's
// `center` is the texel at the viewport's centre; zoom and pan move it.
import { paint as paintCpu, texel } from '../lib/display.js';
import { TileStreamer } from '../lib/tiles.js';
import { probe } from '../probe.js';
import { $ } from '../util.js';
import { createOverlay } from './overlay.js';

export const MAX_ZOOM = 64;
export const MIN_ZOOM = 1 / 64;

/** @typedef {import('../types').State} State */
/** The keys of the display settings: a change repaints. @type {(keyof State)[]} */
const DISPLAY_KEYS = ['exposure', 'tonemap', 'colour', 'normal', 'flipGreen', 'flipY', 'badOverlay', 'channels'];

/**
 * The zoom that fits an `iw` x `ih` image in a `w` x `h` box with a 16 px margin: whole numbers
 * above 1 (texels stay square and crisp), within MIN_ZOOM..MAX_ZOOM.
 * @param {number} iw @param {number} ih @param {number} w @param {number} h
 */
export function fitZoomFor(iw, ih, w, h) {
  const z = Math.min((w - 32) / iw, (h - 32) / ih);
  return z >= 1 ? Math.min(MAX_ZOOM, Math.floor(z)) : Math.max(MIN_ZOOM, z);
}

/**
 * The texel centre after zooming from `zoom` to `nz` so that the texel under `anchor` (box pixels)
 * stays there, for an image whose top-left corner is at `origin` in a `w` x `h` box.
 * @param {[number, number]} origin @param {number} zoom @param {number} nz @param {[number, number]} anchor
 * @param {number} w @param {number} h @returns {[number, number]}
 */
export function zoomCenter(origin, zoom, nz, anchor, w, h) {
  const [ax, ay] = anchor;
  const ux = (ax - origin[0]) / zoom;
  const uy = (ay - origin[1]) / zoom;
  return [ux - (ax - w / 2) / nz, uy - (ay - h / 2) / nz];
}

/**
 * Where the top-left corner of an image goes (box pixels, whole) for texel `center` at the centre
 * of a `w` x `h` box at `zoom`.
 * @param {[number, number]} center @param {number} zoom @param {number} w @param {number} h @returns {[number, number]}
 */
export const originFor = (center, zoom, w, h) => [Math.round(w / 2 - center[0] * zoom), Math.round(h / 2 - center[1] * zoom)];

/** @param {import('../types').App} app */
export function createViewport(app) {
  const { store, actions } = app;
  const viewport = $('viewport');
  const canvas = /** @type {HTMLCanvasElement} */ ($('canvas'));
  const empty = $('empty');
  const zoomLabel = $('zoom-label');
  const overlayCanvas = /** @type {HTMLCanvasElement} */ ($('overlay'));
  /** Where the image's top-left corner is in the viewport (CSS pixels). @type {[number, number]} */
  let origin = [0, 0];

  // Large virtual textures: tiles on screen only, decoded by the pool of workers (lib/tiles.js).
  const streamer = new TileStreamer({
    run: (req, key) => app.pool.run(req, key),
    cancel: (drop) => app.pool.cancel(drop),
    before: overlayCanvas,
    onComplete: (e) => probe.painted({ mip: e.level, kind: 'tiles', tiles: e.tiles, time: e.time }),
  });

  const size = () => ({ w: viewport.clientWidth, h: viewport.clientHeight });

  /** @returns {import('../types').DisplaySettings} */
  function displaySettings() {
    const { exposure, tonemap, colour, normal, flipGreen, flipY, badOverlay, channels } = store.state;
    return { exposure, tonemap, colour, normal, flipGreen, flipY, badOverlay, channels };
  }

  function streamView() {
    const { w, h } = size();
    const s = store.state;
    return { zoom: s.zoom, origin, w, h, flipY: s.flipY, settings: displaySettings() };
  }

  const overlay = createOverlay(overlayCanvas, store, () => ({ origin, ...size() }));

  function fitZoom() {
    const img = store.state.image;
    if (!img) return 1;
    const { w, h } = size();
    return fitZoomFor(img.width, img.height, w, h);
  }

  /** Places the canvas for the zoom and centre (fitting first when `fit` is on). */
  function layout() {
    const s = store.state;
    const img = s.image;
    if (!img) return;
    if (s.fit) {
      const zoom = fitZoom();
      /** @type {[number, number]} */
      const center = [img.width / 2, img.height / 2];
      if (zoom !== s.zoom || center[0] !== s.center[0] || center[1] !== s.center[1]) {
        actions.setView({ zoom, center }); // lays out again (below), now fitted
        return;
      }
    }
    const { w, h } = size();
    const z = s.zoom;
    canvas.style.width = `${img.width * z}px`;
    canvas.style.height = `${img.height * z}px`;
    origin = originFor(s.center, z, w, h);
    canvas.style.left = `${origin[0]}px`;
    canvas.style.top = `${origin[1]}px`;
    canvas.dataset.rendering = z >= 1 ? 'pixelated' : 'smooth';
    zoomLabel.textContent = `${z >= 1 ? Math.round(z * 100) : (z * 100).toFixed(1)}%`;
    if (img.streamed) streamer.render(streamView());
    overlay.draw();
  }

  /** Paints the current image with the display settings. */
  function paint() {
    const s = store.state;
    const img = s.image;
    if (!img) return;
    let bad;
    if (img.streamed) {
      canvas.width = 1;
      canvas.height = 1;
      /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d')).clearRect(0, 0, 1, 1);
      bad = { nan: 0, inf: 0, negative: 0 };
      streamer.render(streamView());
    } else if (img.preview) {
      // A progressive preview is a smaller mip painted into the canvas; CSS scales it to the box.
      bad = paintCpu(canvas, img.preview, displaySettings());
    } else {
      bad = app.gpuPath.paint(canvas, displaySettings()) ?? paintCpu(canvas, /** @type {import('../types').Surface} */ (img), displaySettings());
    }
    canvas.dataset.path = store.state.gpuSurface && img.data ? 'gpu' : 'cpu';
    actions.painted(bad);
    overlay.draw();
  }

  /** Zoom `z`, keeping the texel under `anchor` (viewport pixels; default the centre) where it is. @param {number} z @param {[number, number]} [anchor] */
  function zoomTo(z, anchor) {
    const s = store.state;
    if (!s.image) return;
    const nz = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, z));
    const { w, h } = size();
    // From where the canvas really is (its position is rounded to whole pixels).
    actions.setView({ center: zoomCenter(origin, s.zoom, nz, anchor ?? [w / 2, h / 2], w, h), fit: false, zoom: nz });
  }

  function fit() {
    if (store.state.fit) layout();
    else actions.setView({ fit: true });
  }

  /** @param {number} dx @param {number} dy */
  function panBy(dx, dy) {
    const s = store.state;
    actions.setView({ fit: false, center: [s.center[0] - dx / s.zoom, s.center[1] - dy / s.zoom] });
  }

  /** Screen point -> texel (x, y) of the image, accounting for the Y flip; null outside. @param {number} clientX @param {number} clientY @returns {[number, number] | null} */
  function texelAt(clientX, clientY) {
    const img = store.state.image;
    if (!img) return null;
    const r = canvas.getBoundingClientRect();
    const x = Math.floor(((clientX - r.left) / r.width) * img.width);
    let y = Math.floor(((clientY - r.top) / r.height) * img.height);
    if (x < 0 || y < 0 || x >= img.width || y >= img.height) return null;
    if (store.state.flipY) y = img.height - 1 - y;
    return [x, y];
  }

  /** The decoded value of texel (x, y) of the view: a streamed VT mip answers from its cached tiles. @param {number} x @param {number} y */
  function valueAt(x, y) {
    const img = /** @type {import('../types').ViewImage} */ (store.state.image);
    return img.streamed ? streamer.texel(x, y) : texel(img, x, y);
  }

  // What is on screen: the canvas or the empty page with the demos.
  store.subscribe(['image'], (s) => {
    canvas.hidden = !s.image;
    empty.hidden = !!s.image;
    if (!s.image) overlay.draw(); // hides it
  });
  store.subscribe(['image', 'zoom', 'center', 'fit'], layout);
  store.subscribe(['image', ...DISPLAY_KEYS], (_s, _changed, action) => {
    // A new selection's colour space is painted with its image, not on the one still shown.
    if (action !== 'select') paint();
  });
  store.subscribe(['background', 'backgroundColour'], (s) => {
    canvas.dataset.background = s.background;
    // A chosen colour is set through the CSSOM (the CSP allows no inline style attributes).
    canvas.style.background = s.background === 'custom' ? s.backgroundColour : '';
  });
  // The viewport also changes size without the window doing so (the grid widens the sidebar, the
  // bar wraps): keep the fit and the centre then too.
  new ResizeObserver(() => layout()).observe(viewport);

  return {
    element: viewport, canvas, streamer, overlay, size, displaySettings, streamView, layout, repaint: paint,
    zoomTo, fit, panBy, texelAt, valueAt,
  };
}

/** @typedef {ReturnType<typeof createViewport>} Viewport */
