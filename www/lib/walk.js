// Opening: folders dropped on the page are walked (DataTransferItem.webkitGetAsEntry, the File and
// Directory Entries API) so every file inside opens together and siblings pair up.

const MAX_FILES = 20000; // a drop bigger than this is almost surely a mistake (a whole drive)
const MAX_DEPTH = 32;

/**
 * Each walked File's path relative to the dropped item it was found under (a dropped folder's
 * files: `sub/x.dds`; a dropped file: its name), as `texscope export` names paths relative to the
 * PATH given; exports mirror it (services/export.js). Files not from a folder drop have none.
 * @type {WeakMap<File, string>}
 */
export const relPath = new WeakMap();

/**
 * The path `file` goes by in the catalog and in exports: its path inside the dropped folder
 * (relPath), or inside the folder picked with the Folder… button (`webkitRelativePath` less the
 * picked folder's own name), else its name.
 * @param {File} file
 */
export function pathOf(file) {
  const walked = relPath.get(file);
  if (walked) return walked;
  const picked = file.webkitRelativePath?.split('/').slice(1).join('/');
  return picked || file.name;
}

/**
 * What the walk needs of a FileSystemEntry (tests pass look-alikes).
 * @typedef {{ isFile: boolean, isDirectory: boolean, name?: string, file?: (ok: (f: File) => void, fail: (e: Error) => void) => void,
 *   createReader?: () => { readEntries: (ok: (batch: EntryLike[]) => void, fail: (e: Error) => void) => void } }} EntryLike
 */

/**
 * A walk's progress and its cancel: `listed` counts the file entries listed so far, `step` hears
 * (files found, listed) now and then, an aborted `signal` stops the walk (an AbortError).
 * @typedef {{ listed: number, step?: (found: number, listed: number) => void, signal?: AbortSignal }} WalkWatch
 */

/** How often (in files) a walk tells its progress: the bar moves without an action per file. */
const STEP_EVERY = 50;

/** @param {{ readEntries: (ok: (batch: EntryLike[]) => void, fail: (e: Error) => void) => void }} reader @returns {Promise<EntryLike[]>} */
const readBatch = (reader) => new Promise((res, rej) => reader.readEntries(res, rej));
/** @param {EntryLike} entry @returns {Promise<File>} */
const fileOf = (entry) => new Promise((res, rej) => /** @type {NonNullable<EntryLike['file']>} */ (entry.file)(res, rej));

/**
 * Every File under `entries` (FileSystemEntry-like objects: isFile/isDirectory, file(),
 * createReader().readEntries()). Directories are read until readEntries returns an empty batch
 * (it returns at most 100 at a time in Chromium). Throws past MAX_FILES or MAX_DEPTH. `prefix` is
 * the path of the folder being read inside the dropped one ('' at the top), for relPath. `watch`
 * hears the progress and may cancel (WalkWatch).
 * @param {Iterable<EntryLike | null>} entries @param {number} [depth] @param {File[]} [out]
 * @param {string} [prefix] @param {WalkWatch} [watch]
 * @returns {Promise<File[]>}
 */
export async function walkEntries(entries, depth = 0, out = [], prefix = '', watch = { listed: 0 }) {
  if (depth > MAX_DEPTH) throw new Error(`the dropped folders nest deeper than ${MAX_DEPTH} levels`);
  const list = Array.from(entries);
  watch.listed += list.filter((e) => e?.isFile).length;
  watch.step?.(out.length, watch.listed);
  for (const entry of list) {
    if (!entry) continue;
    if (watch.signal?.aborted) throw new DOMException('cancelled', 'AbortError');
    if (entry.isFile) {
      if (out.length >= MAX_FILES) throw new Error(`the drop holds more than ${MAX_FILES} files: drop a smaller folder`);
      const file = await fileOf(entry);
      relPath.set(file, prefix + (entry.name || file.name));
      out.push(file);
      if (out.length % STEP_EVERY === 0) watch.step?.(out.length, watch.listed);
    } else if (entry.isDirectory) {
      // A dropped folder's own name is not part of its files' paths; a folder inside it is.
      const inner = depth === 0 ? '' : `${prefix}${entry.name ? `${entry.name}/` : ''}`;
      const reader = /** @type {NonNullable<EntryLike['createReader']>} */ (entry.createReader)();
      for (let batch = await readBatch(reader); batch.length; batch = await readBatch(reader)) {
        await walkEntries(batch, depth + 1, out, inner, watch);
      }
    }
  }
  return out;
}

/**
 * The files of a drop: folders walked when the browser gives entries, else the plain file list.
 * @param {DataTransfer | null} dataTransfer @param {WalkWatch} [watch]
 */
export async function droppedFiles(dataTransfer, watch) {
  const items = Array.from(dataTransfer?.items ?? []).filter((i) => i.kind === 'file');
  const entries = items.map((i) => /** @type {EntryLike | null} */ (/** @type {unknown} */ (i.webkitGetAsEntry?.() ?? null)));
  if (entries.length && entries.every(Boolean) && entries.some((e) => e?.isDirectory)) return walkEntries(entries, 0, [], '', watch);
  return Array.from(dataTransfer?.files ?? []);
}
