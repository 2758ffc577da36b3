// Long work on the page's progress bar with Cancel (issue 34): a drop's folder walk and open (a
// container's index and packages are read in that open), the reopen after a reading option or an
// AES key changed, the ZIP export, the Builds comparison. Each runs as a
// task: it moves the bar with step(done, total, text) and stops when Cancel aborts its signal;
// what its cancel must also stop (the worker, ended by WorkerClient.cancel while a wasm call
// runs) is its `onCancel`, which it may change as it moves from one phase to the next.

/**
 * A task under way.
 * @typedef {{
 *   step: (done: number, total: number, text: string) => void,
 *   signal: AbortSignal,
 *   check: () => void,
 *   onCancel: (() => void) | null,
 * }} Task
 */

/** The error a cancelled task ends with (the DOM's name for it, as fetch and pickers use). */
export const cancelled = () => new DOMException('cancelled', 'AbortError');

/** Whether `e` is a cancel, not a failure. @param {unknown} e */
export const isCancel = (e) => /** @type {Error | null} */ (e)?.name === 'AbortError';

/** @param {import('../types').App} app */
export function createTasks(app) {
  const { actions } = app;
  /** The task the bar shows; Cancel stops it. @type {{ task: Task, abort: AbortController } | null} */
  let current = null;

  /**
   * Runs `work(task)` with the progress bar at 0 of `total`, saying `text`; the bar goes when it
   * ends, however it ends. Rejects with an AbortError when cancelled.
   * @template T
   * @param {string} text @param {number} total @param {(task: Task) => Promise<T>} work
   * @returns {Promise<T>}
   */
  async function run(text, total, work) {
    const abort = new AbortController();
    /** @type {Task} */
    const task = {
      step: (done, all, words) => { if (current?.task === task) actions.progress(done, all, words, true); },
      signal: abort.signal,
      check: () => { if (abort.signal.aborted) throw cancelled(); },
      onCancel: null,
    };
    const mine = { task, abort };
    current = mine;
    actions.progress(0, total, text, true);
    try {
      return await work(task);
    } finally {
      if (current === mine) {
        current = null;
        actions.endProgress();
      }
    }
  }

  /** Cancels the task the bar shows (its Cancel button). */
  function cancel() {
    const c = current;
    if (!c) return;
    c.abort.abort();
    c.task.onCancel?.();
  }

  return { run, cancel, busy: () => current !== null };
}

/** @typedef {ReturnType<typeof createTasks>} Tasks */
