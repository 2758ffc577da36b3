// What the page says about itself: the state on <body data-state> (empty, loading, ready, error),
// the error bar, the address's notice, the header's status and progress bar, the notes over the
// view (a share link's missing files, the ?src= URLs) and the status bar under it.
import { $, fmtBytes } from '../util.js';

/** @param {import('../types').App} app */
export function createStatus(app) {
  const { store } = app;
  const el = {
    error: $('error'), status: $('status'), progress: $('progress'), progressBar: /** @type {HTMLProgressElement} */ ($('progress-bar')),
    progressLabel: $('progress-label'), progressCancel: $('progress-cancel'), caption: $('view-label'), bad: $('bad-label'), gpuInfo: $('gpu-info'),
    shareNeed: $('share-need'), srcNote: $('src-note'),
  };

  // The notice under the error bar (text only): parameters of the address that were dropped.
  const notice = document.createElement('div');
  notice.id = 'notice';
  notice.className = 'error notice';
  notice.dataset.testid = 'notice';
  notice.setAttribute('role', 'status');
  notice.hidden = true;
  el.error.after(notice);

  store.subscribe(['phase'], (s) => { document.body.dataset.state = s.phase; });
  store.subscribe(['error'], (s) => {
    el.error.textContent = s.error;
    el.error.hidden = !s.error;
  });
  store.subscribe(['status'], (s) => { el.status.textContent = s.status; });
  store.subscribe(['notices'], (s) => {
    notice.replaceChildren(...s.notices.map((l) => Object.assign(document.createElement('div'), { textContent: l })));
    notice.hidden = !s.notices.length;
  });
  store.subscribe(['progress', 'remote'], (s) => {
    const p = s.progress;
    el.progress.hidden = !p;
    if (!p) return;
    // A total not known yet (a folder still being listed) shows the bar moving without a value.
    if (p.total > 0) {
      el.progressBar.max = p.total;
      el.progressBar.value = p.done;
    } else el.progressBar.removeAttribute('value');
    // With ?src= files open, what came over the network so far (services/sources.js), first: the
    // label is cut to the header's room, and for a file on a server the bytes are what moves.
    const net = s.remote.length
      ? `${fmtBytes(s.remote.reduce((n, r) => n + r.bytes, 0))} fetched in ${s.remote.reduce((n, r) => n + r.requests, 0)} requests · ` : '';
    el.progressLabel.textContent = net + p.text;
    el.progressLabel.title = net + p.text;
    el.progressCancel.hidden = !p.cancellable;
  });
  store.subscribe(['caption'], (s) => { el.caption.textContent = s.caption; });
  store.subscribe(['bad'], (s) => {
    const b = s.bad;
    el.bad.textContent = s.image?.precision === 'float' && (b.nan || b.inf || b.negative)
      ? `${b.nan} NaN · ${b.inf} Inf · ${b.negative} negative` : '';
  });
  store.subscribe(['gpuInfo'], (s) => { el.gpuInfo.textContent = s.gpuInfo; });
  store.subscribe(['shareNeed'], (s) => {
    const n = s.shareNeed;
    el.shareNeed.hidden = !n;
    el.shareNeed.textContent = n?.text ?? '';
    el.shareNeed.dataset.missing = n?.missing.join('\n') ?? '';
    el.shareNeed.dataset.differ = n?.differ.join('\n') ?? '';
  });
  // A link's container package opened alone (services/sources.js): the rest on request.
  const widen = Object.assign(document.createElement('button'), { type: 'button', className: 'button', textContent: 'Open every package' });
  widen.dataset.testid = 'src-widen';
  widen.title = 'Read the headers of every package of the containers and list all their textures';
  widen.addEventListener('click', () => { widen.disabled = true; app.opener.widen().finally(() => { widen.disabled = false; }); });
  store.subscribe(['srcNote', 'narrowed', 'only'], (s) => {
    el.srcNote.hidden = s.srcNote === null;
    el.srcNote.textContent = s.srcNote ?? '';
    if (s.narrowed && s.only !== undefined) el.srcNote.append(' ', widen);
  });
}
