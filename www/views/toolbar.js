// The toolbar over the view, one row at 1280 px: the surface (mip, slice, cube cross, VT tile
// grid), zoom, channels, then three menus (views/menu.js) - HDR (exposure, tonemap, NaN marks),
// Normal (the normal-map view, green flip) and View (values' colour space, background, vertical
// flip, GPU path) - then the share link and help. Each control runs an action; each reflects the
// store, whichever way its setting changed (keyboard, share link, test hook); a menu's button
// shows when a setting inside it is not at its default.
import { $ } from '../util.js';
import { attachMenu } from './menu.js';

/** @typedef {import('../types').State} State */
/** @typedef {'flipGreen' | 'flipY' | 'badOverlay' | 'cross' | 'tiles'} ToggleKey */

/**
 * Fills `select` with `count` options labelled by `label(i)`, showing `value`.
 * @param {HTMLSelectElement} select @param {number} count @param {(i: number) => string} label @param {number} value
 */
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

const FACES = ['+X', '−X', '+Y', '−Y', '+Z', '−Z'];

/** @param {import('../types').App} app */
export function createToolbar(app) {
  const { store, actions } = app;
  const sel = (/** @type {string} */ id) => /** @type {HTMLSelectElement} */ ($(id));
  const el = {
    mip: sel('mip'), slice: sel('slice'), cross: $('cube-cross'), tiles: $('vt-grid'),
    exposure: /** @type {HTMLInputElement} */ ($('exposure')), exposureLabel: $('exposure-label'),
    tonemap: sel('tonemap'), colour: sel('colour'), normal: sel('normal'),
    flipGreen: $('flip-green'), flipY: $('flip-y'), badOverlay: $('bad-overlay'), gpu: $('gpu-toggle'),
    background: sel('background'), bgColour: /** @type {HTMLInputElement} */ ($('bg-colour')),
  };
  /** @type {Record<ToggleKey, HTMLElement>} */
  const toggles = { flipGreen: el.flipGreen, flipY: el.flipY, badOverlay: el.badOverlay, cross: el.cross, tiles: el.tiles };
  const channelButtons = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-channel]'));

  // ---- controls -> actions ---------------------------------------------------------------
  el.mip.addEventListener('change', () => app.selection.selectMip(Number(el.mip.value)));
  el.slice.addEventListener('change', () => {
    const c = store.state.current;
    if (c) app.selection.selectFromUi({ index: c.index, mip: c.mip, slice: Number(el.slice.value) });
  });
  el.exposure.addEventListener('input', () => actions.setExposure(Number(el.exposure.value)));
  $('exposure-auto').addEventListener('click', () => actions.autoExposure());
  // (The casts: each select's options are the type's values.)
  el.tonemap.addEventListener('change', () => actions.setTonemap(/** @type {import('../types').Tonemap} */ (el.tonemap.value)));
  el.colour.addEventListener('change', () => actions.setColour(/** @type {import('../types').Colour} */ (el.colour.value)));
  el.normal.addEventListener('change', () => actions.setNormal(/** @type {import('../types').NormalView} */ (el.normal.value)));
  for (const key of /** @type {ToggleKey[]} */ (Object.keys(toggles))) {
    toggles[key].addEventListener('click', () => toggle(key));
  }
  el.gpu.addEventListener('click', () => {
    app.gpuPath.toggle();
    app.selection.reshow().catch(() => {});
  });
  for (const b of channelButtons) {
    // Shift-click shows that channel alone (as grey); a click on a solo channel brings all back.
    b.addEventListener('click', (e) => {
      const c = /** @type {keyof import('../types').Channels} */ (b.dataset.channel);
      const soloNow = Object.entries(store.state.channels).every(([k, v]) => v === (k === c));
      if (soloNow) actions.setChannels({ r: true, g: true, b: true, a: true });
      else toggleChannel(c, e.shiftKey);
    });
  }
  const setBackground = () => actions.setBackground(/** @type {import('../types').Background} */ (el.background.value), el.bgColour.value);
  el.background.addEventListener('change', setBackground);
  el.bgColour.addEventListener('input', setBackground);
  // The zoom buttons zoom what is shown: the compare view while it is open (as the keys do,
  // views/keyboard.js), else the viewport.
  const zoomed = () => (store.state.compare
    ? { view: app.compareView, zoom: store.state.compareView.zoom }
    : { view: app.viewport, zoom: store.state.zoom });
  $('zoom-fit').addEventListener('click', () => zoomed().view.fit());
  $('zoom-1').addEventListener('click', () => zoomed().view.zoomTo(1));
  $('zoom-in').addEventListener('click', () => { const z = zoomed(); z.view.zoomTo(z.zoom * 2); });
  $('zoom-out').addEventListener('click', () => { const z = zoomed(); z.view.zoomTo(z.zoom / 2); });
  $('share').addEventListener('click', () => app.share.copyLink());
  const menus = {
    hdr: attachMenu($('hdr-button'), $('hdr-menu')),
    normal: attachMenu($('normal-button'), $('normal-menu')),
    view: attachMenu($('view-button'), $('view-menu')),
  };

  /** Turns a view toggle over; the cross and the tile grid change what is decoded. @param {ToggleKey} key */
  function toggle(key) {
    actions.setToggle(key, !store.state[key]);
    if (key === 'cross' || key === 'tiles') app.selection.reshow().catch(() => {});
  }

  /** Channel `c` on or off, or alone (`solo`). @param {keyof import('../types').Channels} c @param {boolean} solo */
  function toggleChannel(c, solo) {
    if (solo) actions.setChannels({ r: c === 'r', g: c === 'g', b: c === 'b', a: c === 'a' });
    else actions.setChannels({ [c]: !store.state.channels[c] });
  }

  // ---- the store -> controls -------------------------------------------------------------
  store.subscribe(['current'], (s) => {
    const c = s.current;
    if (!c) return;
    const t = s.textures[c.index];
    fillSelect(el.mip, t.mips.length, (i) => {
      const m = t.mips[i];
      return `${i}: ${m.width}×${m.height}${m.present ? '' : ' (missing)'}`;
    }, c.mip);
    const surfaces = t.mips[c.mip]?.surfaces ?? t.census.slices;
    fillSelect(el.slice, surfaces, (i) => (t.census.kind === 'cube' ? `${i}: ${FACES[i % 6]}${surfaces > 6 ? ` [${Math.floor(i / 6)}]` : ''}` : String(i)), c.slice);
    el.cross.hidden = t.census.kind !== 'cube';
    el.tiles.hidden = !t.census.virtual;
  });
  store.subscribe(['exposure'], (s) => {
    el.exposure.value = String(s.exposure);
    el.exposureLabel.textContent = `${s.exposure > 0 ? '+' : ''}${s.exposure} EV`;
  });
  store.subscribe(['tonemap'], (s) => { el.tonemap.value = s.tonemap; });
  store.subscribe(['colour'], (s) => { el.colour.value = s.colour; });
  store.subscribe(['normal'], (s) => { el.normal.value = s.normal; });
  store.subscribe(['channels'], (s) => {
    for (const b of channelButtons) b.setAttribute('aria-pressed', String(s.channels[/** @type {keyof import('../types').Channels} */ (b.dataset.channel)]));
  });
  store.subscribe(['flipGreen', 'flipY', 'badOverlay', 'cross', 'tiles'], (s, changed) => {
    for (const key of /** @type {ToggleKey[]} */ (Object.keys(toggles))) {
      if (changed.has(key)) toggles[key].setAttribute('aria-pressed', String(s[key]));
    }
  });
  store.subscribe(['gpuOn'], (s) => el.gpu.setAttribute('aria-pressed', String(s.gpuOn)));
  store.subscribe(['background', 'backgroundColour'], (s) => {
    el.background.value = s.background;
    el.bgColour.hidden = s.background !== 'custom';
  });
  // The menus' buttons: the exposure when it is not 0, and a mark when a setting inside is changed.
  const hdrEv = $('hdr-ev');
  /** @param {string} id @param {boolean} on */
  const mark = (id, on) => { $(id).dataset.active = String(on); };
  store.subscribe(['exposure', 'tonemap', 'badOverlay'], (s) => {
    hdrEv.textContent = s.exposure ? ` ${s.exposure > 0 ? '+' : ''}${s.exposure} EV` : '';
    mark('hdr-button', s.exposure !== 0 || s.tonemap !== 'clamp' || s.badOverlay);
  });
  store.subscribe(['normal', 'flipGreen'], (s) => mark('normal-button', s.normal !== 'off' || s.flipGreen));
  store.subscribe(['flipY', 'background', 'colourSet'], (s) => mark('view-button', s.flipY || s.background !== 'checker' || s.colourSet));

  return {
    toggle, toggleChannel, menus,
    /** Whether the texture shown offers toggle `name` (a cube's cross, a VT's tile grid). @param {'cross' | 'tiles'} name */
    available: (name) => !toggles[name].hidden,
  };
}

/** @typedef {ReturnType<typeof createToolbar>} Toolbar */
