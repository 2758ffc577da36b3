//! Unreal containers (issue 17; UE 6.0 with issue 31) on the engine-cooked UE 5.8 and UE 6.0
//! fixtures (shared samples, cue4parse-fixtures/UE5_8 and UE6_0; MANIFEST.md there), one test body
//! for both sets: every .pak and IoStore variant lists and reads the same packages. Expected bytes come from the loose `_extracted/` copies (written from the
//! Uncompressed containers by a separate script, see the MANIFEST), expected names and counts from
//! manifest.json and the fixtures' README, the AES key from the MANIFEST.
#![cfg(feature = "containers")]

mod common;
use common::{counted, samples};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use texscope::io::aes::{AesKey, Keys};
use texscope::io::{read_range, FileSource};
use texscope::unreal::container::{visible_files, Opened};
use texscope::unreal::{iostore, pak};
use texscope::{Limits, SourceRef};

/// The two cooks of the same project (MANIFEST.md): UE 5.8 and UE 6.0, with the TOC and pak
/// versions each one's containers carry (the UE6_0 README part of the MANIFEST: TOC version 10,
/// pak version 15; UE 5.8: 8 and 12, read from its files).
const SETS: &[(&str, u8, i32)] = &[("UE5_8", 8, 12), ("UE6_0", 10, 15)];

fn root(set: &str) -> PathBuf {
    samples().join("unreal/cue4parse-fixtures").join(set)
}

/// The loose copies of a LegacyPak serialization: `_extracted/LegacyPak/<ser>` where the set has
/// one (UE 5.8); UE 6.0 ships none, so there its Uncompressed pak (stored entries, no cipher) is
/// the reference the other variants must equal, and the pixels are checked against the source
/// images in tests/unreal_ue58.rs.
fn legacy_reference(set: &str, ser: &str) -> PathBuf {
    let loose = root(set).join(format!("_extracted/LegacyPak/{ser}"));
    if loose.exists() {
        loose
    } else {
        root(set).join(format!("LegacyPak/{ser}/Uncompressed"))
    }
}

/// The MANIFEST's key: `CUE4ParseFixtureAESKey0123456789` as 0x-hex.
const KEY: &str = "0x435545345061727365466978747572654145534B657930313233343536373839";

fn keys() -> Keys {
    let mut k = Keys::default();
    k.push(None, AesKey::parse(KEY).unwrap());
    k
}

fn file(p: &Path) -> SourceRef {
    Arc::new(FileSource::open(p).unwrap())
}

const LEGACY: &[&str] = &["Uncompressed", "Zlib", "Oodle", "OodleEncrypted"];

/// Every LegacyPak variant holds the same 11 files (the fixtures' README: DA_AllProperties,
/// DT_AllProperties, T_Streaming with .uasset/.uexp/.ubulk, T_BC6H and the Empty map), byte for
/// byte the loose copies in `_extracted/LegacyPak/<serialization>/`.
#[test]
fn legacy_paks_hold_the_extracted_files() {
    for &(set, _, pak_v) in SETS {
        let l = Limits::default();
        for ser in ["Tagged", "Unversioned"] {
            for v in LEGACY {
                let p = root(set).join(format!(
                    "LegacyPak/{ser}/{v}/CUE4ParseFixtures-Legacy-{ser}-{v}.pak"
                ));
                let pak = pak::open(&file(&p), &keys(), &l).unwrap_or_else(|e| panic!("{v}: {e}"));
                assert_eq!(pak.footer.version, pak_v, "{v}");
                assert_eq!(pak.entries.len(), 11, "{ser}/{v}");
                assert_eq!(pak.keyed, v.contains("Encrypted"), "{v}");
                for (i, e) in pak.entries.iter().enumerate() {
                    assert!(
                        e.path.starts_with("CUE4ParseFixtures/Content/Fixtures/"),
                        "{}",
                        e.path
                    );
                    let want = legacy_bytes(set, ser, &e.path);
                    let src = pak.source(i).unwrap();
                    let got = read_range(src.as_ref(), 0, src.len(), &l)
                        .unwrap_or_else(|err| panic!("{ser}/{v} {}: {err}", e.path));
                    assert!(got == want, "{ser}/{v} {} differs from _extracted", e.path);
                }
            }
        }
    }
}

/// The bytes of `path` in the LegacyPak reference of `set` (see [`legacy_reference`]).
fn legacy_bytes(set: &str, ser: &str, path: &str) -> Vec<u8> {
    let r = legacy_reference(set, ser);
    if r.ends_with("Uncompressed") {
        let p = r.join(format!("CUE4ParseFixtures-Legacy-{ser}-Uncompressed.pak"));
        let pak = pak::open(&file(&p), &Keys::default(), &Limits::default()).unwrap();
        let i = pak.entries.iter().position(|e| e.path == path).unwrap();
        let s = pak.source(i).unwrap();
        read_range(s.as_ref(), 0, s.len(), &Limits::default()).unwrap()
    } else {
        std::fs::read(r.join(path)).unwrap()
    }
}

const IOSTORE: &[&str] = &[
    "Uncompressed",
    "Zlib",
    "Oodle",
    "OodlePartitioned",
    "OodleEncrypted",
];

fn open_toc(set: &str, ser: &str, v: &str) -> iostore::Toc {
    let dir = root(set).join(format!("IoStore/{ser}/{v}"));
    let utoc = dir.join(format!("CUE4ParseFixtures-Minimal-{v}-Windows.utoc"));
    iostore::open(
        &file(&utoc),
        |p| {
            let p = Path::new(p);
            p.exists().then(|| file(p))
        },
        &keys(),
        &Limits::default(),
    )
    .unwrap_or_else(|e| panic!("{ser}/{v}: {e}"))
}

/// Every IoStore variant names the same files (the fixtures' README: 97 packages and 14 bulk
/// sidecars in every variant), and every texture package and bulk file reads back byte for byte
/// as its loose copy in `_extracted/IoStore/<serialization>/`.
#[test]
fn iostore_variants_hold_the_extracted_files() {
    for &(set, toc_v, _) in SETS {
        let l = Limits::default();
        for ser in ["Tagged", "Unversioned"] {
            let mut names: Option<Vec<String>> = None;
            for v in IOSTORE {
                let toc = open_toc(set, ser, v);
                assert_eq!(toc.header.version, toc_v, "{v}");
                assert_eq!(toc.keyed, v.contains("Encrypted"), "{v}");
                let mut paths: Vec<String> = toc.files.iter().map(|f| f.path.clone()).collect();
                paths.sort();
                let packages = paths
                    .iter()
                    .filter(|p| p.ends_with(".uasset") || p.ends_with(".umap"))
                    .count();
                assert_eq!(packages, 97, "{ser}/{v}");
                match &names {
                    Some(n) => assert_eq!(n, &paths, "{ser}/{v} lists other files"),
                    None => names = Some(paths),
                }
                let mut compared = 0;
                for f in &toc.files {
                    // UE 5.8's copies lie flat, UE 6.0's under their mount paths.
                    let base = f.path.rsplit('/').next().unwrap();
                    let dir = root(set).join(format!("_extracted/IoStore/{ser}"));
                    let loose = [dir.join(base), dir.join(&f.path)]
                        .into_iter()
                        .find(|p| p.is_file());
                    let Some(loose) = loose else { continue };
                    let want = std::fs::read(&loose).unwrap();
                    let src = toc.chunk_source(f.chunk, format!("t/{}", f.path)).unwrap();
                    let got = read_range(src.as_ref(), 0, src.len(), &l)
                        .unwrap_or_else(|e| panic!("{ser}/{v} {}: {e}", f.path));
                    assert!(got == want, "{ser}/{v} {} differs from _extracted", f.path);
                    compared += 1;
                }
                // Every loose copy has its chunk.
                // Every loose copy has its chunk (but UE 6.0's `_unnamed/`: chunks the directory
                // index does not name, such as the container header, which holds each
                // container's own id).
                let loose = loose_files(&root(set).join(format!("_extracted/IoStore/{ser}")));
                assert_eq!(compared, loose, "{ser}/{v}");
            }
        }
    }
}

/// Files under `dir`, but those under `_unnamed/`.
fn loose_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with("_unnamed"))
        .map(|p| if p.is_dir() { loose_files(&p) } else { 1 })
        .sum()
}

/// Oodle block by block: every block of the Oodle containers (plain, partitioned, encrypted)
/// decodes to the bytes of the same block of the Uncompressed twin (same packages, same 64 KiB
/// block grid: the README says the variants hold the exact same cooked package bytes), except
/// the blocks of the container-header chunk (EIoChunkType 6), which holds each container's own id.
#[test]
fn oodle_blocks_match_the_uncompressed_twin() {
    for &(set, _, _) in SETS {
        for ser in ["Tagged", "Unversioned"] {
            let plain = open_toc(set, ser, "Uncompressed");
            for v in ["Oodle", "OodlePartitioned", "OodleEncrypted", "Zlib"] {
                let toc = open_toc(set, ser, v);
                assert_eq!(toc.blocks.len(), plain.blocks.len(), "{ser}/{v}");
                let bs = toc.header.block_size as u64;
                let own: Vec<u64> = (0..toc.chunks.len())
                    .filter(|&c| toc.chunk_ids[c].kind() == 6)
                    .flat_map(|c| {
                        let (o, n) = toc.chunks[c];
                        o / bs..(o + n).div_ceil(bs)
                    })
                    .collect();
                assert!(!own.is_empty(), "{ser}/{v} has a container header");
                let mut methods = std::collections::BTreeSet::new();
                for i in 0..toc.blocks.len() {
                    if own.contains(&(i as u64)) {
                        continue;
                    }
                    let b = toc.block(i).unwrap();
                    methods.insert(b.method.name());
                    let got = toc
                        .store()
                        .block(&b)
                        .unwrap_or_else(|e| panic!("{ser}/{v} block {i}: {e}"));
                    let want = plain.store().block(&plain.block(i).unwrap()).unwrap();
                    assert!(got == want, "{ser}/{v} block {i} differs");
                }
                let want = if v == "Zlib" { "zlib" } else { "Oodle" };
                assert!(methods.contains(want), "{ser}/{v}: {methods:?}");
            }
        }
    }
}

/// No key: one clear "needs an AES key" error naming the container; a wrong key: "does not fit",
/// decided on the index (pak: its SHA-1; IoStore: the directory index must parse) before any
/// entry is decoded.
#[test]
fn keys_are_checked_before_anything_is_decoded() {
    for &(set, _, _) in SETS {
        let l = Limits::default();
        let wrong = {
            let mut k = Keys::default();
            k.push(None, AesKey::from_bytes([7; 32]));
            k
        };
        let p = root(set).join(
        "LegacyPak/Unversioned/OodleEncrypted/CUE4ParseFixtures-Legacy-Unversioned-OodleEncrypted.pak",
    );
        let utoc = root(set).join(
        "IoStore/Unversioned/OodleEncrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc",
    );
        let ucas = utoc.with_extension("ucas");
        for (k, want) in [
            (Keys::default(), "it needs an AES key"),
            (wrong, "does not fit"),
        ] {
            let e = pak::open(&file(&p), &k, &l).err().unwrap();
            assert_eq!(e.kind, texscope::ErrorKind::NeedsKey, "{e}");
            assert!(e.to_string().contains(want), "{e}");
            assert!(e.to_string().contains("OodleEncrypted.pak"), "{e}");
            let e = iostore::open(&file(&utoc), |_| Some(file(&ucas)), &k, &l)
                .err()
                .unwrap();
            assert_eq!(e.kind, texscope::ErrorKind::NeedsKey, "{e}");
            assert!(e.to_string().contains(want), "{e}");
            assert!(e.to_string().contains("OodleEncrypted-Windows.utoc"), "{e}");
        }
    }
}

/// Pak/ (the fixtures' README: "exactly four entries": DefaultGame.ini, two LOCRES files and
/// AssetRegistry.bin, in an Uncompressed and an Oodle pak) and the Android pak (ASTC/ETC2/EAC
/// textures, MANIFEST) read whole; both Pak/ variants give the same bytes.
#[test]
fn minimal_and_android_paks() {
    for &(set, _, _) in SETS {
        let l = Limits::default();
        let mut contents = Vec::new();
        for v in ["Uncompressed", "Oodle"] {
            let p = root(set).join(format!("Pak/{v}/CUE4ParseFixtures-Minimal-{v}.pak"));
            let pak = pak::open(&file(&p), &Keys::default(), &l).unwrap();
            let mut files: Vec<(String, Vec<u8>)> = (0..pak.entries.len())
                .map(|i| {
                    let s = pak.source(i).unwrap();
                    let b = read_range(s.as_ref(), 0, s.len(), &l).unwrap();
                    (pak.entries[i].path.clone(), b)
                })
                .collect();
            files.sort();
            assert_eq!(files.len(), 4, "{v}");
            let names: Vec<&str> = files
                .iter()
                .map(|(p, _)| p.rsplit('/').next().unwrap())
                .collect();
            assert!(names.contains(&"DefaultGame.ini"), "{names:?}");
            assert!(names.contains(&"AssetRegistry.bin"), "{names:?}");
            assert_eq!(names.iter().filter(|n| n.ends_with(".locres")).count(), 2);
            contents.push(files);
        }
        assert!(
            contents[0] == contents[1],
            "the Oodle pak reads as the Uncompressed one"
        );
        let p = root(set).join("AndroidPak/CUE4ParseFixtures-Android-Textures.pak");
        let pak = pak::open(&file(&p), &Keys::default(), &l).unwrap();
        let packages = pak
            .entries
            .iter()
            .filter(|e| e.path.ends_with(".uasset"))
            .count();
        assert!(
            packages >= 9,
            "ASTC 4x4..12x12, normal map, ETC2 RGB/RGBA, EAC R11/RG11: {packages}"
        );
        for i in 0..pak.entries.len() {
            let s = pak.source(i).unwrap();
            read_range(s.as_ref(), 0, s.len(), &l).unwrap();
        }
    }
}

/// Opens every file under `dir` (as the CLI does with a folder) with the fixture key.
fn open_dir(dir: &Path, with_key: bool) -> texscope::Catalog {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let sources: Vec<SourceRef> = files.iter().map(|p| file(p)).collect();
    let mut o = texscope::OpenOptions::default();
    if with_key {
        o.aes_keys = keys();
    }
    texscope::open(sources, &o)
}

/// Name, class, kind, size, slices, mips, format of each texture, sorted by name.
fn listing(c: &texscope::Catalog) -> Vec<String> {
    let mut v: Vec<String> = c
        .textures
        .iter()
        .map(|t| {
            format!(
                "{} {} {:?} {}x{}x{} s{} m{} {} err={:?}",
                t.name,
                t.class,
                t.kind,
                t.width,
                t.height,
                t.depth,
                t.slices,
                t.mips.len(),
                t.format.name(),
                // The reason alone: its file name differs between variants.
                t.error
                    .as_deref()
                    .map(|e| e.rsplit(": ").next().unwrap_or(e))
            )
        })
        .collect();
    v.sort();
    v
}

/// FNV-1a over every decoded mip and slice of every texture (by name), to compare variants.
fn pixels(c: &texscope::Catalog) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for (i, t) in c.textures.iter().enumerate() {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for m in 0..t.mips.len() {
            for s in 0..t.surface_count(m) {
                let img = c.decode(i, m, s, Default::default());
                let bytes: Vec<u8> = match &img {
                    Ok(img) => match &img.pixels {
                        texscope::Pixels::Rgba8(v) => v.clone(),
                        texscope::Pixels::Rgba16(v) => {
                            v.iter().flat_map(|x| x.to_le_bytes()).collect()
                        }
                        texscope::Pixels::Rgba32F(v) => {
                            v.iter().flat_map(|x| x.to_le_bytes()).collect()
                        }
                    },
                    // An error's text without the file name (which differs between variants).
                    Err(e) => e.message.clone().into_bytes(),
                };
                for b in bytes {
                    h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
                }
            }
        }
        out.push((t.name.clone(), h));
    }
    out.sort();
    out
}

/// Every IoStore variant of the Unversioned serialization (with global.utoc beside it, as the
/// fixtures ship) lists the same textures as the loose `_extracted/IoStore/Unversioned` copies
/// (the 21 T_* packages of the MANIFEST's table) and decodes them to identical pixels. The two
/// textures more are the landscape's heightmap and weightmap, Texture2D exports inside a map
/// package that the extraction script did not write out; nothing else of the 97 packages is
/// listed or a problem.
#[test]
fn iostore_unversioned_lists_and_decodes_like_the_loose_copies() {
    for &(set, _, _) in SETS {
        // UE 6.0's extraction also wrote the map holding the landscape's two textures; they are
        // checked by name below, as for UE 5.8.
        let landscape = |n: &str| n.starts_with("Heightmap") || n.starts_with("Weightmap");
        let loose = open_dir(&root(set).join("_extracted/IoStore/Unversioned"), false);
        let mut want_list = listing(&loose);
        want_list.retain(|l| !landscape(l));
        let mut want_px = pixels(&loose);
        want_px.retain(|(n, _)| !landscape(n));
        assert_eq!(want_list.len(), 21, "{want_list:#?}");
        for v in IOSTORE {
            let dir = root(set).join(format!("IoStore/Unversioned/{v}"));
            let mut sources: Vec<SourceRef> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| file(&e.unwrap().path()))
                .collect();
            sources.push(file(&root(set).join("IoStore/Unversioned/global.utoc")));
            sources.push(file(&root(set).join("IoStore/Unversioned/global.ucas")));
            let o = texscope::OpenOptions {
                aes_keys: keys(),
                ..Default::default()
            };
            let c = texscope::open(sources, &o);
            assert!(c.problems.is_empty(), "{v}: {:#?}", c.problems);
            let mut extra = Vec::new();
            for t in &c.textures {
                let p = t.path.as_deref().unwrap();
                assert!(t.file.ends_with(".utoc"), "{}", t.file);
                if !p.starts_with("CUE4ParseFixtures/Content/Fixtures/Textures/T_") {
                    extra.push(format!("{} {} in {p}", t.name, t.class));
                }
            }
            extra.sort();
            assert_eq!(
                extra,
                [
                    "Heightmap Texture2D in CUE4ParseFixtures/Content/Fixtures/Maps/Landscape.umap",
                    "Weightmap Texture2D in CUE4ParseFixtures/Content/Fixtures/Maps/Landscape.umap"
                ],
                "{v}"
            );
            let mut list = listing(&c);
            list.retain(|l| !landscape(l));
            assert_eq!(list, want_list, "{v}");
            let mut px = pixels(&c);
            px.retain(|(n, _)| !landscape(n));
            assert_eq!(px, want_px, "{v}");
        }
    }
}

/// Patch/{Pak,IoStore}: a base container and a `_0_P` patch (the fixtures' README: "a `_0_P`
/// patch that overrides it"). The base holds DA_PatchTarget and DA_PatchReferencer; the patch
/// holds a new DA_PatchTarget whose text says "Patch payload" where the base's says "Base
/// payload". Mounted together the patch's DA_PatchTarget wins (order 100 over 0), the
/// referencer stays the base's, and no path is listed twice.
#[test]
fn patches_override_their_base() {
    for &(set, _, _) in SETS {
        let l = Limits::default();
        let dir = root(set).join("Patch");
        let read = |c: &Opened, i: usize| -> Vec<u8> {
            let s = match c {
                Opened::Pak(p) => p.source(i).unwrap(),
                Opened::Toc(t) => t.chunk_source(t.files[i].chunk, "x".into()).unwrap(),
            };
            read_range(s.as_ref(), 0, s.len(), &l).unwrap()
        };
        let has = |b: &[u8], s: &str| b.windows(s.len()).any(|w| w == s.as_bytes());
        for kind in ["Pak", "IoStore"] {
            let mut opened = Vec::new();
            for stem in [
                "CUE4ParseFixtures-PatchBase",
                "CUE4ParseFixtures-PatchBase_0_P",
            ] {
                let (name, c) = if kind == "Pak" {
                    let p = dir.join(format!("Pak/{stem}.pak"));
                    let c = Opened::Pak(pak::open(&file(&p), &Keys::default(), &l).unwrap());
                    (p, c)
                } else {
                    let p = dir.join(format!("IoStore/{stem}.utoc"));
                    let c = Opened::Toc(
                        iostore::open(
                            &file(&p),
                            |n| Some(file(Path::new(n))),
                            &Keys::default(),
                            &l,
                        )
                        .unwrap(),
                    );
                    (p, c)
                };
                opened.push((name.display().to_string(), Rc::new(c)));
            }
            let by_name: Vec<(String, Rc<Opened>)> = opened.clone();
            // Either order of the drop gives the same result.
            for order in [opened.clone(), opened.into_iter().rev().collect::<Vec<_>>()] {
                let vis = visible_files(order);
                let target: Vec<_> = vis
                    .iter()
                    .filter(|(_, p, _)| p.ends_with("DA_PatchTarget.uasset"))
                    .collect();
                assert_eq!(target.len(), 1, "{kind}: {vis:?}");
                let (f, _, i) = target[0];
                assert!(
                    f.ends_with(if kind == "Pak" {
                        "_0_P.pak"
                    } else {
                        "_0_P.utoc"
                    }),
                    "{f}"
                );
                let c = &by_name.iter().find(|(n, _)| n == f).unwrap().1;
                let pkg = read(c, *i);
                let exp = vis
                    .iter()
                    .find(|(_, p, _)| p.ends_with("DA_PatchTarget.uexp"));
                // Pak: the text is in the .uexp; IoStore: in the zen package itself.
                let body = match exp {
                    Some((f2, _, i2)) => {
                        assert!(f2.ends_with("_0_P.pak"), "{f2}");
                        let c2 = &by_name.iter().find(|(n, _)| n == f2).unwrap().1;
                        read(c2, *i2)
                    }
                    None => pkg,
                };
                assert!(has(&body, "Patch payload"), "{kind}");
                assert!(!has(&body, "Base payload"), "{kind}");
                let refr: Vec<_> = vis
                    .iter()
                    .filter(|(_, p, _)| p.ends_with("DA_PatchReferencer.uasset"))
                    .collect();
                assert_eq!(refr.len(), 1, "{kind}");
                assert!(!refr[0].0.contains("_0_P"), "{kind}");
            }
        }
    }
}

/// The Tagged IoStore variants find the same 22 texture packages by their export classes (the
/// zen class hashes); each is listed or a problem naming the container and the package path.
/// Tagged zen headers do not parse yet ("no known UE5 header layout", issue 18's fix); once they
/// do, `tagged_iostore_matches_unversioned` below holds.
#[test]
fn tagged_iostore_finds_its_texture_packages() {
    for &(set, _, _) in SETS {
        let mut want: Option<Vec<String>> = None;
        for v in IOSTORE {
            let c = open_dir(&root(set).join(format!("IoStore/Tagged/{v}")), true);
            let mut found: Vec<String> = c
                .textures
                .iter()
                .map(|t| t.path.clone().unwrap())
                .chain(c.problems.iter().map(|p| {
                    assert!(p.file.ends_with(".utoc"), "{}", p.file);
                    p.path.clone().unwrap_or_else(|| panic!("{v}: {}", p.error))
                }))
                .collect();
            found.sort();
            found.dedup();
            assert_eq!(found.len(), 22, "{v}: {found:#?}");
            match &want {
                Some(w) => assert_eq!(&found, w, "{v}"),
                None => want = Some(found),
            }
        }
    }
}

/// Tagged and Unversioned are two serializations of the same cooked textures (the fixtures'
/// README): every Tagged variant lists the textures of the Unversioned Oodle one with the same
/// pixels.
#[test]
fn tagged_iostore_matches_unversioned() {
    for &(set, _, _) in SETS {
        let want = open_dir(&root(set).join("IoStore/Unversioned/Oodle"), false);
        for v in IOSTORE {
            let c = open_dir(&root(set).join(format!("IoStore/Tagged/{v}")), true);
            assert!(c.problems.is_empty(), "{v}: {:#?}", c.problems);
            assert_eq!(listing(&c), listing(&want), "{v}");
            assert_eq!(pixels(&c), pixels(&want), "{v}");
        }
    }
}

/// Every LegacyPak variant reads its packages as the loose `_extracted/LegacyPak` copies read:
/// the same textures (T_BC6H, T_Streaming) with the same pixels, under the container's name and
/// the package's path. Its other packages (a data asset, a data table, a map: the fixtures'
/// README) are not textures: the loose reader names each "no texture export", the container
/// skips them silently.
#[test]
fn legacy_paks_read_like_the_loose_copies() {
    for &(set, _, _) in SETS {
        for ser in ["Tagged", "Unversioned"] {
            let loose = open_dir(&legacy_reference(set, ser), false);
            assert_eq!(loose.textures.len(), 2, "{ser}");
            for v in LEGACY {
                let c = open_dir(&root(set).join(format!("LegacyPak/{ser}/{v}")), true);
                assert!(c.problems.is_empty(), "{ser}/{v}: {:#?}", c.problems);
                assert_eq!(listing(&c), listing(&loose), "{ser}/{v}");
                assert_eq!(pixels(&c), pixels(&loose), "{ser}/{v}");
                for t in &c.textures {
                    assert!(t.file.ends_with(".pak"), "{}", t.file);
                    let p = t.path.as_deref().unwrap();
                    assert!(
                        p.starts_with("CUE4ParseFixtures/Content/Fixtures/Textures/"),
                        "{p}"
                    );
                }
            }
        }
    }
}

/// The LegacyPak variants list T_Streaming (BC1 512², 10 mips, top mips in its .ubulk) and
/// T_BC6H (the fixtures' README), the same as the IoStore copies of those two textures.
#[test]
fn legacy_paks_match_iostore() {
    for &(set, _, _) in SETS {
        let zen = open_dir(&root(set).join("IoStore/Unversioned/Uncompressed"), false);
        let pick = |c: &texscope::Catalog| -> Vec<String> {
            listing(c)
                .into_iter()
                .filter(|l| l.starts_with("T_Streaming ") || l.starts_with("T_BC6H "))
                .collect()
        };
        for ser in ["Tagged", "Unversioned"] {
            for v in LEGACY {
                let c = open_dir(&root(set).join(format!("LegacyPak/{ser}/{v}")), true);
                assert!(c.problems.is_empty(), "{ser}/{v}: {:#?}", c.problems);
                assert_eq!(pick(&c), pick(&zen), "{ser}/{v}");
            }
        }
    }
}

/// Zen export maps name a class only by FPackageObjectIndex, a hash of its script path; the
/// container reader computes the hashes of the texture classes (CityHash64, see
/// `unreal::script::script_index`). global.utoc's ScriptObjects chunk (written by the engine) lists every
/// script object with its index: the computed ones must be there under the right names.
#[test]
fn texture_class_hashes_match_global_script_objects() {
    for &(set, _, _) in SETS {
        use texscope::unreal::script::script_index as script_class_index;
        let l = Limits::default();
        let g = root(set).join("IoStore/Unversioned/global.utoc");
        let toc = iostore::open(
            &file(&g),
            |n| Some(file(Path::new(n))),
            &Keys::default(),
            &l,
        )
        .unwrap();
        // EIoChunkType 5 = ScriptObjects.
        let c = (0..toc.chunk_ids.len())
            .find(|&i| toc.chunk_ids[i].kind() == 5)
            .unwrap();
        let s = toc
            .chunk_source(c as u32, "global/ScriptObjects".into())
            .unwrap();
        let d = read_range(s.as_ref(), 0, s.len(), &l).unwrap();
        let u32_at = |o: usize| u32::from_le_bytes(d[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(d[o..o + 8].try_into().unwrap());
        // Name batch: count, string bytes, hash algorithm, hashes, BE u16 lengths, strings.
        let n = u32_at(0) as usize;
        let mut at = 16 + 8 * n;
        let lens: Vec<usize> = (0..n)
            .map(|k| u16::from_be_bytes([d[at + 2 * k], d[at + 2 * k + 1]]) as usize)
            .collect();
        at += 2 * n;
        let mut names = Vec::new();
        for len in lens {
            assert!(len & 0x8000 == 0, "an ASCII name");
            names.push(String::from_utf8_lossy(&d[at..at + len]).into_owned());
            at += len;
        }
        let count = u32_at(at) as usize;
        at += 4;
        let mut objects = std::collections::HashMap::new();
        for k in 0..count {
            let e = at + 32 * k;
            // FMappedName: the top bits say which name map; the index is the low 30.
            let name = &names[(u32_at(e) & 0x3FFF_FFFF) as usize];
            let (index, outer) = (u64_at(e + 8), u64_at(e + 16));
            objects.insert(index, (name.clone(), outer));
        }
        for class in [
            "Texture2D",
            "TextureCube",
            "VolumeTexture",
            "Texture2DArray",
            "TextureLightProfile",
        ] {
            let h = script_class_index(&format!("/Script/Engine.{class}"));
            let (name, outer) = objects.get(&h).unwrap_or_else(|| panic!("{class}: {h:#x}"));
            assert_eq!(name, class);
            assert_eq!(
                objects.get(outer).map(|o| o.0.as_str()),
                Some("/Script/Engine")
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Generated containers (src/fixtures/containers.rs): every pak version 3-12 and the IoStore
// forms the fixtures do not have, stored/zlib, with and without a key. Expected bytes are the
// files put in; expected textures those of the same packages opened loose.

use texscope::fixtures::containers::{self as cx, PakOptions, TocOptions};
use texscope::fixtures::unreal::{self as ue, Rng};
use texscope::io::BytesSource;

/// A legacy texture package (UE5.2-5.5 layout, streamed mips in .ubulk), a non-texture package
/// (the same bytes with its class name "Texture2D" made "SoundWave", same length) and a text
/// file, under `Tex/` and `Other/`.
fn generated_files() -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng(17);
    let (t, _) = ue::classic_texture("T_Gen", texscope::PixelFormat::BC1, 64, 32, 5, 2, &mut rng);
    let swap = |b: &[u8]| {
        let mut b = b.to_vec();
        let at = b.windows(9).position(|w| w == b"Texture2D").unwrap();
        b[at..at + 9].copy_from_slice(b"SoundWave");
        b
    };
    vec![
        ("Tex/T_Gen.uasset".into(), t.uasset.clone()),
        ("Tex/T_Gen.uexp".into(), t.uexp.clone()),
        ("Tex/T_Gen.ubulk".into(), t.ubulk.clone()),
        ("Other/S_Gen.uasset".into(), swap(&t.uasset)),
        ("Other/S_Gen.uexp".into(), t.uexp.clone()),
        ("Other/readme.txt".into(), vec![b'x'; 70_000]),
    ]
}

fn loose(files: &[(String, Vec<u8>)]) -> texscope::Catalog {
    let s: Vec<SourceRef> = files
        .iter()
        .filter(|(p, _)| p.starts_with("Tex/"))
        .map(|(p, b)| BytesSource::shared(p.clone(), b.clone()))
        .collect();
    texscope::open(s, &Default::default())
}

#[test]
fn every_pak_version_reads_back() {
    let l = Limits::default();
    let files = generated_files();
    let want = loose(&files);
    assert_eq!(want.textures.len(), 1);
    let key = AesKey::parse(KEY).unwrap();
    for version in 3..=15 {
        for zlib in [false, true] {
            for (keyed, ctr) in [(false, false), (true, false), (true, true)] {
                // AES-CTR exists from version 13 (UE 6.0).
                if ctr && version < 13 {
                    continue;
                }
                let o = PakOptions {
                    version,
                    ctr,
                    zlib,
                    block_size: 4096,
                    key: keyed.then(|| key.clone()),
                    ..Default::default()
                };
                let what = format!("v{version} zlib={zlib} key={keyed} ctr={ctr}");
                let bytes = cx::pak(&files, &o);
                let src = BytesSource::shared("gen.pak", bytes);
                let p = pak::open(&src, &keys(), &l).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(p.footer.version, version);
                assert_eq!(p.entries.len(), files.len(), "{what}");
                for (i, e) in p.entries.iter().enumerate() {
                    let (path, data) = files
                        .iter()
                        .find(|(f, _)| e.path == format!("Game/Content/{f}"))
                        .unwrap();
                    let s = p.source(i).unwrap();
                    let got = read_range(s.as_ref(), 0, s.len(), &l)
                        .unwrap_or_else(|err| panic!("{what} {path}: {err}"));
                    assert!(&got == data, "{what} {path}");
                }
                // Through the catalog: one texture (the SoundWave package and the text file are
                // skipped silently), the loose package's pixels, its path inside the pak.
                let o = texscope::OpenOptions {
                    aes_keys: keys(),
                    ..Default::default()
                };
                let c = texscope::open(vec![src], &o);
                assert!(c.problems.is_empty(), "{what}: {:?}", c.problems);
                assert_eq!(listing(&c), listing(&want), "{what}");
                assert_eq!(pixels(&c), pixels(&want), "{what}");
                assert_eq!(
                    c.textures[0].path.as_deref(),
                    Some("Game/Content/Tex/T_Gen.uasset")
                );
                assert_eq!(c.textures[0].file, "gen.pak");
            }
        }
    }
}

/// Games of UE 4.0-4.15 ship one-file cooked packages (no .uexp) in paks of versions 1 to 3
/// (1: with a timestamp per entry, 2: without, 3: compression blocks and flags). A package of
/// each era in a pak of its version: listed and decoded like the same file loose, no .uexp
/// asked for. Expected: the loose one-file package's pixels (its mips decode to their blocks in
/// tests/unreal_fixtures.rs `cooked_packages_before_ue_418_open`).
#[test]
fn old_paks_hold_one_file_cooked_packages() {
    let l = Limits::default();
    // (pak version, UE 4.minor, zlib)
    for (version, minor, zlib) in [(1, 0, false), (2, 3, false), (3, 9, false), (3, 11, true)] {
        let what = format!("pak v{version} UE 4.{minor} zlib={zlib}");
        let mut rng = Rng(0x4_0100 + minor as u64);
        let (t, _) = ue::ue4_texture(
            minor,
            false,
            true,
            "T_Old",
            texscope::PixelFormat::BC1,
            (64, 32),
            (5, 2),
            &[],
            |_, w, h| ue::random_surface(texscope::PixelFormat::BC1, w, h, &mut rng),
        );
        let t = t.joined();
        let files = vec![("Tex/T_Old.uasset".to_string(), t.uasset.clone())];
        let want = loose(&files);
        assert!(want.problems.is_empty(), "{what}: {:?}", want.problems);
        assert_eq!(want.textures.len(), 1, "{what}");
        let o = PakOptions {
            version,
            zlib,
            block_size: 4096,
            ..Default::default()
        };
        let src = BytesSource::shared("old.pak", cx::pak(&files, &o));
        let p = pak::open(&src, &keys(), &l).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(p.footer.version, version, "{what}");
        let c = texscope::open(vec![src], &Default::default());
        assert!(c.problems.is_empty(), "{what}: {:?}", c.problems);
        assert!(
            c.textures[0].error.is_none(),
            "{what}: {:?}",
            c.textures[0].error
        );
        assert_eq!(listing(&c), listing(&want), "{what}");
        assert_eq!(pixels(&c), pixels(&want), "{what}");
        assert_eq!(c.textures[0].mips.len(), 5, "{what}");
    }
}

/// Zen packages in generated IoStore containers: stored, zlib, encrypted, and partitioned into
/// 4 KiB `.ucas` files; one partition left out is an error naming it when read.
#[test]
fn generated_iostore_reads_back() {
    let mut rng = Rng(5);
    let (t, _) = ue::classic_texture("T_Zen", texscope::PixelFormat::BC7, 64, 64, 4, 1, &mut rng);
    let mut other = t.uzenasset.clone();
    // Its export's class made /Script/Engine.SoundWave: not a texture package.
    let tex = cx::script_class("Texture2D").to_le_bytes();
    let at = other.windows(8).position(|w| w == tex).unwrap();
    other[at..at + 8].copy_from_slice(&cx::script_class("SoundWave").to_le_bytes());
    let files: Vec<(String, Vec<u8>)> = vec![
        ("Tex/T_Zen.uasset".into(), t.uzenasset.clone()),
        ("Tex/T_Zen.ubulk".into(), t.ubulk.clone()),
        ("Other/S_Zen.uasset".into(), other),
    ];
    let want = texscope::open(
        vec![
            BytesSource::shared("T_Zen.uzenasset", t.uzenasset.clone()),
            BytesSource::shared("T_Zen.ubulk", t.ubulk.clone()),
        ],
        &Default::default(),
    );
    assert_eq!(want.textures.len(), 1);
    let key = AesKey::parse(KEY).unwrap();
    // (TOC version, AES-CTR, zlib, key, partition size): version 10 is UE 6.0's, with ECB or CTR.
    for (version, ctr, zlib, keyed, partition) in [
        (8, false, false, false, None),
        (8, false, true, false, None),
        (8, false, true, true, None),
        (8, false, false, false, Some(4096)),
        (8, false, true, true, Some(4096)),
        (10, false, true, true, None),
        (10, true, true, true, None),
        (10, true, false, true, Some(4096)),
        (9, false, true, false, None),
    ] {
        let what = format!("v{version} ctr={ctr} zlib={zlib} key={keyed} partition={partition:?}");
        let o = TocOptions {
            version,
            ctr,
            zlib,
            block_size: 4096,
            key: keyed.then(|| key.clone()),
            partition_size: partition,
            ..Default::default()
        };
        let out = cx::iostore(&files, &o);
        let mut sources = vec![BytesSource::shared("g/C.utoc", out.utoc.clone())];
        for k in 0..out.partitions {
            let n = if k == 0 {
                "g/C.ucas".to_string()
            } else {
                format!("g/C_s{k}.ucas")
            };
            sources.push(BytesSource::shared(n, out.ucas(k)));
        }
        if partition.is_some() {
            assert!(out.partitions > 2, "{what}: {}", out.partitions);
        }
        let o = texscope::OpenOptions {
            aes_keys: keys(),
            ..Default::default()
        };
        let c = texscope::open(sources.clone(), &o);
        assert!(c.problems.is_empty(), "{what}: {:?}", c.problems);
        assert_eq!(listing(&c), listing(&want), "{what}");
        assert_eq!(pixels(&c), pixels(&want), "{what}");
        if partition.is_some() {
            // Without its last partition: the texture still lists (its header is in the first),
            // and a mip whose blocks live in the missing file says to drop it.
            let last = sources.len() - 1;
            let missing = format!("g/C_s{}.ucas", out.partitions - 1);
            sources.remove(last);
            let c = texscope::open(sources, &o);
            let errs: Vec<String> = (0..c.textures.len())
                .flat_map(|i| (0..c.textures[i].mips.len()).map(move |m| (i, m)))
                .filter_map(|(i, m)| c.decode(i, m, 0, Default::default()).err())
                .map(|e| e.to_string())
                .chain(c.problems.iter().map(|p| p.error.clone()))
                .collect();
            assert!(
                errs.iter().any(|e| e.contains(&format!("drop {missing}"))),
                "{what}: {errs:?}"
            );
        }
    }
}

/// The Android pak (MANIFEST: ASTC 4x4/6x6/8x8/10x10/12x12, an ASTC normal map, ETC2 RGB/RGBA,
/// EAC R11/RG11, each 64²): every package is found as a texture package by its class; each is
/// listed or (until UE 5.8 legacy summaries parse, issue 18) a problem naming the pak and path.
#[test]
fn android_pak_finds_its_textures() {
    for &(set, _, _) in SETS {
        let p = root(set).join("AndroidPak");
        let c = open_dir(&p, false);
        let mut paths: Vec<String> = c
            .textures
            .iter()
            .map(|t| t.path.clone().unwrap())
            .chain(c.problems.iter().map(|p| {
                assert!(p.file.ends_with("Android-Textures.pak"), "{}", p.file);
                p.path.clone().unwrap_or_else(|| panic!("{}", p.error))
            }))
            .collect();
        paths.sort();
        paths.dedup();
        assert!(paths.len() >= 9, "{paths:#?}");
        assert!(paths.iter().all(|p| p.ends_with(".uasset")), "{paths:#?}");
    }
}

/// The Android textures list with the formats the MANIFEST names, 64x64 each.
#[test]
fn android_pak_formats() {
    for &(set, _, _) in SETS {
        let c = open_dir(&root(set).join("AndroidPak"), false);
        assert!(c.problems.is_empty(), "{:#?}", c.problems);
        let formats: std::collections::BTreeSet<String> = c
            .textures
            .iter()
            .map(|t| t.format.name().to_string())
            .collect();
        for f in [
            "ASTC_4x4",
            "ASTC_6x6",
            "ASTC_8x8",
            "ASTC_10x10",
            "ASTC_12x12",
        ] {
            assert!(formats.iter().any(|x| x.contains(f)), "{f}: {formats:?}");
        }
        assert!(formats.iter().any(|x| x.contains("ETC2")), "{formats:?}");
        assert!(
            formats
                .iter()
                .any(|x| x.contains("EAC") || x.contains("R11")),
            "{formats:?}"
        );
        for t in &c.textures {
            assert_eq!((t.width, t.height), (64, 64), "{}", t.name);
        }
    }
}

/// The Android pak's textures decode to their source images (MANIFEST: "each from a source image
/// below"; the sources are 64² as the textures). Which source each comes from follows its name and
/// format (ETC2 RGB from rgb.png, one-channel EAC R11 from grayscale.png, the two-channel EAC RG11 and
/// the ASTC normal map from normal.png, the other ASTC and ETC2 RGBA from rgba.png). Channel pairs
/// are (decoded, source): UE's ASTC normal map stores x in red and y in alpha (NormalEncoding::Ra).
/// The floors are the PSNRs measured at main 8e0df48 (52.4, 43.2, 43.1, 31.3, 31.1, 70.8, 49.5,
/// 50.8, 47.4 dB; RG11 equal) less about 3 dB: the encoders' loss, which grows with
/// the ASTC block size (10x10 and 12x12 lose detail at 64²), not a property of our decoder; the
/// decoders themselves are held to astcenc and texture2ddecoder exactly (tests/codec_*.rs).
/// One texture of the Android pak: its name, its source image, the (decoded, source) channel pairs
/// compared, and the PSNR floor in dB.
type PakSource<'a> = (&'a str, &'a str, &'a [(usize, usize)], f64);

#[test]
fn android_pak_decodes_to_its_sources() {
    for &(set, _, _) in SETS {
        let c = open_dir(&root(set).join("AndroidPak"), false);
        let table: &[PakSource] = &[
            (
                "T_ASTC_4x4",
                "rgba.png",
                &[(0, 0), (1, 1), (2, 2), (3, 3)],
                49.0,
            ),
            (
                "T_ASTC_6x6",
                "rgba.png",
                &[(0, 0), (1, 1), (2, 2), (3, 3)],
                40.0,
            ),
            (
                "T_ASTC_8x8",
                "rgba.png",
                &[(0, 0), (1, 1), (2, 2), (3, 3)],
                40.0,
            ),
            (
                "T_ASTC_10x10",
                "rgba.png",
                &[(0, 0), (1, 1), (2, 2), (3, 3)],
                28.0,
            ),
            (
                "T_ASTC_12x12",
                "rgba.png",
                &[(0, 0), (1, 1), (2, 2), (3, 3)],
                28.0,
            ),
            ("T_ASTC_Normal", "normal.png", &[(0, 0), (3, 1)], 67.0),
            ("T_ETC2_RGB", "rgb.png", &[(0, 0), (1, 1), (2, 2)], 46.0),
            (
                "T_ETC2_RGBA",
                "rgba.png",
                &[(0, 0), (1, 1), (2, 2), (3, 3)],
                47.0,
            ),
            ("T_EAC_R11", "grayscale.png", &[(0, 0)], 44.0),
            ("T_EAC_RG11", "normal.png", &[(0, 0), (1, 1)], 60.0),
        ];
        assert_eq!(c.textures.len(), table.len(), "{:#?}", c.problems);
        for (name, src, pairs, floor) in table {
            let i = c
                .textures
                .iter()
                .position(|t| t.name == *name)
                .unwrap_or_else(|| panic!("{name} is not listed"));
            let got = c.decode(i, 0, 0, Default::default()).unwrap().to_rgba8();
            let (_, _, want) = common::read_png_rgba8(&root(set).join("SourceTextures").join(src));
            assert_eq!(got.len(), want.len(), "{name}");
            // Each decoded channel moved to its source channel's place, then PSNR over those.
            let mut moved = vec![0u8; got.len()];
            for (m, g) in moved.chunks_exact_mut(4).zip(got.chunks_exact(4)) {
                for &(a, b) in pairs.iter() {
                    m[b] = g[a];
                }
            }
            let chans: Vec<usize> = pairs.iter().map(|p| p.1).collect();
            let db = common::psnr(&moved, &want, &chans);
            eprintln!("{name} vs {src} {pairs:?}: {db:.1} dB");
            assert!(db >= *floor, "{name} vs {src}: {db:.1} dB < {floor} dB");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// UE 6.0 bad input (issue 31): version fields nobody knows get a sentence naming the file, never
// a guess; truncated and bit-flipped v10 TOCs and v15 paks fail cleanly.

/// The UE 6.0 encrypted containers' bytes (TOC v10 / pak v15, AES-CTR; MANIFEST).
fn ue60_ctr_files() -> (Vec<u8>, Vec<u8>) {
    let r = root("UE6_0");
    let toc = std::fs::read(r.join(
        "IoStore/Unversioned/OodleEncrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc",
    ))
    .unwrap();
    let pak = std::fs::read(r.join(
        "LegacyPak/Unversioned/OodleEncrypted/CUE4ParseFixtures-Legacy-Unversioned-OodleEncrypted.pak",
    ))
    .unwrap();
    (toc, pak)
}

/// The version field rewritten to values no engine wrote (0, one past the newest known, 2^31 for
/// the pak's i32 and 255 for the TOC's byte): the error names the file and says which versions
/// are read. Where the fields lie: the TOC's version is the byte after its 16-byte magic
/// (FIoStoreTocHeader); the pak's is the i32 after the footer's magic, 262 - 21 bytes from the end
/// of a v15 pak (see src/unreal/pak.rs).
#[test]
fn unknown_versions_get_a_sentence() {
    let l = Limits::default();
    let (toc, pak) = ue60_ctr_files();
    for v in [0u8, 11, 255] {
        let mut b = toc.clone();
        b[16] = v;
        let src: SourceRef = Arc::new(BytesSource::new("X.utoc", b));
        let e = iostore::open(&src, |_| None, &keys(), &l).err().unwrap();
        assert_eq!(
            e.to_string(),
            format!("X.utoc: TOC version {v}; Texscope reads versions 1 to 10 (UE4.25 to UE6.0)")
        );
    }
    let at = pak.len() - 262 + 21;
    for v in [0i32, 16, i32::MIN] {
        let mut b = pak.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        let src: SourceRef = Arc::new(BytesSource::new("X.pak", b));
        assert!(pak::sniff(src.as_ref(), &l), "{v}: still named a pak");
        let e = pak::open(&src, &keys(), &l).err().unwrap();
        assert_eq!(
            e.to_string(),
            format!("X.pak: pak version {v}; Texscope reads versions 1 to 15 (UE4.0 to UE6.0)")
        );
    }
}

/// A package stating a newer version than any Texscope knows gets one sentence, never a read with
/// the newest layout. The packages are the UE 6.0 set's own (shared samples: a versioned zen
/// T_BC1 from the Tagged IoStore and a versioned legacy T_BC6H from the UE 5.8 Tagged LegacyPak,
/// both stating FileVersionUE5 1018 and FileVersionUE4 522, read off their headers at the offsets
/// the tests patch), with the version raised by one; unchanged, each lists its texture (control).
#[test]
fn unknown_package_versions_get_a_sentence() {
    let tex = |set: &str, kind: &str, name: &str, ext: &str| {
        let dir = root(set).join("_extracted").join(kind).join("Tagged");
        let p = dir
            .join("CUE4ParseFixtures/Content/Fixtures/Textures")
            .join(format!("{name}.{ext}"));
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let zen = tex("UE6_0", "IoStore", "T_BC1", "uasset");
    let legacy = tex("UE5_8", "LegacyPak", "T_BC6H", "uasset");
    let uexp = tex("UE5_8", "LegacyPak", "T_BC6H", "uexp");
    // (file bytes, offset of FileVersionUE4, then UE5, as read off the two headers)
    for (name, bytes, at, extra) in [
        ("T_BC1.uasset", &zen, 0x38usize, None),
        ("T_BC6H.uasset", &legacy, 0x0c, Some(("T_BC6H.uexp", &uexp))),
    ] {
        let open = |b: Vec<u8>| {
            let mut srcs: Vec<SourceRef> = vec![BytesSource::shared(name, b)];
            if let Some((n, x)) = extra {
                srcs.push(BytesSource::shared(n, x.clone()));
            }
            texscope::open(srcs, &Default::default())
        };
        assert_eq!(
            i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()),
            522
        );
        assert_eq!(
            i32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()),
            1018
        );
        assert_eq!(open(bytes.clone()).textures.len(), 1, "{name}: control");
        for (off, v, want) in [
            (4, 1019i32, format!("{name}: package version UE5 1019; Texscope reads UE5 package versions 1000 to 1018 (UE 5.0 to UE 6.0)")),
            (0, 523, format!("{name}: package version UE4 523; Texscope reads UE4 package versions up to 522 (UE 4.27, which UE5 packages also state)")),
        ] {
            let mut b = bytes.clone();
            b[at + off..at + off + 4].copy_from_slice(&v.to_le_bytes());
            let c = open(b);
            assert!(c.textures.is_empty(), "{name} {v}");
            assert!(
                c.problems.iter().any(|p| p.error == want),
                "{name} {v}: {:?}",
                c.problems.iter().map(|p| &p.error).collect::<Vec<_>>()
            );
        }
    }
}

/// Every cut of the v10 TOC and the v15 pak, and single bit flips through their headers, tables
/// and footers, give an error or a smaller listing, never a panic; with the right key the intact
/// files list everything (the control).
#[test]
fn truncated_and_flipped_ue60_containers_fail_cleanly() {
    let l = Limits::default();
    let (toc, pak) = ue60_ctr_files();
    let open_toc = |b: Vec<u8>| {
        let src: SourceRef = Arc::new(BytesSource::new("T.utoc", b));
        iostore::open(&src, |_| None, &keys(), &l).map(|t| t.files.len())
    };
    let open_pak = |b: Vec<u8>| {
        let src: SourceRef = Arc::new(BytesSource::new("P.pak", b));
        pak::open(&src, &keys(), &l).map(|p| p.entries.len())
    };
    // 97 packages and 14 bulk sidecars (the fixtures' README), 11 legacy files (README).
    assert_eq!(open_toc(toc.clone()).unwrap(), 111);
    assert_eq!(open_pak(pak.clone()).unwrap(), 11);
    for cut in (0..toc.len()).step_by(97) {
        if let Err(e) = open_toc(toc[..cut].to_vec()) {
            assert!(e.to_string().starts_with("T.utoc"), "{e}");
        }
    }
    for cut in (0..pak.len()).step_by(89) {
        if let Err(e) = open_pak(pak[..cut].to_vec()) {
            assert!(e.to_string().starts_with("P.pak"), "{e}");
        }
    }
    for bit in (0..toc.len() * 8).step_by(61) {
        let mut b = toc.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        let _ = open_toc(b);
    }
    for bit in ((pak.len() - 600) * 8..pak.len() * 8).step_by(7) {
        let mut b = pak.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        let _ = open_pak(b);
    }
}

/// Containers as users drop them (issue 31): an IoStore container without any of its .ucas files
/// (a patch TOC dropped alone) is one line naming the .ucas to drop, not one error per package; a
/// `_P` patch pak dropped without its base opens alone. Both sets.
#[test]
fn partial_drops_say_one_thing_per_container() {
    for &(set, _, _) in SETS {
        let utoc = root(set)
            .join("IoStore/Unversioned/Oodle/CUE4ParseFixtures-Minimal-Oodle-Windows.utoc");
        let c = texscope::open(vec![file(&utoc)], &Default::default());
        assert!(c.textures.is_empty(), "{set}");
        assert_eq!(c.problems.len(), 1, "{set}: {:#?}", c.problems);
        let e = &c.problems[0].error;
        assert!(
            e.contains("drop") && e.contains("CUE4ParseFixtures-Minimal-Oodle-Windows.ucas"),
            "{set}: {e}"
        );
        // The patch pak alone: DA_PatchTarget's .uasset and .uexp (see patches_override_their_base).
        let p = root(set).join("Patch/Pak/CUE4ParseFixtures-PatchBase_0_P.pak");
        let pak = pak::open(&file(&p), &Keys::default(), &Limits::default()).unwrap();
        assert_eq!(pak.entries.len(), 2, "{set}");
    }
}

/// `OpenOptions::only` (a share link to one texture inside a container, the CLI's --only): the
/// container's index is read, then only the named package, never the 201 packages before it.
/// The fixture (src/fixtures/containers.rs `far_container`) puts every other package before a
/// hole and T_Far after it, so "read nothing of the other packages" is "read no byte of the
/// .ucas before `far_at`"; T_Far's pixels are the writer's input (B, G, R, A per texel).
#[test]
fn only_opens_the_named_package_and_reads_nothing_of_the_others() {
    use texscope::fixtures::containers::{far_container, Props};
    only_opens_the_named_package(far_container(
        1 << 20,
        &Props::PACKED,
        &mut texscope::fixtures::unreal::Rng(7),
    ));
    // The other packages are 128x128 textures with a hole before each: the full open reads each
    // one's first block.
    let spread = Props {
        format: texscope::PixelFormat::BGRA8,
        side: 128,
        mips: 8,
        spread: 100_000,
    };
    only_opens_the_named_package(far_container(
        0,
        &spread,
        &mut texscope::fixtures::unreal::Rng(8),
    ));
}

fn only_opens_the_named_package(fx: texscope::fixtures::containers::FarContainer) {
    use texscope::fixtures::containers::FAR_SIDE;
    let end = fx
        .toc
        .pieces
        .iter()
        .map(|(_, at, b)| at + b.len() as u64)
        .max()
        .unwrap();
    let mut ucas = vec![0u8; end as usize];
    for (_, at, b) in &fx.toc.pieces {
        ucas[*at as usize..*at as usize + b.len()].copy_from_slice(b);
    }
    let utoc = counted("Remote.utoc", fx.toc.utoc.clone());
    let cas = counted("Remote.ucas", ucas);
    let sources = || vec![utoc.clone() as SourceRef, cas.clone() as SourceRef];
    // Every user file's first bytes are read once to tell what it is (`texscope::HEAD_LEN`, the
    // engines' shared probe); past those, the .ucas reads tell which packages were looked at.
    let before_far = |log: &[(u64, u64)]| {
        log.iter()
            .filter(|&&(at, n)| at < fx.far_at && (at, n) != (0, texscope::HEAD_LEN))
            .count()
    };
    let read = |log: &[(u64, u64)]| log.iter().map(|(_, n)| n).sum::<u64>();

    // The full open reads every package's header (all before the hole).
    let full = texscope::open(sources(), &Default::default());
    let full_log = cas.take();
    utoc.take();
    let mut names: Vec<&str> = full.textures.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["T_Far", "T_First"]);
    assert!(!full.narrowed);
    assert!(before_far(&full_log) > 0);
    // At least the first block of every package before T_Far (the writer's sum).
    assert!(read(&full_log) >= fx.header_blocks);

    // By texture name (what old share links carry), by path inside the container (what new ones
    // carry: census `path`, the mount point's ../../../ dropped), with or without extension.
    for only in [
        "T_Far",
        "t_far",
        "Game/Content/Far/T_Far.uasset",
        "Far/T_Far",
        "../../../Game/Content/Far/T_Far.uasset",
    ] {
        let o = texscope::OpenOptions {
            only: Some(only.into()),
            ..Default::default()
        };
        let cat = texscope::open(sources(), &o);
        let log = cas.take();
        let toc_read = read(&utoc.take());
        assert!(cat.narrowed, "{only}");
        assert!(cat.problems.is_empty(), "{only}: {:?}", cat.problems);
        let names: Vec<&str> = cat.textures.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["T_Far"], "{only}");
        assert_eq!(
            cat.textures[0].path.as_deref(),
            Some("Game/Content/Far/T_Far.uasset")
        );
        assert_eq!(before_far(&log), 0, "{only}: {log:?}");
        // The index: the .utoc once (it is a few KiB), read whole by the TOC reader.
        assert!(toc_read <= fx.toc.utoc.len() as u64, "{only}: {toc_read}");
        assert!(read(&log) < read(&full_log), "{only}");
        let img = cat.decode(0, 0, 0, Default::default()).unwrap();
        let texscope::Pixels::Rgba8(px) = img.pixels else {
            panic!("RGBA8 expected")
        };
        let want = &fx.far_mips[0];
        assert_eq!(want.len(), (FAR_SIDE * FAR_SIDE * 4) as usize);
        for (got, bgra) in px.chunks_exact(4).zip(want.chunks_exact(4)) {
            assert_eq!(got, [bgra[2], bgra[1], bgra[0], bgra[3]]);
        }
        cas.take();
    }

    // Nothing matches ("Far" is a folder, not a package; a name no package has): every package
    // is opened, as without the option, and the catalog says it was not narrowed.
    for only in ["Far", "T_Nowhere", "Far/T_Far.ubulk", ""] {
        let o = texscope::OpenOptions {
            only: Some(only.into()),
            ..Default::default()
        };
        let cat = texscope::open(sources(), &o);
        assert!(!cat.narrowed, "{only}");
        assert_eq!(cat.textures.len(), 2, "{only}");
        cas.take();
    }
}
