// Small helpers the page's modules share.

/**
 * The element with id `id` (the page's markup is index.html; a missing id is a bug, so this throws).
 * @template {HTMLElement} [E=HTMLElement]
 * @param {string} id
 * @returns {E}
 */
export function $(id) {
  const e = document.getElementById(id);
  if (!e) throw new Error(`index.html has no #${id}`);
  return /** @type {E} */ (e);
}

/** What the keyboard can reach inside a panel or a dialog (shown controls that are not disabled). */
export const FOCUSABLE = 'button:not([hidden]):not(:disabled), select:not(:disabled), input:not([hidden]):not(:disabled), [tabindex="0"]';

/**
 * The focus of a modal dialog: `dialog` is marked modal and Tab and Shift+Tab go round its
 * controls. The returned function is called as it opens (the focus goes to its first control,
 * `first` when given) and closes (the focus goes back where it was before, when it was inside).
 * @param {HTMLElement} dialog @param {HTMLElement} [first]
 * @returns {(open: boolean) => void}
 */
export function modalFocus(dialog, first) {
  /** @type {Element | null} */
  let before = null;
  dialog.setAttribute('aria-modal', 'true');
  const shown = () => /** @type {HTMLElement[]} */ ([...dialog.querySelectorAll(FOCUSABLE)]).filter((e) => e.getClientRects().length);
  dialog.addEventListener('keydown', (e) => {
    if (e.key !== 'Tab') return;
    const f = shown();
    if (!f.length) return;
    const at = f.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    if (e.shiftKey && at <= 0) { e.preventDefault(); f[f.length - 1].focus(); }
    else if (!e.shiftKey && at === f.length - 1) { e.preventDefault(); f[0].focus(); }
  });
  return (open) => {
    if (open) {
      if (!dialog.contains(document.activeElement)) before = document.activeElement;
      (first ?? shown()[0])?.focus();
    } else if (dialog.contains(document.activeElement) || document.activeElement === document.body) {
      if (before instanceof HTMLElement && before.isConnected) before.focus();
      before = null;
    }
  };
}

/** A byte count for people: B, KiB or MiB. @param {number} n */
export const fmtBytes = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);

/**
 * A file problem as the "Not opened" lists show it: the file (and the entry inside a container)
 * before the error, unless the error already names them.
 * @param {import('./types').Problem} p
 */
export function problemText(p) {
  const where = [p.file, p.path].filter((x) => x && !p.error.includes(x));
  return where.length ? `${where.join(': ')}: ${p.error}` : p.error;
}

/** The most files a "Not opened" list shows (then how many more). */
const SHOWN_PROBLEMS = 500;

/**
 * Fills a "Not opened" list (`list`, inside `box`, hidden when there is nothing) with `texts`, at
 * most SHOWN_PROBLEMS of them and then how many more: a game folder can give thousands.
 * @param {HTMLElement} box @param {HTMLElement} list @param {string[]} texts
 */
export function showProblems(box, list, texts) {
  const items = texts.length > SHOWN_PROBLEMS ? [...texts.slice(0, SHOWN_PROBLEMS), `and ${texts.length - SHOWN_PROBLEMS} more`] : texts;
  list.replaceChildren(...items.map((text) => {
    const li = document.createElement('li');
    li.textContent = text;
    return li;
  }));
  box.hidden = !items.length;
}

/** The first mip of `t` whose data is there (0 when none is). @param {import('./types').TextureRecord} t */
export function firstPresentMip(t) {
  const i = t.mips.findIndex((m) => m.present);
  return i < 0 ? 0 : i;
}

/** Resolves after the next frame is drawn (or after 100 ms when frames are not drawn, as in a hidden tab). */
export const afterFrame = () => new Promise((resolve) => {
  const timer = setTimeout(resolve, 100);
  requestAnimationFrame(() => setTimeout(() => { clearTimeout(timer); resolve(undefined); }, 0));
});

/** Copies `text` to the clipboard; false when the browser refuses (no permission). @param {string} text */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false; // no clipboard permission: the text stays selectable in the status
  }
}

/** A pause of `ms` milliseconds (test hooks). @param {number} ms */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A list row's first line: the name and a state badge (the texture list, the builds' pairs).
 * @param {string} text @param {string} badgeText @param {string} badgeClass @param {string} [testid]
 */
export function rowName(text, badgeText, badgeClass, testid) {
  const name = document.createElement('div');
  name.className = 'tex-name';
  const label = document.createElement('span');
  label.className = 'tex-label';
  label.textContent = text;
  const badge = document.createElement('span');
  badge.className = `badge ${badgeClass}`;
  badge.textContent = badgeText;
  if (testid) badge.dataset.testid = testid;
  name.append(label, badge);
  return name;
}
