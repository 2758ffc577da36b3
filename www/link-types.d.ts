// The shapes of share links and of files opened from web servers (?src=): lib/share-hash.js,
// services/sources.js, lib/remote.js and the worker. Re-exported by types.d.ts, so that
// `import('./types')` names them as it names every shape.
import type { Channels, Colour, CompareMode, NormalView, Tonemap } from './types';

/** A view described by a share link (lib/share-hash.js parseShare / formatShare). */
export interface ShareView {
  demo?: string;
  files?: string[];
  fileMeta?: FileMeta[];
  texture?: string;
  /** The texture's package inside its container (census path): a link to a server's container opens it alone. */
  path?: string;
  mip?: number;
  slice?: number;
  channels?: Channels;
  exposure?: number;
  tonemap?: Tonemap;
  colour?: Colour;
  normal?: NormalView;
  flipGreen?: boolean;
  flipY?: boolean;
  badOverlay?: boolean;
  tiles?: boolean;
  cross?: boolean;
  zoom?: number | 'fit';
  center?: [number, number];
  pin?: [number, number];
  /** The compare view: B (by texture name) or a builds' pair, and how they are shown. */
  compare?: ShareCompare;
}

/** The compare view in a share link (lib/share-hash.js cmp, cb, cbm, cbs, cpp, cpn, cm, cw, cd). */
export interface ShareCompare {
  b?: string;
  bMip?: number | null;
  bSlice?: number;
  pairPath?: string;
  pairName?: string;
  mode?: CompareMode;
  swipe?: number;
  diff?: 'max' | 'channels';
}

/** A local file's fingerprint in share links: size and SHA-256 of its first and last MiB. */
export interface FileMeta {
  name: string;
  size: number;
  hash: string;
}

export interface Sources {
  urls: string[];
  rejected: string[];
  done: boolean;
}

/**
 * A file on a web server as services/sources.js hands it to the worker, which reads it by range
 * (lib/remote.js): what the first request learnt (the address after same-origin redirects, the
 * size from Content-Range, the validators to check each later answer against) and the bytes it
 * brought (from offset 0).
 */
export interface RemoteDescriptor {
  remote: true;
  url: string;
  name: string;
  size: number;
  etag: string | null;
  lastModified: string | null;
  head: Uint8Array;
  /** Ranges of it another worker fetched already (lib/pool.js gives them to its workers). */
  kept?: KeptRange[];
}

/** Bytes of a remote file at offset `at`, as lib/remote.js keeps them. */
export interface KeptRange {
  at: number;
  bytes: Uint8Array;
}

/** A file given to the worker: dropped or picked, or on a web server. */
export type OpenFile = File | RemoteDescriptor;

/** What the page read of one ?src= file (services/sources.js; Info shows it). */
export interface RemoteRead {
  url: string;
  /** Where its range requests go (the address after a same-origin redirect). */
  resolved: string;
  name: string;
  /** The file's size (0 when the server did not say). */
  size: number;
  /** Bytes that came over the network for it, and the requests made. */
  bytes: number;
  requests: number;
  /** Why it was read whole instead of by range (null: read by range). */
  whole: string | null;
}

/** What a share link needs before it can be shown (the files to drop, those that differ). */
export interface ShareNeed {
  text: string;
  missing: string[];
  differ: string[];
}
