// AES keys for encrypted Unreal containers (issue 17): which dropped containers wait for a key, and
// a key (0x-hex, base64, or the text of an FModel JSON key file) handed to the worker, which
// reopens every file with it (src/web/mod.rs Session.addAesKey / needsKey).
//
// Where a key lives: in the worker's Session (its options) and, once it has opened a container, in
// `fitted` below, this page's memory, because the page starts new workers that must read the same
// catalog: a worker restarted after a crash (worker-client.js) and the tile pool's workers
// (lib/pool.js) are given the keys before their files, so the texture indices agree. A key is never
// put in the store, the URL or hash, a share link, web storage, the console, an error message or
// the census and export output; a key that fits nothing is not kept here at all. A reload forgets
// every key (the user is asked again).

/** @typedef {import('../types').KeyNote} KeyNote */

/** @param {string[]} names */
const nameList = (names) => (names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', '));

/** @param {import('../types').App} app */
export function createKeys(app) {
  const { store, actions } = app;
  /** Keys (as given) that opened a container; see above. @type {string[]} */
  const fitted = [];
  /** @param {string[]} names */
  const setNeeds = (names) => store.commit('keys/needs', { needsKey: names });
  /** @param {KeyNote | null} note */
  const setNote = (note) => store.commit('keys/note', { keyNote: note });

  /**
   * After the worker opened files: the containers that no key given so far opens.
   * @param {string[] | undefined} needsKey
   */
  function opened(needsKey) {
    const names = needsKey ?? [];
    setNeeds(names);
    if (!names.length) setNote(null);
  }

  /**
   * Tries `text` as a key (or key file) on the containers waiting for one. Resolves true when it
   * opened at least one; else the note says why (the key's parse error, or that it does not fit).
   * @param {string} text
   */
  async function submit(text) {
    const key = text.trim();
    const waiting = store.state.needsKey;
    if (!key) {
      setNote({ text: 'Type or paste a key first: 0x and 64 hex digits, base64, or an FModel key file.', error: true });
      return false;
    }
    setNote({ text: 'Trying the key…', error: false, busy: true });
    let reply;
    try {
      // Every file is reopened with the key: a task on the progress bar, as a drop's open.
      reply = await app.opener.reopenTask({ op: 'aesKey', key });
    } catch (e) {
      // The core's message says what is wrong with the text, never the text itself.
      setNote({ text: `That is not a key: ${/** @type {Error} */ (e).message}.`, error: true });
      return false;
    }
    if (!reply) {
      // Cancelled: the fresh worker reopened the files without this key, which is not kept.
      setNote({ text: 'Cancelled: the key was not tried. Submit it again to open the containers.', error: false });
      return false;
    }
    const still = reply.needsKey ?? [];
    const openedNow = waiting.filter((n) => !still.includes(n));
    setNeeds(still);
    if (!openedNow.length) {
      setNote({ text: `This key does not fit ${nameList(waiting)}: nothing was decrypted. Check that it is the key of this game and build.`, error: true });
      // The same textures; the problems now say the key given does not fit.
      actions.catalog(reply.textures, reply.problems);
      return false;
    }
    fitted.push(key);
    const rest = still.length ? ` ${still.length} still need${still.length > 1 ? '' : 's'} a key.` : '';
    setNote({ text: `The key opened ${nameList(openedNow)}.${rest}`, error: false });
    await app.opener.showCatalog(reply.textures, reply.problems);
    return true;
  }

  return {
    opened,
    submit,
    /** The keys to give a new worker before its files (see above). */
    keys: () => [...fitted],
  };
}

/** @typedef {ReturnType<typeof createKeys>} Keys */
