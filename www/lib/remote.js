// A file on a web server read by byte range, for the decode worker (www/worker.js): the core's
// reads are synchronous (src/web/mod.rs RemoteHandle), and a dedicated worker may make
// synchronous XMLHttpRequests with a Range header and an ArrayBuffer response, so each read the
// core asks for becomes one HTTP range request made here. services/sources.js made the first
// request (the file's size, its validators and its first block); every later answer is checked
// against them, so a file changed on the server is an error naming its URL, never mixed bytes.
//
// Reads the core makes one after the other (a mip's compressed blocks, a table read in pieces)
// are merged: a read starting where the last one ended fetches more than asked for, doubling up
// to MAX_SPAN (256 KiB), and keeps the rest for the reads that follow. Fetched ranges are kept (up to KEEP
// bytes a file) so that the same read made again is not fetched again: opening a container in
// the core module and again in the full one (www/worker.js switchToFull) reads its index twice.

/** @typedef {import('../types').RemoteDescriptor} RemoteDescriptor */

/** The largest read fetched ahead of sequential reads (bytes). */
const MAX_SPAN = 256 << 10;
/** A read starting at most this far past the last one's end follows it. */
const GAP = 4096;
/** Fetched bytes kept per file, most recent first out last; a range above a quarter of it is not kept. */
const KEEP = 16 << 20;
/** Attempts per range: a timed-out request or a 5xx, 408 or 429 answer is retried twice, after 0.25 s then 1 s. */
const ATTEMPTS = 3;
const BACKOFF_MS = [250, 1000];
/** A request taking longer than this fails (and is retried). */
const TIMEOUT_MS = 60000;

/**
 * `bytes a-b/total` as numbers (total -1 when `*`), or null when it is not that form.
 * @param {string | null} v
 */
export function parseContentRange(v) {
  const m = /^bytes (\d{1,16})-(\d{1,16})\/(\d{1,16}|\*)$/.exec((v ?? '').trim());
  if (!m) return null;
  return { start: +m[1], end: +m[2], total: m[3] === '*' ? -1 : +m[3] };
}

/** Waits `ms` on this thread (a synchronous read cannot yield; a retry's pause is short). @param {number} ms */
function pause(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* the read this pause sits in blocks the same way */ }
}

/** The part of a server's answer that tells what it was, for an error. @param {XMLHttpRequest} x */
const answered = (x) => `${x.status}${x.statusText ? ` ${x.statusText}` : ''}`;

export class RemoteFile {
  /**
   * @param {RemoteDescriptor} d what services/sources.js learnt from the first request
   * @param {(url: string, bytes: number) => void} onFetch hears each request's bytes
   */
  constructor(d, onFetch) {
    this.url = d.url;
    this.name = d.name;
    this.size = d.size;
    this.etag = d.etag;
    this.lastModified = d.lastModified;
    this.onFetch = onFetch;
    /** Ranges fetched, least recently used first. @type {import('../types').KeptRange[]} */
    // Ranges another worker fetched of the same file (lib/pool.js); its head is `head` already.
    this.kept = [{ at: 0, bytes: d.head }, ...(d.kept ?? []).filter((k) => k.at !== 0)];
    this.keptBytes = this.kept.reduce((n, k) => n + k.bytes.length, 0);
    /** Where the last read ended, and how far the last merged fetch reached ahead. */
    this.lastEnd = -1;
    this.span = 0;
    /** Why a request of this file failed without an answer (its later reads fail the same way). */
    this.broken = '';
  }

  /**
   * Exactly `length` bytes at `offset` (the core checked the range against `size`); throws an
   * Error naming the URL and what went wrong.
   * @param {number} offset @param {number} length
   */
  read(offset, length) {
    if (this.broken) throw new Error(this.broken);
    const end = offset + length;
    const i = this.kept.findIndex((k) => offset >= k.at && end <= k.at + k.bytes.length);
    if (i >= 0) {
      const k = this.kept[i];
      this.kept.push(...this.kept.splice(i, 1));
      this.lastEnd = end;
      return k.bytes.slice(offset - k.at, end - k.at);
    }
    // A read that follows the last one (IoStore pads compressed blocks to 16 bytes, so "follows"
    // allows a small gap): fetch ahead, twice as far each time.
    const follows = offset >= this.lastEnd && offset - this.lastEnd <= GAP;
    this.span = follows ? Math.min(MAX_SPAN, Math.max(2 * this.span, 2 * length)) : 0;
    const stop = Math.min(this.size, Math.max(end, offset + this.span));
    // A read starting inside a kept range fetches only what that range lacks.
    const under = this.kept.find((k) => offset >= k.at && offset < k.at + k.bytes.length);
    const from = under ? under.at + under.bytes.length : offset;
    const fetched = this.fetch(from, stop);
    this.lastEnd = end;
    this.keep(from, fetched);
    if (!under) return stop > end ? fetched.slice(0, length) : fetched;
    const out = new Uint8Array(length);
    out.set(under.bytes.subarray(offset - under.at));
    out.set(fetched.subarray(0, end - from), from - offset);
    return out;
  }

  /** Keeps `bytes` (at `at`) for later reads, within KEEP. @param {number} at @param {Uint8Array} bytes */
  keep(at, bytes) {
    if (bytes.length > KEEP / 4) return;
    this.kept.push({ at, bytes });
    this.keptBytes += bytes.length;
    while (this.keptBytes > KEEP) this.keptBytes -= /** @type {{ bytes: Uint8Array }} */ (this.kept.shift()).bytes.length;
  }

  /**
   * Bytes [start, stop) from the server, retried on a failed request, a timeout or a 5xx, 408 or
   * 429 answer.
   * @param {number} start @param {number} stop
   */
  fetch(start, stop) {
    let why = '';
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (attempt) pause(BACKOFF_MS[attempt - 1]);
      const x = new XMLHttpRequest();
      x.open('GET', this.url, false);
      x.responseType = 'arraybuffer';
      x.timeout = TIMEOUT_MS;
      x.setRequestHeader('Range', `bytes=${start}-${stop - 1}`);
      try {
        x.send();
      } catch (e) {
        const err = /** @type {Error} */ (e);
        why = `the request failed (${err.message || 'network error'})`;
        if (err.name === 'TimeoutError') continue;
        // A request refused before any answer (the server unreachable, CORS, or this worker being
        // ended by Cancel, which Chromium lets run on for up to 2 s while each request fails so):
        // not retried, and this file's later reads fail at once instead of asking again.
        this.broken = `${this.url}: bytes ${start}-${stop - 1} could not be read: ${why}.`;
        throw new Error(this.broken, { cause: e });
      }
      const got = x.response instanceof ArrayBuffer ? x.response.byteLength : 0;
      this.onFetch(this.url, got);
      if (x.status >= 500 || x.status === 408 || x.status === 429 || x.status === 0) {
        why = x.status ? `the server answered ${answered(x)}` : 'the request failed';
        continue;
      }
      return this.check(x, start, stop);
    }
    throw new Error(`${this.url}: bytes ${start}-${stop - 1} could not be read after ${ATTEMPTS} tries: ${why}.`);
  }

  /**
   * The body of `x`, the answer to bytes [start, stop), once it is that range of this file.
   * @param {XMLHttpRequest} x @param {number} start @param {number} stop
   */
  check(x, start, stop) {
    const at = `${this.url}: bytes ${start}-${stop - 1}`;
    if (x.responseURL && x.responseURL !== this.url) {
      throw new Error(`${at}: the server redirected the request to ${x.responseURL}; a link must name the file's own address.`);
    }
    if (x.status === 416) throw new Error(`${at}: the server answered 416 (range not satisfiable) though the file had ${this.size} bytes; was it replaced?`);
    if (x.status === 200) throw new Error(`${at}: the server answered 200 with the whole file where it had answered ranges before; reload the page to read it whole.`);
    if (x.status !== 206) throw new Error(`${at}: the server answered ${answered(x)}.`);
    const type = x.getResponseHeader('content-type') ?? '';
    if (/^text\/html\b/i.test(type)) throw new Error(`${at}: the server answered with a web page (${type}), not the file's bytes.`);
    const etag = x.getResponseHeader('etag');
    const modified = x.getResponseHeader('last-modified');
    const cr = parseContentRange(x.getResponseHeader('content-range'));
    const changed = (this.etag && etag !== null && etag !== this.etag) ? `its ETag was ${this.etag}, now ${etag}`
      : (this.lastModified && modified !== null && modified !== this.lastModified) ? `its Last-Modified was ${this.lastModified}, now ${modified}`
        : (cr && cr.total >= 0 && cr.total !== this.size) ? `it had ${this.size} bytes, now ${cr.total}` : '';
    if (changed) throw new Error(`${this.url} changed on the server while it was being read (${changed}); reload the page to read the new file.`);
    if (!cr || cr.start !== start || cr.end !== stop - 1) {
      throw new Error(`${at}: the server answered with the wrong range (Content-Range: ${x.getResponseHeader('content-range') ?? 'none'}).`);
    }
    const body = new Uint8Array(/** @type {ArrayBuffer} */ (x.response));
    if (body.length !== stop - start) {
      throw new Error(`${at}: the server sent ${body.length} bytes where its Content-Range promised ${stop - start}.`);
    }
    return body;
  }
}
