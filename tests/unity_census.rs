//! Our Unity census over every shared Unity sample, compared with UnityPy 1.25.4's
//! (shared/samples/unity/unitypy_census.json: name, size, format id, mip and image counts, and the
//! sha256 of the RGBA UnityPy decodes for mip 0, rows top first).
//!
//! Files are opened one folder at a time, as a user drops a Data folder, so `level0` pairs with
//! its own `level0.resS`.

mod common;
use common::{counted_over, samples, unitypy_pixels};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use texscope::io::{FileSource, SourceRef};
use texscope::model::NativeFormat;
use texscope::{Catalog, DecodeOptions, ErrorKind, PixelFormat, Texture};

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
    /// ASTC textures whose decode hashes equal UnityPy's (texture2ddecoder's ASTC decoder).
    astc_exact: usize,
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
    let root = samples().join("unity");
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
    // unitypy_census.json lists 4 ASTC textures (ASTC_RGB_4x4, 2x ASTC_RGB_6x6, ASTC_RGBA_6x6): all
    // must hash equal to UnityPy's decode (any other outcome lands in mismatches or unsupported).
    assert_eq!(tally.astc_exact, 4, "ASTC textures equal to UnityPy");
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
                if matches!(t.format, PixelFormat::ASTC { .. }) {
                    tally.astc_exact += 1;
                }
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
    let dir = samples()
        .join("unity")
        .join("liuruihhh_unityrenderer/Build/UnityRenderer_Data");
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
    let root = samples().join("unity");
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

/// Our image in Pillow's RGBA8 for BC6H: UnityPy decodes BC6H through Pillow's BcnDecode.c, which
/// clamps each float to 0..1 and truncates v * 255 (its `bc6_clamp`); alpha is 255 (mode RGB).
fn pillow_bc6h(img: &texscope::Image) -> Vec<u8> {
    let texscope::Pixels::Rgba32F(f) = &img.pixels else {
        panic!("BC6H decodes to floats");
    };
    f.chunks_exact(4)
        .flat_map(|p| {
            let c = |v: f32| (v.clamp(0.0, 1.0) * 255.0) as u8;
            [c(p[0]), c(p[1]), c(p[2]), 255]
        })
        .collect()
}

fn psnr(a: &[u8], b: &[u8]) -> f64 {
    let se: f64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (x as f64 - y as f64).powi(2))
        .sum();
    if se == 0.0 {
        return f64::INFINITY;
    }
    10.0 * (255.0f64 * 255.0 * a.len() as f64 / se).log10()
}

/// Per format: textures compared, max channel difference, lowest PSNR.
#[derive(Default, Debug)]
struct FormatDiff {
    textures: usize,
    max_diff: u8,
    min_psnr: f64,
}

/// Mip 0 of every texture UnityPy decodes, compared per pixel with ours (both RGBA8, rows top
/// first). Expected values: UnityPy 1.25.4's own output (tests/unity/unitypy_decode.py; its
/// sha256s equal shared/samples/unity/unitypy_census.json's, which the test checks). Exact for every
/// format, except:
/// - DXT1/DXT5: within 1 per channel (seed 004: palette interpolation rounds differently between
///   decoders; UnityPy's is Pillow's integer (2a+b)/3).
/// - RGB565: exact after scaling our stored bits Pillow's way (v*255/31 truncated, see
///   `unitypy_rgba`); the raw difference is reported too.
/// - BC6H: UnityPy goes through Pillow, which interpolates endpoints without the spec's +32
///   rounding and clamps to 8 bits (`pillow_bc6h`); after the same clamp and truncation, within 1
///   per channel and a PSNR floor of 60 dB (measured: max 1, lowest 69.5 dB on the 3 cubemaps).
/// - ASTC, PVRTC, crunched: decoded elsewhere (other branches) or not at all; when ours decodes,
///   a PSNR floor of 30 dB (UnityPy uses different decoders: astc-encoder, texture2ddecoder).
#[test]
fn pixels_match_unitypy() {
    let root = samples().join("unity");
    let Some((out, index)) = unitypy_pixels(&root) else {
        return;
    };
    let census: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("unitypy_census.json")).unwrap())
            .unwrap();
    let cats: Vec<Catalog> = folders(&root).values().map(|f| open_folder(f)).collect();
    let mut per_format: BTreeMap<String, FormatDiff> = BTreeMap::new();
    let mut raw_565 = 0u8;
    let mut unsupported = BTreeMap::<String, usize>::new();
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut containers = (0, Vec::new());
    let mut as_stored = 0;
    for rec in &index {
        let file = rec["file"].as_str().unwrap();
        let path_id = rec["path_id"].as_i64().unwrap().to_string();
        let what = format!("{file}: {}", rec["name"]);
        // The container path (m_Container of the bundle's AssetBundle) as UnityPy gives it.
        let ours = cats.iter().find_map(|c| {
            c.textures
                .iter()
                .find(|t| t.file.ends_with(file) && meta(t, "path id") == Some(&path_id))
        });
        let ours = ours.and_then(|t| meta(t, "container path"));
        if ours == rec["container"].as_str() {
            containers.0 += ours.is_some() as usize;
        } else {
            containers.1.push(format!(
                "{what}: ours {ours:?}, UnityPy {}",
                rec["container"]
            ));
        }
        let Some(raw) = rec["rgba"].as_str() else {
            continue;
        };
        let want = std::fs::read(out.join(raw)).unwrap();
        // The script's UnityPy is the census's: same bytes as the recorded sha256.
        let sha = census
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["file"] == file)
            .flat_map(|e| e["textures"].as_array().unwrap())
            .find(|t| t["path_id"] == rec["path_id"])
            .and_then(|t| t["rgba_sha256"].as_str())
            .unwrap_or_else(|| panic!("{what} not in the census"));
        assert_eq!(hex(&Sha256::digest(&want)), sha, "{what}");
        let (cat, i) = cats
            .iter()
            .find_map(|c| {
                c.textures
                    .iter()
                    .position(|t| t.file.ends_with(file) && meta(t, "path id") == Some(&path_id))
                    .map(|i| (c, i))
            })
            .unwrap_or_else(|| panic!("{what}: not found by us"));
        let t = &cat.textures[i];
        let img = match cat.decode(i, 0, 0, DecodeOptions::default()) {
            Ok(img) => img,
            Err(e) if e.kind == ErrorKind::Unsupported => {
                *unsupported.entry(t.format.name()).or_default() += 1;
                continue;
            }
            Err(e) => panic!("{what}: {e}"),
        };
        let ours = match t.format {
            PixelFormat::BC6HU => pillow_bc6h(&img),
            f => unitypy_rgba(f, &img),
        };
        assert_eq!(ours.len(), want.len(), "{what}: size");
        if t.format == PixelFormat::RGB565 {
            let plain = img.to_rgba8();
            raw_565 = raw_565.max(diff_max(&plain, &want));
        }
        let max = diff_max(&ours, &want);
        let p = psnr(&ours, &want);
        let d = per_format.entry(t.format.name()).or_insert(FormatDiff {
            min_psnr: f64::INFINITY,
            ..Default::default()
        });
        d.textures += 1;
        d.max_diff = d.max_diff.max(max);
        d.min_psnr = d.min_psnr.min(p);
        let ok = match t.format {
            PixelFormat::BC1 | PixelFormat::BC3 => max <= 1,
            PixelFormat::BC6HU => max <= 1 && p >= 60.0,
            PixelFormat::ASTC { .. }
            | PixelFormat::PVRTC2RGB
            | PixelFormat::PVRTC2RGBA
            | PixelFormat::PVRTC4RGB
            | PixelFormat::PVRTC4RGBA => p >= 30.0,
            _ if meta(t, "crunched").is_some() => p >= 30.0,
            _ => max == 0,
        };
        // "As stored" keeps Unity's bottom-first rows: UnityPy's top-first image upside down
        // (checked where ours is exact, on textures up to 256x256 to keep the test quick).
        if ok && max == 0 && img.width * img.height <= 65536 {
            let stored = cat
                .decode(i, 0, 0, DecodeOptions { as_stored: true })
                .unwrap();
            let row = img.width as usize * 4;
            let flipped: Vec<u8> = want.chunks_exact(row).rev().flatten().copied().collect();
            let stored = match t.format {
                PixelFormat::BC6HU => pillow_bc6h(&stored),
                f => unitypy_rgba(f, &stored),
            };
            if stored != flipped {
                failures.push(format!(
                    "{what}: as stored is not UnityPy's image upside down"
                ));
            }
            as_stored += 1;
        }
        if !ok {
            failures.push(format!(
                "{what}: {} max difference {max}, PSNR {p:.1} dB",
                t.format.name()
            ));
        }
        compared += 1;
    }
    let _ = std::fs::remove_dir_all(&out);
    println!("per-pixel against UnityPy: {compared} textures");
    for (f, d) in &per_format {
        println!(
            "  {f}: {} textures, max channel difference {}, lowest PSNR {:.1} dB",
            d.textures, d.max_diff, d.min_psnr
        );
    }
    println!("  RGB565 before Pillow's 5/6-bit scaling: max difference {raw_565}");
    println!("  not decodable by us yet: {unsupported:?}");
    println!(
        "  container paths equal to UnityPy's: {}, differing: {:#?}",
        containers.0, containers.1
    );
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(compared >= 100, "only {compared} compared");
    assert!(containers.1.is_empty());
    println!("  as stored (bottom first) checked on {as_stored} textures");
    assert!(as_stored >= 50, "{as_stored}");
}

fn diff_max(a: &[u8], b: &[u8]) -> u8 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| x.abs_diff(y))
        .max()
        .unwrap_or(0)
}

/// A player's sharedassets0.assets (stripped: no type tree) whose header version is blanked the
/// way some builds write it ("0.0…", same length so nothing moves): alone it cannot be read and
/// says why; with the version the user picks (OpenOptions::unity_version, the CLI's
/// --unity-version) its textures read as with the real header. Expected: the census entry for the
/// unmodified file (UnityPy: 32x32 RGBA32 UISprite, its RGBA sha256).
#[test]
fn user_chosen_unity_version_reads_a_file_that_says_none() {
    let dir = samples()
        .join("unity")
        .join("liuruihhh_unityrenderer/Build/UnityRenderer_Data");
    let mut data = std::fs::read(dir.join("sharedassets0.assets")).unwrap();
    let at = data
        .windows(13)
        .position(|w| w == b"2021.1.28f1c1")
        .unwrap();
    data[at..at + 13].copy_from_slice(b"0.0.000000000");
    let srcs = || -> Vec<SourceRef> {
        vec![
            texscope::io::BytesSource::shared("sharedassets0.assets", data.clone()),
            Arc::new(FileSource::open(&dir.join("sharedassets0.assets.resS")).unwrap()),
        ]
    };
    let cat = texscope::open(srcs(), &Default::default());
    assert!(cat.textures.is_empty());
    assert!(
        cat.problems
            .iter()
            .any(|p| p.error.contains("does not say its Unity version")),
        "{:?}",
        cat.problems
    );

    let options = texscope::OpenOptions {
        unity_version: Some("2021.1.28f1c1".into()),
        ..Default::default()
    };
    let cat = texscope::open(srcs(), &options);
    assert_eq!(cat.textures.len(), 2, "{:?}", cat.problems);
    let i = cat
        .textures
        .iter()
        .position(|t| t.name == "UISprite")
        .unwrap();
    let t = &cat.textures[i];
    assert_eq!((t.width, t.height, t.mips.len()), (32, 32, 6));
    assert_eq!(meta(t, "Unity version"), Some("2021.1.28f1c1"));
    assert!(meta(t, "Unity version from")
        .unwrap()
        .contains("your choice"));
    let img = cat.decode(i, 0, 0, DecodeOptions::default()).unwrap();
    assert_eq!(
        hex(&Sha256::digest(img.to_rgba8())),
        "21471981b351eb0c1bc8d167e3d061b977c953ad7692243d1772dc1ecd84a79d"
    );
}

/// A brotli stream made only of stored meta-blocks (RFC 7932: WBITS bit 0 = window 16; each
/// meta-block ISLAST 0, MNIBBLES 4, MLEN-1 in 16 bits, ISUNCOMPRESSED 1, pad to a byte, the bytes;
/// then ISLAST 1, ISLASTEMPTY 1). No brotli encoder crate is available offline; stored blocks are
/// valid brotli any decoder must read.
fn brotli_stored(data: &[u8]) -> Vec<u8> {
    /// Bits packed least significant first (RFC 7932 section 2).
    #[derive(Default)]
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }
    impl Bits {
        fn put(&mut self, v: u64, n: u32) {
            self.acc |= v << self.n;
            self.n += n;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }
        fn pad(&mut self) {
            if self.n > 0 {
                self.put(0, 8 - self.n);
            }
        }
    }
    let mut w = Bits::default();
    w.put(0, 1); // WBITS = 16
    for chunk in data.chunks(65536) {
        w.put(0, 1); // ISLAST
        w.put(0, 2); // MNIBBLES = 4
        w.put(chunk.len() as u64 - 1, 16);
        w.put(1, 1); // ISUNCOMPRESSED
        w.pad();
        w.out.extend_from_slice(chunk);
    }
    w.put(0b11, 2); // ISLAST, ISLASTEMPTY
    w.pad();
    w.out
}

/// What a catalog lists and decodes: (name, path id, size, sha256 of mip 0 or the error).
fn listing(cat: &Catalog) -> Vec<(String, String, u32, u32, String)> {
    (0..cat.textures.len())
        .map(|i| {
            let t = &cat.textures[i];
            let px = match cat.decode(i, 0, 0, DecodeOptions::default()) {
                Ok(img) => hex(&Sha256::digest(img.to_rgba8())),
                Err(e) => format!("{:?}", e.kind),
            };
            let id = meta(t, "path id").unwrap_or("").to_string();
            (t.name.clone(), id, t.width, t.height, px)
        })
        .collect()
}

/// A WebGL .data compressed whole, as Unity's gzip and brotli build options and web servers ship
/// it: .data.gz, a gzip file under the plain name (no Content-Encoding), .data.br and .unityweb.
/// Expected: exactly what the uncompressed HelloWorld.data gives (its 41 textures, which the
/// census test checks against UnityPy), with the wrapping named in the info. The gzip streams are
/// made by flate2's encoder, the brotli ones by `brotli_stored` (RFC 7932).
#[test]
fn gzip_and_brotli_wrapped_webgl_data_list_and_decode_like_the_plain_file() {
    use std::io::Write;
    let plain = std::fs::read(
        samples()
            .join("unity")
            .join("Unity-Technologies_UnityDataTools/TestCommon/Data/WebBundles/HelloWorld.data"),
    )
    .unwrap();
    let open1 = |name: &str, data: &[u8]| {
        let src = texscope::io::BytesSource::shared(name, data.to_vec());
        texscope::open(vec![src], &Default::default())
    };
    let want = listing(&open1("HelloWorld.data", &plain));
    assert_eq!(want.len(), 41);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).unwrap();
    let gz = gz.finish().unwrap();
    let br = brotli_stored(&plain);
    for (name, data, wrap) in [
        ("HelloWorld.data.gz", &gz, "gzip"),
        ("HelloWorld.data", &gz, "gzip"),
        ("HelloWorld.data.br", &br, "brotli"),
        ("HelloWorld.data.unityweb", &br, "brotli"),
    ] {
        if wrap == "brotli" && !cfg!(feature = "brotli") {
            continue;
        }
        let cat = open1(name, data);
        assert!(cat.problems.is_empty(), "{name}: {:?}", cat.problems);
        assert_eq!(listing(&cat), want, "{name}");
        let bundle = meta(&cat.textures[0], "bundle").unwrap();
        assert!(
            bundle.starts_with(&format!("{wrap}-compressed Unity")),
            "{bundle}"
        );
        assert_eq!(cat.textures[0].file, name);
    }
    // Cut short: refused with the file's name, nothing listed.
    let cat = open1("HelloWorld.data.gz", &gz[..gz.len() / 2]);
    assert!(cat.textures.is_empty());
    assert_eq!(cat.problems.len(), 1);
    assert!(
        cat.problems[0].error.contains("HelloWorld.data.gz"),
        "{:?}",
        cat.problems
    );
    assert!(cat.problems[0].error.contains("gzip"), "{:?}", cat.problems);
    // A gzip file that is not a Unity container is left to the others (and then not recognised).
    let mut other = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    other.write_all(b"just some text, not a texture").unwrap();
    let cat = open1("notes.txt.gz", &other.finish().unwrap());
    assert_eq!(cat.problems.len(), 1);
    assert_eq!(cat.problems[0].engine, None);
}

/// Issue 4: "Dropping the .resS later completes the textures that were waiting for it without
/// reloading the rest." A drop of level0 (its Cubemap waits for level0.resS), an LZMA UnityFS
/// bundle and a gzip-compressed WebGL .data; then level0.resS alone. The cube completes and
/// decodes (128x128, UnityPy's size), while the bundle and the .data give up no more than the
/// head every probe shares (HEAD_LEN bytes): their directories, decompressed blocks and the
/// decompressed .data are reused, not read again. Expected byte counts: the files' own sizes.
#[test]
fn dropping_the_ress_later_reuses_what_is_open() {
    use std::io::Write;
    let root = samples().join("unity");
    let dir = root.join("liuruihhh_unityrenderer/Build/UnityRenderer_Data");
    let counted = counted_over;
    let lzma = counted(Arc::new(
        FileSource::open(&root.join("Valheim-Modding_Jotunn/JotunnLib/Unity/AssetBundles/jotunn"))
            .unwrap(),
    ));
    let plain = std::fs::read(
        root.join("Unity-Technologies_UnityDataTools/TestCommon/Data/WebBundles/HelloWorld.data"),
    )
    .unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).unwrap();
    let gz = counted(texscope::io::BytesSource::shared(
        "HelloWorld.data.gz",
        gz.finish().unwrap(),
    ));
    let srcs: Vec<SourceRef> = vec![
        Arc::new(FileSource::open(&dir.join("level0")).unwrap()),
        lzma.clone(),
        gz.clone(),
    ];
    let cat = texscope::open(srcs, &Default::default());
    let cube = cat
        .textures
        .iter()
        .position(|t| t.class == "Cubemap")
        .unwrap();
    assert!(!cat.textures[cube].mips_present()[0]);
    let in_lzma = cat
        .textures
        .iter()
        .position(|t| t.file.ends_with("jotunn"))
        .unwrap();
    cat.decode(in_lzma, 0, 0, DecodeOptions::default()).unwrap();
    // Everything was read at least once: the whole .data.gz to decompress it.
    assert!(gz.bytes() >= texscope::Source::len(gz.as_ref()));
    let before = (lzma.bytes(), gz.bytes());

    let ress: SourceRef = Arc::new(FileSource::open(&dir.join("level0.resS")).unwrap());
    let cat2 = cat.add(vec![ress]);
    assert_eq!(cat2.textures.len(), cat.textures.len());
    assert!(cat2.textures[cube].mips_present().iter().all(|&p| p));
    let img = cat2.decode(cube, 0, 0, DecodeOptions::default()).unwrap();
    assert_eq!((img.width, img.height), (128, 128));
    cat2.decode(in_lzma, 0, 0, DecodeOptions::default())
        .unwrap();
    let again = (lzma.bytes() - before.0, gz.bytes() - before.1);
    assert!(
        again.0 <= texscope::HEAD_LEN && again.1 <= texscope::HEAD_LEN,
        "read again after the drop: bundle {} bytes, .data.gz {} bytes",
        again.0,
        again.1
    );
}
