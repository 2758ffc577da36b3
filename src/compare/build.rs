//! Two builds (issue 21): the textures of an OLD and a NEW set of files paired by identity, and
//! each pair classified from its stored bytes (no decode) before any figure is computed.
//!
//! A texture's identity is its [`Key`]: the package path inside its container when it has one (the
//! containers task's `Texture::path`, issue 17), else its file's path relative to the root the
//! user named, plus the texture's name, plus which occurrence of that (path, name) it is in catalog
//! order (a file may hold two textures of one name). docs/compare.md states the rules.

use super::{figures, plan, resample, Figures, Plan};
use crate::io::{read_range, Error, Result};
use crate::model::{Layout, Storage, Texture};
use crate::{Catalog, DecodeOptions};
use serde::Serialize;
use std::collections::BTreeMap;

/// What a texture is paired by. Ordered by path, then name, then occurrence.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Key {
    pub path: String,
    pub name: String,
    /// 0 for the first texture of this (path, name) in catalog order, 1 for the next ...
    pub nth: usize,
}

/// The path half of a texture's key: its package path inside the container when known, else
/// its file's name relative to `root` (the folder or file the user named), with `/` separators
/// and no leading separator. A file not under `root` keeps its whole name.
pub fn key_path(t: &Texture, root: &str) -> String {
    // A package keeps its path whichever container (pak chunk, IoStore partition) holds it in
    // either build; a patch container has already replaced its base's entry at open time.
    if let Some(p) = &t.path {
        return p.clone();
    }
    relative(&t.file, root)
}

/// `file` relative to `root`, `/`-separated.
pub fn relative(file: &str, root: &str) -> String {
    let norm = |s: &str| s.replace('\\', "/");
    let (file, root) = (norm(file), norm(root));
    let root = root.trim_end_matches('/');
    let rest = match file.strip_prefix(root) {
        Some(r) if root.is_empty() || r.is_empty() || r.starts_with('/') => r,
        _ => file.as_str(),
    };
    rest.trim_start_matches('/').to_string()
}

/// The keys of `textures` (in their order), paths relative to `root`.
pub fn keys(textures: &[Texture], root: &str) -> Vec<Key> {
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    textures
        .iter()
        .map(|t| {
            let path = key_path(t, root);
            let n = seen.entry((path.clone(), t.name.clone())).or_insert(0);
            *n += 1;
            Key {
                path,
                name: t.name.clone(),
                nth: *n - 1,
            }
        })
        .collect()
}

/// Items of two sides matched by key, in key order: (key, old, new); one side is `None` for a
/// texture only one build has. A key given twice on one side keeps its first item.
pub fn pair<T, U>(old: Vec<(Key, T)>, new: Vec<(Key, U)>) -> Vec<(Key, Option<T>, Option<U>)> {
    let mut map: BTreeMap<Key, (Option<T>, Option<U>)> = BTreeMap::new();
    for (k, v) in old {
        map.entry(k).or_insert((None, None)).0.get_or_insert(v);
    }
    for (k, v) in new {
        map.entry(k).or_insert((None, None)).1.get_or_insert(v);
    }
    // A texture one side has alone may be the other side's under another root: an editor
    // project's Content/ folder against a cook (a .pak names its packages `Project/Content/...`,
    // a loose cook sits in Saved/Cooked/<platform>/Project/Content/...). Those pair by their
    // Unreal package path, the part from the `Content` folder on (the engine's /Game/ mount).
    let lone_new: BTreeMap<Key, Key> = map
        .iter()
        .filter(|(_, (o, n))| o.is_none() && n.is_some())
        .filter_map(|(k, _)| Some((content_key(k)?, k.clone())))
        .collect();
    let matches: Vec<(Key, Key)> = map
        .iter()
        .filter(|(_, (o, n))| o.is_some() && n.is_none())
        .filter_map(|(k, _)| Some((k.clone(), lone_new.get(&content_key(k)?)?.clone())))
        .collect();
    for (old_key, new_key) in matches {
        if let Some((_, n)) = map.remove(&new_key) {
            if let Some(entry) = map.get_mut(&old_key) {
                entry.1 = n;
            }
        }
    }
    map.into_iter().map(|(k, (o, n))| (k, o, n)).collect()
}

/// The key of an Unreal package by its path from its `Content` folder on, compared ignoring case
/// (`Content/Textures/T_Rock.uasset`), for [`pair`]'s second pass; `None` for other files.
fn content_key(k: &Key) -> Option<Key> {
    let lower = k.path.to_lowercase();
    if !lower.ends_with(".uasset") {
        return None;
    }
    let at = if lower.starts_with("content/") {
        0
    } else {
        lower.rfind("/content/")? + 1
    };
    Some(Key {
        path: lower[at..].to_string(),
        name: k.name.to_lowercase(),
        nth: k.nth,
    })
}

/// What differs between two paired textures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// The pixel format (`PixelFormat`, as the census `format`).
    Format,
    /// The colour space both files state (census `srgb`) differs; a file that states none (a
    /// legacy DDS header) is no change.
    Srgb,
    /// Width, height or depth of mip 0.
    Size,
    /// The number of mips.
    Mips,
    /// The number of slices or the kind (2D, cube, array, volume).
    Slices,
    /// The stored bytes (compared only when format, size, mips and slices agree).
    Data,
}

/// The differences of shape between two textures (everything but the stored bytes).
pub fn shape_changes(a: &Texture, b: &Texture) -> Vec<Change> {
    let mut v = Vec::new();
    if a.format != b.format {
        v.push(Change::Format);
    }
    if let (Some(x), Some(y)) = (a.srgb(), b.srgb()) {
        if x != y {
            v.push(Change::Srgb);
        }
    }
    if (a.width, a.height, a.depth) != (b.width, b.height, b.depth) {
        v.push(Change::Size);
    }
    if a.mips.len() != b.mips.len() {
        v.push(Change::Mips);
    }
    if (a.slices, a.kind) != (b.slices, b.kind) {
        v.push(Change::Slices);
    }
    v
}

/// Every stored range of a texture in a fixed order: each mip's surfaces, the crunch stream, or a
/// virtual texture's chunks, an editor's source payload.
fn stored(t: &Texture) -> Vec<&Storage> {
    match &t.layout {
        Layout::Surfaces => t.mips.iter().flat_map(|m| m.surfaces.iter()).collect(),
        Layout::Crunched { data } => vec![data],
        Layout::Source(s) => vec![&s.data],
        Layout::Virtual(vt) => vt.chunks.iter().map(|c| &c.storage).collect(),
    }
}

/// Bytes compared per read when two stored ranges are held against each other.
const CHUNK: u64 = 1 << 20;

/// Whether texture `ta` of `a` and texture `tb` of `b` store the same bytes in every range
/// (every mip and slice, the crunch stream or the VT chunks), without decoding. The ranges must
/// agree in kind and length; then the bytes are compared in reads of at most [`CHUNK`], ranges
/// that follow each other in one file read together (a .dds's mips are one read), stopping at the
/// first difference. A range that lives in a file not opened on either side is an error naming it
/// (nothing can be said about bytes that were not given), unless the bytes before it differ.
pub fn same_stored(a: &Catalog, ta: usize, b: &Catalog, tb: usize) -> Result<bool> {
    let (x, y) = (texture(a, ta)?, texture(b, tb)?);
    let (rx, ry) = (stored(x), stored(y));
    if rx.len() != ry.len() {
        return Ok(false);
    }
    let mut first_missing = None;
    for (k, (p, q)) in rx.iter().zip(&ry).enumerate() {
        let same_shape = match (p, q) {
            (Storage::Missing { .. }, _) | (_, Storage::Missing { .. }) => {
                first_missing.get_or_insert(k);
                true
            }
            (Storage::Empty, Storage::Empty) => true,
            (Storage::Range { length: lp, .. }, Storage::Range { length: lq, .. }) => lp == lq,
            _ => false,
        };
        if !same_shape {
            return Ok(false);
        }
    }
    let upto = first_missing.unwrap_or(rx.len());
    if !same_runs((a, &runs(&rx[..upto]), x), (b, &runs(&ry[..upto]), y))? {
        return Ok(false);
    }
    match first_missing.map(|k| (rx[k], ry[k])) {
        Some((Storage::Missing { file, .. }, _)) => Err(missing(x, file)),
        Some((_, Storage::Missing { file, .. })) => Err(missing(y, file)),
        _ => Ok(true),
    }
}

/// The byte ranges of `ranges` as runs (source, offset, length), a range that starts where the
/// previous one of the same source ends joined to it.
fn runs(ranges: &[&Storage]) -> Vec<(crate::model::SourceId, u64, u64)> {
    let mut out: Vec<(crate::model::SourceId, u64, u64)> = Vec::new();
    for r in ranges {
        if let Storage::Range {
            source,
            offset,
            length,
        } = r
        {
            match out.last_mut() {
                Some((s, o, l)) if s == source && o.checked_add(*l) == Some(*offset) => {
                    *l += length
                }
                _ => out.push((*source, *offset, *length)),
            }
        }
    }
    out
}

/// Whether two lists of runs hold the same bytes (their total lengths agree: the ranges did),
/// read in pieces that end at either side's run ends or after [`CHUNK`] bytes.
fn same_runs(
    (ca, ra, ta): (&Catalog, &[(crate::model::SourceId, u64, u64)], &Texture),
    (cb, rb, tb): (&Catalog, &[(crate::model::SourceId, u64, u64)], &Texture),
) -> Result<bool> {
    let (mut i, mut j, mut at_a, mut at_b) = (0, 0, 0u64, 0u64);
    while i < ra.len() && j < rb.len() {
        let (sa, oa, la) = ra[i];
        let (sb, ob, lb) = rb[j];
        let n = CHUNK.min(la - at_a).min(lb - at_b);
        let src_a = ca.source(sa).ok_or_else(|| unknown(ta))?;
        let src_b = cb.source(sb).ok_or_else(|| unknown(tb))?;
        let p = read_range(src_a.as_ref(), oa + at_a, n, ca.limits())?;
        let q = read_range(src_b.as_ref(), ob + at_b, n, ca.limits())?;
        if p != q {
            return Ok(false);
        }
        at_a += n;
        at_b += n;
        if at_a == la {
            (i, at_a) = (i + 1, 0);
        }
        if at_b == lb {
            (j, at_b) = (j + 1, 0);
        }
    }
    Ok(i == ra.len() && j == rb.len())
}

fn texture(cat: &Catalog, i: usize) -> Result<&Texture> {
    cat.textures
        .get(i)
        .ok_or_else(|| Error::malformed(format!("no texture number {i}")))
}

fn missing(t: &Texture, file: &str) -> Error {
    Error::missing_sibling(
        file,
        format_args!("stored data of {} (its bytes cannot be compared)", t.name),
    )
    .in_file(&t.file)
}

fn unknown(t: &Texture) -> Error {
    Error::malformed(format!("{} names an unknown source", t.name)).in_file(&t.file)
}

/// What pairing two textures found, before any decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Same shape and the same stored bytes.
    Unchanged,
    /// What differs (never empty).
    Changed(Vec<Change>),
}

/// Classifies a pair from metadata and stored bytes alone. The bytes are compared only when
/// format, size, mips and slices agree (otherwise they cannot be equal as images of one shape).
pub fn classify(a: &Catalog, ta: usize, b: &Catalog, tb: usize) -> Result<Verdict> {
    let mut changes = shape_changes(texture(a, ta)?, texture(b, tb)?);
    let geometry = changes.iter().any(|c| *c != Change::Srgb);
    if !geometry && !same_stored(a, ta, b, tb)? {
        changes.push(Change::Data);
    }
    Ok(if changes.is_empty() {
        Verdict::Unchanged
    } else {
        Verdict::Changed(changes)
    })
}

/// The figures of a changed pair: slice 0 of the mips [`plan`] picks from mip 0 of A, B scaled to
/// A's size when they do not differ by whole mips.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compared {
    pub plan: Plan,
    pub figures: Figures,
}

/// Decodes what [`plan`] picks (slice 0) and computes the figures. `decodes` counts the surfaces
/// decoded (the two-builds benchmark checks that only changed pairs are decoded).
pub fn compare_pair(
    a: &Catalog,
    ta: usize,
    b: &Catalog,
    tb: usize,
    decodes: &mut u64,
) -> Result<Compared> {
    let (x, y) = (texture(a, ta)?, texture(b, tb)?);
    let sizes =
        |t: &Texture| -> Vec<(u32, u32)> { t.mips.iter().map(|m| (m.width, m.height)).collect() };
    let p = plan(&sizes(x), 0, &sizes(y), None).ok_or_else(|| {
        Error::malformed(format!("{} or {} has no mips to compare", x.name, y.name))
    })?;
    *decodes += 1;
    let img_a = a.decode(ta, p.a_mip, 0, DecodeOptions::default())?;
    *decodes += 1;
    let mut img_b = b.decode(tb, p.b_mip, 0, DecodeOptions::default())?;
    if p.scaled {
        img_b = resample(&img_b, img_a.width, img_a.height, a.limits())?;
    }
    Ok(Compared {
        figures: figures(&img_a, &img_b, 0.0)?,
        plan: p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::dds::{write, Desc};
    use crate::io::BytesSource;
    use crate::{open, OpenOptions, PixelFormat};

    fn desc(format: PixelFormat, w: u32, h: u32, mips: u32) -> Desc {
        Desc::plain_2d(format, w, h, mips)
    }

    /// A .dds whose every stored byte of mip m is `fill(m)`.
    fn dds(d: &Desc, fill: impl Fn(u32) -> u8) -> Vec<u8> {
        write(d, |m, _| {
            let (w, h, _) = crate::model::mip_dims(d.width, d.height, 1, m);
            Ok(vec![fill(m); d.format.surface_size(w, h) as usize])
        })
        .unwrap()
    }

    fn catalog(files: Vec<(&str, Vec<u8>)>) -> Catalog {
        let sources = files
            .into_iter()
            .map(|(n, b)| BytesSource::shared(n, b))
            .collect();
        open(sources, &OpenOptions::default())
    }

    #[test]
    fn keys_are_relative_paths_and_names() {
        assert_eq!(relative("old/sub/a.dds", "old"), "sub/a.dds");
        assert_eq!(relative("old/sub/a.dds", "old/"), "sub/a.dds");
        assert_eq!(relative("C:\\b\\old\\x.dds", "C:\\b\\old"), "x.dds");
        // A sibling folder sharing the root's prefix is not under it.
        assert_eq!(relative("older/a.dds", "old"), "older/a.dds");
        // The root may be the file itself.
        assert_eq!(relative("old/a.dds", "old/a.dds"), "");
        let cat = catalog(vec![
            ("old/a.dds", dds(&desc(PixelFormat::RGBA8, 2, 2, 1), |_| 1)),
            (
                "old/s/a.dds",
                dds(&desc(PixelFormat::RGBA8, 2, 2, 1), |_| 1),
            ),
        ]);
        let k = keys(&cat.textures, "old");
        // DDS textures are named after the file stem.
        assert_eq!(
            k.iter()
                .map(|k| (k.path.as_str(), k.name.as_str(), k.nth))
                .collect::<Vec<_>>(),
            [("a.dds", "a", 0), ("s/a.dds", "a", 0)]
        );
    }

    #[test]
    fn unreal_packages_left_alone_pair_by_their_content_path() {
        // Hand-made keys: an editor project (root = the project) against a .pak's package paths.
        let k = |path: &str, name: &str| Key {
            path: path.into(),
            name: name.into(),
            nth: 0,
        };
        let old = vec![
            (k("Content/Tex/T_Rock.uasset", "T_Rock"), 1),
            (k("Content/Tex/T_Gone.uasset", "T_Gone"), 2),
            (k("other/a.dds", "a"), 3),
        ];
        let new = vec![
            (k("MyGame/Content/Tex/T_Rock.uasset", "T_Rock"), 10),
            (k("MyGame/Content/Tex/T_New.uasset", "T_New"), 20),
            (k("b/a.dds", "a"), 30),
        ];
        let got: Vec<_> = pair(old, new)
            .into_iter()
            .map(|(k, o, n)| (k.path, o, n))
            .collect();
        assert_eq!(
            got,
            [
                ("Content/Tex/T_Gone.uasset".to_string(), Some(2), None),
                ("Content/Tex/T_Rock.uasset".to_string(), Some(1), Some(10)),
                (
                    "MyGame/Content/Tex/T_New.uasset".to_string(),
                    None,
                    Some(20)
                ),
                ("b/a.dds".to_string(), None, Some(30)),
                ("other/a.dds".to_string(), Some(3), None),
            ]
        );
    }

    #[test]
    fn pairing_merges_by_key() {
        let k = |p: &str, n: usize| Key {
            path: p.into(),
            name: "t".into(),
            nth: n,
        };
        let got = pair(
            vec![(k("b", 0), 1), (k("a", 0), 2), (k("a", 1), 3)],
            vec![(k("a", 0), 'x'), (k("c", 0), 'y')],
        );
        assert_eq!(
            got,
            vec![
                (k("a", 0), Some(2), Some('x')),
                (k("a", 1), Some(3), None),
                (k("b", 0), Some(1), None),
                (k("c", 0), None, Some('y')),
            ]
        );
    }

    #[test]
    fn classification_from_stored_bytes() {
        let d = desc(PixelFormat::BC1, 16, 16, 3);
        // The same stored bytes under another header (DX10 instead of the FourCC header, which
        // also states the colour space where the legacy one does not) are unchanged: only the
        // stored bytes and the shape count.
        let dx10 = Desc {
            force_dx10: true,
            ..d.clone()
        };
        let old = catalog(vec![
            ("o/same.dds", dds(&d, |m| m as u8)),
            ("o/mip2.dds", dds(&d, |m| m as u8)),
            ("o/fmt.dds", dds(&d, |_| 0)),
            ("o/size.dds", dds(&d, |_| 0)),
        ]);
        let new = catalog(vec![
            ("n/same.dds", dds(&dx10, |m| m as u8)),
            // Only the last mip's bytes differ.
            ("n/mip2.dds", dds(&d, |m| if m == 2 { 9 } else { m as u8 })),
            ("n/fmt.dds", dds(&desc(PixelFormat::BC4, 16, 16, 3), |_| 0)),
            ("n/size.dds", dds(&desc(PixelFormat::BC1, 8, 8, 2), |_| 0)),
        ]);
        let find = |c: &Catalog, n: &str| c.textures.iter().position(|t| t.name == n).unwrap();
        let verdict = |n: &str| classify(&old, find(&old, n), &new, find(&new, n)).unwrap();
        assert_eq!(verdict("same"), Verdict::Unchanged);
        assert_eq!(verdict("mip2"), Verdict::Changed(vec![Change::Data]));
        assert_eq!(verdict("fmt"), Verdict::Changed(vec![Change::Format]));
        assert_eq!(
            verdict("size"),
            Verdict::Changed(vec![Change::Size, Change::Mips])
        );
    }

    #[test]
    fn figures_of_pairs_decode_matching_mips() {
        // RGBA8: every stored byte of mip m is the fill value, so each texel is (v, v, v, v).
        let d = desc(PixelFormat::RGBA8, 8, 8, 4);
        let old = catalog(vec![("o/t.dds", dds(&d, |m| 10 * m as u8))]);
        // NEW drops mip 0 (4x4 first) and keeps the rest: mip-matched, no difference.
        let new = catalog(vec![(
            "n/t.dds",
            dds(&desc(PixelFormat::RGBA8, 4, 4, 3), |m| 10 * (m as u8 + 1)),
        )]);
        let mut decodes = 0;
        let c = compare_pair(&old, 0, &new, 0, &mut decodes).unwrap();
        assert_eq!((c.plan.a_mip, c.plan.b_mip, c.plan.scaled), (1, 0, false));
        assert_eq!((c.figures.width, c.figures.differing_texels), (4, 0));
        assert_eq!(decodes, 2);
        // A 3x3 NEW of value 30: not a whole-mip size; B is scaled to A's 8x8, and every texel
        // differs from A's mip 0 (value 0) by 30 levels in each channel.
        let new = catalog(vec![(
            "n/t.dds",
            dds(&desc(PixelFormat::RGBA8, 3, 3, 1), |_| 30),
        )]);
        let c = compare_pair(&old, 0, &new, 0, &mut decodes).unwrap();
        assert!(c.plan.scaled);
        assert_eq!(c.figures.differing_texels, 64);
        assert_eq!(c.figures.max_abs, 30.0 / 255.0);
        assert_eq!(decodes, 4);
    }

    #[test]
    fn missing_data_is_named_not_guessed() {
        // A .dds cut inside mip 1: its opener marks that mip missing from the file itself.
        let d = desc(PixelFormat::BC1, 16, 16, 2);
        let mut cut = dds(&d, |_| 1);
        cut.truncate(cut.len() - 8);
        let a = catalog(vec![("o/c.dds", cut.clone())]);
        let b = catalog(vec![("n/c.dds", cut)]);
        // The opener lists the texture with mip 1 missing from its own file (tests/cli.rs
        // bad_files_are_reported_not_fatal: mips_present [true, false]).
        assert_eq!(a.textures[0].mips_present(), [true, false]);
        let e = same_stored(&a, 0, &b, 0).unwrap_err().to_string();
        assert!(
            e.contains("o/c.dds") && e.contains("cannot be compared"),
            "{e}"
        );
        // Bytes that differ before the missing range settle it: changed, not an error.
        let mut other = dds(&d, |_| 2);
        other.truncate(other.len() - 8);
        let c = catalog(vec![("n/c.dds", other)]);
        assert!(!same_stored(&a, 0, &c, 0).unwrap());
    }
}
