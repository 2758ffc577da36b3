//! Opening .pak and IoStore containers together: which entries are texture packages, the mount
//! order of patches, and the file list both hand to the package reader. What their index readers
//! share (strings, method tables, mount paths, the AES key choice) is in `index.rs`.

use super::{iostore, pak, ContainerEntry, PackageSources};
use crate::io::{read_range, Error, Limits, Result, SourceRef};
use crate::model::Engine;
use crate::{base_name, FileProblem, OpenContext, OpenStage};
use std::rc::Rc;

/// What a package's header says it is.
#[derive(Debug)]
pub enum Class {
    /// One of its exports is a texture class.
    Texture,
    /// None is.
    Other,
    /// The header could not be read (the package reader will say why).
    Unknown(Error),
}

/// Tells a texture package from any other by its export classes, reading only the header: the
/// legacy summary, names and import/export maps (its .uasset), or the zen export map (the first
/// block or two of its chunk).
pub fn classify(
    main: &dyn crate::io::Source,
    forced: Option<&super::package::ForcedVersion>,
    limits: &Limits,
) -> Class {
    let head = match crate::io::read_up_to(main, 0, 64, limits) {
        Ok(h) => h,
        Err(e) => return Class::Unknown(e),
    };
    let u32_at = |o: usize| {
        head.get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if u32_at(0) == Some(super::package::PACKAGE_TAG) {
        return match super::package::parse_legacy(main, limits, forced) {
            Ok(p) => {
                if p.exports
                    .iter()
                    .any(|e| e.class.as_deref().is_some_and(super::is_texture_class))
                {
                    Class::Texture
                } else {
                    Class::Other
                }
            }
            Err(e) => Class::Unknown(e),
        };
    }
    // Zen: UE4.26/4.27 headers have NameMapNamesOffset (at 24) = 64, their end; export map and
    // export bundles offsets at 44/48. UE5: export map and export bundle entries at 32/36.
    let (map_at, end_at) = if u32_at(24) == Some(64) {
        (44, 48)
    } else {
        (32, 36)
    };
    let (Some(map), Some(end)) = (u32_at(map_at), u32_at(end_at)) else {
        return Class::Unknown(Error::truncated(0, 64, head.len() as u64));
    };
    if end < map || (end - map) % 72 != 0 || end as u64 > main.len() {
        return Class::Unknown(Error::malformed(format!(
            "zen export map from {map} to {end} does not fit the package"
        )));
    }
    let exports = match read_range(main, map as u64, (end - map) as u64, limits) {
        Ok(b) => b,
        Err(e) => return Class::Unknown(e),
    };
    // FExportMapEntry (72 bytes): serial offset, size, name, outer, class (at 32), ...
    let hit = exports.chunks_exact(72).any(|e| {
        let class = u64::from_le_bytes(e[32..40].try_into().unwrap_or_default());
        super::script::class_name(class).is_some()
    });
    if hit {
        Class::Texture
    } else {
        Class::Other
    }
}

/// An opened container.
pub enum Opened {
    Pak(pak::Pak),
    Toc(iostore::Toc),
}

impl Opened {
    /// (path, entry index, deletion record) of every file it names.
    fn files(&self) -> Vec<(&str, usize, bool)> {
        match self {
            Opened::Pak(p) => p
                .entries
                .iter()
                .enumerate()
                .map(|(i, e)| (e.path.as_str(), i, e.deleted))
                .collect(),
            Opened::Toc(t) => t
                .files
                .iter()
                .enumerate()
                .map(|(i, f)| (f.path.as_str(), i, false))
                .collect(),
        }
    }

    /// Where entry `i`'s bytes start in the container (a pak's offset in the file, a TOC chunk's
    /// in the decoded stream): the order to visit entries in for forward reads.
    fn offset(&self, i: usize) -> u64 {
        match self {
            Opened::Pak(p) => p.entries.get(i).map_or(0, |e| e.offset),
            Opened::Toc(t) => t
                .files
                .get(i)
                .and_then(|f| t.chunks.get(f.chunk as usize))
                .map_or(0, |c| c.0),
        }
    }

    /// Entry `i` as a source named `file/path`.
    fn source(&self, file: &str, i: usize) -> Result<SourceRef> {
        match self {
            Opened::Pak(p) => p.source(i),
            Opened::Toc(t) => {
                let f = &t.files[i];
                t.chunk_source(f.chunk, format!("{file}/{}", f.path))
            }
        }
    }
}

/// Whether `only` (`OpenOptions::only`) names the package at container path `path`: the path
/// itself (`Game/Far/T_Far.uasset`, as `Texture::path` and census `path` give it), the path
/// without its extension, or the file name without its extension (`T_Far`: a cooked texture's
/// object is named as its package, which is what a share link's texture name holds), all
/// ASCII-case-insensitively as the engine's paths are. A path `only` matches at its end too, so
/// a path written with the engine's `../../../` or with the project folder dropped still finds
/// the package.
pub fn names_package(only: &str, path: &str) -> bool {
    let only = only
        .trim()
        .trim_start_matches("../")
        .trim_start_matches('/');
    if only.is_empty() {
        return false;
    }
    let stem = &path[..path.len() - ext_lower(path).len()];
    let ends = |whole: &str| {
        whole.len() >= only.len()
            && whole.is_char_boundary(whole.len() - only.len())
            && whole[whole.len() - only.len()..].eq_ignore_ascii_case(only)
            && (whole.len() == only.len() || whole.as_bytes()[whole.len() - only.len() - 1] == b'/')
    };
    ends(path) || ends(stem)
}

/// The engine's mount priority of a container file (FPakPlatformFile: a name ending `_P` is a
/// patch, ranked above the base by 100 x (its chunk version + 1), the version being the number
/// before `_P`, as in `Game_0_P.pak`). Higher wins when two containers hold the same path.
pub fn pak_order(file: &str) -> u64 {
    let stem = crate::file_stem(file);
    let Some(rest) = stem.strip_suffix("_P").or_else(|| stem.strip_suffix("_p")) else {
        return 0;
    };
    let digits: String = rest
        .rsplit('_')
        .next()
        .filter(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
        .unwrap_or("")
        .to_string();
    let version: u64 = digits.parse().unwrap_or(0);
    version.saturating_add(1).saturating_mul(100)
}

/// One container of the drop.
struct Mounted {
    /// The container file as the user gave it.
    file: String,
    /// Its folder: patches override the containers of their own folder only (a drop of several
    /// games or variants keeps them apart).
    folder: String,
    order: u64,
    opened: Rc<Opened>,
}

/// The files all containers of the drop make visible, patches applied: for each folder and path
/// the entry of the highest-ordered container (ties: the later one), deletion records removing
/// it. Sorted by (folder, path).
fn mount_table(list: &[Mounted]) -> Vec<(usize, usize, String)> {
    let mut all: Vec<(&str, &str, u64, usize, usize, bool)> = Vec::new();
    for (ci, m) in list.iter().enumerate() {
        for (path, ei, deleted) in m.opened.files() {
            all.push((m.folder.as_str(), path, m.order, ci, ei, deleted));
        }
    }
    // Stable: among equal orders the later container stays last.
    all.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    let mut out: Vec<(usize, usize, String)> = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 && all[j + 1].1 == all[i].1 {
            j += 1;
        }
        let (_, path, _, ci, ei, deleted) = all[j];
        if !deleted {
            out.push((ci, ei, path.to_string()));
        }
        i = j + 1;
    }
    out
}

/// The visible files of a set of containers with patches applied, as (container file, path,
/// entry index) — what a drop of `files` would list. For tests and tools.
pub fn visible_files(containers: Vec<(String, Rc<Opened>)>) -> Vec<(String, String, usize)> {
    let list: Vec<Mounted> = containers
        .into_iter()
        .map(|(file, opened)| Mounted {
            folder: folder_of(&file),
            order: pak_order(&file),
            file,
            opened,
        })
        .collect();
    mount_table(&list)
        .into_iter()
        .map(|(ci, ei, path)| (list[ci].file.clone(), path, ei))
        .collect()
}

fn folder_of(file: &str) -> String {
    file[..file.len() - base_name(file).len()].to_string()
}

fn ext_lower(name: &str) -> String {
    let b = base_name(name);
    b.rfind('.')
        .map(|i| b[i..].to_ascii_lowercase())
        .unwrap_or_default()
}

fn problem(file: &str, e: &Error) -> FileProblem {
    FileProblem::new(file, Some(Engine::Unreal), &e.clone().in_file(file))
}

/// Claims the drop's containers (.pak, .utoc with its .ucas partitions), opens them with the
/// given AES keys, applies patches, and hands every texture package to the package reader
/// through [`super::open_contained`]. Other packages are skipped after a header read.
pub(crate) fn open(ctx: &mut OpenContext, forced: Option<&super::package::ForcedVersion>) {
    let mut tocs = Vec::new();
    let mut paks = Vec::new();
    let mut cas = Vec::new();
    for i in ctx.unclaimed() {
        let name = ctx.sources[i].name().to_string();
        let ext = ext_lower(&name);
        let head = ctx.head(i, 16).unwrap_or_default();
        if iostore::sniff(&head) || ext == ".utoc" {
            ctx.claimed[i] = true;
            tocs.push(i);
        } else if ext == ".ucas" {
            ctx.claimed[i] = true;
            cas.push(i);
        } else if ext == ".pak" && pak::sniff(ctx.sources[i].as_ref(), &ctx.limits) {
            // Only .pak names get their tail read: other games' .pak files stay for others.
            ctx.claimed[i] = true;
            paks.push(i);
        }
    }
    let mut list = Vec::new();
    let mut used_cas = vec![false; cas.len()];
    // Indexes read, of the containers claimed (progress: a drop of a game's dozens of containers,
    // each index of tens of thousands of entries, would otherwise sit on one engine pass).
    let indexes = tocs.len() + paks.len();
    let mut indexed = 0;
    for &i in &tocs {
        indexed += 1;
        let src = ctx.sources[i].clone();
        let name = src.name().to_string();
        let parts: Vec<(String, SourceRef)> = cas
            .iter()
            .enumerate()
            .filter(|(_, &j)| iostore::is_partition_of(ctx.sources[j].name(), &name))
            .map(|(k, &j)| {
                used_cas[k] = true;
                (ctx.sources[j].name().to_string(), ctx.sources[j].clone())
            })
            .collect();
        let opened = ctx.memo(&src, "unreal: iostore", |ctx| {
            let find = |p: &str| parts.iter().find(|(n, _)| n == p).map(|(_, s)| s.clone());
            iostore::open(&src, find, &ctx.aes_keys, &ctx.limits).map(|t| Rc::new(Opened::Toc(t)))
        });
        ctx.step(OpenStage::Containers, indexed, indexes);
        match opened {
            Ok(o) => {
                if let Opened::Toc(t) = o.as_ref() {
                    if t.files.is_empty() && !t.header.indexed() {
                        // global.utoc holds script objects and no files; it needs no listing.
                        let global = t.header.container_id == u64::MAX
                            || base_name(&name).eq_ignore_ascii_case("global.utoc");
                        if !global {
                            ctx.problems.push(problem(
                                &name,
                                &Error::unsupported(
                                    "an IoStore container without a directory index: its chunks have no names to list",
                                ),
                            ));
                        }
                        continue;
                    }
                    // No .ucas at all (a patch container dropped without its data, say): one line
                    // for the container, not one per package it names.
                    if !t.files.is_empty() && t.missing_parts.len() == t.part_count {
                        let e = Error::missing_sibling(
                            &t.missing_parts[0],
                            format_args!(
                                "the data of {} ({} files)",
                                base_name(&name),
                                t.files.len()
                            ),
                        );
                        ctx.problems.push(problem(&name, &e));
                        continue;
                    }
                }
                list.push(Mounted {
                    folder: folder_of(&name),
                    order: pak_order(&name),
                    file: name,
                    opened: o,
                });
            }
            Err(e) => ctx.problems.push(problem(&name, &e)),
        }
    }
    for (k, &j) in cas.iter().enumerate() {
        if !used_cas[k] {
            let name = ctx.sources[j].name().to_string();
            let stem = crate::file_stem(&name);
            let stem = match stem.rfind("_s") {
                Some(p)
                    if stem[p + 2..].bytes().all(|c| c.is_ascii_digit()) && p + 2 < stem.len() =>
                {
                    &stem[..p]
                }
                _ => stem,
            };
            let e = Error::missing_sibling(
                &format!("{stem}.utoc"),
                format_args!("the table of contents of {}", base_name(&name)),
            );
            ctx.problems.push(problem(&name, &e));
        }
    }
    for &i in &paks {
        let src = ctx.sources[i].clone();
        let name = src.name().to_string();
        let opened = ctx.memo(&src, "unreal: pak", |ctx| {
            pak::open(&src, &ctx.aes_keys, &ctx.limits).map(|p| Rc::new(Opened::Pak(p)))
        });
        indexed += 1;
        ctx.step(OpenStage::Containers, indexed, indexes);
        match opened {
            Ok(o) => list.push(Mounted {
                folder: folder_of(&name),
                order: pak_order(&name),
                file: name,
                opened: o,
            }),
            Err(e) => ctx.problems.push(problem(&name, &e)),
        }
    }
    if list.is_empty() {
        return;
    }
    let table = mount_table(&list);
    let mut found = vec![(0usize, 0usize); list.len()];
    let find = |folder: &str, path: &str| {
        table
            .binary_search_by(|(ci, _, p)| {
                (list[*ci].folder.as_str(), p.as_str()).cmp(&(folder, path))
            })
            .ok()
            .map(|k| (table[k].0, table[k].1))
    };
    // Telling a texture package from the others reads each package's first block. The packages
    // are visited in the order their bytes sit in each container (a container's layout is its
    // cook order, not its paths' order), so the reads run forward through the file: a block
    // holding several small packages is decompressed once, and the page's worker, whose every
    // read costs a FileReaderSync call of 64 KiB read-ahead (src/web), reads each block once
    // (100,000 packages in path order: 6.4 GB read, 2 minutes; docs/benchmarks-containers.md).
    // The textures are then opened in path order, so the catalog's order does not change.
    let mut mains: Vec<usize> = (0..table.len())
        .filter(|&k| matches!(ext_lower(&table[k].2).as_str(), ".uasset" | ".umap"))
        .collect();
    // A link to one texture: only the packages it names are read (their names come from the
    // index, already read); none named, every package as usual.
    let narrowed = ctx.only.as_deref().and_then(|only| {
        let named: Vec<usize> = mains
            .iter()
            .copied()
            .filter(|&k| names_package(only, &table[k].2))
            .collect();
        (!named.is_empty()).then_some(named)
    });
    if let Some(named) = narrowed {
        mains = named;
        ctx.narrowed = true;
    }
    mains.sort_by_key(|&k| (table[k].0, list[table[k].0].opened.offset(table[k].1)));
    // Per table row: the package's source when it may hold a texture, or why it has none.
    let mut kept: Vec<Option<Result<SourceRef>>> = (0..table.len()).map(|_| None).collect();
    let packages = mains.len();
    for (looked, k) in mains.into_iter().enumerate() {
        let (ci, ei, _) = &table[k];
        let m = &list[*ci];
        kept[k] = match m.opened.source(&m.file, *ei) {
            Ok(main) => match classify(main.as_ref(), forced, &ctx.limits) {
                Class::Other => None,
                _ => Some(Ok(main)),
            },
            Err(e) => Some(Err(e)),
        };
        ctx.step(OpenStage::Packages, looked + 1, packages);
    }
    let texture_packages = kept.iter().filter(|k| k.is_some()).count();
    let mut read = 0;
    for (k, (ci, _, path)) in table.iter().enumerate() {
        let Some(main) = kept[k].take() else {
            continue;
        };
        // Told as each one starts: its read may fail below and skip the rest of the body.
        read += 1;
        ctx.step(OpenStage::TexturePackages, read, texture_packages);
        let ext = ext_lower(path);
        let m = &list[*ci];
        let main = match main {
            Ok(s) => s,
            Err(e) => {
                ctx.problems.push(problem(&m.file, &e).at_path(path));
                found[*ci].1 += 1;
                continue;
            }
        };
        let stem = &path[..path.len() - ext.len()];
        let mut sibling = |ext: &str| -> Option<usize> {
            let (c, e) = find(&m.folder, &format!("{stem}{ext}"))?;
            let o = &list[c];
            // A sibling that cannot be made is left out; the reader then names it missing.
            o.opened.source(&o.file, e).ok().map(|s| ctx.add_source(s))
        };
        let srcs = PackageSources {
            main: 0,
            uexp: sibling(".uexp"),
            ubulk: sibling(".ubulk"),
            uptnl: sibling(".uptnl"),
            mubulk: sibling(".m.ubulk"),
        };
        let srcs = PackageSources {
            main: ctx.add_source(main),
            ..srcs
        };
        let (t0, p0) = (ctx.textures.len(), ctx.problems.len());
        let file = m.file.clone();
        let entry = ContainerEntry {
            file: file.clone(),
            path: path.clone(),
        };
        match super::open_package(ctx, &srcs, Some(&entry)) {
            Ok(_) => {}
            Err(e) => ctx.problems.push(problem(&file, &e).at_path(path)),
        }
        found[*ci].0 += ctx.textures.len() - t0;
        found[*ci].1 += ctx.problems.len() - p0;
    }
    for (ci, m) in list.iter().enumerate() {
        // A narrowed open says nothing of the containers whose packages it did not look at.
        if found[ci] == (0, 0) && !ctx.narrowed {
            let n = m.opened.files().len();
            let e = Error::not_recognised(format!(
                "an Unreal container with {n} file(s) and no texture package among them"
            ));
            ctx.problems.push(problem(&m.file, &e));
        }
    }
}
