// The keyboard-shortcut dialog (?) and, on narrow screens, the drawers that slide the texture list
// and the inspector over the view (style.css shows their toggles below 1100 / 900 px).
import { $ } from '../util.js';

/** Every keyboard shortcut, as the help dialog lists them (views/keyboard.js runs them). */
export const SHORTCUTS = [
  ['+ / −', 'zoom in / out (or the mouse wheel)'], ['0 or F', 'fit to view'], ['1', 'actual size (1:1)'],
  ['drag', 'pan'], ['click', 'pin the texel under the mouse'],
  ['pinch / one finger / double tap', 'touch: zoom / pan / fit'], ['← → ↑ ↓', 'move the pinned texel (Shift: 8)'],
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
  store.subscribe(['help'], (s) => { help.hidden = !s.help; });

  for (const name of /** @type {const} */ (['list', 'info'])) {
    $(`${name}-toggle`).addEventListener('click', () => actions.setDrawer(name, store.state.drawer !== name));
  }
  // Touching the view closes the drawers.
  app.viewport.element.addEventListener('pointerdown', () => { actions.setDrawer('list', false); actions.setDrawer('info', false); });
  store.subscribe(['drawer'], (s) => {
    for (const name of ['list', 'info']) {
      document.body.classList.toggle(`show-${name}`, s.drawer === name);
      $(`${name}-toggle`).setAttribute('aria-expanded', String(s.drawer === name));
    }
  });
}
