//! Unity games built for Nintendo Switch (shared/samples/console/switch, MANIFEST.md): textures
//! with an `m_PlatformBlob` are Tegra X1 block-linear and must be untiled; textures without one
//! are linear and must stay so. Expected pixels: UnityPy 1.25.4's decode of the same files
//! (tests/unity/unitypy_decode.py run at test time), which untiles from the blob itself.

mod common;
use common::{samples, unitypy_pixels};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use texscope::codec::tiling::Tiling;
use texscope::io::{FileSource, SourceRef};
use texscope::{Catalog, DecodeOptions, ErrorKind, OpenOptions, Platform};

fn switch_root() -> PathBuf {
    samples().join("console/switch")
}

/// The two sample folders, each opened as a user drops it.
fn folders() -> Vec<PathBuf> {
    let root = switch_root();
    vec![
        root.join("Foxiary+unlogical-vi-patch/romfs/Data"),
        root.join("tech-ticks+DreamNexus"),
    ]
}

fn open_dir(dir: &Path, options: &OpenOptions) -> Catalog {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let srcs: Vec<SourceRef> = files
        .iter()
        .map(|p| Arc::new(FileSource::open(p).unwrap()) as SourceRef)
        .collect();
    texscope::open(srcs, options)
}

fn meta<'a>(t: &'a texscope::Texture, key: &str) -> Option<&'a str> {
    t.metadata
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Every texture UnityPy decodes equals ours within 1 per channel (mip 0, RGBA8, rows top first).
/// The blob textures are the two ASTC 4x4 atlases (block height 16 per their m_PlatformBlob, as
/// UnityPy reads it); the Unity 2018.4 bundle's RGBA32 / DXT1 textures have no blob and are
/// compared as linear.
#[test]
fn switch_pixels_match_unitypy() {
    let Some((out, index)) = unitypy_pixels(&switch_root()) else {
        return;
    };
    let cats: Vec<Catalog> = folders()
        .iter()
        .map(|d| open_dir(d, &OpenOptions::default()))
        .collect();
    let (mut compared, mut tiled) = (0, 0);
    for rec in &index {
        let Some(raw) = rec["rgba"].as_str() else {
            continue;
        };
        let file = rec["file"].as_str().unwrap();
        let base = Path::new(file).file_name().unwrap().to_str().unwrap();
        let path_id = rec["path_id"].as_i64().unwrap().to_string();
        let what = format!("{file}: {}", rec["name"]);
        let (cat, i) = cats
            .iter()
            .find_map(|c| {
                c.textures
                    .iter()
                    .position(|t| t.file.ends_with(base) && meta(t, "path id") == Some(&path_id))
                    .map(|i| (c, i))
            })
            .unwrap_or_else(|| panic!("{what}: not found by us"));
        let t = &cat.textures[i];
        assert_eq!(t.platform, Some(Platform::Switch), "{what}");
        let want = std::fs::read(out.join(raw)).unwrap();
        let img = cat
            .decode(i, 0, 0, DecodeOptions::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let ours = img.to_rgba8();
        assert_eq!(ours.len(), want.len(), "{what}: size");
        let max = ours
            .iter()
            .zip(&want)
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap_or(0);
        assert!(max <= 1, "{what}: differs from UnityPy by up to {max}");
        compared += 1;
        if let Tiling::BlockLinear { block_height } = t.tiling {
            assert_eq!(block_height, 16, "{what}: the blob's block height");
            assert_eq!(
                meta(t, "layout"),
                Some("Switch block-linear, block height 16"),
                "{what}"
            );
            tiled += 1;
        }
    }
    println!("switch: {compared} textures equal to UnityPy within 1, {tiled} of them block-linear");
    // MANIFEST.md: two ASTC atlases with blobs; eight linear textures in the 2018.4 bundle.
    assert_eq!(tiled, 2, "block-linear textures compared");
    assert_eq!(compared, 10, "textures compared");
}

/// The bundle without blobs stays linear (MANIFEST.md: "reading it as swizzled would be wrong"),
/// even when the user says Switch: the files say how they are stored.
#[test]
fn switch_bundle_without_blobs_stays_linear() {
    let dir = switch_root().join("tech-ticks+DreamNexus");
    for options in [
        OpenOptions::default(),
        OpenOptions {
            platform: Some(Platform::Switch),
            ..Default::default()
        },
    ] {
        let cat = open_dir(&dir, &options);
        assert_eq!(cat.textures.len(), 8);
        for t in &cat.textures {
            assert_eq!(t.tiling, Tiling::Linear, "{}", t.name);
            assert_eq!(t.census()["platform"], "switch", "{}", t.name);
            assert_eq!(t.census()["tiling"], "linear", "{}", t.name);
            assert!(t.error.is_none(), "{}: {:?}", t.name, t.error);
        }
    }
}

/// Pixels in a `.resS` the repository does not hold (MANIFEST.md) name the missing file, as on
/// other platforms (sizes from UnityPy's m_StreamData: 8294400 and 6220800 bytes).
#[test]
fn switch_missing_ress_names_the_file() {
    let cat = open_dir(
        &switch_root().join("Foxiary+unlogical-vi-patch/romfs/Data"),
        &OpenOptions::default(),
    );
    for name in ["UL_manual_text", "UL_manual_bg_base"] {
        let i = cat.textures.iter().position(|t| t.name == name).unwrap();
        assert_eq!(cat.textures[i].tiling, Tiling::Linear, "{name}: no blob");
        let e = cat
            .decode(i, 0, 0, DecodeOptions::default())
            .expect_err(name);
        assert_eq!(e.kind, ErrorKind::MissingSibling, "{name}: {e}");
        assert!(
            e.to_string().contains("sharedassets11.assets.resS"),
            "{name}: {e}"
        );
    }
}
