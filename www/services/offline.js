// The page as an app: the service worker that keeps it working offline (www/sw.js, production build
// only), the notice that a new deployment is ready, and files the operating system opens with the
// installed app (the manifest's file_handlers, window.launchQueue). docs/page.md, "Offline and
// installing".
import { relaxedSimd } from '../wasm-build.js';
import { $ } from '../util.js';

/**
 * What the operating system hands over (the File Handling API; not in TypeScript's DOM types).
 * @typedef {{ kind: string, name: string, getFile(): Promise<File> }} LaunchHandle
 * @typedef {{ files: readonly LaunchHandle[] }} LaunchParams
 * @typedef {{ setConsumer(fn: (p: LaunchParams) => void | Promise<void>): void }} LaunchQueue
 */

/** @param {import('../types').App} app */
export function createOffline(app) {
  const { store, actions } = app;
  const status = { registered: false, updateReady: false, error: '' };

  // ---- files opened from the operating system ------------------------------------------------

  /**
   * Opens the launched files together, as one drop (so siblings pair up). A file that cannot be
   * read (moved, no permission) is named in the error bar; the others still open.
   * @param {LaunchParams} params
   */
  async function launched(params) {
    const handles = (params.files ?? []).filter((h) => h.kind === 'file');
    if (!handles.length) return;
    /** @type {File[]} */
    const files = [];
    /** @type {string[]} */
    const unread = [];
    for (const h of handles) {
      try {
        files.push(await h.getFile());
      } catch (e) {
        unread.push(`${h.name} (${/** @type {Error} */ (e).message || e})`);
      }
    }
    if (files.length) await app.opener.openFiles(files);
    if (!unread.length) return;
    const text = `Could not read ${unread.length > 1 ? 'these files' : 'this file'}: ${unread.join(', ')}`;
    if (store.state.files.length) actions.setError(text);
    else actions.fail(text);
  }
  const queue = /** @type {{ launchQueue?: LaunchQueue }} */ (/** @type {unknown} */ (window)).launchQueue;
  queue?.setConsumer(launched);

  // ---- the service worker ---------------------------------------------------------------------

  // The production build names its worker in a <meta> (vite.config.js); the dev server has none,
  // so `npm start` always serves the files as they are on disk.
  const swPath = document.querySelector('meta[name="texscope-sw"]')?.getAttribute('content');
  const container = 'serviceWorker' in navigator ? navigator.serviceWorker : null;

  // The update notice, under the error bar: shown when a new build's worker waits.
  const notice = document.createElement('div');
  notice.className = 'error notice update-notice';
  notice.dataset.testid = 'update-notice';
  notice.setAttribute('role', 'status');
  notice.hidden = true;
  const reload = Object.assign(document.createElement('button'), { type: 'button', className: 'button small', textContent: 'Reload to update' });
  reload.dataset.testid = 'update-reload';
  notice.append('A new version of Texscope is ready. ', reload);
  $('error').after(notice);

  let applying = false;
  /**
   * Makes the waiting worker take over, then reloads this page (only this one) into the new build.
   * When it took over already (another tab's button, or a reload of the only other tab), this tab
   * runs an older build under the new worker: a reload is all it takes.
   * @param {ServiceWorker} waiting
   */
  function apply(waiting) {
    if (waiting.state !== 'installed') {
      location.reload();
      return;
    }
    applying = true;
    waiting.postMessage({ type: 'skipWaiting' });
  }
  // Whether a worker controlled this page before: the first install also takes over (clients.claim)
  // the page that installed it, which is no update.
  let controlled = Boolean(container?.controller);
  container?.addEventListener('controllerchange', () => {
    const was = controlled;
    controlled = true;
    if (applying) {
      location.reload();
      return;
    }
    // Another tab applied the update: this one keeps running its build (the new worker serves it
    // that build's files from their cache) and says that a reload brings the new one.
    if (!was) return;
    status.updateReady = true;
    notice.hidden = false;
    reload.onclick = () => location.reload();
  });

  /** @param {ServiceWorker} waiting */
  function offer(waiting) {
    status.updateReady = true;
    notice.hidden = false;
    reload.onclick = () => apply(waiting);
  }

  /** Registers the worker; asks it to store the full module once the page is idle. @param {string} path */
  async function register(path) {
    const sw = /** @type {ServiceWorkerContainer} */ (container);
    // Its scope is the folder of index.html: '/' or a sub-path such as '/texscope/'.
    // updateViaCache 'none': the browser asks the server for sw.js itself on every check.
    const reg = await sw.register(new URL(path, document.baseURI), { updateViaCache: 'none' });
    status.registered = true;
    // An update that was already waiting when this page loaded: another tab of the page is open
    // (the worker in charge starts it when the only tab reloads: www/sw.js takeOver), or the
    // reload was one that does not start it (a new visit rather than a reload).
    if (reg.waiting && sw.controller) offer(reg.waiting);
    reg.addEventListener('updatefound', () => {
      const w = reg.installing;
      w?.addEventListener('statechange', () => {
        // With no controller this is the first install, not an update.
        if (w.state === 'installed' && sw.controller) offer(w);
      });
    });
    const ready = await sw.ready;
    const idle = window.requestIdleCallback ?? ((/** @type {() => void} */ f) => setTimeout(f, 2000));
    const warm = () => idle(() => ready.active?.postMessage({ type: 'warm', relaxed: relaxedSimd }));
    if (document.readyState === 'complete') warm();
    else window.addEventListener('load', warm, { once: true });
  }
  if (!swPath) {
    // The dev server: a worker left by a production build served from this origin would answer
    // with that build's files instead of the ones on disk.
    container?.getRegistration().then((r) => r?.unregister()).catch(() => {});
  } else if (container) {
    register(swPath).catch((e) => {
      // The page works as before from the network; only offline use is lost.
      status.error = /** @type {Error} */ (e).message;
      console.warn(`Texscope: offline use is not available: ${status.error}`);
    });
  }

  return {
    /** What the worker did so far (for tests and the console). */
    status: () => ({ ...status }),
    /** The launchQueue consumer (tests call it with handles of their own). */
    launched,
  };
}

/** @typedef {ReturnType<typeof createOffline>} Offline */
