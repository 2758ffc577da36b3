// A static server for the built page (dist/) on 127.0.0.1 and a random port, for the browser tests.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.json': 'application/json',
};

/** Extra files to serve (path -> bytes), e.g. for open-by-URL tests; set before the request. */
export const routes = new Map();
/**
 * Paths whose transfer breaks off, as when the network drops: the full length is announced, half
 * the body is sent and the connection is closed.
 */
export const cuts = new Set();

export async function serve(root) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (routes.has(path)) {
      const body = routes.get(path);
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
      return;
    }
    const file = normalize(join(root, path === '/' ? 'index.html' : path));
    if (!file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      if (cuts.has(path)) {
        res.writeHead(200, { 'content-length': body.length });
        res.write(body.subarray(0, body.length >> 1), () => res.destroy());
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) };
}
