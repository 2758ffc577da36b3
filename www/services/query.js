// The address: a share link in the hash, ?src= URLs, and the parameters lib/safety.js checks
// (?demo, ?texture, ?mip, ?slice, ?profile). A bad one is dropped with a sentence in the notice.
import { readQuery } from '../lib/safety.js';
import { DEMOS } from './demos.js';

/** @param {import('../types').App} app */
export function createQuery(app) {
  const { store, actions } = app;

  /** Opens what the address names; the returned promise settles once it is on screen (or not). */
  function start() {
    // The share link first, then the ?src= URLs; applyQuery waits for both before it selects the
    // texture, mip and slice the address names.
    const sourcesOpened = app.share.restoreFromHash().then(() => app.sources.open()).catch((e) => app.sources.failed(e));
    return applyQuery(sourcesOpened).catch((e) => actions.setNotices([`The address could not be applied: ${e.message}`]));
  }

  /** @param {Promise<void>} sourcesOpened */
  async function applyQuery(sourcesOpened) {
    const { values, messages } = readQuery(location.search, { demos: DEMOS.map((d) => d.id) });
    const note = [...messages];
    actions.setNotices([...note]);
    if (values.profile) {
      const known = await app.opener.findProfile(values.profile);
      if (known) await app.opener.setProfile(known);
      else note.push(`There is no Frostbite profile “${values.profile}”; the default is used.`);
    } else {
      await app.opener.profilesReady;
    }
    // ?src= URLs (repeatable) are fetched by services/sources.js, which reads them with parseSources.
    if (values.demo) await app.demos.open(values.demo);
    else await sourcesOpened;
    if (store.state.textures.length && (values.texture !== undefined || values.mip !== undefined || values.slice !== undefined)) {
      try {
        await app.selection.select({ texture: values.texture, mip: values.mip, slice: values.slice });
      } catch (e) {
        note.push(`The address asked for a view that is not there (${/** @type {Error} */ (e).message}).`);
      }
    }
    actions.setNotices(note);
  }

  return { start };
}
