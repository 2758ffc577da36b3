// The header's pop-up menus: Export (PNG, EXR, DDS, a ZIP of the list) and Try a demo (also shown
// as the gallery of the empty page). A click outside a menu, or Esc, closes it. Also the buttons
// that open the hidden file inputs (data-opens: Open files…, Folder…, and the Builds dialog's).
import { DEMOS } from '../services/demos.js';
import { $ } from '../util.js';

/**
 * A button that opens and closes `menu`; a click elsewhere closes it.
 * @param {HTMLElement} button @param {HTMLElement} menu
 */
function popup(button, menu) {
  const show = (/** @type {boolean} */ open) => {
    menu.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
  };
  // The menu's buttons follow its button, so Tab walks into an open menu.
  button.addEventListener('click', (e) => { e.stopPropagation(); show(menu.hidden !== false); });
  document.addEventListener('click', (e) => { if (!menu.contains(/** @type {Node} */ (e.target))) show(false); });
  window.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || menu.hidden) return;
    const inside = menu.contains(document.activeElement);
    show(false);
    if (inside) button.focus();
  });
  // Tab past the last item leaves the menu: it closes.
  menu.addEventListener('focusout', (e) => {
    const to = /** @type {Node | null} */ (e.relatedTarget);
    if (to && !menu.contains(to) && to !== button) show(false);
  });
  return show;
}

/** @param {import('../types').App} app */
export function createHeaderMenus(app) {
  const { store, actions } = app;
  const exportButton = /** @type {HTMLButtonElement} */ ($('export-button'));
  const exportMenu = $('export-menu');
  const demoMenu = $('demo-menu');

  for (const b of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-opens]'))) {
    // A real button (focusable, Enter and Space) in place of a label: the input itself is hidden.
    b.addEventListener('click', () => $(/** @type {string} */ (b.dataset.opens)).click());
  }
  const showExport = popup(exportButton, exportMenu);
  for (const b of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-export]'))) {
    b.addEventListener('click', () => {
      showExport(false);
      app.exports.exportCurrent(/** @type {import('../services/export.js').ExportKind} */ (b.dataset.export)).catch((e) => actions.setError(e.message));
    });
  }
  $('progress-cancel').addEventListener('click', () => app.tasks.cancel());
  // Once something is on screen it can be exported.
  store.subscribe(['image'], (s) => { if (s.image) exportButton.disabled = false; });

  /** The demo buttons, in the gallery of the empty page and in the menu. @param {HTMLElement} container */
  function renderDemos(container) {
    for (const d of DEMOS) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'demo';
      b.dataset.testid = `demo-${d.id}`;
      const thumb = document.createElement('span');
      thumb.className = 'demo-thumb';
      thumb.dataset.demo = d.id;
      const body = document.createElement('span');
      body.className = 'demo-body';
      const title = document.createElement('span');
      title.className = 'demo-title';
      title.textContent = `${d.title} `;
      const tag = document.createElement('span');
      tag.className = 'demo-tag';
      tag.textContent = d.tag;
      title.append(tag);
      const text = document.createElement('span');
      text.className = 'demo-text';
      text.textContent = d.text;
      body.append(title, text);
      b.append(thumb, body);
      b.addEventListener('click', () => { showDemos(false); app.demos.open(d.id); });
      container.append(b);
    }
  }
  const showDemos = popup($('demo-button'), demoMenu);
  renderDemos($('demo-gallery'));
  renderDemos(demoMenu);
}
