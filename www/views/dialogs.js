// The keyboard-shortcut dialog (?) and, on narrow screens, the drawers that slide the texture list
// and the inspector over the view (style.css shows their toggles below 1100 / 900 px), and on
// phones the menu: the header's tools and the toolbar as one sheet at the bottom of the screen
// (below 600 px).
import { $, FOCUSABLE, modalFocus } from '../util.js';

/** The drawers: each one's toggle is #<name>-toggle; the panel it opens. */
const DRAWERS = /** @type {const} */ ({ list: 'sidebar', info: 'info-panel', menu: 'bar-tools' });

/** Every keyboard shortcut, as the help dialog lists them (views/keyboard.js runs them). */
export const SHORTCUTS = [
  ['+ / −', 'zoom in / out (or the mouse wheel)'], ['0 or F', 'fit to view'], ['1', 'actual size (1:1)'],
  ['drag', 'pan'], ['click', 'pin the texel under the mouse'],
  ['pinch / one finger / double tap', 'touch: zoom / pan / fit'], ['← → ↑ ↓', 'move the pinned texel (Shift: 8); none pinned: pin the one at the centre'],
  ['R G B A', 'toggle a channel'], ['Shift+R/G/B/A', 'that channel alone, as grey'],
  ['E / Shift+E', 'exposure +/− 1 EV'], ['W', 'auto exposure (brightest value to 1)'], ['M', 'next tonemap'], ['N', 'normal-map view, in the layout the texture stores (RG, AG or RA)'],
  ['V', 'flip vertically'], ['X', 'mark NaN / Inf / negative'], ['C', 'cube cross'], ['T', 'VT tile grid'],
  ['[ / ]', 'previous / next mip'], ['D', 'compare with another texture or mip (Esc: back)'], ['#', 'textures as a list / as a grid of thumbnails'], ['L', 'copy a link to this view'], ['?', 'this list'], ['Esc', 'close this list'],
];

/** @param {import('../types').App} app */
export function createDialogs(app) {
  const { store, actions } = app;
  const help = $('help');
  const table = $('help-table');
  for (const [k, v] of SHORTCUTS) {
    const tr = document.createElement('tr');
    const a = document.createElement('td');
    a.className = 'key';
    a.textContent = k;
    const b = document.createElement('td');
    b.textContent = v;
    tr.append(a, b);
    table.append(tr);
  }
  $('help-button').addEventListener('click', () => actions.setHelp(!store.state.help));
  $('help-close').addEventListener('click', () => actions.setHelp(false));
  help.addEventListener('click', (e) => { if (e.target === help) actions.setHelp(false); });
  const helpFocus = modalFocus(help);
  store.subscribe(['help'], (s) => {
    help.hidden = !s.help;
    helpFocus(s.help);
  });

  const names = /** @type {(keyof typeof DRAWERS)[]} */ (Object.keys(DRAWERS));
  /** Whether the drawer was opened from the keyboard (its first control then takes the focus). */
  let fromKeyboard = false;
  for (const name of names) {
    $(`${name}-toggle`).addEventListener('click', (e) => {
      fromKeyboard = e.detail === 0; // a click made by Enter or Space has no pointer
      actions.setDrawer(name, store.state.drawer !== name);
    });
  }
  // The phone's menu sheet: the header's tools sit on the toolbar, whose height varies as it wraps.
  const toolbar = /** @type {HTMLElement} */ (document.querySelector('.layout > .toolbar'));
  new ResizeObserver(() => document.documentElement.style.setProperty('--toolbar-height', `${toolbar.offsetHeight}px`)).observe(toolbar);
  // Something opened from the menu (files, a demo, the Builds dialog) closes it.
  $('bar-tools').addEventListener('click', (e) => {
    if (/** @type {Element} */ (e.target).closest('[data-opens], [data-export], .demo, #builds-button')) actions.setDrawer('menu', false);
  });
  // Touching the view closes the drawers.
  const closeAll = () => { for (const name of names) actions.setDrawer(name, false); };
  app.viewport.element.addEventListener('pointerdown', closeAll);
  $('cmp-stage').addEventListener('pointerdown', closeAll);
  /** @type {string | null} */
  let shown = null;
  store.subscribe(['drawer'], (s) => {
    for (const name of names) {
      document.body.classList.toggle(`show-${name}`, s.drawer === name);
      $(`${name}-toggle`).setAttribute('aria-expanded', String(s.drawer === name));
    }
    const panel = (/** @type {string | null} */ name) => (name ? $(DRAWERS[/** @type {keyof typeof DRAWERS} */ (name)]) : null);
    const was = panel(shown);
    // Closed while the focus was inside: back to its toggle (else it would sit on a hidden control).
    if (was && shown !== s.drawer && was.contains(document.activeElement)) $(`${shown}-toggle`).focus();
    shown = s.drawer;
    const now = panel(s.drawer);
    if (now && fromKeyboard) {
      // Opening makes it visible at once (style.css), so its first control can take the focus.
      /** @type {HTMLElement[]} */ ([...now.querySelectorAll(FOCUSABLE)]).find((e) => e.getClientRects().length)?.focus();
    }
    fromKeyboard = false;
  });
}
