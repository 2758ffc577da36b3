// Comparing (issue 21): two textures of the open files (any engines and formats), a texture against
// another of its mips, or a pair of two builds. The worker (src/web/compare.rs, in the full module)
// decodes both, matches their mips, computes the figures and sends both surfaces; they go in the
// store, where the compare view (views/compare.js) picks them up. Two builds are opened apart in
// the worker, their textures paired by path and name, and each pair classified from its stored
// bytes (no decode) in batches, so the list fills in while the user looks.
import { firstPresentMip } from '../util.js';
import { pathOf } from '../lib/walk.js';
import { probe } from '../probe.js';
import { isCancel } from './tasks.js';

/** @typedef {import('../types').CompareSide} CompareSide */
/** @typedef {import('../types').CompareTarget} CompareTarget */

/** Pairs classified per worker call: small enough that the list updates often. */
const BATCH = 100;

/**
 * The name a build's file is keyed by: its path under the folder the user named (dropped, picked,
 * or set by the test API), else its name; the same path exports use (lib/walk.js pathOf).
 * @param {File} f
 */
export function buildName(f) {
  return pathOf(f);
}

/** @param {import('../types').App} app */
export function createCompare(app) {
  const { store, actions, client } = app;
  let seq = 0;
  /** The core's colour ramp (256 RGB entries), fetched once. @type {Uint8Array | null} */
  let ramp = null;
  let buildsSeq = 0;

  /**
   * A side of a comparison from the open files' texture `index`.
   * @param {number} index @param {number | null} mip @param {number} slice @returns {CompareSide}
   */
  function openSide(index, mip, slice) {
    const t = store.state.textures[index];
    if (!t) throw new Error(`there is no texture ${index}`);
    return { set: 'open', index, mip, slice, name: t.census.name, file: t.census.file };
  }

  /**
   * Asks the worker for `target` and puts the result in the store; resolves with it (null when a
   * newer comparison won), rejects with the error also on screen.
   * @param {CompareTarget} target
   */
  async function run(target) {
    const my = ++seq;
    actions.compareOpen(target);
    try {
      ramp ??= await client.call({ op: 'diffRamp' });
      const { a, b } = target;
      const r = target.pair === null
        ? await client.call({ op: 'compare', a: a.index, aMip: a.mip ?? 0, aSlice: a.slice, b: b.index, bMip: b.mip, bSlice: b.slice })
        : await client.call({ op: 'comparePair', pair: target.pair, mip: a.mip ?? 0, slice: a.slice });
      if (my !== seq) return null;
      actions.compareDone(r);
      return r;
    } catch (e) {
      if (my === seq) actions.compareFailed(/** @type {Error} */ (e).message);
      throw e;
    }
  }

  /**
   * Compares texture `a` of the open files (its mip and slice) with texture `b`: its mip, or null
   * for the one of A's size (whole mips apart: mip-matched; else scaled to A, with a notice).
   * @param {{ index: number, mip?: number, slice?: number }} a
   * @param {{ index: number, mip?: number | null, slice?: number }} b
   */
  function open(a, b) {
    const ta = store.state.textures[a.index];
    const am = a.mip ?? (ta ? firstPresentMip(ta) : 0);
    return run({ a: openSide(a.index, am, a.slice ?? 0), b: openSide(b.index, b.mip ?? null, b.slice ?? 0), pair: null });
  }

  /**
   * The comparison the Compare button starts from the current texture: against the next listed
   * texture, or, when only one is open, against its own next mip.
   */
  function openFromCurrent() {
    const s = store.state;
    const c = s.current;
    if (!c) return Promise.resolve(null);
    const others = s.listed.filter((i) => i !== c.index);
    if (others.length) {
      const after = others.find((i) => s.listed.indexOf(i) > s.listed.indexOf(c.index)) ?? others[0];
      return open({ index: c.index, mip: c.mip, slice: c.slice }, { index: after, mip: null, slice: 0 });
    }
    const t = s.textures[c.index];
    const next = c.mip + 1 < t.mips.length ? c.mip + 1 : Math.max(0, c.mip - 1);
    return open({ index: c.index, mip: c.mip, slice: c.slice }, { index: c.index, mip: next, slice: c.slice });
  }

  /**
   * Compares pair `i` of the builds, OLD as A (its mip `mip`), NEW as B (the matching mip).
   * @param {number} i @param {number} [mip] @param {number} [slice]
   */
  function openPair(i, mip = 0, slice = 0) {
    const p = store.state.builds?.pairs[i];
    if (!p || p.old === null || p.new === null || !p.old_census || !p.new_census) {
      return Promise.reject(new Error(`pair ${i} is not in both builds`));
    }
    /** @type {(set: 'old' | 'new', index: number, c: import('../types').Census, m: number | null) => CompareSide} */
    const side = (set, index, c, m) => ({ set, index, mip: m, slice, name: c.name, file: c.file });
    return run({ a: side('old', p.old, p.old_census, mip), b: side('new', p.new, p.new_census, null), pair: i });
  }

  /**
   * The same comparison with some of A's or B's choices changed (the bar's selects).
   * @param {{ a?: Partial<CompareSide>, b?: Partial<CompareSide> }} change
   */
  function change({ a = {}, b = {} }) {
    const t = store.state.compare;
    if (!t) return Promise.resolve(null);
    if (t.pair !== null) return openPair(t.pair, a.mip ?? t.a.mip ?? 0, t.a.slice);
    const na = { ...t.a, ...a };
    const nb = { ...t.b, ...b };
    if (b.index !== undefined && b.index !== t.b.index) Object.assign(nb, openSide(b.index, b.mip ?? null, 0));
    return run({ a: na, b: nb, pair: null });
  }

  /** A and B change places (B's mip becomes A's; B then matches it). */
  function swap() {
    const t = store.state.compare;
    const r = store.state.compareResult;
    if (!t || t.pair !== null) return Promise.resolve(null);
    const bMip = r ? r.plan.b_mip : t.b.mip ?? 0;
    return run({ a: { ...t.b, mip: bMip }, b: { ...t.a, mip: null }, pair: null });
  }

  function close() {
    seq++;
    actions.compareOpen(null);
  }

  /**
   * Opens an OLD and a NEW set of files in the worker, lists their pairs, then classifies them in
   * batches (stored bytes only), as a task on the progress bar (services/tasks.js): pairs
   * classified of all. Cancel during the open ends the worker (one wasm call; the next request
   * gets a fresh worker with the open files); during the classification it stops after the batch
   * under way, the pairs classified so far staying listed. Resolves when every pair is classified
   * or the task is cancelled.
   * `keys`: AES keys typed for these builds; the keys that opened containers in the main view are
   * given too. Keys go to the worker only (never the store).
   * @param {File[]} oldFiles @param {File[]} newFiles @param {string} oldName @param {string} newName @param {string[]} [keys]
   */
  async function openBuilds(oldFiles, newFiles, oldName, newName, keys = []) {
    const my = ++buildsSeq;
    const opening = `Opening two builds (${oldFiles.length} + ${newFiles.length} files)…`;
    actions.setStatus(opening);
    let classified = 0;
    let total = 0;
    try {
      await app.tasks.run(opening, 0, async (task) => {
        task.onCancel = () => client.cancel();
        const { pairs, problems, needsKey } = await client.call({
          op: 'builds', old: oldFiles, oldNames: oldFiles.map(buildName), new: newFiles, newNames: newFiles.map(buildName),
          keys: [...(app.keys?.keys() ?? []), ...keys],
        });
        task.onCancel = null;
        task.check();
        if (my !== buildsSeq) return;
        total = pairs.length;
        actions.buildsOpened({ pairs: pairs.map((p) => ({ ...p, changes: [], error: null })), problems, needsKey, classified: 0, oldName, newName });
        for (let from = 0; from < pairs.length; from += BATCH) {
          task.step(from, pairs.length, `Comparing builds: ${from} of ${pairs.length} pairs`);
          const results = await client.call({ op: 'classify', from, count: BATCH });
          if (my !== buildsSeq) return;
          actions.buildsClassified(from, results);
          classified = Math.min(pairs.length, from + BATCH);
          if (probe.buildsDelay) await new Promise((r) => setTimeout(r, probe.buildsDelay)); // test hook
          task.check();
        }
      });
    } catch (e) {
      if (!isCancel(e)) throw e;
      if (my === buildsSeq) actions.setStatus(total ? `Builds comparison cancelled: ${classified} of ${total} pairs classified` : 'Opening the builds cancelled');
      return;
    }
    if (my !== buildsSeq) return;
    const pairs = store.state.builds?.pairs ?? [];
    const n = (/** @type {string} */ st) => pairs.length && store.state.builds ? store.state.builds.pairs.filter((p) => p.status === st).length : 0;
    actions.setStatus(`Builds: ${n('changed')} changed, ${n('added')} added, ${n('removed')} removed, ${n('unchanged')} unchanged`);
  }

  return { open, openFromCurrent, openPair, change, swap, close, run, openBuilds, ramp: () => ramp };
}

/** @typedef {ReturnType<typeof createCompare>} Compare */
