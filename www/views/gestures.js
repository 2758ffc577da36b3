// Mouse, wheel and touch on a view: the wheel zooms around the pointer, a drag pans, a click
// pins the texel, hovering reports it. Touch (pointer events): one finger pans, two fingers pinch
// (the zoom follows the distance between them and the texel under their midpoint stays under it),
// a double tap fits the image. The same gestures drive the viewport and the compare view's panes
// (views/compare.js), each through a PointerTarget.
import { MAX_ZOOM, MIN_ZOOM } from './viewport.js';

const DOUBLE_TAP_MS = 350;
const DOUBLE_TAP_PX = 30;

/**
 * What the gestures move: a view with a zoom and a centre texel, in a box of `size()`.
 * @typedef {object} PointerTarget
 * @property {() => boolean} active there is an image to move
 * @property {() => { zoom: number, center: [number, number] }} view
 * @property {() => { w: number, h: number }} size
 * @property {(v: { zoom?: number, center?: [number, number], fit?: boolean }) => void} setView
 * @property {(z: number, anchor?: [number, number]) => void} zoomTo
 * @property {(dx: number, dy: number) => void} panBy
 * @property {() => void} fit
 * @property {(clientX: number, clientY: number) => [number, number] | null} texelAt
 * @property {(p: [number, number] | null) => void} hover
 * @property {(p: [number, number]) => void} pin
 */

/**
 * Wheel, drag, pinch, tap and hover on `el`, moving `t`.
 * @param {HTMLElement} el @param {PointerTarget} t
 */
export function attachPointer(el, t) {
  /** @type {{ x: number, y: number, moved: boolean, id: number } | null} */
  let drag = null;
  /** Each finger's last position (viewport pixels). @type {Map<number, [number, number]>} */
  const touches = new Map();
  /** At the pinch's start: finger distance, zoom and the texel under the midpoint. @type {{ dist: number, zoom: number, texel: [number, number] } | null} */
  let pinch = null;
  /** The last single tap. @type {{ time: number, x: number, y: number } | null} */
  let lastTap = null;

  el.addEventListener('wheel', (e) => {
    if (!t.active()) return;
    e.preventDefault();
    const r = el.getBoundingClientRect();
    // One wheel notch (100 px of delta) is a factor of sqrt(2).
    t.zoomTo(t.view().zoom * Math.pow(2, -e.deltaY / 200), [e.clientX - r.left, e.clientY - r.top]);
  }, { passive: false });

  function pinchGeometry() {
    const [[ax, ay], [bx, by]] = [...touches.values()];
    const r = el.getBoundingClientRect();
    return { dist: Math.hypot(bx - ax, by - ay), mid: [(ax + bx) / 2 - r.left, (ay + by) / 2 - r.top] };
  }

  el.addEventListener('pointerdown', (e) => {
    if (!t.active() || e.button !== 0) return;
    if (e.pointerType === 'touch') {
      touches.set(e.pointerId, [e.clientX, e.clientY]);
      if (touches.size === 2) {
        drag = null; // the first finger's pan becomes a pinch
        const g = pinchGeometry();
        const { w, h } = t.size();
        const { zoom, center } = t.view();
        pinch = { dist: g.dist, zoom, texel: [center[0] + (g.mid[0] - w / 2) / zoom, center[1] + (g.mid[1] - h / 2) / zoom] };
        el.setPointerCapture?.(e.pointerId);
        return;
      }
      if (touches.size > 2) return;
    }
    drag = { x: e.clientX, y: e.clientY, moved: false, id: e.pointerId };
    el.setPointerCapture?.(e.pointerId);
  });

  /** @param {PointerEvent} e @returns {boolean} the finger ended a pinch */
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

  el.addEventListener('pointercancel', (e) => {
    endTouch(e);
    if (drag?.id === e.pointerId) { drag = null; el.classList.remove('dragging'); }
  });

  el.addEventListener('pointermove', (e) => {
    if (pinch && touches.has(e.pointerId)) {
      touches.set(e.pointerId, [e.clientX, e.clientY]);
      // From the start of the pinch each time (no rounding builds up): the zoom is the start zoom
      // times the spread, and the start texel goes under the fingers' midpoint.
      const g = pinchGeometry();
      const { w, h } = t.size();
      const z = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, pinch.dist > 0 ? pinch.zoom * (g.dist / pinch.dist) : t.view().zoom));
      t.setView({ fit: false, zoom: z, center: [pinch.texel[0] - (g.mid[0] - w / 2) / z, pinch.texel[1] - (g.mid[1] - h / 2) / z] });
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
        el.classList.add('dragging');
        t.panBy(dx, dy);
      }
    }
    t.hover(t.texelAt(e.clientX, e.clientY));
  });

  el.addEventListener('pointerup', (e) => {
    if (endTouch(e)) return;
    if (!drag || drag.id !== e.pointerId) return;
    const wasDrag = drag.moved;
    drag = null;
    el.classList.remove('dragging');
    if (!wasDrag && e.pointerType === 'touch') {
      const now = performance.now();
      const near = lastTap && Math.hypot(e.clientX - lastTap.x, e.clientY - lastTap.y) < DOUBLE_TAP_PX;
      if (near && lastTap && now - lastTap.time < DOUBLE_TAP_MS) {
        lastTap = null;
        t.fit();
        return;
      }
      lastTap = { time: now, x: e.clientX, y: e.clientY };
    }
    if (!wasDrag) {
      const p = t.texelAt(e.clientX, e.clientY);
      if (p) t.pin(p);
    }
  });

  el.addEventListener('pointerleave', () => { if (!drag) t.hover(null); });
}

/** The viewport's gestures. @param {import('../types').App} app */
export function attachGestures(app) {
  const { store, actions, viewport: vp } = app;
  attachPointer(vp.element, {
    active: () => !!store.state.image,
    view: () => store.state,
    size: vp.size,
    setView: actions.setView,
    zoomTo: vp.zoomTo,
    panBy: vp.panBy,
    fit: vp.fit,
    texelAt: vp.texelAt,
    hover: (p) => app.inspector.hover(p),
    pin: (p) => app.inspector.pin(p),
  });
}
