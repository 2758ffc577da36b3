// The page's side of the decode worker (www/worker.js): requests as promises, and a fresh worker
// after a crash. All parsing and decoding happen in the worker; this thread only paints.

/** @typedef {import('./types').WorkerCalls} WorkerCalls */
/** @typedef {import('./types').Op} Op */
/** @typedef {import('./types').OpenedFiles} OpenedFiles */
/**
 * What a long request tells while it runs (www/worker.js): done of total, and for an open (`add`)
 * or a reopen (`profile`, `unityVersion`, `platform`, `aesKey`) the stage (0: files whose first
 * bytes were read, 1: engine passes, 2-5: inside the Unreal pass, a container's indexes,
 * packages and texture packages, then the loose files).
 * @typedef {(done: number, total: number, stage: number) => void} Progress
 */

export class WorkerClient {
  /** @type {Worker | null} */
  #worker = null;
  #nextId = 1;
  /** @type {Map<number, { resolve: (v: unknown) => void, reject: (e: Error) => void, onProgress?: Progress }>} */
  #pending = new Map();
  /** @type {() => OpenedFiles} */
  #source;
  /** Settles when a fresh worker has reopened the files; every request waits for it. */
  #reopened = Promise.resolve();
  /**
   * Hears the bytes and requests the worker made for remote files since its last post, as
   * [url, [bytes, requests]] pairs (services/sources.js counts them).
   * @type {((fetched: [string, [number, number]][]) => void) | null}
   */
  onFetched = null;

  /**
   * `source()` gives what the worker has open (every file so far, the Frostbite profile, the
   * Unity version and the AES keys that opened a container): a worker started after a crash
   * reopens it before its first request.
   * @param {() => OpenedFiles} source
   */
  constructor(source) {
    this.#source = source;
  }

  #start() {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.#worker = worker;
    worker.onmessage = (ev) => {
      const { id, ok, value, error, fatal, progress, fetched } = /** @type {import('./types').WorkerReply} */ (ev.data);
      if (fetched) { this.onFetched?.(fetched); return; }
      const p = this.#pending.get(id);
      if (!p) return;
      // A step of a request still running (the worker posts it from inside the wasm call).
      if (progress) { p.onProgress?.(progress[0], progress[1], progress[2]); return; }
      this.#pending.delete(id);
      if (ok) p.resolve(value);
      else p.reject(new Error(error));
      if (fatal) {
        // The wasm instance is dead: fail what else was waiting on it, then start a fresh worker
        // with the same files (kept by the store) so the textures stay usable.
        worker.terminate();
        this.#worker = null;
        this.#failAll(error ?? 'the decoder stopped');
        if (this.#source().files.length) this.call({ op: 'profiles' }).catch(() => {});
      }
    };
    worker.onerror = (ev) => {
      this.#failAll(ev.message || 'the decoder failed to start');
      worker.terminate();
      this.#worker = null;
    };
  }

  /** @param {string} message @param {Error} [error] the error to reject with (default: an Error of `message`) */
  #failAll(message, error) {
    for (const p of this.#pending.values()) p.reject(error ?? new Error(message));
    this.#pending.clear();
  }

  /**
   * Stops whatever the worker is doing (a long open runs inside one wasm call, which no message
   * can interrupt): ends the worker, rejects what waited on it with an AbortError, and lets the
   * next request start a fresh worker, which first reopens what `source()` says is open - the
   * files from before the cancelled request, since the store adds a drop's files only once its
   * catalog came back.
   */
  cancel() {
    if (!this.#worker) return;
    this.#worker.terminate();
    this.#worker = null;
    this.#reopened = Promise.resolve();
    this.#failAll('cancelled', new DOMException('cancelled', 'AbortError'));
  }

  /**
   * Sends `req` and resolves with the worker's answer (rejects with its error). `onProgress`
   * hears the steps of a long request (`add`: the engines' passes over the files).
   * @template {Op} K
   * @param {{ op: K } & WorkerCalls[K]['req']} req
   * @param {Progress} [onProgress]
   * @returns {Promise<WorkerCalls[K]['res']>}
   */
  call(req, onProgress) {
    const fresh = !this.#worker;
    if (fresh) this.#start();
    /** @param {object} r @param {Progress} [heard] @returns {Promise<WorkerCalls[K]['res']>} */
    const send = (r, heard) => new Promise((resolve, reject) => {
      const id = this.#nextId++;
      // The worker answers request `op` with WorkerCalls[op]['res'] (www/worker.js).
      this.#pending.set(id, { resolve: (v) => resolve(/** @type {WorkerCalls[K]['res']} */ (v)), reject, onProgress: heard });
      /** @type {Worker} */ (this.#worker).postMessage({ ...r, id });
    });
    // A fresh worker after a crash has lost the files: reopen them first. Requests made meanwhile
    // wait too: the reopening may await the full module (AES keys, containers), and the worker
    // would answer them from an empty catalog.
    const { files, paths, profile, unityVersion, platform, keys, only } = this.#source();
    if (fresh && files.length) {
      const reopen = send({ op: 'add', files, paths, profile, unityVersion, platform, keys, only });
      this.#reopened = reopen.then(() => undefined, () => undefined);
      return reopen.then(() => send(req, onProgress));
    }
    return this.#reopened.then(() => send(req, onProgress));
  }
}
