// What the page measures about itself, for tests and performance work (issue 8): the open path's
// stages as performance marks, what was painted when, and the test hooks that slow a step down
// to watch it (texscope.setDecodeDelay, setExportDelay). None of it changes what is shown.

/** @typedef {{ name: string, time: number }} Stage */
/** @typedef {{ mip: number, kind: 'preview' | 'full' | 'streamed' | 'tiles', time: number, tiles?: number }} Paint */

export const probe = {
  /** @type {Stage[]} the last selection's stages (time = performance.now() at the stage's end) */
  stages: [],
  /** @type {Paint[]} what was painted when */
  paints: [],
  /** @type {number | null} performance.now() when files were last given to the page */
  openedAt: null,
  /** @type {number | null} performance.now() when the page began reading its ?src= files */
  sourcesAt: null,
  /** @type {number | null} performance.now() when the last selection began */
  selectedAt: null,
  /** Test hook: ms to hold a full mip back (to see the progressive first paint). */
  decodeDelay: 0,
  /** Test hook: a pause after each texture of a ZIP export (to see the progress bar and cancel). */
  exportDelay: 0,
  /** Test hook: ms the worker holds each engine pass of an open (www/worker.js holdFor). */
  openDelay: 0,
  /** Test hook: a pause after each batch of the Builds classification. */
  buildsDelay: 0,
  /**
   * The most bytes a ?src= file read whole may have (services/sources.js): 2 GiB, or less when
   * a test set `texscopeFetchCap` before the page loaded (it can only lower the cap).
   */
  fetchCap: Math.min(2 ** 31, Number(/** @type {{ texscopeFetchCap?: unknown }} */ (globalThis).texscopeFetchCap) || Infinity),
  /** Opening files keeps the stages the open began for the selection that follows. */
  keepStages: false,

  /** Marks the end of stage `name`. @param {string} name @param {number} [time] */
  stage(name, time = performance.now()) {
    performance.mark(name, { startTime: time });
    this.stages.push({ name, time });
  },

  /** A new list of stages; the last one's marks go (the timeline would otherwise grow per selection). */
  resetStages() {
    for (const s of this.stages) performance.clearMarks(s.name);
    this.stages = [];
  },

  /**
   * The worker's own stages of a decode (read, decode, copy out of wasm, the reply's trip to this
   * thread), added when the reply comes.
   * @template {{ stages?: ArrayLike<number>, posted?: number }} I
   * @param {string} what @param {I} img @returns {I}
   */
  workerStages(what, img) {
    const got = performance.now();
    if (img.stages && img.posted !== undefined) {
      const [read, decode, copy] = Array.from(img.stages);
      const sent = img.posted - performance.timeOrigin;
      this.stage(`${what}: worker start`, sent - copy - decode - read);
      this.stage(`${what}: worker read`, sent - copy - decode);
      this.stage(`${what}: worker decode`, sent - copy);
      this.stage(`${what}: worker copy out`, sent);
      this.stage(`${what}: reply arrived`, got);
    }
    return img;
  },

  /** @param {Paint} p */
  painted(p) {
    this.paints.push(p);
  },
};
