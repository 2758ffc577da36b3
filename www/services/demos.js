// Demos: files the core generates (written at build time by scripts/demos.mjs, fetched from the
// page's own server by the worker), opened like dropped files.

/** The demos, in gallery order (lib/share-hash.js and lib/safety.js accept these ids). */
export const DEMOS = [
  { id: 'ue5-vt', title: 'UE5 virtual texture', tag: 'Unreal', text: 'T_Landscape_VT · 8×8 tiles of 64 px, BC1 colour + BC5 normal layers, 3 tiles left out (magenta)' },
  { id: 'ue-classic', title: 'UE mip chain', tag: 'Unreal', text: 'T_Bricks_D · BC1 512², mips 0–1 streamed from .ubulk, 2–9 inline in .uexp' },
  { id: 'frostbite-cas', title: 'Frostbite CAS chunk', tag: 'Frostbite', text: 'crate_d .res header + .chunk of zlib, LZ4 and ZStd blocks' },
  { id: 'hdr', title: 'HDR sky', tag: 'DDS', text: 'sky_hdr.dds · RGBA16F 256×128, sun at 16.0 — try the exposure' },
  { id: 'cubemap', title: 'Cubemap', tag: 'DDS', text: 'sky_cube.dds · 64² RGBA8, six coloured faces, full chain' },
];

/** @param {import('../types').App} app */
export function createDemos(app) {
  const { store, actions, client } = app;

  /**
   * Opens demo `id`, leaving out the files named in `without` (or keeping only `only`): to see
   * what a missing sibling looks like. A share link can name the demo only while nothing else is open.
   * @param {string} id @param {string[]} [without] @param {string[] | null} [only]
   */
  async function open(id, without = [], only = null) {
    actions.setPhase('loading');
    actions.setStatus('Making the demo files…');
    try {
      const made = await client.call({ op: 'demo', demo: id });
      const firstOpen = !store.state.files.length;
      const prevDemo = store.state.demo;
      const files = made.filter((f) => !without.includes(f.name) && (!only || only.includes(f.name)));
      await app.opener.openFiles(files.map((f) => new File([/** @type {BlobPart} */ (f.data)], f.name)));
      actions.setDemo(!without.length && !only && (firstOpen || prevDemo === id) ? id : null);
    } catch (e) {
      actions.fail(/** @type {Error} */ (e).message);
    }
  }

  /** The files of demo `id` as {name, data: number[]} (tests drop them through the file input). @param {string} id */
  async function files(id) {
    const made = await client.call({ op: 'demo', demo: id });
    return made.map((f) => ({ name: f.name, data: Array.from(f.data) }));
  }

  return { open, files };
}

/** @typedef {ReturnType<typeof createDemos>} Demos */
