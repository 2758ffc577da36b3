//! Our Unity census over every shared Unity sample, compared with UnityPy 1.25.4's
//! (shared/samples/unity/unitypy_census.json: name, size, format id, mip and image counts, and the
//! sha256 of the RGBA UnityPy decodes for mip 0, rows top first).
//!
//! Files are opened one folder at a time, as a user drops a Data folder, so `level0` pairs with
//! its own `level0.resS`.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use texscope::io::{FileSource, SourceRef};
use texscope::model::NativeFormat;
use texscope::{Catalog, DecodeOptions, ErrorKind, PixelFormat, Texture};

fn samples() -> PathBuf {
    let rel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples/unity");
    if rel.exists() {
        return rel;
    }
    PathBuf::from("/work/shared/samples/unity")
}

/// The two raw decoder test-vector folders hold no Unity containers.
const SKIP: [&str; 2] = [
    "AssetRipper_TextureDecoder",
    "UniversalGameExtraction_texture2ddecoder",
];

fn folders(root: &Path) -> BTreeMap<PathBuf, Vec<PathBuf>> {
    let mut out: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                if !SKIP.contains(&name.as_str()) {
                    stack.push(p);
                }
            } else if d != root {
                out.entry(d.clone()).or_default().push(p);
            }
        }
    }
    out
}

fn open_folder(files: &[PathBuf]) -> Catalog {
    let srcs: Vec<SourceRef> = files
        .iter()
        .map(|p| Arc::new(FileSource::open(p).unwrap()) as SourceRef)
        .collect();
    texscope::open(srcs, &Default::default())
}

fn meta<'a>(t: &'a Texture, key: &str) -> Option<&'a str> {
    t.metadata
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Our decoded image (GPU convention, top row first) in UnityPy's convention: Pillow RGBA8.
/// Alpha8 needs nothing: UnityPy's Alpha8 is (0, 0, 0, a) like ours (both census Alpha8 textures
/// match). Floats (BC6H) are clamped to
/// 0..1 and rounded, which is what texture2ddecoder's 8-bit BC6H output is expected to be.
fn unitypy_rgba(format: PixelFormat, img: &texscope::Image) -> Vec<u8> {
    let mut px = img.to_rgba8();
    if format == PixelFormat::RGB565 {
        // Pillow's BGR;16 unpacker scales 5- and 6-bit values by v * 255 / 31 (or 63), truncating;
        // our codec rounds. Recover the stored bits from ours and scale them Pillow's way.
        for p in px.chunks_exact_mut(4) {
            for (c, max) in [(0, 31u32), (1, 63), (2, 31)] {
                let bits = (p[c] as u32 * max + 127) / 255;
                p[c] = (bits * 255 / max) as u8;
            }
        }
    }
    px
}

#[derive(Default)]
struct Tally {
    textures: usize,
    exact: usize,
    /// BC1/BC3: palette interpolation rounds differently between decoders (seed 004: within 1).
    bc_rounding: Vec<String>,
    /// BC6H float -> 8-bit conversion is UnityPy's own (not established).
    float_conv: Vec<String>,
    unsupported: BTreeMap<String, usize>,
    /// Crunched textures (ids 28/29/64/65) decoded to UnityPy's exact RGBA.
    crunched_exact: usize,
    empty_ok: usize,
    container_paths: usize,
    mismatches: Vec<String>,
}

#[test]
fn census_matches_unitypy() {
    let root = samples();
    assert!(
        root.exists(),
        "shared samples not found at {}",
        root.display()
    );
    let census: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("unitypy_census.json")).unwrap())
            .unwrap();
    let start = std::time::Instant::now();
    let mut tally = Tally::default();
    let mut ours: Vec<(String, Catalog)> = Vec::new();
    for files in folders(&root).values() {
        ours.push((String::new(), open_folder(files)));
    }
    let open_time = start.elapsed();

    // Every texture UnityPy lists, found by file, name and path id, with the same fields.
    let mut matched = 0;
    for entry in census.as_array().unwrap() {
        let file = entry["file"].as_str().unwrap();
        for want in entry["textures"].as_array().unwrap() {
            tally.textures += 1;
            let name = want["name"].as_str().unwrap();
            let path_id = want["path_id"].as_i64().unwrap().to_string();
            let hit = ours.iter().find_map(|(_, cat)| {
                cat.textures
                    .iter()
                    .position(|t| {
                        t.file.ends_with(file)
                            && t.name == name
                            && meta(t, "path id") == Some(path_id.as_str())
                    })
                    .map(|i| (cat, i))
            });
            let Some((cat, i)) = hit else {
                panic!("{file}: texture {name} (path id {path_id}) not found");
            };
            matched += 1;
            let t = &cat.textures[i];
            let what = format!("{file}: {name}");
            assert_eq!(t.width as i64, want["width"].as_i64().unwrap(), "{what}");
            assert_eq!(t.height as i64, want["height"].as_i64().unwrap(), "{what}");
            assert_eq!(
                t.native_format,
                NativeFormat::Id(want["format_id"].as_i64().unwrap()),
                "{what}"
            );
            // UnityPy gives no mip_count for 5.0's m_MipMap bool (null in the JSON).
            if let Some(n) = want["mip_count"].as_i64() {
                assert_eq!(t.mips.len() as i64, n, "{what}");
            }
            // UnityPy leaves image_count out for some textures (null in the JSON).
            if let Some(n) = want["image_count"].as_i64() {
                assert_eq!(
                    meta(t, "m_ImageCount"),
                    Some(n.to_string().as_str()),
                    "{what}"
                );
            }
            assert!(t.error.is_none(), "{what}: {:?}", t.error);
            // The serialized file's Unity version and format as UnityPy read them.
            let inn = want["in"].as_str().unwrap();
            let sf = entry["serialized"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"].as_str().unwrap().ends_with(inn))
                .unwrap();
            assert_eq!(
                meta(t, "Unity version"),
                sf["unity_version"].as_str(),
                "{what}"
            );
            let fv = format!("(format {})", sf["format_version"]);
            assert!(meta(t, "serialized file").unwrap().ends_with(&fv), "{what}");
            if meta(t, "container path").is_some() {
                tally.container_paths += 1;
            }
            check_decode(cat, i, want, &what, &mut tally);
        }
    }
    // And nothing we list that UnityPy does not.
    let total: usize = ours.iter().map(|(_, c)| c.textures.len()).sum();
    assert_eq!(total, matched, "we list textures UnityPy does not");
    let elapsed = start.elapsed();

    println!(
        "unity census: {} textures, {} decoded identically to UnityPy, {} empty with a clear message",
        tally.textures, tally.exact, tally.empty_ok
    );
    println!(
        "BC1/BC3 differing from UnityPy's hash (rounding, seed 004): {:?}",
        tally.bc_rounding
    );
    println!("BC6H differing (8-bit conversion): {:?}", tally.float_conv);
    println!("not decodable yet (Unsupported): {:?}", tally.unsupported);
    // The one crunched texture of the samples (atlas_test, ETC2_RGBA8Crunched, Unity's fork)
    // decodes to UnityPy's bytes exactly (UnityPy 1.25.4 unpacks it with texture2ddecoder natively).
    println!("crunched, identical to UnityPy: {}", tally.crunched_exact);
    assert!(
        tally.crunched_exact >= 1,
        "the crunched sample did not match UnityPy"
    );
    println!(
        "with a container path from m_Container: {}",
        tally.container_paths
    );
    println!("open {open_time:?}, whole census incl. decoding {elapsed:?}");
    assert!(tally.mismatches.is_empty(), "{:#?}", tally.mismatches);
    stripped_layout_table_matches_every_type_tree(&ours);
}

fn check_decode(cat: &Catalog, i: usize, want: &serde_json::Value, what: &str, tally: &mut Tally) {
    let t = &cat.textures[i];
    let res = cat.decode(i, 0, 0, DecodeOptions::default());
    let Some(sha) = want["rgba_sha256"].as_str() else {
        // UnityPy failed (0x0 font textures): we must say why, not fail obscurely.
        let e = res.expect_err(what);
        assert!(
            e.to_string().contains("empty") && t.width == 0,
            "{what}: {e}"
        );
        tally.empty_ok += 1;
        return;
    };
    match res {
        Ok(img) => {
            let got = hex(&Sha256::digest(unitypy_rgba(t.format, &img)));
            if got == sha {
                tally.exact += 1;
                if meta(t, "crunched") == Some("yes") {
                    tally.crunched_exact += 1;
                }
            } else if matches!(t.format, PixelFormat::BC1 | PixelFormat::BC3) {
                tally.bc_rounding.push(what.to_string());
            } else if t.format == PixelFormat::BC6HU {
                tally.float_conv.push(what.to_string());
            } else {
                tally
                    .mismatches
                    .push(format!("{what}: {} decodes differently", t.format.name()));
            }
        }
        Err(e) if e.kind == ErrorKind::Unsupported => {
            *tally.unsupported.entry(t.format.name()).or_default() += 1;
        }
        Err(e) => tally.mismatches.push(format!("{what}: {e}")),
    }
}

/// The stripped-file layout table (src/unity/layout.rs) against every player or bundle build
/// among the samples that carries a type tree: the table's nodes must be the tree's (type, name,
/// level, array, align flag), and reading each texture with the tree and with the table must give
/// the same fields. Editor files (Library/metadata, platform -2) are left out: they carry
/// editor-only fields and always have their tree.
///
/// Run from the census test over its catalogs, so the samples are opened (and their LZMA
/// bundles decompressed) once.
fn stripped_layout_table_matches_every_type_tree(cats: &[(String, Catalog)]) {
    use texscope::unity::{layout, serialized, texture, typetree};
    let limits = texscope::Limits::default();
    let mut compared = BTreeMap::new();
    for (_, cat) in cats {
        let mut id = 0;
        while let Some(src) = cat.source(id) {
            id += 1;
            let head = texscope::io::read_up_to(src.as_ref(), 0, 64, &limits).unwrap();
            if !serialized::sniff(&head, src.len()) {
                continue;
            }
            let sf = serialized::parse(src.as_ref(), &limits).unwrap();
            if !sf.type_tree || sf.platform == -2 {
                continue;
            }
            for o in &sf.objects {
                if o.class_id != 28 && o.class_id != 89 {
                    continue;
                }
                let tree = &sf.types[o.type_index.unwrap()].nodes;
                let table = layout::texture_nodes(o.class_id, &sf.unity_version).unwrap();
                let key = |n: &serialized::Node| {
                    (
                        n.level,
                        n.type_name.clone(),
                        n.name.clone(),
                        n.is_array,
                        n.align(),
                    )
                };
                // A Cubemap's tree goes on with m_SourceTextures, which the table leaves out.
                let tree_keys: Vec<_> = tree.iter().take(table.len()).map(key).collect();
                let table_keys: Vec<_> = table.iter().map(key).collect();
                assert_eq!(tree_keys, table_keys, "{} {}", src.name(), sf.unity_version);
                if o.class_id == 28 {
                    assert_eq!(tree.len(), table.len(), "{}", src.name());
                }
                let read = |nodes| {
                    let v = typetree::read_object(
                        src.as_ref(),
                        o.offset,
                        o.size,
                        sf.endian,
                        nodes,
                        &limits,
                    )
                    .unwrap();
                    texture::fields(&v).unwrap()
                };
                assert_eq!(read(tree), read(&table), "{} {}", src.name(), o.path_id);
                *compared.entry(sf.unity_version.clone()).or_insert(0) += 1;
            }
        }
    }
    println!("layout table checked against type trees: {compared:?}");
    // The player/bundle versions of the samples with a type tree and textures (MANIFEST.md).
    assert!(compared.len() >= 12, "{compared:?}");
}

/// A player's level0 opened without its level0.resS: the Cubemap is listed, its levels are
/// Missing naming level0.resS with its size (131232 bytes: MANIFEST.md / UnityPy's m_StreamData),
/// decoding says which file to drop; dropping it later (Catalog::add) completes the texture.
#[test]
fn missing_ress_names_the_file_and_resolves_when_dropped_later() {
    let dir = samples().join("liuruihhh_unityrenderer/Build/UnityRenderer_Data");
    let cat = open_folder(&[dir.join("level0")]);
    assert_eq!(cat.textures.len(), 1);
    let t = &cat.textures[0];
    assert_eq!(t.class, "Cubemap");
    assert_eq!(t.slices, 6);
    let total: u64 = t
        .mips
        .iter()
        .flat_map(|m| &m.surfaces)
        .map(|s| match s {
            texscope::Storage::Missing { file, length } => {
                assert_eq!(file, "level0.resS");
                *length
            }
            other => panic!("expected Missing, got {other:?}"),
        })
        .sum();
    assert_eq!(total, 131232);
    let e = cat.decode(0, 0, 0, DecodeOptions::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MissingSibling);
    assert!(e.to_string().contains("drop level0.resS"), "{e}");

    let more: Vec<SourceRef> = vec![Arc::new(
        FileSource::open(&dir.join("level0.resS")).unwrap(),
    )];
    let cat = cat.add(more);
    assert!(cat.textures[0].mips_present().iter().all(|&p| p));
    let img = cat.decode(0, 0, 0, DecodeOptions::default()).unwrap();
    assert_eq!((img.width, img.height), (128, 128));
    assert!(cat.problems.is_empty(), "{:?}", cat.problems);
}

/// Bad input is normal input: every sample kind cut short at several points opens without a
/// panic, and whatever is listed either decodes or fails with an error naming the file.
#[test]
fn truncated_samples_give_errors_not_panics() {
    let root = samples();
    for rel in [
        "Valheim-Modding_Jotunn/JotunnLib/Unity/AssetBundles/jotunn", // UnityFS, LZMA
        "Unity-Technologies_UnityDataTools/TestCommon/Data/WebBundles/HelloWorld.data", // WebData + LZ4HC
        "lite3_unitytest/Assets/StreamingAssets/OSX/cubeatlas",                         // UnityWeb
        "0kk470_Unity-Shaders-Book/Library/metadata/6b/6b945ab995b019f488dc7b846120672f", // loose
    ] {
        let data = std::fs::read(root.join(rel)).unwrap();
        for cut in [8, 30, 60, 100, 300, 1000, data.len() / 2, data.len() - 1] {
            let name = format!("{rel}@{cut}");
            let src: SourceRef =
                texscope::io::BytesSource::shared(name.clone(), data[..cut].to_vec());
            let cat = texscope::open(vec![src], &Default::default());
            assert!(
                !cat.problems.is_empty() || !cat.textures.is_empty(),
                "{name}: neither listed nor refused"
            );
            for i in 0..cat.textures.len() {
                if let Err(e) = cat.decode(i, 0, 0, DecodeOptions::default()) {
                    assert!(e.to_string().contains(rel), "{name}: {e}");
                }
            }
        }
    }
}
