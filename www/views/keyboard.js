// The keyboard shortcuts (the help dialog lists them: views/dialogs.js SHORTCUTS). Keys typed into
// a field or a menu, and keys with Ctrl, Cmd or Alt, are left alone.
import { TONEMAPS, normalViewOf } from '../lib/display.js';

/** @param {import('../types').App} app */
export function attachKeyboard(app) {
  const { store, actions, viewport: vp, toolbar } = app;
  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const s = store.state;
    const k = e.key;
    if (k === 'Escape') {
      // Esc with a toolbar menu open closes only the menu (the browser does that).
      if (document.querySelector('.menu-panel:popover-open')) return;
      if (!s.help && s.compare) app.compare.close();
      actions.setHelp(false);
      return;
    }
    if (k === '?') { actions.setHelp(!s.help); return; }
    if (k === 'd' || k === 'D') {
      if (s.compare) app.compare.close();
      else app.compare.openFromCurrent().catch(() => {});
      return;
    }
    // The compare view (issue 21): zoom and the pinned texel move there.
    if (s.compare) {
      const cv = app.compareView;
      const v = s.compareView;
      if (k.startsWith('Arrow') && s.comparePin) {
        e.preventDefault();
        const step = e.shiftKey ? 8 : 1;
        const up = s.flipY ? step : -step;
        const d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, up], ArrowDown: [0, -up] }[k];
        if (d) actions.setComparePin([s.comparePin[0] + d[0], s.comparePin[1] + d[1]]);
        return;
      }
      if (k === 'f' || k === 'F' || k === '0') { cv.fit(); return; }
      if (k === '1') { cv.zoomTo(1); return; }
      if (k === '+' || k === '=') { cv.zoomTo(v.zoom * 2); return; }
      if (k === '-' || k === '_') { cv.zoomTo(v.zoom / 2); return; }
    }
    // With nothing pinned and nothing focused, an arrow pins the texel at the view's centre: the
    // keyboard's way to what a click does.
    if (k.startsWith('Arrow') && !s.pin && s.image && e.target === document.body) {
      const r = vp.element.getBoundingClientRect();
      const p = vp.texelAt(r.left + r.width / 2, r.top + r.height / 2);
      if (p) { e.preventDefault(); app.inspector.pin(p); }
      return;
    }
    if (k.startsWith('Arrow') && s.pin) {
      e.preventDefault();
      const step = e.shiftKey ? 8 : 1;
      const [x, y] = s.pin;
      const up = s.flipY ? step : -step; // arrows move on screen
      const d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, up], ArrowDown: [0, -up] }[k];
      if (d) app.inspector.pin([x + d[0], y + d[1]]);
      return;
    }
    if (k === 'f' || k === 'F' || k === '0') vp.fit();
    else if (k === '1') vp.zoomTo(1);
    else if (k === '+' || k === '=') vp.zoomTo(s.zoom * 2);
    else if (k === '-' || k === '_') vp.zoomTo(s.zoom / 2);
    else if (k === 'w' || k === 'W') actions.autoExposure();
    else if (k === 'e') actions.setExposure(s.exposure + 1);
    else if (k === 'E') actions.setExposure(s.exposure - 1);
    else if (k === 'm' || k === 'M') actions.setTonemap(TONEMAPS[(TONEMAPS.indexOf(s.tonemap) + 1) % TONEMAPS.length]);
    else if (k === 'n' || k === 'N') {
      // On: the view that reads the texture's stored layout (RA for UE's ASTC normal maps, AG for
      // DXT5nm, RG otherwise); off again on the next press.
      const t = s.current ? s.textures[s.current.index] : null;
      actions.setNormal(s.normal === 'off' ? normalViewOf(t?.normal_map) : 'off');
    }
    else if (k === 'v' || k === 'V') toolbar.toggle('flipY');
    else if (k === 'x' || k === 'X') toolbar.toggle('badOverlay');
    else if ((k === 'c' || k === 'C') && toolbar.available('cross')) toolbar.toggle('cross');
    else if ((k === 't' || k === 'T') && toolbar.available('tiles')) toolbar.toggle('tiles');
    else if (k === '#') actions.setGridMode(!s.gridMode);
    else if (k === '[') app.selection.selectMip((s.current?.mip ?? 0) - 1);
    else if (k === ']') app.selection.selectMip((s.current?.mip ?? 0) + 1);
    else if (k === 'l' || k === 'L') app.share.copyLink();
    else if ('rgbaRGBA'.includes(k) && k.length === 1) toolbar.toggleChannel(/** @type {keyof import('../types').Channels} */ (k.toLowerCase()), e.shiftKey);
  });
  // Esc also closes the drawers of narrow screens and the phone's menu (not while one of the
  // toolbar's menus is open in it: that Esc closes only the menu).
  window.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || document.querySelector('.menu-panel:popover-open')) return;
    if (store.state.drawer) actions.setDrawer(store.state.drawer, false);
  });
}
