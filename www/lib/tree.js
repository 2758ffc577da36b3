// The texture list as a tree of paths (issue 17): textures inside a container (census `path`) sit
// under the container (census `file`), then under the package's folders (`/Game/...`,
// `Project/Content/...`, as the path says); loose files under the folders of their path in the drop
// (lib/walk.js relPath). Pure data, no DOM: views/textures.js draws the rows in the virtual list.
//
// Cost: `buildTree` is O(n) in textures (one Map lookup of the texture's folder; a folder's
// ancestors are made once, the first time one of its textures is seen) plus sorting each folder's
// subfolders; `treeRows` is O(listed + folders). A chain of folders that hold nothing but one
// subfolder is shown as one row (`Project/Content/Textures`), as file trees in editors do.

/** @typedef {import('../types').TextureRecord} TextureRecord */

/**
 * One folder of the tree. Ids: 0 is the root (never shown); a folder's id is larger than its
 * parent's (ancestors are made first), so counts add up by walking ids downwards.
 * @typedef {object} Folder
 * @property {string} key      stable across rebuilds (collapsed state is kept by key)
 * @property {string} label    as shown: a name, or a compacted chain `a/b/c`
 * @property {'root' | 'folder' | 'container'} kind
 * @property {number} parent   the folder it sits in (for ids and counts)
 * @property {number} shownParent  the folder row it is drawn under (after compaction); -1 if hidden
 * @property {number} depth    indentation level of its row
 * @property {number[]} children   shown subfolders, sorted by label
 * @property {number} direct   textures directly in it
 * @property {number} total    textures under it, all
 */

/**
 * @typedef {object} Tree
 * @property {Folder[]} folders
 * @property {Int32Array} leafFolder  texture index -> the folder it is listed in
 * @property {boolean} hasFolders     false: every texture sits at the root (show a flat list)
 */

/** The part of `p` before its last '/' ('' for none). @param {string} p */
const dirOf = (p) => p.slice(0, Math.max(0, p.lastIndexOf('/')));
/** The last part of `p` ('/Game' keeps its slash). @param {string} p */
function baseOf(p) {
  const i = p.lastIndexOf('/');
  return i <= 0 ? p : p.slice(i + 1);
}
const byLabel = (/** @type {Folder[]} */ f) => (/** @type {number} */ a, /** @type {number} */ b) =>
  (f[a].label < f[b].label ? -1 : f[a].label > f[b].label ? 1 : a - b);

/**
 * The tree of `textures`' paths.
 * @param {readonly TextureRecord[]} textures
 * @returns {Tree}
 */
export function buildTree(textures) {
  /** @type {Folder[]} */
  const folders = [{ key: '', label: '', kind: 'root', parent: -1, shownParent: -1, depth: -1, children: [], direct: 0, total: 0 }];
  // Folders by path: loose ones in `dirs`, a container's in `within.get(file)` ('' = the container).
  /** @type {Map<string, number>} */
  const dirs = new Map([['', 0]]);
  /** @type {Map<string, Map<string, number>>} */
  const within = new Map();
  /** @param {string} key @param {string} label @param {Folder['kind']} kind @param {number} parent */
  const make = (key, label, kind, parent) => {
    const id = folders.length;
    folders.push({ key, label, kind, parent, shownParent: parent, depth: 0, children: [], direct: 0, total: 0 });
    return id;
  };
  /** A loose folder of the drop. @param {string} dir @returns {number} */
  const loose = (dir) => {
    let id = dirs.get(dir);
    if (id === undefined) dirs.set(dir, id = make(`d:${dir}`, baseOf(dir), 'folder', loose(dirOf(dir))));
    return id;
  };
  /** A folder inside container `file`, or ('') the container. @param {string} file @param {string} dir @returns {number} */
  const inside = (file, dir) => {
    let m = within.get(file);
    if (!m) within.set(file, m = new Map());
    let id = m.get(dir);
    if (id === undefined) {
      id = dir ? make(`c:${file}\0${dir}`, baseOf(dir), 'folder', inside(file, dirOf(dir)))
        : make(`c:${file}`, baseOf(file), 'container', loose(dirOf(file)));
      m.set(dir, id);
    }
    return id;
  };

  const leafFolder = new Int32Array(textures.length);
  // The catalog lists a container's textures together, mostly folder by folder: a texture in the
  // same folder as the one before is found without making a key (no string is built).
  let last = { file: '', path: false, dir: '', id: 0 };
  for (let i = 0; i < textures.length; i++) {
    const c = textures[i].census;
    const p = c.path || c.file;
    const cut = Math.max(0, p.lastIndexOf('/'));
    if (!(last.path === !!c.path && cut === last.dir.length && p.startsWith(last.dir) && (!c.path || c.file === last.file))) {
      const dir = p.slice(0, cut);
      const id = c.path ? inside(c.file, dir) : loose(dir);
      last = { file: c.file, path: !!c.path, dir, id };
    }
    leafFolder[i] = last.id;
    folders[last.id].direct++;
  }
  for (let id = folders.length - 1; id > 0; id--) {
    const f = folders[id];
    f.total += f.direct;
    folders[f.parent].total += f.total;
  }
  folders[0].total += folders[0].direct;
  /** @type {number[][]} */
  const sub = folders.map(() => []);
  for (let id = 1; id < folders.length; id++) sub[folders[id].parent].push(id);
  // Compaction: a folder with no textures of its own and one subfolder becomes one row with it
  // (containers stay rows of their own: they name the file the user gave).
  /** @param {number} id @param {number} depth */
  const place = (id, depth) => {
    const f = folders[id];
    for (const c of sub[id]) {
      let d = c;
      let label = folders[c].label;
      while (folders[d].kind === 'folder' && folders[d].direct === 0 && sub[d].length === 1 && folders[sub[d][0]].kind === 'folder') {
        folders[d].shownParent = -1;
        d = sub[d][0];
        label += `/${folders[d].label}`;
      }
      folders[d].label = label;
      folders[d].shownParent = id;
      folders[d].depth = depth;
      f.children.push(d);
      place(d, depth + 1);
    }
    f.children.sort(byLabel(folders));
  };
  place(0, 0);
  return { folders, leafFolder, hasFolders: folders.length > 1 };
}

/**
 * The rows of the tree for the listed textures, in the order they are drawn: a folder row is
 * `-1 - id`, a texture row its index. Folders with no listed texture are left out; a folder's
 * subfolders come first (by label), then its textures in `listed` order (the sort).
 * @param {Tree} tree @param {readonly number[]} listed
 * @param {(folder: Folder) => boolean} isOpen
 * @returns {{ rows: number[], count: Int32Array }} `count`: listed textures under each folder
 */
export function treeRows(tree, listed, isOpen) {
  const { folders, leafFolder } = tree;
  const count = new Int32Array(folders.length);
  for (const i of listed) count[leafFolder[i]]++;
  // The listed textures grouped by folder, keeping their order (a counting sort).
  const start = new Int32Array(folders.length + 1);
  for (let id = 0; id < folders.length; id++) start[id + 1] = start[id] + count[id];
  const fill = start.slice(0, folders.length);
  const byFolder = new Int32Array(listed.length);
  for (const i of listed) byFolder[fill[leafFolder[i]]++] = i;
  for (let id = folders.length - 1; id > 0; id--) count[folders[id].parent] += count[id];
  /** @type {number[]} */
  const rows = [];
  /** @param {number} id */
  const walk = (id) => {
    for (const c of folders[id].children) {
      if (!count[c]) continue;
      rows.push(-1 - c);
      if (isOpen(folders[c])) walk(c);
    }
    for (let k = start[id]; k < start[id + 1]; k++) rows.push(byFolder[k]);
  };
  walk(0);
  return { rows, count };
}

/**
 * The folders shown above texture `index`, nearest first.
 * @param {Tree} tree @param {number} index
 */
export function ancestors(tree, index) {
  const out = [];
  for (let id = tree.leafFolder[index]; id > 0; id = tree.folders[id].shownParent) out.push(id);
  return out;
}

/** The depth of a row's indentation. @param {Tree} tree @param {number} row */
export function rowDepth(tree, row) {
  return row < 0 ? tree.folders[-1 - row].depth : tree.folders[tree.leafFolder[row]].depth + 1;
}
