// The shapes the page's modules share: what the worker sends (src/web/mod.rs serialises them), the
// store's state (www/store.js) and the app object the modules are wired through (www/main.js).
// Checked by `tsc --noEmit` (tsconfig.json, checkJs) with the JSDoc types of the .js files.

// The compare view's shapes live in compare-types.d.ts; re-exported for `import('./types')`.
export * from './compare-types';
// Share links and remote files: link-types.d.ts.
export * from './link-types';
import type { CompareMode, CompareTarget, CompareResult, BuildPair, Classified, Builds, BuildsFilter } from './compare-types';
import type { KeptRange, OpenFile, RemoteRead, ShareNeed, ShareView, Sources } from './link-types';

/** One texture's census record (model.rs `Texture::census`, the CLI contract of issue 2). */
export interface Census {
  file: string;
  engine: string;
  name: string;
  class: string;
  kind: string;
  width: number;
  height: number;
  authored?: [number, number] | null;
  depth: number;
  slices: number;
  mips: number;
  format: string;
  native_format: string | number | null;
  srgb?: boolean | null;
  virtual: boolean;
  mips_present?: number;
  error: string | null;
  /** The package's path inside its container (pak / IoStore); null for loose files. */
  path?: string | null;
}

/** One mip of a texture record (web/mod.rs `MipInfo`). */
export interface MipRecord {
  width: number;
  height: number;
  depth: number;
  /** Images the viewer can pick at this mip (slices, or depth slices of a volume). */
  surfaces: number;
  present: boolean;
  location_note: string;
  /** Opened files holding this mip's bytes. */
  files: string[];
  /** Files holding bytes of this mip that were not opened. */
  missing: string[];
}

export type Precision = 'unorm8' | 'unorm16' | 'float';

/** A texture of the catalog as the worker lists it (web/mod.rs `TextureInfo`). */
export interface TextureRecord {
  index?: number;
  census: Census;
  color_space?: 'srgb' | 'linear' | 'unknown';
  normal_map?: 'rg' | 'dxt5nm' | 'rgb' | 'ra' | null;
  precision?: Precision;
  /** Block footprint and bytes of the stored format: [w, h, bytes] ([1, 1, n] for plain). */
  block?: [number, number, number];
  gpu_bytes?: number;
  bottom_first?: boolean;
  metadata?: [string, string][];
  notes?: string[];
  mips: MipRecord[];
  /** The asset's editor thumbnail (an uncooked Unreal package's), by Catalog::thumbnails index. */
  thumbnail?: number | null;
  /** An editor package's asset that is not a texture (material, mesh ...): shown by its thumbnail. */
  asset?: boolean;
}

/** A file that opened no texture, with the reason. */
export interface Problem {
  file?: string;
  /** The entry inside the container `file`, for a package found in one. */
  path?: string | null;
  engine?: string;
  error: string;
}

export type Pixels = Uint8Array | Uint16Array | Float32Array;

/** RGBA texels, rows top first (what lib/display.js draws). */
export interface Surface {
  width: number;
  height: number;
  precision: Precision;
  data: Pixels;
}

/** A decoded surface from the worker (web/mod.rs `image_object` + `decode`). */
export interface DecodedImage extends Surface {
  /** The stored bytes from the same read (decode with `stored`). */
  stored?: Uint8Array | null;
  /** [read, decode, copy out] in ms. */
  stages?: Float64Array | number[];
  /** performance.timeOrigin + now() when the worker posted the reply. */
  posted?: number;
  missing?: [number, number][] | null;
}

/** What the viewport shows: a decoded surface, a cube cross, a progressive preview or a streamed VT mip. */
export interface ViewImage {
  width: number;
  height: number;
  precision: Precision;
  /** The texels (RGBA); null for a preview or a streamed mip. */
  data: Pixels | null;
  stored?: Uint8Array | null;
  stages?: Float64Array | number[];
  posted?: number;
  /** A smaller mip painted in this image's box until the full one arrives. */
  preview?: DecodedImage;
  previewMip?: number;
  /** A virtual-texture mip drawn from tiles on screen (www/lib/tiles.js). */
  streamed?: boolean;
  layout?: VtLayout | null;
  /** A cube's six faces as an unfolded cross (lib/display.js composeCross): the face size. */
  cross?: { face: number; faceHeight: number };
}

/** One cell of a VT tile grid (unreal/vt.rs `VtTile`). */
export interface VtTile {
  x: number;
  y: number;
  morton: number;
  tile_index: number | null;
  chunk: number;
  offset: number;
  length: number;
  present: boolean;
}

/** The tile grid of one VT mip and layer (web/mod.rs `Session::vt_grid`). */
export interface VtGrid {
  tile_size: number;
  tile_border: number;
  width_tiles: number;
  height_tiles: number;
  chunk: number;
  chunk_files: string[];
  chunk_missing: string[];
  fallback: [number, number, number, number];
  tiles: VtTile[];
  /** Blocks across and down: more than one is a UDIM texture. */
  width_in_blocks: number;
  height_in_blocks: number;
  /** A UDIM texture's blocks, laid out by the page (services/selection.js, lib/udim.js). */
  blocks?: VtBlock[];
}

/** One block of a UDIM virtual texture (lib/udim.js `layoutBlocks`, model::tiled `TileBlock`). */
export interface VtBlock {
  x: number;
  y: number;
  /** The UV tile: 1001 + x + 10 y. */
  udim: number;
  /** [x, y, w, h] in mip-0 pixels. */
  pixels: [number, number, number, number];
  /** Tiles of mip 0 in the block, and how many hold data (0: an empty UV tile). */
  tiles: number;
  tiles_present: number;
}

/** The tiling of a virtual texture (web/mod.rs `Session::vt_layout`). */
export interface VtLayout {
  tile_size: number;
  tile_border: number;
  layers: number;
  mips: { width: number; height: number; width_tiles: number; height_tiles: number }[];
}

/** A histogram of a surface (lib/display.js `histogram`). */
export interface Histogram {
  /** 'log2': float images, one bin per stop from 2^lo; 'linear': 32 equal bins over [0, 1]. */
  kind: 'linear' | 'log2';
  lo: number;
  bins: number[];
  /** Float values <= 2^-16 (and negatives). */
  zero: number;
  /** NaN / Inf texels. */
  bad: number;
  min: number;
  max: number;
}

/** A grid thumbnail: at most 96 px, 8-bit RGBA (lib/thumbs.js `thumbnail`). */
export interface Thumb {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}
/** A thumbnail, or why it could not be made. */
export type ThumbEntry = Thumb | { error: string };

export interface ProfileInfo {
  name: string;
  games: string;
  default: boolean;
}

/** A file of a demo, as the worker fetches it. */
export interface DemoFile {
  name: string;
  data: Uint8Array;
}

/** Catalog replies: every texture and problem of the files open so far. */
export interface CatalogReply {
  textures: TextureRecord[];
  problems: Problem[];
  /** Dropped containers that no AES key given so far opens (the full module's Session.needsKey). */
  needsKey?: string[];
  /** Whether the open read only the container packages a link names (Session.narrowed). */
  narrowed?: boolean;
}

/** What the AES key bar says (views/keys.js); never holds the key. */
export interface KeyNote {
  text: string;
  error: boolean;
  /** The worker is trying the key. */
  busy?: boolean;
}

/** What the page has open, as a fresh worker must be told it (worker-client.js, lib/pool.js). */
export interface OpenedFiles {
  files: OpenFile[];
  paths?: string[];
  profile?: string;
  unityVersion?: string;
  /** The console platform the user chose (undefined: as the files say). */
  platform?: string;
  /** The AES keys that opened a container (services/keys.js), given before the files. */
  keys?: string[];
  /** The container package a share link names: only it is opened (src/lib.rs OpenOptions::only). */
  only?: string;
}

/** A request to www/worker.js and the value it answers with. */
export interface WorkerCalls {
  /** `paths`: each file's path in its folder drop (lib/walk.js pathOf), NUL-joined for Session.add. `keys`: AES keys to add first (a restarted or pool worker). */
  /** `slow`: a test hook (probe.openDelay), ms the worker holds each step of the open. */
  add: { req: { files: OpenFile[]; paths?: string[]; profile?: string; unityVersion?: string; platform?: string; keys?: string[]; only?: string; slow?: number }; res: CatalogReply };
  /** Opens only the container package `only` names ("" = every package): every file is reopened. */
  only: { req: { only: string; slow?: number }; res: CatalogReply };
  /** An AES key (or key file's text): every file is reopened with it (services/keys.js). */
  /** These four reopen every file; `slow` as for `add` (the reopening's steps are posted as an add's). */
  aesKey: { req: { key: string; slow?: number }; res: CatalogReply };
  profile: { req: { profile: string; slow?: number }; res: CatalogReply };
  unityVersion: { req: { version: string; slow?: number }; res: CatalogReply };
  /** The console platform for files that do not say theirs ("" = as they say). */
  platform: { req: { platform: string; slow?: number }; res: CatalogReply };
  profiles: { req: object; res: ProfileInfo[] };
  readStats: { req: object; res: number[] };
  /** The ranges of each remote file this worker has kept, by URL (lib/pool.js seeds its workers). */
  remoteKept: { req: object; res: [string, KeptRange[]][] };
  panic: { req: object; res: null };
  decode: { req: { texture: number; mip: number; slice: number; stored?: boolean }; res: DecodedImage };
  /** With `thumbnail`, that editor thumbnail (Catalog::thumbnails) instead of mip `mip`; `max`: the longer side (default THUMB_MAX). */
  thumb: { req: { texture: number; mip: number; thumbnail?: number; max?: number }; res: Thumb };
  exportDds: { req: { texture: number }; res: Uint8Array };
  surfaceBytes: { req: { texture: number; mip: number; slice: number }; res: Uint8Array };
  vtLayout: { req: { texture: number }; res: VtLayout | null };
  tiles: {
    req: { texture: number; mip: number; layer: number; x: number; y: number; w: number; h: number };
    res: DecodedImage & { x: number; y: number };
  };
  vtGrid: { req: { texture: number; mip: number; layer: number }; res: VtGrid | null };
  demo: { req: { demo: string }; res: DemoFile[] };
  compare: {
    req: { a: number; aMip: number; aSlice: number; b: number; bMip: number | null; bSlice: number };
    res: CompareResult;
  };
  builds: { req: { old: File[]; oldNames: string[]; new: File[]; newNames: string[]; keys: string[] }; res: { pairs: BuildPair[]; problems: { old: Problem[]; new: Problem[] }; needsKey: { old: string[]; new: string[] } } };
  classify: { req: { from: number; count: number }; res: Classified[] };
  comparePair: { req: { pair: number; mip: number; slice: number }; res: CompareResult };
  diffRamp: { req: object; res: Uint8Array };
}
export type Op = keyof WorkerCalls;
export type WorkerRequest<K extends Op = Op> = { op: K } & WorkerCalls[K]['req'];
/** What www/worker.js receives: any request, with the id its reply carries. */
export type WorkerMessage = { [K in Op]: { op: K; id: number } & WorkerCalls[K]['req'] }[Op];
/** The worker's reply to request `id`. */
export interface WorkerReply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
  /** The wasm instance trapped: the worker is unusable. */
  fatal?: boolean;
  /** Not the reply yet: a step of the request still running, [done, total, stage]. */
  progress?: [number, number, number];
  /** Not a reply: bytes and requests made for remote files since the last such post, by URL. */
  fetched?: [string, [number, number]][];
}

export type Channels = { r: boolean; g: boolean; b: boolean; a: boolean };
export type Tonemap = 'clamp' | 'reinhard' | 'aces';
export type Colour = 'srgb' | 'linear' | 'gamma';
export type NormalView = 'off' | 'rg' | 'ag' | 'ra';

/** The display settings lib/display.js and lib/gpu.js draw with. */
export interface DisplaySettings {
  exposure: number;
  tonemap: Tonemap;
  colour: Colour;
  normal: NormalView;
  flipGreen: boolean;
  flipY: boolean;
  badOverlay: boolean;
  channels: Channels;
}

export interface BadCounts {
  nan: number;
  inf: number;
  negative: number;
}

/** The selection: texture index, mip and slice (plus the texture's file and name, to find it again). */
export interface Selection {
  index: number;
  mip: number;
  slice: number;
  file: string;
  name: string;
}

/** What is on screen: the selection the current image belongs to. */
export interface Shown {
  file: string;
  texture: string;
  index: number;
  mip: number;
  slice: number;
  format: string;
}

export interface Filters {
  name: string;
  engine: string;
  format: string;
  minSize: number;
  sort: '' | 'name' | 'size' | 'memory';
}

export type Phase = 'empty' | 'loading' | 'ready' | 'error';
export type Background = 'checker' | 'black' | 'white' | 'grey' | 'custom';
/** A panel of narrow screens opened on demand: the texture list, the info panel, the phone's menu. */
export type Drawer = 'list' | 'info' | 'menu';

/** The page's state (www/store.js): one object, changed only by the actions of www/actions.js. */
export interface State {
  // -- the catalog
  /** Every file given to the page so far (a restarted worker reopens them). */
  files: OpenFile[];
  /** The Frostbite format profile (undefined: the core's default). */
  profile: string | undefined;
  /** The Unity version for files that record none (undefined: as the files say). */
  unityVersion: string | undefined;
  /** The console platform the user chose (undefined: as the files say). */
  platform: string | undefined;
  /** The container package a share link names, opened alone (undefined: every package). */
  only: string | undefined;
  /** Whether the open read only that package (the worker's CatalogReply.narrowed). */
  narrowed: boolean;
  textures: TextureRecord[];
  problems: Problem[];
  filters: Filters;
  /** Texture indices in list order (after filter and sort). */
  listed: number[];
  filterError: string;
  gridMode: boolean;
  /** The demo the open files came from (share links name it), or null. */
  demo: string | null;
  /** A share link's view waiting for its files. */
  restore: ShareView | null;
  /** The ?src= URLs being or having been opened. */
  sources: Sources | null;
  /** What was read of each ?src= file so far, in link order (empty: none). */
  remote: RemoteRead[];
  /** Dropped containers waiting for an AES key (services/keys.js), and what the key bar says. */
  needsKey: string[];
  keyNote: KeyNote | null;

  // -- the selection and what is on screen
  current: Selection | null;
  shown: Shown | null;
  image: ViewImage | null;
  /** The tile grid of the current VT mip and layer, when the grid overlay is on. */
  grid: VtGrid | null;
  /** The stored blocks of the current surface (the inspector's block mode). */
  blocks: Uint8Array | null;
  hist: Histogram | null;
  bad: BadCounts;
  /** The caption under the view: texture, mip, slice and format. */
  caption: string;

  // -- view settings
  zoom: number;
  fit: boolean;
  /** The texel at the viewport's centre. */
  center: [number, number];
  exposure: number;
  tonemap: Tonemap;
  colour: Colour;
  /** The user chose the colour space (else it follows each texture). */
  colourSet: boolean;
  normal: NormalView;
  flipGreen: boolean;
  flipY: boolean;
  badOverlay: boolean;
  channels: Channels;
  /** Cubes: the six faces as an unfolded cross. */
  cross: boolean;
  /** Virtual textures: the tile-grid overlay. */
  tiles: boolean;
  background: Background;
  backgroundColour: string;
  pin: [number, number] | null;
  hover: [number, number] | null;

  // -- the GPU path
  /** Draw from the stored blocks on the GPU; null: decided on first use. */
  gpuOn: boolean | null;
  /** The current surface as uploaded to the GPU (lib/gpu.js), or null: the CPU path. */
  gpuSurface: GpuSurface | null;
  gpuInfo: string;

  // -- the page around the view
  phase: Phase;
  error: string;
  status: string;
  notices: string[];
  /** The header's progress bar: done of total (0: not known yet), Cancel shown when cancellable. */
  progress: { done: number; total: number; text: string; cancellable: boolean } | null;
  shareNeed: ShareNeed | null;
  srcNote: string | null;
  help: boolean;
  drawer: Drawer | null;

  // -- the compare view
  /** What is compared, or null: the compare view is closed. */
  compare: CompareTarget | null;
  /** The worker's comparison of `compare` (null while it decodes). */
  compareResult: CompareResult | null;
  compareError: string;
  compareMode: CompareMode;
  /** The swipe line, as a share of the stage's width (A left of it, B right). */
  compareSwipe: number;
  /** The difference view: the largest channel through the colour ramp, or each channel. */
  compareDiff: 'max' | 'channels';
  /** Zoom, centre and fit of the compare view, locked for A and B. */
  compareView: { zoom: number; center: [number, number]; fit: boolean };
  compareHover: [number, number] | null;
  comparePin: [number, number] | null;
  /** Flicker: B is the one shown. */
  compareFlickerB: boolean;
  /** Two builds opened for comparing, or null. */
  builds: Builds | null;
  buildsFilter: BuildsFilter;
  /** Pair indices in list order (after the filter). */
  buildsListed: number[];
  /** What the sidebar shows: the open files' textures or the builds' pairs. */
  sidebarTab: 'textures' | 'builds';
}

/** A surface uploaded to the GPU (lib/gpu.js `GpuView.upload`). */
export type GpuSurface = import('./lib/gpu.js').Surface;

/**
 * The page's modules, wired in www/main.js: each view and service gets this object and reaches the
 * others through it (at run time, not at creation: creation order is subscription order).
 */
export interface App {
  store: import('./store.js').Store;
  actions: import('./actions.js').Actions;
  client: import('./worker-client.js').WorkerClient;
  pool: import('./lib/pool.js').WorkerPool;
  gpuPath: import('./services/gpu-path.js').GpuPath;
  viewport: import('./views/viewport.js').Viewport;
  inspector: import('./views/inspector.js').Inspector;
  udim: import('./views/udim.js').Udim;
  info: ReturnType<typeof import('./views/info.js').createInfo>;
  textures: import('./views/textures.js').Textures;
  toolbar: import('./views/toolbar.js').Toolbar;
  selection: import('./services/selection.js').Selection;
  opener: import('./services/open.js').Opener;
  share: import('./services/share.js').Share;
  exports: import('./services/export.js').Exports;
  tasks: import('./services/tasks.js').Tasks;
  demos: import('./services/demos.js').Demos;
  sources: import('./services/sources.js').Sources;
  compare: import('./services/compare.js').Compare;
  compareView: import('./views/compare.js').CompareView;
  builds: import('./views/builds.js').BuildsView;
  keys: import('./services/keys.js').Keys;
  offline: import('./services/offline.js').Offline;
}

declare global {
  interface Window {
    /** The test contract (www/testapi.js). */
    texscope: ReturnType<typeof import('./testapi.js').createTestApi>;
    // The bench page (www/bench.js, scripts/bench-browser.mjs).
    benchPrepare?: (formats: string[]) => void;
    benchMeasure?: (format: string, runs: number) => unknown;
    benchAes?: (mib: number, runs: number) => unknown[];
    benchFormats?: string[];
    benchResults?: unknown[];
    benchError?: string;
  }
}
