// The compare view (issue 21): A and B side by side with zoom and pan locked, a swipe (A left of a
// line the user drags, B right), flicker (A and B in turn) and the difference (|B − A| per channel
// or the largest channel through the core's colour ramp) drawn through the same channel, EV and
// tonemap settings as the single view. The bar picks A's mip, B and B's mip; the figures line and
// the inspector (A, B and B − A at the hovered and the pinned texel) describe the comparison.
// It replaces the viewport while open; the store's `compare*` keys drive it (actions.js).
import { paint as paintCpu } from '../lib/display.js';
import { diffBytes, figuresText, fitDifference, texelTriple } from '../lib/compare.js';
import { $ } from '../util.js';
import { attachPointer } from './gestures.js';
import { MAX_ZOOM, MIN_ZOOM, fitZoomFor, originFor, zoomCenter } from './viewport.js';

/** @typedef {import('../types').State} State */
/** @typedef {import('../types').CompareMode} CompareMode */

/** Flicker: how long each of A and B shows. */
export const FLICKER_MS = 600;

/** The display settings that repaint the compare view. @type {(keyof State)[]} */
const DISPLAY_KEYS = ['exposure', 'tonemap', 'colour', 'normal', 'flipGreen', 'flipY', 'badOverlay', 'channels'];

/** @param {ArrayLike<number>} v @param {string} precision */
const fmt = (v, precision) => (precision === 'float' ? Array.from(v, (x) => x.toPrecision(5)) : Array.from(v)).join(', ');
/** @param {number[]} d */
const fmtDelta = (d) => d.map((x) => (x === 0 ? '0' : (x > 0 ? '+' : '') + x.toPrecision(4))).join(', ');

/** @param {import('../types').App} app */
export function createCompareView(app) {
  const { store, actions } = app;
  const canvas = (/** @type {string} */ id) => /** @type {HTMLCanvasElement} */ ($(id));
  const sel = (/** @type {string} */ id) => /** @type {HTMLSelectElement} */ ($(id));
  const el = {
    root: $('compare'), stage: $('cmp-stage'), paneA: $('cmp-pane-a'), paneB: $('cmp-pane-b'),
    a: canvas('cmp-canvas-a'), bOver: canvas('cmp-canvas-b-over'), d: canvas('cmp-canvas-d'), b: canvas('cmp-canvas-b'),
    line: $('cmp-line'), handle: $('cmp-handle'), labelA: $('cmp-label-a'), figures: $('cmp-figures'), notice: $('cmp-notice'),
    aName: $('cmp-a-name'), aMip: sel('cmp-a-mip'), bSel: sel('cmp-b'), bMip: sel('cmp-b-mip'), diff: sel('cmp-diff'),
    viewport: $('viewport'), strip: $('mip-strip'), button: /** @type {HTMLButtonElement} */ ($('compare-button')),
    hover: $('insp-hover'), pin: $('insp-pin'), pixel: $('pixel-label'), zoom: $('zoom-label'),
    legend: $('cmp-legend'), legendRamp: canvas('cmp-legend-ramp'), legendText: $('cmp-legend-text'),
  };
  const modeButtons = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-compare-mode]'));
  /** Where the images' top-left corner is in each pane (CSS pixels; both panes have one size). @type {[number, number]} */
  let origin = [0, 0];
  /** The flicker timer, while flicker shows. @type {ReturnType<typeof setInterval> | null} */
  let flicker = null;

  const size = () => ({ w: el.paneA.clientWidth, h: el.paneA.clientHeight });
  const result = () => store.state.compareResult;

  // ---- geometry ---------------------------------------------------------------------------
  /** Places every canvas for the locked zoom and centre (fitting first when `fit` is on), and the swipe line. */
  function layout() {
    const s = store.state;
    const r = s.compareResult;
    if (!r || el.root.hidden) return;
    const { w, h } = size();
    const v = s.compareView;
    if (v.fit && w > 0) {
      const zoom = fitZoomFor(r.a.width, r.a.height, w, h);
      /** @type {[number, number]} */
      const center = [r.a.width / 2, r.a.height / 2];
      if (zoom !== v.zoom || center[0] !== v.center[0] || center[1] !== v.center[1]) {
        actions.setCompareView({ zoom, center }); // lays out again, now fitted
        return;
      }
    }
    origin = originFor(v.center, v.zoom, w, h);
    el.zoom.textContent = `${v.zoom >= 1 ? Math.round(v.zoom * 100) : (v.zoom * 100).toFixed(1)}%`;
    for (const c of [el.a, el.bOver, el.d, el.b]) {
      c.style.width = `${r.a.width * v.zoom}px`;
      c.style.height = `${r.a.height * v.zoom}px`;
      c.style.left = `${origin[0]}px`;
      c.style.top = `${origin[1]}px`;
      c.dataset.rendering = v.zoom >= 1 ? 'pixelated' : 'smooth';
    }
    // Swipe: B shows right of the line only (clipped from its own left edge).
    const lineX = Math.round(s.compareSwipe * w);
    el.line.style.left = `${lineX}px`;
    const percent = String(Math.round(s.compareSwipe * 100));
    el.handle.setAttribute('aria-valuenow', percent);
    el.handle.setAttribute('aria-valuetext', `${percent}%`);
    el.bOver.style.clipPath = s.compareMode === 'swipe' ? `inset(0 0 0 ${Math.max(0, lineX - origin[0])}px)` : '';
  }

  /** Paints what the mode shows with the display settings. */
  function paint() {
    const s = store.state;
    const r = s.compareResult;
    if (!r) return;
    const settings = app.viewport.displaySettings();
    const mode = s.compareMode;
    if (mode === 'diff') {
      const ramp = app.compare.ramp() ?? new Uint8Array(768);
      const bytes = diffBytes(r.a, r.b, settings, { max: s.compareDiff === 'max', ramp });
      el.d.width = r.a.width;
      el.d.height = r.a.height;
      /** @type {CanvasRenderingContext2D} */ (el.d.getContext('2d')).putImageData(new ImageData(bytes, r.a.width, r.a.height), 0, 0);
      legend(ramp, s.compareDiff === 'max', settings.exposure);
    } else {
      paintCpu(el.a, r.a, settings);
      paintCpu(mode === 'side' ? el.b : el.bOver, r.b, settings);
    }
    show();
  }

  /**
   * The difference's scale: the ramp (or black to white per channel) from 0 to the value at its
   * top at this exposure, 2^−EV.
   * @param {Uint8Array} ramp @param {boolean} max @param {number} ev
   */
  function legend(ramp, max, ev) {
    const w = el.legendRamp.width;
    const ctx = /** @type {CanvasRenderingContext2D} */ (el.legendRamp.getContext('2d'));
    const img = ctx.createImageData(w, 1);
    for (let x = 0; x < w; x++) {
      const k = Math.round((x / (w - 1)) * 255);
      const rgb = max ? [ramp[k * 3], ramp[k * 3 + 1], ramp[k * 3 + 2]] : [k, k, k];
      img.data.set([...rgb, 255], x * 4);
    }
    for (let y = 0; y < el.legendRamp.height; y++) ctx.putImageData(img, 0, y);
    const top = 2 ** -ev;
    el.legendText.textContent = `0 … ${top < 1e-3 ? top.toExponential(2) : Number(top.toPrecision(3))}`;
  }

  /** Which canvases, panes and line the mode shows. */
  function show() {
    const s = store.state;
    const mode = s.compareMode;
    const has = !!s.compareResult;
    el.stage.dataset.mode = mode;
    el.paneB.hidden = mode !== 'side';
    el.a.hidden = !has || mode === 'diff';
    el.b.hidden = !has || mode !== 'side';
    el.bOver.hidden = !has || !(mode === 'swipe' || (mode === 'flicker' && s.compareFlickerB));
    el.d.hidden = !has || mode !== 'diff';
    el.line.hidden = !has || mode !== 'swipe';
    el.labelA.textContent = mode === 'diff' ? '|B − A|' : mode === 'flicker' ? (s.compareFlickerB ? 'B' : 'A') : mode === 'swipe' ? 'A | B' : 'A';
    el.diff.hidden = mode !== 'diff';
    $('cmp-fit-diff').hidden = mode !== 'diff';
    el.legend.hidden = mode !== 'diff';
    for (const b of modeButtons) b.setAttribute('aria-pressed', String(b.dataset.compareMode === mode));
    // Flicker runs only while it shows.
    const want = has && mode === 'flicker' && !el.root.hidden;
    if (want && !flicker) flicker = setInterval(() => actions.compareFlicker(!store.state.compareFlickerB), FLICKER_MS);
    if (!want && flicker) { clearInterval(flicker); flicker = null; }
  }

  /** Screen point -> texel (x, y) of the compared surfaces, accounting for the Y flip; null outside. @param {number} clientX @param {number} clientY @param {HTMLElement} pane @returns {[number, number] | null} */
  function texelAt(clientX, clientY, pane) {
    const r = result();
    if (!r) return null;
    const box = pane.getBoundingClientRect();
    const z = store.state.compareView.zoom;
    const x = Math.floor((clientX - box.left - origin[0]) / z);
    let y = Math.floor((clientY - box.top - origin[1]) / z);
    if (x < 0 || y < 0 || x >= r.a.width || y >= r.a.height) return null;
    if (store.state.flipY) y = r.a.height - 1 - y;
    return [x, y];
  }

  /** @param {number} z @param {[number, number]} [anchor] */
  function zoomTo(z, anchor) {
    if (!result()) return;
    const v = store.state.compareView;
    const nz = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, z));
    const { w, h } = size();
    actions.setCompareView({ center: zoomCenter(origin, v.zoom, nz, anchor ?? [w / 2, h / 2], w, h), fit: false, zoom: nz });
  }
  /** @param {number} dx @param {number} dy */
  function panBy(dx, dy) {
    const v = store.state.compareView;
    actions.setCompareView({ fit: false, center: [v.center[0] - dx / v.zoom, v.center[1] - dy / v.zoom] });
  }
  function fit() {
    if (store.state.compareView.fit) layout();
    else actions.setCompareView({ fit: true });
  }

  /** @param {[number, number]} p */
  function pin(p) {
    const r = result();
    if (!r) return;
    actions.setComparePin([Math.min(r.a.width - 1, Math.max(0, p[0])), Math.min(r.a.height - 1, Math.max(0, p[1]))]);
  }

  for (const pane of [el.paneA, el.paneB]) {
    attachPointer(pane, {
      active: () => !!result(),
      view: () => store.state.compareView,
      size,
      setView: actions.setCompareView,
      zoomTo,
      panBy,
      fit,
      texelAt: (x, y) => texelAt(x, y, pane),
      hover: (p) => actions.setCompareHover(p),
      pin,
    });
  }

  // The swipe line: dragged anywhere along it, it moves and nothing pans.
  el.line.addEventListener('pointerdown', (e) => {
    e.stopPropagation();
    el.line.setPointerCapture?.(e.pointerId);
    el.line.classList.add('dragging');
  });
  el.line.addEventListener('pointermove', (e) => {
    if (!el.line.classList.contains('dragging')) return;
    e.stopPropagation();
    const box = el.paneA.getBoundingClientRect();
    actions.setCompareSwipe((e.clientX - box.left) / box.width);
  });
  const endLine = (/** @type {PointerEvent} */ e) => { e.stopPropagation(); el.line.classList.remove('dragging'); };
  el.line.addEventListener('pointerup', endLine);
  el.line.addEventListener('pointercancel', endLine);
  // From the keyboard (the handle is a slider): ← → move the line by 5 % (Shift: 1 %), Home and End
  // to the edges. The keys stay here: with a pinned texel the arrows would move it too.
  el.handle.addEventListener('keydown', (e) => {
    const step = e.shiftKey ? 0.01 : 0.05;
    const x = store.state.compareSwipe;
    const to = { ArrowLeft: x - step, ArrowDown: x - step, ArrowRight: x + step, ArrowUp: x + step, Home: 0, End: 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    actions.setCompareSwipe(to);
  });

  // ---- the inspector: A, B and B − A ------------------------------------------------------
  /** What the inspector says about texel p, or null. @param {[number, number] | null} p */
  function describe(p) {
    const r = result();
    if (!r || !p) return null;
    const t = texelTriple(r.a, r.b, p[0], p[1]);
    if (!t) return null;
    return { text: `(${p[0]}, ${p[1]})  A ${fmt(t.a, r.a.precision)} · B ${fmt(t.b, r.b.precision)} · B−A ${fmtDelta(t.d)}`, ...t };
  }

  function renderInspector() {
    const s = store.state;
    if (!s.compare) return;
    const h = describe(s.compareHover);
    el.hover.textContent = h?.text ?? '—';
    el.pixel.textContent = h?.text ?? '';
    el.pin.textContent = describe(s.comparePin)?.text ?? 'click a texel';
  }

  // ---- the bar ----------------------------------------------------------------------------
  /**
   * @param {HTMLSelectElement} select @param {[string, string][]} options value, label @param {string} value
   */
  function fill(select, options, value) {
    select.replaceChildren(...options.map(([v, l]) => new Option(l, v)));
    select.value = value;
    select.disabled = options.length < 2;
  }
  /** @param {import('../types').MipRecord[] | undefined} mips */
  const mipOptions = (mips) => (mips ?? []).map((m, i) => /** @type {[string, string]} */ ([String(i), `mip ${i}: ${m.width}×${m.height}`]));

  function renderBar() {
    const s = store.state;
    const t = s.compare;
    if (!t) return;
    const r = s.compareResult;
    const builds = t.pair !== null;
    el.aName.textContent = builds ? `OLD ${t.a.name}` : t.a.name;
    el.aName.title = t.a.file;
    const aMips = builds ? null : s.textures[t.a.index]?.mips;
    const aMip = r ? r.plan.a_mip : t.a.mip ?? 0;
    if (aMips) fill(el.aMip, mipOptions(aMips), String(aMip));
    else fill(el.aMip, Array.from({ length: s.builds?.pairs[t.pair ?? 0]?.old_census?.mips ?? 1 }, (_, i) => [String(i), `mip ${i}`]), String(aMip));
    if (builds) {
      fill(el.bSel, [['', `NEW ${t.b.name}`]], '');
      fill(el.bMip, [['', r ? `mip ${r.plan.b_mip} (matched)` : 'matched']], '');
    } else {
      const listed = s.listed.includes(t.b.index) ? s.listed : [t.b.index, ...s.listed];
      fill(el.bSel, listed.map((i) => [String(i), s.textures[i].census.name]), String(t.b.index));
      const auto = r && t.b.mip === null ? `matched: mip ${r.plan.b_mip}` : 'match A';
      fill(el.bMip, [['auto', auto], ...mipOptions(s.textures[t.b.index]?.mips)], t.b.mip === null ? 'auto' : String(t.b.mip));
      el.bSel.disabled = false;
    }
    $('cmp-swap').hidden = builds;
    el.diff.value = s.compareDiff;
  }

  function renderFigures() {
    const s = store.state;
    const r = s.compareResult;
    el.root.dataset.state = !s.compare ? 'closed' : s.compareError ? 'error' : r ? 'ready' : 'loading';
    if (s.compareError) {
      el.figures.textContent = s.compareError;
      el.figures.classList.add('bad');
      el.notice.hidden = true;
      return;
    }
    el.figures.classList.remove('bad');
    el.figures.textContent = r ? figuresText(r.figures, r.a.precision === 'unorm8' && r.b.precision === 'unorm8') : 'Decoding A and B…';
    el.notice.hidden = !r?.plan.notice;
    el.notice.textContent = r?.plan.notice ?? '';
  }

  el.aMip.addEventListener('change', () => app.compare.change({ a: { mip: Number(el.aMip.value) } }).catch(() => {}));
  el.bSel.addEventListener('change', () => {
    if (el.bSel.value !== '') app.compare.change({ b: { index: Number(el.bSel.value), mip: null } }).catch(() => {});
  });
  el.bMip.addEventListener('change', () => {
    if (el.bMip.value !== '') app.compare.change({ b: { mip: el.bMip.value === 'auto' ? null : Number(el.bMip.value) } }).catch(() => {});
  });
  $('cmp-swap').addEventListener('click', () => app.compare.swap().catch(() => {}));
  for (const b of modeButtons) b.addEventListener('click', () => actions.setCompareMode(/** @type {CompareMode} */ (b.dataset.compareMode)));
  el.diff.addEventListener('change', () => actions.setCompareDiff(/** @type {'max' | 'channels'} */ (el.diff.value)));
  $('cmp-fit-diff').addEventListener('click', () => {
    const r = result();
    if (r) actions.setExposure(fitDifference(r.figures.max_abs));
  });
  $('cmp-close').addEventListener('click', () => app.compare.close());
  el.button.addEventListener('click', () => {
    if (store.state.compare) app.compare.close();
    else app.compare.openFromCurrent().catch(() => {});
  });

  // ---- wiring -----------------------------------------------------------------------------
  store.subscribe(['compare'], (s) => {
    const open = !!s.compare;
    el.root.hidden = !open;
    el.viewport.hidden = open;
    el.strip.hidden = open;
    el.button.setAttribute('aria-pressed', String(open));
    if (!open) {
      show();
      app.inspector.render(); // the single view's pin again
      return;
    }
    renderBar();
    renderFigures();
  });
  store.subscribe(['current', 'compare'], (s) => { el.button.disabled = !s.current && !s.compare; });
  // show() before layout(): the panes the mode shows decide the size layout() measures (else the
  // origin is of the old size until the ResizeObserver's next call, a frame later).
  store.subscribe(['compareResult', 'compareError'], () => {
    renderBar();
    renderFigures();
    show();
    layout();
    paint();
    renderInspector();
  });
  store.subscribe(['compareView'], layout);
  store.subscribe(['compareSwipe'], layout);
  store.subscribe(['compareMode', 'compareDiff', ...DISPLAY_KEYS], (s) => {
    if (!s.compare) return;
    renderBar();
    show();
    layout();
    paint();
  });
  store.subscribe(['compareFlickerB'], show);
  store.subscribe(['compareHover', 'comparePin'], renderInspector);
  new ResizeObserver(() => layout()).observe(el.paneA);

  /**
   * What the stage shows at viewport point (clientX, clientY): which of A, B or the difference,
   * the texel there and its displayed RGBA (tests; the topmost visible canvas under the point,
   * with the swipe's clip).
   * @param {number} clientX @param {number} clientY
   */
  function shownAt(clientX, clientY) {
    const hit = document.elementsFromPoint(clientX, clientY).find((e) => e instanceof HTMLCanvasElement && e.closest('#cmp-stage'));
    if (!hit) return null;
    const c = /** @type {HTMLCanvasElement} */ (hit);
    const which = c === el.a ? 'a' : c === el.d ? 'diff' : 'b';
    const pane = c === el.b ? el.paneB : el.paneA;
    const p = texelAt(clientX, clientY, pane);
    if (!p) return null;
    const y = store.state.flipY ? c.height - 1 - p[1] : p[1];
    const rgba = Array.from(/** @type {CanvasRenderingContext2D} */ (c.getContext('2d')).getImageData(p[0], y, 1, 1).data);
    return { which, texel: p, rgba };
  }

  /** The viewport point of texel (x, y)'s centre in pane `which` ('a' or 'b'). @param {number} x @param {number} y @param {'a' | 'b'} [which] */
  function pointOf(x, y, which = 'a') {
    const box = (which === 'b' ? el.paneB : el.paneA).getBoundingClientRect();
    const z = store.state.compareView.zoom;
    const r = result();
    const yy = store.state.flipY && r ? r.a.height - 1 - y : y;
    return [box.left + origin[0] + (x + 0.5) * z, box.top + origin[1] + (yy + 0.5) * z];
  }

  return { layout, paint, zoomTo, panBy, fit, describe, shownAt, pointOf, size };
}

/** @typedef {ReturnType<typeof createCompareView>} CompareView */
