//! Export names (issue 19): where each exported image goes, shared by the CLI and the page so
//! both lay out an export the same way. Platform-free (no file system): callers hand in paths as
//! strings and get relative paths back, components joined by `/`.
//!
//! The rule, as the README states it:
//! - An image goes to `<where>/<texture>[__mip<N>][__s<S>].<ext>`. `<where>` is the path of the
//!   texture's file relative to the PATH it was found under (a file given as PATH: its name),
//!   the file's own name becoming a folder, then, for an asset inside a container, its path
//!   there ([`package_path`]: a Unity bundle's `m_Container` path; an Unreal package's path in
//!   its `.pak`/IoStore). A file (or package) holding a single texture named after it (`T_Rock.uasset`
//!   holding `T_Rock`, `x.dds`) gives its image beside it instead: `<folder>/T_Rock.png`.
//! - An editor source's extra UDIM block or layer (`T_Foo [UDIM 1002]`, `T_Foo [layer 1]`) is
//!   named as UDIM tiles are: `T_Foo.1002`, `T_Foo.layer1`, `T_Foo.1002.layer1`.
//! - `__mip<N>` unless the image is mip 0 exported alone; `__s<S>` when the texture has more than
//!   one image per mip (cube face, array layer, volume depth slice).
//! - Every path component is made valid on Windows, macOS and Linux ([`safe_component`]); an
//!   empty texture name becomes its class (`Cubemap`).
//! - Names are compared ignoring case (so an export copies to any file system). When a texture's
//!   name is taken already in this export (two textures of one name in a bundle, `a.dds` and
//!   `a.ktx`, names that differ only in case or in replaced characters), it becomes
//!   `<texture>~2` (then `~3`, ...) for all its images, and the caller prints a warning. Textures
//!   are placed in census order (files sorted by path, then each file's own order), so the names
//!   do not depend on timing or thread count.

use std::collections::BTreeMap;

use crate::{Error, Image, Pixels, Result};

/// A path component longer than this many bytes is cut (most file systems refuse names over 255
/// bytes; this leaves room for a `~N` and the `__mipN__sN.ext` endings).
const MAX_COMPONENT: usize = 200;

/// Makes `s` a valid file or folder name everywhere: `< > : " / \ | ? *` and control characters
/// become `_` (Windows refuses them; `/` separates paths); a name of dots only (`.`, `..`) or an
/// empty one becomes underscores; a trailing dot or space (Windows drops them) becomes `_`;
/// Windows' device names (`CON`, `PRN`, `AUX`, `NUL`, `COM0`-`COM9`, `LPT0`-`LPT9`, with any
/// extension, any case) get a leading `_`; names over 200 bytes are cut at a character boundary.
pub fn safe_component(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '<' | '>' | ':' | '"' | '/' | '\\' | '|' | '?' | '*') {
                '_'
            } else {
                c
            }
        })
        .collect();
    if out.len() > MAX_COMPONENT {
        let mut end = MAX_COMPONENT;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    if out.chars().all(|c| c == '.') {
        out = "_".repeat(out.len().max(1));
    }
    if out.ends_with(['.', ' ']) {
        out.pop();
        out.push('_');
    }
    let device = out.split('.').next().unwrap_or("").trim_end();
    let upper = device.to_ascii_uppercase();
    let reserved = matches!(upper.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || (upper.len() == 4
            && (upper.starts_with("COM") || upper.starts_with("LPT"))
            && upper.as_bytes()[3].is_ascii_digit());
    if reserved {
        out.insert(0, '_');
    }
    out
}

/// The components of a relative path (either separator), each made safe; empty components and
/// `.` are dropped (a container's `../../../` prefix stays visible as `__` folders).
pub fn safe_path(p: &str) -> Vec<String> {
    p.split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != ".")
        .map(safe_component)
        .collect()
}

/// The key under which the Unity reader records a bundle asset's `m_Container` path
/// (src/unity/texture.rs).
pub const UNITY_CONTAINER_PATH: &str = "container path";

/// The path of a texture's asset inside the container file it came from, if it has one: the
/// package path of an Unreal `.pak`/IoStore entry (`Texture::path`, e.g.
/// `Game/Content/Textures/T_Rock.uasset`), or the path a Unity bundle's AssetBundle object gives
/// the asset (`m_Container`, e.g. `assets/textures/wood.jpg`).
pub fn package_path(t: &crate::Texture) -> Option<&str> {
    t.path.as_deref().or_else(|| {
        t.metadata
            .iter()
            .find(|(k, _)| k == UNITY_CONTAINER_PATH)
            .map(|(_, v)| v.as_str())
    })
}

/// How many textures each (file, [`package_path`]) holds, for [`target`]'s `only`.
pub fn per_file(textures: &[crate::Texture]) -> BTreeMap<(&str, Option<&str>), usize> {
    let mut n = BTreeMap::new();
    for t in textures {
        *n.entry((t.file.as_str(), package_path(t))).or_default() += 1;
    }
    n
}

/// [`target`] of texture `t`, whose file lies at `source` (components) relative to the PATH it
/// was found under; `counts` from [`per_file`] over the same catalog.
pub fn texture_target(
    t: &crate::Texture,
    source: &[String],
    counts: &BTreeMap<(&str, Option<&str>), usize>,
) -> Target {
    let package = package_path(t);
    let only = counts.get(&(t.file.as_str(), package)) == Some(&1);
    target(source, package, (&t.name, &t.class), only, unicode_fold)
}

/// Where one texture's images go before collisions are settled: a folder (components) and the
/// base of the file names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub dir: Vec<String>,
    pub base: String,
}

/// The target of a texture. `source`: the components of its file's path relative to the PATH it
/// was found under, the last one the file's name; `package`: its package path inside a container
/// (`Texture::path`), if any; `name`, `class`: the texture's; `only`: whether it is the only
/// texture of that file (and package); `fold` compares the name with the file's.
pub fn target(
    source: &[String],
    package: Option<&str>,
    (name, class): (&str, &str),
    only: bool,
    fold: Fold,
) -> Target {
    let mut dir: Vec<String> = source.iter().map(|c| safe_component(c)).collect();
    if let Some(p) = package {
        dir.extend(safe_path(p));
    }
    let shown = if name.trim().is_empty() {
        if class.trim().is_empty() {
            "texture"
        } else {
            class
        }
    } else {
        name
    };
    let base = safe_component(&part_name(shown).unwrap_or_else(|| shown.to_string()));
    // Named after its only texture: the image goes beside the file, not into a folder of it.
    if only {
        if let Some(last) = dir.last() {
            let stem = match last.rfind('.') {
                Some(i) if i > 0 => &last[..i],
                _ => last.as_str(),
            };
            if fold(stem) == fold(&base) {
                dir.pop();
            }
        }
    }
    Target { dir, base }
}

/// The export name of an editor source's extra block or layer entry, as the UDIM file
/// convention names tiles (src/unreal/editor.rs names the entries): `T_Foo [UDIM 1002]` ->
/// `T_Foo.1002`, `T_Foo [layer 1]` -> `T_Foo.layer1`, `T_Foo [UDIM 1002, layer 1]` ->
/// `T_Foo.1002.layer1`. `None` for any other name.
fn part_name(name: &str) -> Option<String> {
    let (base, rest) = name.rsplit_once(" [")?;
    let mut out = base.to_string();
    for piece in rest.strip_suffix(']')?.split(", ") {
        let number = |p: &str| p.parse::<u32>().is_ok();
        if let Some(n) = piece.strip_prefix("UDIM ").filter(|n| number(n)) {
            out.push('.');
            out.push_str(n);
        } else if let Some(n) = piece.strip_prefix("layer ").filter(|n| number(n)) {
            out.push_str(".layer");
            out.push_str(n);
        } else {
            return None;
        }
    }
    Some(out)
}

/// The name ending of one image before its extension: `__mip<N>` unless it is mip 0 and the
/// export writes one mip (`all_mips` false); `__s<S>` when the texture has more than one image per
/// mip (`slices` > 1).
pub fn suffix(mip: u32, all_mips: bool, slice: u32, slices: u32) -> String {
    let mut s = String::new();
    if all_mips || mip > 0 {
        s.push_str(&format!("__mip{mip}"));
    }
    if slices > 1 {
        s.push_str(&format!("__s{slice}"));
    }
    s
}

#[derive(Debug)]
enum Taken {
    Dir,
    /// A file, and who wrote it (for the warning of a later texture that wanted the name).
    File(String),
}

/// Settles collisions: each [`Namer::place`] call gets names no earlier call got (ignoring case),
/// so nothing of one export overwrites anything else of it.
#[derive(Debug)]
pub struct Namer {
    fold: Fold,
    /// Folded actual path -> what is there.
    taken: BTreeMap<String, Taken>,
    /// Folded wanted folder path -> the actual folder path (a folder keeps its first spelling; one
    /// whose name a file took gets `~N`).
    dirs: BTreeMap<String, String>,
}

/// Where [`Namer::place`] put a texture's images.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// One relative path (`/`-separated) per ending, in the order given.
    pub paths: Vec<String>,
    /// Set when a name was taken: one line saying what was wanted, who has it and what was used.
    pub warning: Option<String>,
}

/// How names are compared: a case fold ([`unicode_fold`] for the CLI and the page's full module).
pub type Fold = fn(&str) -> String;

/// Unicode lower case (`str::to_lowercase`): what Windows and macOS treat as one name, near
/// enough (both fold every script's case).
pub fn unicode_fold(s: &str) -> String {
    s.to_lowercase()
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

fn numbered(base: &str, n: u32) -> String {
    if n == 1 {
        base.to_string()
    } else {
        format!("{base}~{n}")
    }
}

impl Namer {
    pub fn new(fold: Fold) -> Self {
        Namer {
            fold,
            taken: BTreeMap::new(),
            dirs: BTreeMap::new(),
        }
    }

    fn fold(&self, s: &str) -> String {
        (self.fold)(s)
    }

    /// The actual folder for `dir`, creating the mapping on first use.
    fn folder(&mut self, dir: &[String], notes: &mut Vec<String>) -> String {
        let (mut wanted, mut actual) = (String::new(), String::new());
        for c in dir {
            wanted = join(&wanted, c);
            let key = self.fold(&wanted);
            if let Some(a) = self.dirs.get(&key) {
                actual = a.clone();
                continue;
            }
            let mut n = 1;
            let cand = loop {
                let cand = join(&actual, &numbered(c, n));
                match self.taken.get(&self.fold(&cand)) {
                    Some(Taken::File(owner)) => {
                        if n == 1 {
                            notes.push(format!("folder {wanted} is a file of {owner}"));
                        }
                        n += 1;
                    }
                    _ => break cand,
                }
            };
            let folded = self.fold(&cand);
            self.taken.entry(folded).or_insert(Taken::Dir);
            self.dirs.insert(key, cand.clone());
            actual = cand;
        }
        actual
    }

    /// Reserves the paths of one texture's images: `target.dir`, then `target.base` (or
    /// `base~N`) followed by each of `endings` (suffix and extension, e.g. `__mip1.png`).
    /// `owner` names the texture in later warnings ("file: texture").
    pub fn place(&mut self, target: &Target, endings: &[String], owner: &str) -> Placed {
        let mut notes = Vec::new();
        let dir = self.folder(&target.dir, &mut notes);
        let mut n = 1;
        let paths = loop {
            let base = numbered(&target.base, n);
            let paths: Vec<String> = endings
                .iter()
                .map(|e| join(&dir, &format!("{base}{e}")))
                .collect();
            let clash = paths
                .iter()
                .find_map(|p| self.taken.get(&self.fold(p)).map(|t| (p, t)));
            match clash {
                None => break paths,
                Some((p, t)) => {
                    if n == 1 {
                        notes.push(match t {
                            Taken::File(o) => format!("{p} is taken by {o}"),
                            Taken::Dir => format!("{p} is a folder of this export"),
                        });
                    }
                    n += 1;
                }
            }
        };
        for p in &paths {
            let folded = self.fold(p);
            self.taken.insert(folded, Taken::File(owner.to_string()));
        }
        let warning = (!notes.is_empty()).then(|| {
            format!(
                "{}; written as {}",
                notes.join("; "),
                paths.first().map_or("", String::as_str)
            )
        });
        Placed { paths, warning }
    }
}

/// Where each cube face goes in [`cube_cross`], as (column, row) in face-sized cells, in the
/// stored face order +X, -X, +Y, -Y, +Z, -Z (DDS, D3D and Unity order).
pub const CROSS_CELLS: [(u32, u32); 6] = [(2, 1), (0, 1), (1, 0), (1, 2), (1, 1), (3, 1)];

/// The six faces of a cube (stored order +X, -X, +Y, -Y, +Z, -Z, each decoded with rows top
/// first) laid out as one horizontal cross 4 faces wide and 3 high: +Y above, -X +Z +X -Z across,
/// -Y below, each face as stored (not rotated); the six empty cells are transparent black.
pub fn cube_cross(faces: &[Image]) -> Result<Image> {
    let first = faces
        .first()
        .ok_or_else(|| Error::malformed("a cube cross needs six faces"))?;
    let (w, h) = (first.width, first.height);
    let precision = first.precision();
    if faces.len() != 6
        || faces
            .iter()
            .any(|f| (f.width, f.height) != (w, h) || f.precision() != precision)
    {
        return Err(Error::malformed(
            "a cube cross needs six faces of one size and precision",
        ));
    }
    let (cw, ch) = (w as usize * 4, h as usize * 3);
    fn place<T: Copy + Default>(faces: &[&[T]], w: usize, h: usize) -> Vec<T> {
        let stride = w * 4 * 4;
        let mut out = vec![T::default(); stride * h * 3];
        for (face, &(cx, cy)) in faces.iter().zip(&CROSS_CELLS) {
            for y in 0..h {
                let at = (cy as usize * h + y) * stride + cx as usize * w * 4;
                out[at..at + w * 4].copy_from_slice(&face[y * w * 4..(y + 1) * w * 4]);
            }
        }
        out
    }
    let (w, h) = (w as usize, h as usize);
    // The faces' texels of one precision (all six checked to share it above).
    macro_rules! cross {
        ($variant:ident) => {
            Pixels::$variant(place(
                &faces
                    .iter()
                    .filter_map(|f| match &f.pixels {
                        Pixels::$variant(p) => Some(&p[..]),
                        _ => None,
                    })
                    .collect::<Vec<_>>(),
                w,
                h,
            ))
        };
    }
    let pixels = match &first.pixels {
        Pixels::Rgba8(_) => cross!(Rgba8),
        Pixels::Rgba16(_) => cross!(Rgba16),
        Pixels::Rgba32F(_) => cross!(Rgba32F),
    };
    Ok(Image {
        width: cw as u32,
        height: ch as u32,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comps(p: &str) -> Vec<String> {
        p.split('/').map(String::from).collect()
    }

    #[test]
    fn editor_source_parts_export_as_udim_tiles() {
        // The names the editor reader gives extra blocks and layers (src/unreal/editor.rs) and
        // the UDIM file convention the rule follows (name.1002.png); other brackets stay.
        assert_eq!(
            part_name("T_Foo [UDIM 1002]").as_deref(),
            Some("T_Foo.1002")
        );
        assert_eq!(
            part_name("T_Foo [layer 1]").as_deref(),
            Some("T_Foo.layer1")
        );
        assert_eq!(
            part_name("T_Foo [UDIM 1011, layer 2]").as_deref(),
            Some("T_Foo.1011.layer2")
        );
        assert_eq!(part_name("T_Foo [draft]"), None);
        assert_eq!(part_name("T_Foo [UDIM x]"), None);
        assert_eq!(part_name("T_Foo"), None);
        let t = target(
            &comps("T_Foo.uasset"),
            None,
            ("T_Foo [UDIM 1002]", "Texture2D"),
            false,
            unicode_fold,
        );
        assert_eq!(t.base, "T_Foo.1002");
    }

    #[test]
    fn refused_characters_and_names_are_replaced() {
        // Windows' rules (Microsoft "Naming Files, Paths, and Namespaces"): these characters,
        // device names with any extension, and trailing dots/spaces are refused.
        assert_eq!(
            safe_component("a:b?c*d|e\"f<g>h\\i/j"),
            "a_b_c_d_e_f_g_h_i_j"
        );
        assert_eq!(safe_component("tab\there"), "tab_here");
        assert_eq!(safe_component(""), "_");
        assert_eq!(safe_component(".."), "__");
        assert_eq!(safe_component("name."), "name_");
        assert_eq!(safe_component("name "), "name_");
        assert_eq!(safe_component("con"), "_con");
        assert_eq!(safe_component("Com1.tar.gz"), "_Com1.tar.gz");
        assert_eq!(safe_component("lpt9"), "_lpt9");
        assert_eq!(safe_component("console"), "console");
        assert_eq!(safe_component("com10"), "com10");
        assert_eq!(safe_component("Würfel €"), "Würfel €");
        let long = "é".repeat(150); // 300 bytes
        let cut = safe_component(&long);
        assert_eq!(cut.len(), 200);
        assert!(cut.chars().all(|c| c == 'é'));
        assert_eq!(safe_path("../../x//./y\\z"), comps("__/__/x/y/z"));
    }

    #[test]
    fn targets_mirror_the_source_and_package() {
        let src = comps("Data/AssetBundles/2019.4.0f1/assetbundle");
        let t = target(&src, None, ("wood", "Texture2D"), false, unicode_fold);
        assert_eq!(t.dir, src);
        assert_eq!(t.base, "wood");
        // A file named after its only texture: the image goes beside it.
        let t = target(
            &comps("Textures/T_Rock.uasset"),
            None,
            ("T_Rock", "Texture2D"),
            true,
            unicode_fold,
        );
        assert_eq!((t.dir, t.base), (comps("Textures"), "T_Rock".to_string()));
        let t = target(&comps("x.DDS"), None, ("X", "DDS"), true, unicode_fold);
        assert_eq!((t.dir, t.base), (Vec::new(), "X".to_string()));
        // Not the only one: the file stays a folder.
        let t = target(
            &comps("Textures/T_Rock.uasset"),
            None,
            ("T_Rock", "Texture2D"),
            false,
            unicode_fold,
        );
        assert_eq!(t.dir, comps("Textures/T_Rock.uasset"));
        // Inside a container: under the container file, then the package path (the seam's
        // `Texture::path`, leading ../../../ already stripped by the container reader).
        let pak = comps("Paks/pakchunk0-Windows.pak");
        let t = target(
            &pak,
            Some("Game/Content/Fixtures/Textures/T_BC1.uasset"),
            ("T_BC1", "Texture2D"),
            true,
            unicode_fold,
        );
        assert_eq!(
            t.dir,
            comps("Paks/pakchunk0-Windows.pak/Game/Content/Fixtures/Textures")
        );
        assert_eq!(t.base, "T_BC1");
        // An unnamed texture is called by its class.
        let t = target(&comps("level0"), None, ("", "Cubemap"), true, unicode_fold);
        assert_eq!((t.dir, t.base), (comps("level0"), "Cubemap".to_string()));
    }

    #[test]
    fn suffixes() {
        assert_eq!(suffix(0, false, 0, 1), "");
        assert_eq!(suffix(0, true, 0, 1), "__mip0");
        assert_eq!(suffix(3, false, 0, 1), "__mip3");
        assert_eq!(suffix(0, false, 4, 6), "__s4");
        assert_eq!(suffix(2, true, 5, 6), "__mip2__s5");
    }

    #[test]
    fn collisions_get_numbers_and_warnings() {
        let mut n = Namer::new(unicode_fold);
        let png = |s: &str| vec![format!("{s}.png")];
        let wood = Target {
            dir: comps("b/assetbundle"),
            base: "wood".into(),
        };
        let a = n.place(&wood, &png(""), "b/assetbundle: wood");
        assert_eq!(a.paths, ["b/assetbundle/wood.png"]);
        assert_eq!(a.warning, None);
        // Same name in the same file: ~2, with a warning naming the first owner.
        let b = n.place(&wood, &png(""), "b/assetbundle: wood (2nd)");
        assert_eq!(b.paths, ["b/assetbundle/wood~2.png"]);
        let w = b.warning.unwrap();
        assert!(
            w.contains("b/assetbundle/wood.png is taken by b/assetbundle: wood"),
            "{w}"
        );
        assert!(w.ends_with("written as b/assetbundle/wood~2.png"), "{w}");
        // Case is ignored, and a whole texture moves together (every mip gets the same ~N).
        let mips = vec!["__mip0.png".to_string(), "__mip1.png".to_string()];
        let c = n.place(
            &Target {
                dir: comps("B/AssetBundle"),
                base: "WOOD".into(),
            },
            &mips,
            "c",
        );
        assert_eq!(
            c.paths,
            [
                "b/assetbundle/WOOD__mip0.png",
                "b/assetbundle/WOOD__mip1.png"
            ]
        );
        assert_eq!(c.warning, None);
        let d = n.place(&wood, &mips, "d");
        assert_eq!(
            d.paths,
            [
                "b/assetbundle/wood~2__mip0.png",
                "b/assetbundle/wood~2__mip1.png"
            ]
        );
        // A folder whose name a file took gets ~N; a file never takes a folder's name.
        let f = n.place(
            &Target {
                dir: comps("b/assetbundle"),
                base: "x".into(),
            },
            &png(""),
            "f",
        );
        assert_eq!(f.paths, ["b/assetbundle/x.png"]);
        let g = n.place(
            &Target {
                dir: comps("b/assetbundle/x.png"),
                base: "y".into(),
            },
            &png(""),
            "g",
        );
        assert_eq!(g.paths, ["b/assetbundle/x.png~2/y.png"]);
        assert!(g.warning.unwrap().contains("is a file of f"));
        let h = n.place(
            &Target {
                dir: comps("b"),
                base: "assetbundle".into(),
            },
            &[String::new()],
            "h",
        );
        assert_eq!(h.paths, ["b/assetbundle~2"]);
    }

    #[test]
    fn cube_cross_places_each_face() {
        // Face k is filled with value 10 + k; the layout is the one the doc states.
        let faces: Vec<Image> = (0..6u8)
            .map(|k| Image {
                width: 2,
                height: 3,
                pixels: Pixels::Rgba8(vec![10 + k; 2 * 3 * 4]),
            })
            .collect();
        let c = cube_cross(&faces).unwrap();
        assert_eq!((c.width, c.height), (8, 9));
        let Pixels::Rgba8(p) = &c.pixels else {
            panic!()
        };
        let cell = |col: usize, row: usize| p[(row * 3 + 1) * 8 * 4 + (col * 2 + 1) * 4];
        // Row 0: _ +Y _ _; row 1: -X +Z +X -Z; row 2: _ -Y _ _.
        let want = [[0, 12, 0, 0], [11, 14, 10, 15], [0, 13, 0, 0]];
        for (row, cols) in want.iter().enumerate() {
            for (col, &v) in cols.iter().enumerate() {
                assert_eq!(cell(col, row), v, "cell {col},{row}");
            }
        }
        assert!(cube_cross(&faces[..5]).is_err());
    }
}
