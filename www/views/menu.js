// A toolbar menu: a button with `popovertarget` and its panel (a popover: the browser opens it on
// click, Enter or Space, and closes it on Esc, a click elsewhere or another menu opening). This
// module places the panel under its button, keeps aria-expanded true to it, and, when the menu
// was opened from the keyboard, moves the focus to its first control (Tab walks the rest; Esc
// gives the focus back to the button).
import { FOCUSABLE } from '../util.js';

/**
 * @param {HTMLElement} button the menu's button (its `popovertarget` is `panel`)
 * @param {HTMLElement} panel the popover
 */
export function attachMenu(button, panel) {
  let fromKeyboard = false;
  // A click made by Enter or Space has no pointer: detail 0.
  button.addEventListener('click', (e) => { fromKeyboard = e.detail === 0; });

  function place() {
    const r = button.getBoundingClientRect();
    const margin = 6;
    // At beforetoggle the panel is still display: none (size 0): lay it out unseen for the
    // measure, so that its first frame is already inside the window. Placing it only at toggle
    // (a task later) let a frame, or a test's read, see it hanging past a phone's right edge.
    // Measured at the left edge: a fit-content panel further right would be narrowed by the
    // window's edge and measure narrower than it will be.
    panel.style.left = '0px';
    const hidden = !panel.matches(':popover-open');
    if (hidden) {
      panel.style.visibility = 'hidden';
      panel.style.display = 'grid';
    }
    const [width, height] = [panel.offsetWidth, panel.offsetHeight];
    if (hidden) {
      panel.style.removeProperty('display');
      panel.style.removeProperty('visibility');
    }
    const left = Math.max(margin, Math.min(r.left, window.innerWidth - width - margin));
    // Set through the CSSOM (the CSP allows no inline style attributes).
    panel.style.left = `${Math.round(left)}px`;
    // Under the button, or over it where the window ends first (the phone's menu sheet sits at the
    // bottom of the screen).
    const below = r.bottom + 4;
    const top = below + height <= window.innerHeight - margin ? below : Math.max(margin, r.top - 4 - height);
    panel.style.top = `${Math.round(top)}px`;
  }

  // beforetoggle comes as the state changes (toggle, a task later), so aria-expanded never lags.
  // It also places the panel before its first frame; toggle places it again (its content may
  // have changed while it opened).
  panel.addEventListener('beforetoggle', (e) => {
    const open = /** @type {ToggleEvent} */ (e).newState === 'open';
    button.setAttribute('aria-expanded', String(open));
    if (open) place();
  });
  panel.addEventListener('toggle', (e) => {
    if (/** @type {ToggleEvent} */ (e).newState !== 'open') return;
    place();
    if (fromKeyboard) /** @type {HTMLElement | null} */ (panel.querySelector(FOCUSABLE))?.focus();
  });
  window.addEventListener('resize', () => { if (panel.matches(':popover-open')) place(); });

  return {
    isOpen: () => panel.matches(':popover-open'),
    close: () => { if (panel.matches(':popover-open')) panel.hidePopover(); },
  };
}
