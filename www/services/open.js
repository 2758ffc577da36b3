// Opening: files picked, a folder picked or dropped (walked by lib/walk.js), handed to the worker,
// which builds the catalog of every file so far; and the reading options that re-open them (the
// Frostbite format profile, the Unity version for files that record none).
import { entryState } from '../lib/vlist.js';
import { droppedFiles, pathOf, walkEntries } from '../lib/walk.js';
import { isCancel } from './tasks.js';
import { probe } from '../probe.js';
import { $, firstPresentMip } from '../util.js';

/** @typedef {import('../types').TextureRecord} TextureRecord */
/** @typedef {import('../types').Problem} Problem */
/** @typedef {import('../types').OpenFile} OpenFile */

/** The name the worker gives `f`: a dropped file's path in its folder, else its name. @param {OpenFile} f */
export const openPath = (f) => (f instanceof File ? pathOf(f) : f.name);

/** @param {number} n @param {string} word */
const plural = (n, word) => `${n} ${word}${n > 1 ? 's' : ''}`;

/**
 * A folder walk's progress on `task`'s bar: files found of the entries listed so far (the folders
 * not yet listed are not known: the total grows as the walk goes); Cancel stops it.
 * @param {import('./tasks.js').Task} task @returns {import('../lib/walk.js').WalkWatch}
 */
const walkWatch = (task) => ({
  listed: 0,
  signal: task.signal,
  step: (found, listed) => task.step(found, listed, `Reading the folder: ${found} of ${listed} files`),
});

/**
 * The bar's words for a step of an open (www/worker.js posts them; stage as src/lib.rs OpenStage):
 * files whose first bytes were read, engine passes, then inside the Unreal pass its containers'
 * indexes read, their packages looked at (each one's first block read) and their texture
 * packages read, then the loose files it goes through (each package read as it comes). `verb`:
 * "Opening" for a drop, "Reopening" when a reading option or a key changed.
 * @param {string} verb @param {number} done @param {number} total @param {number} stage
 */
export function openStepText(verb, done, total, stage) {
  const what = [
    `${done} of ${total} files read`,
    `engine ${done} of ${total}`,
    `Unreal, ${done} of ${total} container indexes`,
    `Unreal, ${done} of ${total} packages`,
    `Unreal, ${done} of ${total} texture packages`,
    `Unreal, ${done} of ${total} loose files`,
  ][stage] ?? `${done} of ${total}`;
  return `${verb}: ${what}`;
}

/** @param {import('../types').App} app */
export function createOpener(app) {
  const { store, actions, client } = app;
  const profileSelect = /** @type {HTMLSelectElement} */ ($('frostbite-profile'));
  const unityInput = /** @type {HTMLInputElement} */ ($('unity-version'));
  const platformSelect = /** @type {HTMLSelectElement} */ ($('platform'));

  /**
   * Gives `fileList` to the worker and shows the catalog: dropped or picked Files, or files on a
   * web server (services/sources.js), which the worker reads by range.
   * @param {Iterable<OpenFile> | ArrayLike<OpenFile>} fileList
   */
  function openFiles(fileList) {
    const files = Array.from(fileList);
    if (!files.length) return Promise.resolve();
    return openTask(async () => files);
  }

  /**
   * Opens what `gather` finds (a folder walked, or files given) as one task on the progress bar:
   * the walk counts files found of those listed so far, the worker's open its engines' passes
   * over the files. Cancel stops the walk between two files, or ends the worker mid-open
   * (WorkerClient.cancel: the next request gets a fresh worker with the earlier files); either
   * way the files open before stay open and shown.
   * @param {(task: import('./tasks.js').Task) => Promise<OpenFile[]>} gather
   */
  async function openTask(gather) {
    actions.setError('');
    try {
      await app.tasks.run('Reading the files…', 0, async (task) => {
        const files = await gather(task);
        task.check();
        if (!files.length) return;
        await openGathered(task, files);
      });
    } catch (e) {
      if (!isCancel(e)) throw e;
      // Back to what was open before (the error bar was cleared when the task began).
      actions.setPhase(store.state.files.length ? 'ready' : 'empty');
      actions.setStatus('Opening cancelled');
    }
  }

  /** @param {import('./tasks.js').Task} task @param {OpenFile[]} files */
  async function openGathered(task, files) {
    actions.setPhase('loading');
    const opening = `Opening ${plural(files.length, 'file')}`;
    actions.setStatus(`${opening}…`);
    task.step(0, files.length, `${opening}…`);
    probe.openedAt = performance.now();
    probe.resetStages();
    probe.stage('open', probe.openedAt);
    try {
      // Files of a folder drop are named by their path in it, so same-named files of two folders
      // stay apart and exports mirror the folders.
      const paths = files.map(openPath);
      // Files given after a link's one-package open (services/sources.js) are opened with every
      // package of every container, the link's ones too: "" tells the worker so.
      if (store.state.files.length) actions.setOnly(undefined);
      // The open is one wasm call no message can interrupt: Cancel ends the worker.
      task.onCancel = () => client.cancel();
      const { textures, problems, needsKey, narrowed } = await client.call(
        { op: 'add', files, paths, only: store.state.only ?? '', slow: probe.openDelay || undefined },
        // Files probed (every file's first bytes, shared by the engines' probes), then the engines'
        // passes; the files counted are all the open ones (a drop reopens the earlier files too).
        (done, total, stage) => task.step(done, total, openStepText('Opening', done, total, stage)),
      );
      task.onCancel = null;
      task.check();
      probe.stage('catalog');
      probe.keepStages = true;
      actions.filesAdded(files);
      actions.setNarrowed(!!narrowed);
      actions.setDemo(null); // demos.open sets it back when the files are a demo's
      app.keys.opened(needsKey);
      await showCatalog(textures, problems);
    } catch (e) {
      if (isCancel(e)) throw e;
      actions.fail(/** @type {Error} */ (e).message);
    }
  }

  /**
   * Reopens every open file with `req` (a reading option changed, an AES key given: the worker
   * reopens them all) as one task on the progress bar, with a drop's steps and Cancel. Cancel
   * ends the worker; the next request's fresh worker reopens the files with what the store holds,
   * the options and keys from before this change, which the caller shows again. Resolves with
   * the worker's reply, or null when cancelled; rejects when the worker refuses `req`.
   * @param {{ op: 'profile', profile: string } | { op: 'unityVersion', version: string } | { op: 'platform', platform: string } | { op: 'aesKey', key: string } | { op: 'only', only: string }} req
   * @returns {Promise<import('../types').CatalogReply | null>}
   */
  async function reopenTask(req) {
    // Nothing open: nothing to reopen, no bar.
    if (!store.state.files.length) return client.call(req);
    try {
      return await app.tasks.run('Reopening the files…', 0, async (task) => {
        // One wasm call, as a drop's open: Cancel ends the worker.
        task.onCancel = () => client.cancel();
        const reply = await client.call(
          { ...req, slow: probe.openDelay || undefined },
          (done, total, stage) => task.step(done, total, openStepText('Reopening', done, total, stage)),
        );
        task.onCancel = null;
        task.check();
        return reply;
      });
    } catch (e) {
      if (!isCancel(e)) throw e;
      actions.setStatus('Reopening cancelled');
      return null;
    }
  }

  /**
   * Walks FileSystemEntry-like objects as a folder drop does (lib/walk.js) and opens what it
   * finds, in one task; resolves with the files (none when cancelled).
   * @param {import('../lib/walk.js').EntryLike[]} entries
   */
  async function openEntries(entries) {
    /** @type {File[]} */
    let found = [];
    await openTask(async (task) => {
      found = await walkEntries(entries, 0, [], '', walkWatch(task));
      return found;
    });
    return found;
  }

  /**
   * Lists a catalog the worker sent and keeps (or picks) the view.
   * @param {TextureRecord[]} textures @param {Problem[]} problems
   */
  async function showCatalog(textures, problems) {
    app.gpuPath.reset();
    actions.catalog(textures, problems);
    if (!textures.length && store.state.needsKey.length) {
      // Only encrypted containers so far: the key bar (views/keys.js) asks; not an error yet.
      actions.setPhase('empty');
      actions.setStatus('No texture yet: the containers wait for an AES key');
      return;
    }
    if (!textures.length) {
      actions.fail(problems.map((p) => p.error).join('\n') || 'No texture was found in the files.');
      return;
    }
    actions.setStatus(`${plural(textures.length, 'texture')} in ${plural(store.state.files.length, 'file')}`);
    // Keep the current view when more files arrive (the catalog is rebuilt, so find the texture
    // again by file and name), else show the first texture that decodes.
    const prev = store.state.current;
    const kept = prev ? textures.findIndex((t) => t.census.file === prev.file && t.census.name === prev.name) : -1;
    if (prev && kept >= 0) {
      await app.selection.show({ index: kept, mip: prev.mip, slice: prev.slice });
    } else if (await app.share.restorePending()) {
      // A share link's texture shown straight away: no other texture is decoded (or, for a
      // remote file, read) first.
      return;
    } else {
      const start = Math.max(0, textures.findIndex((t) => entryState(t).cls !== 'bad'));
      await app.selection.show({ index: start, mip: firstPresentMip(textures[start]), slice: 0 });
    }
    await app.share.restorePending();
  }

  // ---- Frostbite format profile (issue 6): re-opens the files with another game's enum ------
  /** @param {string} name */
  async function setProfile(name) {
    let reply;
    const shown = () => store.state.profile ?? profileSelect.dataset.default ?? '';
    try {
      reply = await reopenTask({ op: 'profile', profile: name });
    } catch (e) {
      profileSelect.value = shown();
      actions.fail(/** @type {Error} */ (e).message);
      return;
    }
    // Cancelled: the files stay open with the profile in force before.
    if (!reply) {
      profileSelect.value = shown();
      return;
    }
    actions.setProfile(name);
    profileSelect.value = name;
    // A texture that no longer decodes under this profile shows its error (show() puts it up).
    if (store.state.files.length) await showCatalog(reply.textures, reply.problems).catch(() => {});
  }
  const profilesReady = client.call({ op: 'profiles' }).then((list) => {
    for (const p of list) {
      const o = document.createElement('option');
      o.value = p.name;
      o.textContent = p.default ? `${p.name} (default)` : p.name;
      o.title = p.games;
      profileSelect.append(o);
      if (p.default) { o.selected = true; profileSelect.dataset.default = p.name; }
    }
  }).catch((e) => actions.fail(e.message));
  profileSelect.addEventListener('change', () => setProfile(profileSelect.value));

  /** The profile named `name` (any case), or undefined. @param {string} name */
  async function findProfile(name) {
    await profilesReady;
    return [...profileSelect.options].find((o) => o.value.toLowerCase() === name.toLowerCase())?.value;
  }

  // ---- reading options that re-open every file: the Unity version for files that record none
  // (issue 4), the console platform for cooks that do not say theirs (issue 32) --------------
  /**
   * Asks the worker to re-open with `req`; on failure the control shows the option in force again.
   * @param {any} req @param {HTMLInputElement | HTMLSelectElement} control @param {string | undefined} current
   * @param {() => void} commit
   */
  async function reopenWith(req, control, current, commit) {
    let reply;
    try {
      reply = await reopenTask(req);
    } catch (e) {
      control.value = current ?? '';
      actions.fail(/** @type {Error} */ (e).message);
      return;
    }
    // Cancelled: the files stay open with the option in force before.
    if (!reply) {
      control.value = current ?? '';
      return;
    }
    commit();
    if (store.state.files.length) await showCatalog(reply.textures, reply.problems).catch(() => {});
  }
  unityInput.addEventListener('change', () => {
    const v = unityInput.value.trim();
    reopenWith({ op: 'unityVersion', version: v }, unityInput, store.state.unityVersion, () => actions.setUnityVersion(v || undefined));
  });
  platformSelect.addEventListener('change', () => {
    const v = platformSelect.value;
    reopenWith({ op: 'platform', platform: v }, platformSelect, store.state.platform, () => actions.setPlatform(v || undefined));
  });

  // ---- picking and dropping ---------------------------------------------------------------
  for (const id of ['file-input', 'folder-input']) {
    const input = /** @type {HTMLInputElement} */ ($(id));
    input.addEventListener('change', () => {
      openFiles(input.files ?? []).finally(() => { input.value = ''; });
    });
  }
  const dropOverlay = $('drop-overlay');
  let dragDepth = 0;
  window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; dropOverlay.hidden = false; });
  window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; dropOverlay.hidden = true; } });
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    dragDepth = 0;
    dropOverlay.hidden = true;
    // A drop on an element that takes its own (the AES key bar: a key file) opens nothing here.
    if (e.target instanceof Element && e.target.closest('[data-own-drop]')) return;
    if (!e.dataTransfer) return;
    const dt = e.dataTransfer;
    openTask((task) => droppedFiles(dt, walkWatch(task))).catch((err) => actions.fail(err.message));
  });

  /**
   * A share link's container package was opened alone (services/sources.js): reopens the files
   * with every package of their containers, keeping the view. Resolves with whether it did (not
   * when cancelled or refused: the link's package stays the only one open).
   */
  async function widen() {
    let reply;
    try {
      reply = await reopenTask({ op: 'only', only: '' });
    } catch (e) {
      actions.fail(/** @type {Error} */ (e).message);
      return false;
    }
    if (!reply) return false;
    actions.setOnly(undefined);
    actions.setNarrowed(false);
    await showCatalog(reply.textures, reply.problems);
    return true;
  }

  return { openFiles, openEntries, showCatalog, reopenTask, widen, setProfile, findProfile, profilesReady };
}

/** @typedef {ReturnType<typeof createOpener>} Opener */
