// A file server on 127.0.0.1 (another port than the page's, so another origin) for the ?src=
// tests and benchmark: it answers HTTP Range requests as RFC 9110 §14 says (206, Content-Range,
// one range per request), lets other origins read it (CORS, with Content-Range and ETag exposed),
// and counts the requests and body bytes it sent per path. The first path segment picks how it
// behaves, to drive the page through every kind of server:
//   /r/       ranges, ETag and Last-Modified (a well-behaved server)
//   /headless/ as /r/, but HEAD answers 405 (the page never needs HEAD)
//   /norange/  ignores Range: 200 with the whole body and its Content-Length
//   /nolength/ ignores Range: 200 with the whole body, chunked (no Content-Length)
//   /noexpose/ ranges, but CORS does not expose Content-Range (the page cannot learn the size)
//   /wrongrange/ from the second request on, Content-Range names other bytes than those sent
//   /short/    from the second request on, a body shorter than its Content-Range promises
//   /r416/     416 to every range
//   /html/     200 with an HTML page (a server's "not found" page served as 200)
//   /redirect/ 302 to the same path under /r/ on `elsewhere` (another origin the link does not name)
//   /changing/ from the second request on, another ETag and Last-Modified (the file was replaced)
//   /flaky/    every other request answers 503 (the page retries)
//   /slow/     as /r/, but from the second request on each answer waits 1.5 s (to cancel one)
//   /nostore/  as /r/, with Cache-Control: no-store (the browser's cache keeps no answer for a
//              second worker asking the same range)
import { createServer } from 'node:http';
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/**
 * Serves `files` (path under a mode -> a file on disk, read by range in place, or a Buffer).
 * Returns { origin, port, stats: Map(path -> {requests, bytes, ranges}), reset(), close() };
 * `elsewhere` (an origin) is where /redirect/ points; `delay` (ms) holds every range answer back,
 * as a distant server's round trip would (the benchmark's --delay).
 */
export async function rangeServer(files, { elsewhere = '', delay = 0 } = {}) {
  const stats = new Map();
  const count = (path, bytes, range) => {
    const s = stats.get(path) ?? { requests: 0, bytes: 0, ranges: [] };
    s.requests++;
    s.bytes += bytes;
    if (range) s.ranges.push(range);
    stats.set(path, s);
  };
  const cors = { 'access-control-allow-origin': '*' };
  const expose = { 'access-control-expose-headers': 'Content-Range, ETag, Last-Modified, Content-Length' };
  const srv = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const [, mode, ...rest] = url.pathname.split('/');
    const name = rest.join('/');
    if (req.method === 'OPTIONS') {
      count(url.pathname, 0, 'OPTIONS');
      res.writeHead(204, { ...cors, 'access-control-allow-headers': 'range', 'access-control-max-age': '600' }).end();
      return;
    }
    const file = files[name];
    if (file === undefined) { res.writeHead(404, cors).end(); return; }
    const size = Buffer.isBuffer(file) ? file.length : statSync(file).size;
    const read = (start, end) => {
      if (Buffer.isBuffer(file)) return file.subarray(start, end + 1);
      const b = Buffer.alloc(end + 1 - start);
      const fd = openSync(file, 'r');
      try { readSync(fd, b, 0, b.length, start); } finally { closeSync(fd); }
      return b;
    };
    // This request's number among the path's requests other than CORS preflights.
    const n = (stats.get(url.pathname)?.ranges.filter((r) => r !== 'OPTIONS').length ?? 0) + 1;
    const later = n > 1;
    const etag = mode === 'changing' && later ? '"v2"' : '"v1"';
    const modified = mode === 'changing' && later ? 'Tue, 08 Dec 2026 10:00:00 GMT' : 'Mon, 07 Dec 2026 10:00:00 GMT';
    const base = { ...cors, ...(mode === 'noexpose' ? {} : expose), 'content-type': 'application/octet-stream', etag, 'last-modified': modified, 'accept-ranges': 'bytes' };
    if (mode === 'nostore') base['cache-control'] = 'no-store';
    if (req.method === 'HEAD') {
      count(url.pathname, 0, 'HEAD');
      if (mode === 'headless') res.writeHead(405, cors).end();
      else res.writeHead(200, { ...base, 'content-length': size }).end();
      return;
    }
    if (mode === 'redirect') {
      count(url.pathname, 0, 'redirect');
      res.writeHead(302, { ...cors, location: `${elsewhere}/r/${name}` }).end();
      return;
    }
    if (mode === 'flaky' && n % 2 === 1) {
      count(url.pathname, 0, '503');
      res.writeHead(503, cors).end();
      return;
    }
    if (mode === 'html') {
      const page = Buffer.from('<!doctype html><title>Not found</title><p>Nothing here.</p>');
      count(url.pathname, page.length, 'html');
      res.writeHead(200, { ...cors, 'content-type': 'text/html; charset=utf-8', 'content-length': page.length }).end(page);
      return;
    }
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const whole = () => {
      const body = read(0, size - 1);
      count(url.pathname, body.length, 'whole');
      if (mode === 'nolength') {
        res.writeHead(200, { ...base });
        // Several writes: Node sends them chunked, without a Content-Length.
        for (let at = 0; at < body.length; at += 65536) res.write(body.subarray(at, at + 65536));
        res.end();
      } else res.writeHead(200, { ...base, 'content-length': body.length }).end(body);
    };
    if (!m || mode === 'norange' || mode === 'nolength') { whole(); return; }
    const start = +m[1];
    const end = Math.min(size - 1, m[2] === '' ? size - 1 : +m[2]);
    if (mode === 'r416' || start >= size) {
      count(url.pathname, 0, `416 ${start}-${end}`);
      res.writeHead(416, { ...base, 'content-range': `bytes */${size}` }).end();
      return;
    }
    let body = read(start, end);
    let range = `bytes ${start}-${end}/${size}`;
    if (mode === 'wrongrange' && later) range = `bytes ${start + 16}-${end + 16}/${size}`;
    if (mode === 'short' && later) body = body.subarray(0, body.length >> 1);
    count(url.pathname, body.length, `${start}-${end}`);
    const answer = () => { if (!res.destroyed) res.writeHead(206, { ...base, 'content-range': range, 'content-length': body.length }).end(body); };
    if (mode === 'slow' && later) setTimeout(answer, 1500);
    else if (delay) setTimeout(answer, delay);
    else answer();
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const port = srv.address().port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    stats,
    reset: () => stats.clear(),
    close: () => new Promise((r) => { srv.closeAllConnections?.(); srv.close(r); }),
  };
}

/** Requests and body bytes sent for the paths starting with `prefix` (OPTIONS counted apart). */
export function sent(server, prefix = '/') {
  let requests = 0;
  let bytes = 0;
  let preflights = 0;
  for (const [path, s] of server.stats) {
    if (!path.startsWith(prefix)) continue;
    const opts = s.ranges.filter((r) => r === 'OPTIONS').length;
    preflights += opts;
    requests += s.requests - opts;
    bytes += s.bytes;
  }
  return { requests, bytes, preflights };
}
