// Opening: folders dropped on the page are walked (DataTransferItem.webkitGetAsEntry, the File and
// Directory Entries API) so every file inside opens together and siblings pair up.

const MAX_FILES = 20000; // a drop bigger than this is almost surely a mistake (a whole drive)
const MAX_DEPTH = 32;

/**
 * What the walk needs of a FileSystemEntry (tests pass look-alikes).
 * @typedef {{ isFile: boolean, isDirectory: boolean, name?: string, fullPath?: string, file?: (ok: (f: File) => void, fail: (e: Error) => void) => void,
 *   createReader?: () => { readEntries: (ok: (batch: EntryLike[]) => void, fail: (e: Error) => void) => void } }} EntryLike
 */

/** @param {{ readEntries: (ok: (batch: EntryLike[]) => void, fail: (e: Error) => void) => void }} reader @returns {Promise<EntryLike[]>} */
const readBatch = (reader) => new Promise((res, rej) => reader.readEntries(res, rej));
/** @param {EntryLike} entry @returns {Promise<File>} */
const fileOf = (entry) => new Promise((res, rej) => /** @type {NonNullable<EntryLike['file']>} */ (entry.file)(res, rej));

/**
 * Every File under `entries` (FileSystemEntry-like objects: isFile/isDirectory, file(),
 * createReader().readEntries()). Directories are read until readEntries returns an empty batch
 * (it returns at most 100 at a time in Chromium). Throws past MAX_FILES or MAX_DEPTH. With
 * `paths`, each file's path in the drop (`entry.fullPath`, "/folder/sub/name") is pushed there too.
 * @param {Iterable<EntryLike | null>} entries @param {number} [depth] @param {File[]} [out]
 * @param {string[] | null} [paths]
 * @returns {Promise<File[]>}
 */
export async function walkEntries(entries, depth = 0, out = [], paths = null) {
  if (depth > MAX_DEPTH) throw new Error(`the dropped folders nest deeper than ${MAX_DEPTH} levels`);
  for (const entry of entries) {
    if (!entry) continue;
    if (entry.isFile) {
      if (out.length >= MAX_FILES) throw new Error(`the drop holds more than ${MAX_FILES} files: drop a smaller folder`);
      out.push(await fileOf(entry));
      paths?.push(entry.fullPath ?? entry.name ?? '');
    } else if (entry.isDirectory) {
      const reader = /** @type {NonNullable<EntryLike['createReader']>} */ (entry.createReader)();
      for (let batch = await readBatch(reader); batch.length; batch = await readBatch(reader)) {
        await walkEntries(batch, depth + 1, out, paths);
      }
    }
  }
  return out;
}

/** The files of a drop: folders walked when the browser gives entries, else the plain file list. @param {DataTransfer | null} dataTransfer */
export async function droppedFiles(dataTransfer) {
  const items = Array.from(dataTransfer?.items ?? []).filter((i) => i.kind === 'file');
  const entries = items.map((i) => /** @type {EntryLike | null} */ (/** @type {unknown} */ (i.webkitGetAsEntry?.() ?? null)));
  if (entries.length && entries.every(Boolean) && entries.some((e) => e?.isDirectory)) return walkEntries(entries);
  return Array.from(dataTransfer?.files ?? []);
}
