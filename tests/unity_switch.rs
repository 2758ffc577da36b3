//! Unity games built for Nintendo Switch (shared/samples/console/switch, MANIFEST.md): textures
//! with an `m_PlatformBlob` are Tegra X1 block-linear and must be untiled; textures without one
//! are linear and must stay so. Expected pixels: UnityPy 1.25.4's decode of the same files
//! (tests/unity/unitypy_decode.py run at test time), which untiles from the blob itself.

mod common;
mod unity_fixtures;
use common::{samples, unitypy_file_rgba, unitypy_pixels};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use texscope::codec::tiling::Tiling;
use texscope::io::{BytesSource, FileSource, SourceRef};
use texscope::{Catalog, DecodeOptions, ErrorKind, OpenOptions, Platform};
use unity_fixtures::{meta, switch_blob, tile_one_gob, unity_serialized_for, Build, UnityTex};

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

/// A 4x4 ASTC block of one colour: an LDR void-extent block (the ASTC specification's
/// "void-extent blocks": bits 0..9 = 0x1FC, bit 9 = 0 for LDR, bits 10..12 = 0b11, four 13-bit
/// extent coordinates all ones for "no extent", then R, G, B, A as UNORM16 in bytes 8..16).
/// Each 8-bit value c is written c * 257, which a decoder brings back to c whether it rounds
/// UNORM16 to UNORM8 or keeps the top byte (texture2ddecoder keeps the top byte).
fn astc_solid(rgba: [u8; 4]) -> [u8; 16] {
    let mut b = [0xFF; 16];
    (b[0], b[1]) = (0xFC, 0xFD);
    for (c, v) in rgba.iter().enumerate() {
        b[8 + 2 * c..10 + 2 * c].copy_from_slice(&(*v as u16 * 257).to_le_bytes());
    }
    b
}

/// Digits 0-9, 5 x 7 cells each, top row first (a plain 5x7 dot-matrix font drawn for this test).
const DIGITS: [[&str; 7]; 10] = [
    [
        " ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### ",
    ],
    [
        "  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### ",
    ],
    [
        " ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####",
    ],
    [
        "#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### ",
    ],
    [
        "   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # ",
    ],
    [
        "#####", "#    ", "#### ", "    #", "    #", "#   #", " ### ",
    ],
    [
        "  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### ",
    ],
    [
        "#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   ",
    ],
    [
        " ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### ",
    ],
    [
        " ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  ",
    ],
];

/// Whether block (`bx`, `by`, top row 0) of a 28x32 digit (7 x 8 blocks of 4x4 texels: the
/// glyph in columns 1..6, rows 0..7, a blank row below) is ink.
fn ink(digit: usize, bx: usize, by: usize) -> bool {
    by < 7 && (1..6).contains(&bx) && DIGITS[digit][by].as_bytes()[bx - 1] == b'#'
}

/// Twenty 28x32 ASTC 4x4 counter digits (0-9 in two colourings), as the Unity 6 Switch
/// game stores them: one mip, 1024 bytes tiled with one GOB per block, and a 92-byte blob
/// stating block height 2^0 and a padded size of 1024. The real game's files are not among the
/// shared samples, so these are written here with the same sizes and blob.
///
/// Expected pixels, independent of the reader: each block is a one-colour ASTC block (its colour
/// known without an ASTC decoder, [`astc_solid`]); the blocks are tiled by the textbook Tegra X1
/// address at block height 1 ([`tile_one_gob`]), checked equal to `tegra_swizzle` at block
/// height 1. Every digit must untile and decode to its glyph exactly (rows top first).
///
/// Then UnityPy 1.25.4 (when installed) decodes the same files. It is wrong on all twenty, and
/// the test says so by name and checks why: its `is_switch_swizzled` takes a blob as tiled only
/// when gobs_per_block > 1, so it decodes the tiled bytes as linear blocks, which is our decode
/// of the same bytes written for Windows (within 1).
#[test]
fn switch_one_gob_counter_digits_are_legible() {
    use tegra_swizzle::surface::{swizzle_surface, BlockDim};
    let root = std::env::temp_dir().join(format!("texscope-one-gob-{}", std::process::id()));
    let dir = root.join("digits");
    std::fs::create_dir_all(&dir).unwrap();
    let styles = [
        ([255, 255, 255, 255], [0, 0, 0, 255]),
        ([255, 204, 0, 255], [0, 51, 102, 255]),
    ];
    let blob = switch_blob(1, 1024);
    // (file name, expected RGBA top row first, the tiled bytes)
    let mut digits = Vec::new();
    for (k, (fg, bg)) in styles.iter().enumerate() {
        for d in 0..10 {
            // Unity stores rows bottom first: the file's first row of blocks is the glyph's last.
            let linear: Vec<u8> = (0..8)
                .flat_map(|j| (0..7).map(move |bx| (bx, 7 - j)))
                .flat_map(|(bx, by)| astc_solid(if ink(d, bx, by) { *fg } else { *bg }))
                .collect();
            assert_eq!(linear.len(), 896);
            let tiled = tile_one_gob(&linear, 7 * 16, 8);
            let crate_tiled = swizzle_surface(
                28,
                32,
                1,
                &linear,
                BlockDim::block_4x4(),
                Some(tegra_swizzle::BlockHeight::new(1).unwrap()),
                16,
                1,
                1,
            )
            .unwrap();
            assert!(
                tiled == crate_tiled,
                "digit {d}: textbook and tegra_swizzle differ"
            );
            assert_eq!(tiled.len(), 1024);
            let want: Vec<u8> = (0..32)
                .flat_map(|y| (0..28).map(move |x| (x, y)))
                .flat_map(|(x, y)| if ink(d, x / 4, y / 4) { *fg } else { *bg })
                .collect();
            let name = format!("digit{k}{d}.assets");
            let tex = UnityTex {
                width: 28,
                height: 32,
                format: 48,
                mips: 1,
                image: &tiled,
                stream: None,
            };
            let build = Build {
                class_id: 28,
                images: 1,
                platform: 38,
                blob: &blob,
                complete: None,
            };
            let bytes = unity_serialized_for("6000.0.56f1", 22, &tex, &build);
            std::fs::write(dir.join(&name), &bytes).unwrap();
            let src: SourceRef = Arc::new(BytesSource::new(&name, bytes));
            let cat = texscope::open(vec![src], &OpenOptions::default());
            let t = &cat.textures[0];
            assert!(t.error.is_none(), "{name}: {:?}", t.error);
            assert_eq!(t.tiling, Tiling::BlockLinear { block_height: 1 }, "{name}");
            let ours = cat
                .decode(0, 0, 0, DecodeOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"))
                .to_rgba8();
            assert!(ours == want, "{name}: not the digit {d}");
            digits.push((name, want, tiled));
        }
    }
    println!("switch: 20 counter digits with a block-height-1 blob decode to their glyphs");
    let Some((out, index)) = unitypy_pixels(&root) else {
        let _ = std::fs::remove_dir_all(&root);
        return;
    };
    let mut wrong = Vec::new();
    for (name, want, tiled) in &digits {
        let theirs = unitypy_file_rgba(&out, &index, name);
        assert!(
            &theirs != want,
            "{name}: UnityPy paints the digit (block height 1 read as tiled?)"
        );
        // What a linear reading paints: the first 896 of the 1024 tiled bytes as 7 x 8 blocks.
        let tex = UnityTex {
            width: 28,
            height: 32,
            format: 48,
            mips: 1,
            image: &tiled[..896],
            stream: None,
        };
        let pc = unity_serialized_for("6000.0.56f1", 22, &tex, &unity_fixtures::WINDOWS);
        let src: SourceRef = Arc::new(BytesSource::new("pc.assets", pc));
        let cat = texscope::open(vec![src], &OpenOptions::default());
        let linear = cat
            .decode(0, 0, 0, DecodeOptions::default())
            .unwrap()
            .to_rgba8();
        assert_eq!(theirs.len(), linear.len(), "{name}: UnityPy's size");
        // Some of those blocks are the GOBs' padding (zero bytes, a reserved ASTC block mode):
        // decoders paint such an error block differently (the specification's magenta, or
        // texture2ddecoder's own), so only the texels of one-colour blocks are compared.
        let solid = |x: usize, y: usize| {
            let j = 7 - y / 4; // the file's row of blocks: rows are stored bottom first
            tiled[(j * 7 + x / 4) * 16..][..2] == [0xFC, 0xFD]
        };
        let padding = (0..56)
            .filter(|&b| tiled[b * 16..][..2] != [0xFC, 0xFD])
            .count();
        // Hand count: the first 896 bytes are GOB 0 (4 x 8 blocks, all solid) and 384 bytes of
        // GOB 1, which holds bytes 64..128 of each row of blocks, 112..128 being padding. Its
        // first 256 bytes are its bytes 0..32 of all 8 rows, the next 128 its bytes 32..64 of
        // rows 0..3: 4 blocks of padding.
        assert_eq!(padding, 4, "{name}: padding blocks in the linear reading");
        let mut max = 0;
        for (i, (a, b)) in theirs.chunks(4).zip(linear.chunks(4)).enumerate() {
            if solid(i % 28, i / 28) {
                let d = a.iter().zip(b).map(|(p, q)| p.abs_diff(*q)).max();
                max = max.max(d.unwrap_or(0));
            }
        }
        assert!(
            max <= 1,
            "{name}: UnityPy is neither the digit nor the tiled bytes read linear (max {max})"
        );
        wrong.push(name.as_str());
    }
    println!(
        "UnityPy 1.25.4 is wrong on {} of 20 ({wrong:?}): m_PlatformBlob states block height 1 and its is_switch_swizzled needs gobs_per_block > 1, so it reads the tiled bytes as linear",
        wrong.len()
    );
    assert_eq!(wrong.len(), 20);
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&out);
}
