// A pool of decode workers (issue 8): one per core (navigator.hardwareConcurrency, at least 2),
// each running www/worker.js with its own wasm Session over the same File objects as the page's
// main worker. Files are shared, not copied: a File is a handle, and every worker reads only the
// byte ranges it decodes. Jobs wait in one queue and go to whichever worker is idle; a job still
// queued can be cancelled (the tile streamer drops tiles that scrolled out of view).

export const poolSize = () => Math.max(2, Math.min(16, navigator.hardwareConcurrency || 2));

/** @typedef {{ req: import('../types').WorkerRequest, key: string, resolve: (v: unknown) => void, reject: (e: Error) => void }} Job */
/**
 * A worker of the pool: how many of the files it has opened, its job, its requests waiting.
 * @typedef {{ worker: Worker, sent: number, busy: Job | null, pending: Map<number, { resolve: (v: unknown) => void, reject: (e: Error) => void }> }} Slot
 */

export class WorkerPool {
  /**
   * `source()` gives what the page's main worker has open (files, paths, profile, Unity version, AES keys).
   * @param {() => import('../types').OpenedFiles} source @param {number} [size]
   */
  constructor(source, size = poolSize()) {
    this.source = source;
    this.size = size;
    /** @type {Slot[]} */
    this.workers = [];
    /** @type {Job[]} */
    this.queue = [];
    this.nextId = 1;
    /** @type {string | null} */
    this.options = null;
    /** Hears the workers' remote-file requests (as WorkerClient.onFetched). @type {((fetched: [string, [number, number]][]) => void) | null} */
    this.onFetched = null;
    /**
     * The ranges of remote files the page's main worker has fetched (its 'remoteKept'), so that a
     * pool worker's catch-up open of a ?src= container reads its index and package from them
     * instead of asking the server again, once per worker. @type {(() => Promise<[string, import('../types').KeptRange[]][]>) | null}
     */
    this.seed = null;
  }

  /** @returns {Slot} */
  start() {
    const w = new Worker(new URL('../worker.js', import.meta.url), { type: 'module' });
    /** @type {Slot} */
    const slot = { worker: w, sent: 0, busy: null, pending: new Map() };
    w.onmessage = (ev) => {
      const { id, ok, value, error, fatal, progress, fetched } = /** @type {import('../types').WorkerReply} */ (ev.data);
      if (fetched) { this.onFetched?.(fetched); return; }
      const p = slot.pending.get(id);
      // A worker posts an open's progress before its reply (worker.js 'add'); a pool worker's
      // catch-up open shows no bar, so only the reply settles the request.
      if (!p || progress) return;
      slot.pending.delete(id);
      if (ok) p.resolve(value);
      else p.reject(new Error(error));
      if (fatal) this.drop(slot, error ?? 'the decoder stopped');
    };
    w.onerror = (ev) => this.drop(slot, ev.message || 'a pool worker failed to start');
    this.workers.push(slot);
    return slot;
  }

  /** A worker that stopped (panic, failed start): fail what it had and let a fresh one replace it. @param {Slot} slot @param {string} error */
  drop(slot, error) {
    slot.worker.terminate();
    for (const p of slot.pending.values()) p.reject(new Error(error));
    slot.pending.clear();
    this.workers = this.workers.filter((s) => s !== slot);
    this.pump();
  }

  /** @param {Slot} slot @param {object} req @returns {Promise<unknown>} */
  send(slot, req) {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ ...req, id });
    });
  }

  /**
   * Runs `req` (a worker.js request) on an idle worker; `key` names the job for cancel().
   * @template {import('../types').Op} K
   * @param {import('../types').WorkerRequest<K>} req @param {string} key
   * @returns {Promise<import('../types').WorkerCalls[K]['res']>}
   */
  run(req, key) {
    return new Promise((resolve, reject) => {
      // The worker answers request `op` with WorkerCalls[op]['res'] (www/worker.js).
      this.queue.push({ req, key, resolve: (v) => resolve(/** @type {import('../types').WorkerCalls[K]['res']} */ (v)), reject });
      this.pump();
    });
  }

  /** Rejects (with an AbortError) every queued job whose key `drop(key)` says; running jobs finish. @param {(key: string) => boolean} drop */
  cancel(drop) {
    /** @type {Job[]} */
    const keep = [];
    for (const j of this.queue) {
      if (drop(j.key)) j.reject(new DOMException('cancelled', 'AbortError'));
      else keep.push(j);
    }
    this.queue = keep;
  }

  /**
   * `files` with each remote file's kept ranges from the main worker (see `seed`); Files, and
   * every file when there is no seed or it fails, as they are.
   * @param {import('../types').OpenFile[]} files @returns {Promise<import('../types').OpenFile[]>}
   */
  async seeded(files) {
    if (!this.seed || files.every((f) => f instanceof File)) return files;
    const kept = new Map(await this.seed().catch(() => []));
    return files.map((f) => (f instanceof File || !kept.get(f.url)?.length ? f : { ...f, kept: kept.get(f.url) }));
  }

  pump() {
    const { files, paths, profile, unityVersion, platform, only, keys = [] } = this.source();
    // The keys only ever grow (services/keys.js), so their count tells a new one (and the key
    // itself is kept out of this string).
    const options = JSON.stringify([profile ?? null, unityVersion ?? null, platform ?? null, only ?? null, keys.length]);
    const changed = this.options !== null && options !== this.options;
    this.options = options;
    // The files were re-opened with another profile, Unity version, platform, AES key or a link's
    // package widened to every package: start over.
    if (changed) for (const s of [...this.workers]) this.drop(s, 'the files were re-opened');
    while (this.queue.length) {
      let slot = this.workers.find((s) => !s.busy);
      if (!slot && this.workers.length < this.size) slot = this.start();
      if (!slot) return;
      const job = /** @type {Job} */ (this.queue.shift());
      slot.busy = job;
      // The catalog is rebuilt from all files in the same order as the main worker's (Catalog::add
      // re-opens every file together), so texture indices agree.
      const catchUp = slot.sent < files.length
        ? this.seeded(files.slice(slot.sent))
          .then((more) => this.send(slot, { op: 'add', files: more, paths: paths?.slice(slot.sent), profile, unityVersion, platform, only, keys: slot.sent ? [] : keys }))
          .then(() => { slot.sent = files.length; })
        : Promise.resolve();
      catchUp.then(() => this.send(slot, job.req)).then(job.resolve, job.reject).finally(() => {
        slot.busy = null;
        this.pump();
      });
    }
  }
}
