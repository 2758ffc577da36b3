// Two builds (issue 21): the dialog that takes an OLD and a NEW set (folders or files, picked or
// dropped), and the sidebar's Builds tab listing their pairs (changed, added, removed, unchanged,
// or not yet compared) with a status and name filter; a pair opens in the compare view.
import { VirtualList } from '../lib/vlist.js';
import { walkEntries } from '../lib/walk.js';
import { $, modalFocus, problemText, rowName, showProblems } from '../util.js';

/** @typedef {import('../types').BuildPair} BuildPair */

/** What a pair's badge says, by status. */
const BADGE = { pending: 'comparing…', unchanged: 'unchanged', changed: 'changed', added: 'added', removed: 'removed' };

/**
 * The files of a drop on a build's zone, each with its path inside the drop (folders walked).
 * @param {DataTransfer | null} dt @returns {Promise<File[]>}
 */
async function droppedBuild(dt) {
  const items = Array.from(dt?.items ?? []).filter((i) => i.kind === 'file');
  const entries = items.map((i) => i.webkitGetAsEntry?.() ?? null);
  if (!entries.length || !entries.every(Boolean)) return Array.from(dt?.files ?? []);
  // walkEntries records each file's path inside the dropped folder (lib/walk.js relPath).
  return walkEntries(entries);
}

/** @param {import('../types').App} app */
export function createBuilds(app) {
  const { store, actions } = app;
  const el = {
    dialog: $('builds-dialog'), go: /** @type {HTMLButtonElement} */ ($('builds-go')),
    tabs: $('sidebar-tabs'), tabTextures: $('tab-textures'), tabBuilds: $('tab-builds'),
    panel: $('builds-panel'), texturesPanel: $('textures-panel'), list: $('builds-list'), count: $('builds-count'),
    summary: $('builds-summary'), name: /** @type {HTMLInputElement} */ ($('builds-filter-name')),
    key: /** @type {HTMLInputElement} */ ($('builds-key')), needsKey: $('builds-needs-key'),
    problems: $('builds-problems'), problemList: $('builds-problem-list'),
    status: /** @type {HTMLSelectElement} */ ($('builds-filter-status')),
  };
  /** The sets chosen in the dialog. @type {{ old: { files: File[], name: string } | null, new: { files: File[], name: string } | null }} */
  const chosen = { old: null, new: null };

  // ---- the dialog -------------------------------------------------------------------------
  const dialogFocus = modalFocus(el.dialog);
  const openDialog = (/** @type {boolean} */ on) => {
    if (el.dialog.hidden === !on) return;
    el.dialog.hidden = !on;
    dialogFocus(on);
  };
  $('builds-button').addEventListener('click', () => openDialog(true));
  $('builds-close').addEventListener('click', () => openDialog(false));
  el.dialog.addEventListener('click', (e) => { if (e.target === el.dialog) openDialog(false); });
  window.addEventListener('keydown', (e) => { if (e.key === 'Escape') openDialog(false); });

  /**
   * One build's set was chosen: `files`, named for the user by `name`.
   * @param {'old' | 'new'} side @param {File[]} files @param {string} name
   */
  function choose(side, files, name) {
    chosen[side] = files.length ? { files, name } : null;
    $(`builds-${side}-label`).textContent = files.length ? `${name} · ${files.length} file${files.length > 1 ? 's' : ''}` : 'drop here';
    el.go.disabled = !chosen.old || !chosen.new;
  }
  for (const side of /** @type {const} */ (['old', 'new'])) {
    for (const kind of ['folder', 'files']) {
      const input = /** @type {HTMLInputElement} */ ($(`builds-${side}-${kind}`));
      input.addEventListener('change', () => {
        const files = Array.from(input.files ?? []);
        const top = files[0]?.webkitRelativePath.split('/')[0];
        choose(side, files, top || (files.length === 1 ? files[0].name : `${files.length} files`));
        input.value = '';
      });
    }
    const zone = $(`builds-${side}`);
    zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
    zone.addEventListener('dragleave', () => zone.classList.remove('over'));
    zone.addEventListener('drop', (e) => {
      // Not the page's own drop (which opens files in the single view).
      e.preventDefault();
      e.stopPropagation();
      zone.classList.remove('over');
      const first = e.dataTransfer?.items?.[0]?.webkitGetAsEntry?.()?.name;
      droppedBuild(e.dataTransfer).then((files) => choose(side, files, first ?? `${files.length} files`)).catch((err) => actions.fail(err.message));
    });
  }
  el.go.addEventListener('click', () => {
    if (!chosen.old || !chosen.new) return;
    // The key goes to the worker and leaves the field at once (never kept in the page).
    const keys = el.key.value.trim() ? [el.key.value] : [];
    el.key.value = '';
    openDialog(false);
    open(chosen.old.files, chosen.new.files, chosen.old.name, chosen.new.name, keys).catch((e) => actions.fail(e.message));
  });

  /**
   * Opens two builds and lists their pairs (the dialog's button; tests call it directly).
   * @param {File[]} oldFiles @param {File[]} newFiles @param {string} oldName @param {string} newName @param {string[]} [keys]
   */
  function open(oldFiles, newFiles, oldName, newName, keys = []) {
    return app.compare.openBuilds(oldFiles, newFiles, oldName, newName, keys);
  }

  // ---- the sidebar ------------------------------------------------------------------------
  el.tabTextures.addEventListener('click', () => actions.setSidebarTab('textures'));
  el.tabBuilds.addEventListener('click', () => actions.setSidebarTab('builds'));
  el.name.addEventListener('input', () => actions.setBuildsFilter({ name: el.name.value.trim() }));
  // A <select>'s value is one of its options.
  el.status.addEventListener('change', () => actions.setBuildsFilter({ status: /** @type {import('../types').BuildsFilter['status']} */ (el.status.value) }));

  const isOpen = (/** @type {number} */ i) => store.state.compare?.pair === i;

  /** @param {number} i @param {HTMLElement} row */
  function renderRow(i, row) {
    const p = /** @type {BuildPair} */ (store.state.builds?.pairs[i]);
    row.dataset.index = String(i);
    row.dataset.status = p.status;
    row.tabIndex = 0;
    row.classList.toggle('selected', isOpen(i));
    row.setAttribute('aria-selected', String(isOpen(i)));
    const name = rowName(p.name, BADGE[p.status], `pair-${p.status}`, 'pair-status');
    name.title = `${p.name} — ${p.path}`;
    const meta = document.createElement('div');
    meta.className = 'tex-meta';
    const c = (/** @type {import('../types').Census | null} */ x) => (x ? `${x.format} ${x.width}×${x.height}` : '—');
    meta.textContent = p.old_census && p.new_census && c(p.old_census) !== c(p.new_census)
      ? `${c(p.old_census)} → ${c(p.new_census)}` : c(p.new_census ?? p.old_census);
    const more = document.createElement('div');
    more.className = 'tex-state';
    more.textContent = p.error ?? (p.changes?.length ? `${p.changes.join(', ')} · ${p.path}` : p.path);
    more.title = more.textContent;
    row.replaceChildren(name, meta, more);
    const comparable = p.old !== null && p.new !== null;
    row.onclick = () => { if (comparable) app.compare.openPair(i).catch(() => {}); };
    row.onkeydown = (e) => { if (e.key === 'Enter') row.click(); };
  }
  const vlist = new VirtualList(el.list, renderRow);

  store.subscribe(['builds', 'sidebarTab'], (s) => {
    el.tabs.hidden = !s.builds;
    const builds = s.sidebarTab === 'builds' && !!s.builds;
    el.panel.hidden = !builds;
    el.texturesPanel.hidden = builds;
    el.tabTextures.setAttribute('aria-pressed', String(!builds));
    el.tabBuilds.setAttribute('aria-pressed', String(builds));
    if (builds) vlist.update();
  });
  store.subscribe(['builds', 'buildsListed'], (s) => {
    const b = s.builds;
    vlist.setItems(s.buildsListed);
    if (!b) return;
    const n = (/** @type {BuildPair['status']} */ st) => b.pairs.filter((p) => p.status === st).length;
    el.count.textContent = s.buildsListed.length === b.pairs.length ? String(b.pairs.length) : `${s.buildsListed.length} of ${b.pairs.length}`;
    el.summary.textContent = `${b.oldName} → ${b.newName}: ${n('changed')} changed · ${n('added')} added · ${n('removed')} removed · ${n('unchanged')} unchanged`
      + (b.classified < b.pairs.length ? ` · comparing ${b.classified}/${b.pairs.length}` : '');
    el.summary.dataset.done = String(b.classified >= b.pairs.length);
    // Encrypted containers no key opened: their textures are missing from that side.
    const locked = [...b.needsKey.old.map((f) => `OLD ${f}`), ...b.needsKey.new.map((f) => `NEW ${f}`)];
    el.needsKey.hidden = !locked.length;
    el.needsKey.textContent = locked.length
      ? `${locked.join(', ')} ${locked.length > 1 ? 'need' : 'needs'} an AES key: their textures are left out. Open Builds… again and give the key.`
      : '';
  });
  // Files either build could not read (a truncated package, a bad container entry): their textures
  // are missing from that side's pairs, so the pairs alone would call them removed or added. The
  // containers that need a key are named above instead. Rebuilt only when the problems change (not
  // on every pair classified).
  /** @type {unknown} */
  let shownProblems = null;
  store.subscribe(['builds'], (s) => {
    const b = s.builds;
    if ((b?.problems ?? null) === shownProblems) return;
    shownProblems = b?.problems ?? null;
    showProblems(el.problems, el.problemList, !b ? [] : /** @type {const} */ (['old', 'new']).flatMap((side) => {
      const locked = new Set(b.needsKey[side]);
      return b.problems[side].filter((p) => !locked.has(p.file ?? '')).map((p) => `${side.toUpperCase()} ${problemText(p)}`);
    }));
  });
  store.subscribe(['compare'], () => vlist.refresh());

  return { open, openDialog };
}

/** @typedef {ReturnType<typeof createBuilds>} BuildsView */
