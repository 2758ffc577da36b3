//! Basis Universal (ETC1S / BasisLZ and UASTC LDR 4x4, in KTX 2 and .basis files) against
//! independent references:
//! - the `basisu` crate 0.1.0 (a pure-Rust port of Binomial's reference transcoder, verified by its
//!   author byte for byte against it), RGBA32 output: every level and slice of every file must be
//!   equal to ours, byte for byte;
//! - the source image: PVRTexTool's BASISU_ETC1S.ktx2 / BASISU_UASTC.ktx2 of ferris_512.png
//!   (shared/samples, read in place) must come within 30 dB of it (issue 22), RGB over the texels
//!   the PNG has opaque (in linear light, as the files hold it), alpha over all;
//! - the UASTC partition patterns: each of the specification's packed patterns must be what the
//!   ASTC partition function gives for the seed the specification lists beside it (in
//!   src/codec/uastc.rs's unit tests, which can reach the private tables).
//!
//! tests/basis/*.ktx2 and *.basis were written by the `basisu` encoder 1.16.4 from drawn images
//! (tests/basis/gen.py): ETC1S with alpha and mips, a 70x45 image, a 3-layer array, cube maps, UASTC
//! with mips (Zstandard in the KTX 2), an array, a cube map, and a file of multi-subset UASTC blocks.

mod common;
use common::{ferris_512, samples};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use texscope::codec::{decode_surface, PixelFormat, Pixels};
use texscope::io::{BytesSource, Limits, SourceRef};
use texscope::{Catalog, DecodeOptions};

fn open(name: &str, bytes: Vec<u8>) -> Catalog {
    texscope::open(
        vec![Arc::new(BytesSource::new(name.to_string(), bytes)) as SourceRef],
        &Default::default(),
    )
}

fn rgba8(cat: &Catalog, tex: usize, mip: usize, slice: u32) -> Vec<u8> {
    match cat
        .decode(tex, mip, slice, DecodeOptions { as_stored: true })
        .unwrap_or_else(|e| panic!("mip {mip} slice {slice}: {e}"))
        .pixels
    {
        Pixels::Rgba8(p) => p,
        other => panic!("Basis decodes to RGBA8, got {other:?}"),
    }
}

/// The reference transcoder's RGBA32 image of (level, layer, face).
fn reference(bytes: &[u8], level: u32, layer: u32, face: u32) -> Vec<u8> {
    let t = basisu::Transcoder::new(bytes).expect("the basisu crate opens the file");
    t.transcode_image(
        level,
        layer,
        face,
        basisu::TargetFormat::Rgba32,
        basisu::DecodeFlags::NONE,
    )
    .unwrap_or_else(|e| panic!("basisu crate, level {level} layer {layer} face {face}: {e:?}"))
}

fn generated() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/basis");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("ktx2" | "basis")
            )
        })
        .collect();
    files.sort();
    assert!(files.len() >= 11, "{files:?}");
    files
}

/// Every level and slice of every generated file equals the reference transcoder's RGBA32.
#[test]
fn generated_files_equal_the_reference_transcoder() {
    let mut seen = Vec::new();
    for path in generated() {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let cat = open(&name, bytes.clone());
        assert!(cat.problems.is_empty(), "{name}: {:?}", cat.problems);
        assert_eq!(cat.textures.len(), 1, "{name}");
        let t = &cat.textures[0];
        assert_eq!(t.error, None, "{name}");
        // The reference numbers a KTX 2 file's images by layer and face, a .basis file's by image.
        let faces = if t.kind == texscope::model::TextureKind::Cube && name.ends_with(".ktx2") {
            6
        } else {
            1
        };
        seen.push((t.format.name(), t.kind, t.mips.len() > 1, t.slices > 1));
        for mip in 0..t.mips.len() {
            for s in 0..t.slices {
                let ours = rgba8(&cat, 0, mip, s);
                let theirs = reference(&bytes, mip as u32, s / faces, s % faces);
                assert!(
                    ours == theirs,
                    "{name} mip {mip} slice {s} differs from the reference"
                );
            }
        }
    }
    // What the files cover (issue 22: ETC1S with alpha, mips, arrays and cube faces; UASTC).
    let has = |f: &str, kind: texscope::model::TextureKind| {
        seen.iter().any(|(n, k, ..)| n == f && *k == kind)
    };
    use texscope::model::TextureKind::*;
    assert!(has("BasisETC1SA", Tex2D) && has("BasisETC1SA", Array));
    assert!(has("BasisETC1S", Cube) && has("BasisUASTC", Cube) && has("BasisUASTC", Array));
    assert!(seen
        .iter()
        .any(|(n, _, mips, _)| n == "BasisETC1SA" && *mips));
}

/// The samples' Basis files: equal to the reference transcoder, and within 30 dB of their source
/// (issue 22). PVRTexTool wrote both as linear-light values (their data format descriptors say
/// transfer function LINEAR; a flat orange of the PNG, (245, 115, 0), is stored as (234, 44, 0),
/// the sRGB EOTF of it), so the PNG's RGB is taken through the sRGB EOTF (IEC 61966-2-1) before
/// comparing; against the PNG as it is, both are 16.6 dB, the reference decode's figure too.
/// Binomial's own `basisu` 1.16.4 command line tool (`-unpack -etc1_only`, whose ETC1 transcode is
/// lossless from ETC1S) decodes BASISU_ETC1S's RGB to the SHA-256 below.
#[test]
fn sample_files_equal_the_reference_and_reach_30_db() {
    use sha2::{Digest, Sha256};
    let dir = samples().join("unity/UniversalGameExtraction_texture2ddecoder/resources/tests");
    let mut src = ferris_512(&dir);
    for p in src.chunks_exact_mut(4) {
        for c in &mut p[..3] {
            *c = common::srgb_to_linear8(*c);
        }
    }
    for name in ["BASISU_ETC1S.ktx2", "BASISU_UASTC.ktx2"] {
        let bytes = std::fs::read(dir.join("textures").join(name)).unwrap();
        let cat = open(name, bytes.clone());
        assert!(cat.problems.is_empty(), "{name}: {:?}", cat.problems);
        let ours = rgba8(&cat, 0, 0, 0);
        assert!(
            ours == reference(&bytes, 0, 0, 0),
            "{name} differs from the reference"
        );
        let (rgb, alpha) = psnr_opaque(&ours, &src);
        // Measured 2026-12-04: ETC1S 32.69 / 41.91 dB, UASTC 46.46 / 43.61 dB.
        eprintln!("{name}: RGB {rgb:.2} dB over opaque texels, alpha {alpha:.2} dB");
        assert!(
            rgb >= 30.0 && alpha >= 30.0,
            "{name}: {rgb:.2} / {alpha:.2} dB"
        );
        if name == "BASISU_ETC1S.ktx2" {
            let rgb: Vec<u8> = ours
                .chunks_exact(4)
                .flat_map(|p| [p[0], p[1], p[2]])
                .collect();
            let digest: String = Sha256::digest(&rgb)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            // basisu 1.16.4 -unpack -etc1_only: BASISU_ETC1S_unpacked_rgb_ETC1_RGB_0_0000.png's RGB.
            assert_eq!(
                digest,
                "49f9428b218bfdfaf7f10407133e2ea9951b9d2eb656ed3f13fcb23cd360dd0f"
            );
        }
    }
}

/// PSNR of RGB over the texels the source has opaque, and of alpha over all texels.
fn psnr_opaque(ours: &[u8], src: &[u8]) -> (f64, f64) {
    let (mut se, mut n, mut sa, mut na) = (0f64, 0f64, 0f64, 0f64);
    for (a, b) in ours.chunks_exact(4).zip(src.chunks_exact(4)) {
        if b[3] == 255 {
            for c in 0..3 {
                se += (a[c] as f64 - b[c] as f64).powi(2);
                n += 1.0;
            }
        }
        sa += (a[3] as f64 - b[3] as f64).powi(2);
        na += 1.0;
    }
    let db = |se: f64, n: f64| 10.0 * (255.0f64 * 255.0 / (se / n).max(1e-9)).log10();
    (db(se, n), db(sa, na))
}

/// Random UASTC blocks of every mode (mode code, pattern index in range, every other bit random),
/// put in place of a generated file's blocks: equal to the reference transcoder.
#[test]
fn random_blocks_of_every_uastc_mode_equal_the_reference() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/basis/uastc_modes.ktx2");
    let file = std::fs::read(path).unwrap();
    // Level 0 of this uncompressed 64x64 file: 256 blocks at the level index's byteOffset.
    let off = u64::from_le_bytes(file[80..88].try_into().unwrap()) as usize;
    let len = u64::from_le_bytes(file[88..96].try_into().unwrap()) as usize;
    assert_eq!(len, 256 * 16);
    // A 7-bit code per mode (the specification's mode decoding table, inverted), the offset and
    // width of its pattern index, and how many patterns its table has.
    type Pattern = Option<(u32, u32, u32)>;
    let codes: [(u8, Pattern); 19] = [
        (1, None),
        (53, None),
        (29, Some((20, 5, 30))),
        (3, Some((20, 4, 11))),
        (19, Some((20, 5, 30))),
        (11, None),
        (27, None),
        (7, Some((20, 5, 19))),
        (23, None),
        (15, Some((28, 5, 30))),
        (2, None),
        (0, None),
        (6, None),
        (31, None),
        (13, None),
        (5, None),
        (21, Some((29, 5, 30))),
        (37, None),
        (9, None),
    ];
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    for (mode, &(code, pattern)) in codes.iter().enumerate() {
        let mut bytes = file.clone();
        for b in bytes[off..off + len].chunks_exact_mut(16) {
            let mut v = (next() as u128) << 64 | next() as u128;
            v = v & !127 | code as u128;
            if let Some((at, bits, count)) = pattern {
                let i = (next() % count as u64) as u128;
                v = v & !(((1u128 << bits) - 1) << at) | i << at;
            }
            b.copy_from_slice(&v.to_le_bytes());
        }
        let theirs = reference(&bytes, 0, 0, 0);
        let ours = match decode_surface(
            PixelFormat::BasisUASTC,
            64,
            64,
            &bytes[off..off + len],
            &Limits::default(),
        )
        .unwrap()
        .pixels
        {
            Pixels::Rgba8(p) => p,
            _ => unreachable!(),
        };
        if let Some(t) =
            (0..ours.len() / 4).find(|&t| ours[4 * t..4 * t + 4] != theirs[4 * t..4 * t + 4])
        {
            let (x, y) = (t % 64, t / 64);
            let blk = (y / 4) * 16 + x / 4;
            panic!(
                "mode {mode}: texel ({x}, {y}) is {:?}, the reference {:?}; block {:02x?}",
                &ours[4 * t..4 * t + 4],
                &theirs[4 * t..4 * t + 4],
                &bytes[off + 16 * blk..off + 16 * blk + 16]
            );
        }
    }
}

/// Hostile Basis files are errors that name what is wrong, never panics: every generated file cut
/// at many lengths and with bytes flipped, opened and every surface decoded.
#[test]
fn damaged_files_are_clear_errors() {
    for path in generated() {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        let mut variants: Vec<Vec<u8>> = (1..24)
            .map(|k| bytes[..bytes.len() * k / 24].to_vec())
            .collect();
        for _ in 0..150 {
            let mut b = bytes.clone();
            for _ in 0..1 + next() % 4 {
                let i = (next() % b.len() as u64) as usize;
                b[i] ^= 1 << (next() % 8);
            }
            variants.push(b);
        }
        for b in variants {
            let cat = open(&name, b);
            for (i, t) in cat.textures.iter().enumerate() {
                for mip in 0..t.mips.len() {
                    for s in 0..t.slices {
                        if let Err(e) = cat.decode(i, mip, s, DecodeOptions::default()) {
                            assert!(!e.to_string().is_empty());
                        }
                    }
                }
            }
        }
    }
}

/// A xorshift64 generator from `state` (any non-zero seed).
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
