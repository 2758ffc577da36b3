//! Crunch (.crn) decoding, every level, both variants, from the shared samples read in place:
//! UniversalGameExtraction_texture2ddecoder/resources/tests/textures/{CRUNCH,UNITYCRUNCH}_*.crn, one
//! 512x512 Ferris (ferris_512.png beside them) crunched with crnlib and with Unity's fork.
//!
//! Expected values:
//! - Block hashes: PyPI texture2ddecoder 1.0.6 (native build; its unpack_crunch /
//!   unpack_unity_crunch are ports of crnlib's and Unity's crn_decomp.h), computed once on
//!   2026-12-02. It unpacks level 0 only, so level k was made level 0 by rewriting the header
//!   (width/height >> k, levels - k, level offsets from k on); tables and palettes are shared by all
//!   levels. First 16 hex digits of the sha256 of the level's blocks.
//! - PSNR against ferris_512.png (box-averaged to each level's size): recorded per file and per
//!   level, asserted not below the figure measured here less 0.05 dB. The blocks are the
//!   reference's (above), so these are also the reference decoder's figures. Colour channels are
//!   compared where the averaged source is opaque (crunch's mip filter and the PNG disagree on the
//!   colour of transparent texels), alpha everywhere.
//!
//! Skipped with a message if the samples folder is absent.

mod common;
#[path = "common/crn_writer.rs"]
mod crn_writer;
use common::{ferris_512, samples};
use crn_writer::fix_checksums;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::sync::Arc;
use texscope::codec::crunch::{Crunch, Variant};
use texscope::io::{BytesSource, SourceRef};
use texscope::{ErrorKind, Limits, Pixels};

fn dir() -> PathBuf {
    samples().join("unity/UniversalGameExtraction_texture2ddecoder/resources/tests")
}

/// (file, sha256 prefix of the blocks of levels 0..9) from texture2ddecoder 1.0.6, see above.
const REFERENCE: [(&str, [&str; 10]); 13] = [
    (
        "CRUNCH_DXN",
        [
            "1095bf6e0e1229e2",
            "de70484b154c9a25",
            "5a41cabff7364ef8",
            "1ccc6456126f84ca",
            "55af23eadb47e0ee",
            "91ffd89594387b54",
            "80bf445e326bfd7a",
            "6e069f4cde16db4c",
            "e611976438d28af5",
            "f4db1284afc3e73b",
        ],
    ),
    (
        "CRUNCH_DXT1",
        [
            "6ca14e3203815cc3",
            "4299a1b694907799",
            "3bc270dcb822e12e",
            "02b00bfd92b44d29",
            "7d6980de54c4a08a",
            "7834c9a0ab294cd6",
            "98cf1479c804d731",
            "8d6c5342cf735768",
            "a184db47ec47da96",
            "3397aabb6379aa32",
        ],
    ),
    (
        "CRUNCH_DXT5",
        [
            "5a2a4500dd410005",
            "af79800f40b98695",
            "d26a6d60c0602b58",
            "00184f9cf0e7f4bb",
            "0f7943f67988c20c",
            "30560d0713796d7c",
            "66ff4cce8e8130d0",
            "4c7ca464c8d2147a",
            "77a6372c4cb8f630",
            "c2994650823015d4",
        ],
    ),
    (
        "CRUNCH_DXT5A",
        [
            "fa4549be27720a54",
            "b5125cf745d34f1a",
            "aa8b4b8b6a36d9f0",
            "2839655b51f4e213",
            "4f8593de8b06bfb8",
            "8dd4cd1da4ebca94",
            "3c1856337b99dd6a",
            "457d0c23453c5ca6",
            "ce73f1129824b9f8",
            "32954998381655d8",
        ],
    ),
    (
        "UNITYCRUNCH_DXN",
        [
            "d488c34100cb9532",
            "b9fe5021b64a7a7c",
            "5682353f6745c215",
            "c1c1fab9b0af580d",
            "b7747381cde84fd9",
            "19cb2405247ae49b",
            "80bf445e326bfd7a",
            "6e069f4cde16db4c",
            "e611976438d28af5",
            "8232f06dfdb6d2e0",
        ],
    ),
    (
        "UNITYCRUNCH_DXT1",
        [
            "5ceb018722bc3c79",
            "1a6c160e6c84aa57",
            "cf5ffe5ff5bed8d1",
            "e59ff390c91de6c7",
            "f7d470952908ae0c",
            "7834c9a0ab294cd6",
            "98cf1479c804d731",
            "8d6c5342cf735768",
            "a184db47ec47da96",
            "3397aabb6379aa32",
        ],
    ),
    (
        "UNITYCRUNCH_DXT5",
        [
            "a4642e968bd4d2fa",
            "86624524979cd01e",
            "7656df9c35476b0e",
            "b77331b258ceed24",
            "c654c2cdcb490d2f",
            "1e270a265f428d5d",
            "66ff4cce8e8130d0",
            "4c7ca464c8d2147a",
            "77a6372c4cb8f630",
            "c2994650823015d4",
        ],
    ),
    (
        "UNITYCRUNCH_DXT5A",
        [
            "601b69f7fee14062",
            "3bc4217c96bbfccb",
            "4cb6a34226a71d0b",
            "60268568564ef51e",
            "f581d609b961b4c1",
            "e99ae59ee3a462cb",
            "bb8ad3043fcde9f5",
            "457d0c23453c5ca6",
            "ce73f1129824b9f8",
            "32954998381655d8",
        ],
    ),
    (
        "UNITYCRUNCH_ETC1",
        [
            "38f79f7ea418f9c4",
            "e347ecf8694a1251",
            "276ba44d1d8c74ec",
            "0d9a6cf626b4244b",
            "ad7ac0ed20b7e08c",
            "eb0d75d601869b8c",
            "8ef1a7073375b060",
            "369b2b033c613c7e",
            "b14ae4ab1bd3bb83",
            "884194847998745b",
        ],
    ),
    (
        "UNITYCRUNCH_ETC1S",
        [
            "40ac2a840e39d1dc",
            "b2705626560e1e3d",
            "76cda61234dc4aac",
            "6d0b22d392a36c93",
            "607a1b9d57aa76b9",
            "a68ac35357d479aa",
            "55ad6702602ab6ce",
            "6de9d0cdcd283a05",
            "a6efe6e92cd584ee",
            "5bda4f34e43929ba",
        ],
    ),
    (
        "UNITYCRUNCH_ETC2",
        [
            "38f79f7ea418f9c4",
            "e347ecf8694a1251",
            "276ba44d1d8c74ec",
            "0d9a6cf626b4244b",
            "ad7ac0ed20b7e08c",
            "eb0d75d601869b8c",
            "8ef1a7073375b060",
            "369b2b033c613c7e",
            "b14ae4ab1bd3bb83",
            "884194847998745b",
        ],
    ),
    (
        "UNITYCRUNCH_ETC2A",
        [
            "85d135395e166c58",
            "8bd3c7360844dc8b",
            "98584956a3752bd8",
            "546398cbe3b0de1e",
            "ab69cfebec145bfd",
            "d9193b0ba9212bc2",
            "7057f8b59e4d97dd",
            "dfa68a45f16d2145",
            "1e087d4024af03d2",
            "01b9e36139f4f533",
        ],
    ),
    (
        "UNITYCRUNCH_ETC2AS",
        [
            "51ffa23967d7e471",
            "bca9db332e49daff",
            "e29dd5e1671aeeae",
            "dcc6998ea9d5a021",
            "979715c1c7caf99d",
            "efbdcd26c1a0f7e8",
            "fb964701f38fdf1d",
            "1f23fc3af736652d",
            "2ed72fa1b3e67e28",
            "4f81aeacae64e284",
        ],
    ),
];

fn hex16(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .take(8)
        .map(|x| format!("{x:02x}"))
        .collect()
}

#[test]
fn every_level_of_every_crn_matches_the_reference_blocks() {
    let d = dir();
    for (stem, want) in REFERENCE {
        let data = std::fs::read(d.join(format!("textures/{stem}.crn"))).unwrap();
        let crn = Crunch::new(&data).unwrap();
        let variant = if stem.starts_with("UNITY") {
            Variant::Unity
        } else {
            Variant::Crnlib
        };
        assert_eq!(crn.variant, variant, "{stem}");
        assert_eq!(crn.header.levels, 10, "{stem}");
        for (level, want) in want.iter().enumerate() {
            let blocks = crn.unpack(level as u32, 0, &Limits::default()).unwrap();
            assert_eq!(&hex16(&blocks), want, "{stem} level {level}");
        }
    }
}

/// The 512x512 source averaged over `f` x `f` squares (rounded), as a level of size 512 / f.
fn box_down(src: &[u8], f: usize) -> Vec<u8> {
    let n = (512 / f).max(1);
    let mut out = vec![0u8; n * n * 4];
    for y in 0..n {
        for x in 0..n {
            for c in 0..4 {
                let mut s = 0u32;
                for yy in 0..f {
                    for xx in 0..f {
                        s += src[((y * f + yy) * 512 + x * f + xx) * 4 + c] as u32;
                    }
                }
                let cnt = (f * f) as u32;
                out[(y * n + x) * 4 + c] = ((s + cnt / 2) / cnt) as u8;
            }
        }
    }
    out
}

/// PSNR of `ours` channels `ch` against `src` channels `src_ch`; colour channels (not 3) only
/// where the source is opaque.
fn psnr(ours: &[u8], src: &[u8], ch: &[usize], src_ch: &[usize]) -> Option<f64> {
    let (mut se, mut n) = (0f64, 0f64);
    for (a, b) in ours.chunks_exact(4).zip(src.chunks_exact(4)) {
        for (&c, &sc) in ch.iter().zip(src_ch) {
            if sc != 3 && b[3] != 255 {
                continue;
            }
            let d = a[c] as f64 - b[sc] as f64;
            se += d * d;
            n += 1.0;
        }
    }
    if n == 0.0 {
        return None;
    }
    Some(if se == 0.0 {
        99.0
    } else {
        10.0 * (255.0 * 255.0 / (se / n)).log10()
    })
}

/// No opaque texel in the averaged source at this level (4x4 and smaller of Ferris): colour-only
/// formats are not compared there.
const NO: f64 = f64::NAN;

/// Per file: (our channels, source channels, PSNR per level 0..9 in dB, measured 2026-12-02 on
/// blocks equal to the reference's).
#[allow(clippy::type_complexity)]
const PSNR: [(&str, &[usize], &[usize], [f64; 10]); 13] = [
    (
        "CRUNCH_DXN",
        &[0, 1],
        &[0, 1],
        [44.14, 34.76, 31.54, 28.65, 27.08, 24.11, 22.55, NO, NO, NO],
    ),
    (
        "CRUNCH_DXT1",
        &[0, 1, 2],
        &[0, 1, 2],
        [39.56, 34.38, 31.2, 27.55, 22.06, 20.42, 19.72, NO, NO, NO],
    ),
    (
        "CRUNCH_DXT5",
        &[0, 1, 2, 3],
        &[0, 1, 2, 3],
        [
            42.25, 37.39, 34.31, 30.74, 25.77, 24.33, 24.07, 31.25, 23.43, 31.23,
        ],
    ),
    (
        "CRUNCH_DXT5A",
        &[0],
        &[3],
        [
            47.77, 44.29, 41.08, 37.05, 34.53, 29.49, 29.02, 30.77, 23.31, 31.23,
        ],
    ),
    (
        "UNITYCRUNCH_DXN",
        &[0, 1],
        &[0, 1],
        [44.15, 34.72, 31.52, 28.64, 26.98, 24.11, 22.55, NO, NO, NO],
    ),
    (
        "UNITYCRUNCH_DXT1",
        &[0, 1, 2],
        &[0, 1, 2],
        [39.54, 34.4, 31.2, 27.55, 22.06, 20.42, 19.72, NO, NO, NO],
    ),
    (
        "UNITYCRUNCH_DXT5",
        &[0, 1, 2, 3],
        &[0, 1, 2, 3],
        [
            42.24, 37.39, 34.31, 30.74, 25.76, 24.34, 24.07, 31.25, 23.43, 31.23,
        ],
    ),
    (
        "UNITYCRUNCH_DXT5A",
        &[0],
        &[3],
        [
            47.74, 44.27, 41.06, 37.01, 34.37, 29.44, 28.89, 30.77, 23.31, 31.23,
        ],
    ),
    (
        "UNITYCRUNCH_ETC1",
        &[0, 1, 2],
        &[0, 1, 2],
        [34.34, 31.76, 28.58, 25.55, 23.11, 19.15, 18.33, NO, NO, NO],
    ),
    (
        "UNITYCRUNCH_ETC1S",
        &[0, 1, 2],
        &[0, 1, 2],
        [31.37, 30.1, 26.54, 23.35, 21.42, 17.63, 13.56, NO, NO, NO],
    ),
    (
        "UNITYCRUNCH_ETC2",
        &[0, 1, 2],
        &[0, 1, 2],
        [34.34, 31.76, 28.58, 25.55, 23.11, 19.15, 18.33, NO, NO, NO],
    ),
    (
        "UNITYCRUNCH_ETC2A",
        &[0, 1, 2, 3],
        &[0, 1, 2, 3],
        [
            37.59, 35.05, 31.89, 28.95, 26.76, 23.39, 23.3, 28.75, 23.41, 31.23,
        ],
    ),
    (
        "UNITYCRUNCH_ETC2AS",
        &[0, 1, 2, 3],
        &[0, 1, 2, 3],
        [
            34.55, 33.47, 30.0, 26.7, 25.21, 22.06, 19.0, 28.75, 23.41, 31.23,
        ],
    ),
];

#[test]
fn every_level_reaches_its_psnr_through_the_catalog() {
    let d = dir();
    let src = ferris_512(&d);
    for (stem, ch, src_ch, floor) in PSNR {
        let path = d.join(format!("textures/{stem}.crn"));
        let data = std::fs::read(&path).unwrap();
        let name = format!("{stem}.crn");
        let cat = texscope::open(
            vec![BytesSource::shared(name.clone(), data) as SourceRef],
            &Default::default(),
        );
        assert!(cat.problems.is_empty(), "{:?}", cat.problems);
        assert_eq!(cat.textures.len(), 1);
        let t = &cat.textures[0];
        assert_eq!((t.width, t.height, t.mips.len()), (512, 512, 10));
        let mut got = Vec::new();
        for (level, &floor) in floor.iter().enumerate() {
            let img = cat.decode(0, level, 0, Default::default()).unwrap();
            let Pixels::Rgba8(px) = &img.pixels else {
                panic!("{stem}: 8-bit output expected")
            };
            let want = box_down(&src, 1 << level);
            let Some(p) = psnr(px, &want, ch, src_ch) else {
                assert!(floor.is_nan(), "{stem} level {level}: nothing compared");
                got.push(f64::NAN);
                continue;
            };
            got.push((p * 100.0).round() / 100.0);
            assert!(
                p >= floor - 0.05,
                "{stem} level {level}: {p:.2} dB < {floor}"
            );
        }
        println!("{stem}: PSNR per level {got:?}");
    }
}

#[test]
fn bad_headers_give_clear_errors() {
    let d = dir();
    let data = std::fs::read(d.join("textures/CRUNCH_DXT1.crn")).unwrap();
    // Truncated inside the header, and inside the data.
    let e = Crunch::new(&data[..40]).err().unwrap();
    assert_eq!(e.kind, ErrorKind::Truncated, "{e}");
    let e = Crunch::new(&data[..data.len() - 100]).err().unwrap();
    assert_eq!(e.kind, ErrorKind::Truncated, "{e}");
    assert!(e.to_string().contains("m_data_size"), "{e}");
    // A damaged header fails its checksum.
    let mut bad = data.clone();
    bad[13] ^= 1;
    let e = Crunch::new(&bad).err().unwrap();
    assert!(e.to_string().contains("m_header_crc16"), "{e}");
    // Not a crunch stream at all.
    let e = Crunch::new(b"DDS not crunch").err().unwrap();
    assert!(e.to_string().contains("'Hx'"), "{e}");
    // Wrong variant: a Unity-fork ETC1 header relabelled as crnlib-only DXT1 would be read with
    // the wrong rules; and a DXT1 header relabelled ETC1 has a crnlib selector palette, which only
    // Unity's fork can carry with ETC.
    let mut etc = data.clone();
    etc[18] = 10;
    fix_checksums(&mut etc);
    let e = Crunch::new(&etc).err().unwrap();
    assert!(
        e.to_string().contains("only written by Unity's fork"),
        "{e}"
    );
    // A level cut short inside the stream (data_size and the level offsets still agree) asks for
    // bits past its end and is refused, not returned as garbage.
    let crn = Crunch::new(&data).unwrap();
    let start = crn.header.level_ofs[0] as usize;
    let mut short = data.clone();
    short.truncate(start + 2000);
    let l = crn.header.level_ofs.clone();
    for (i, _) in l.iter().enumerate().skip(1) {
        let o = (start + 2000 - 10 + i) as u32;
        short[70 + 4 * i..74 + 4 * i].copy_from_slice(&o.to_be_bytes());
    }
    short[6..10].copy_from_slice(&((start + 2000) as u32).to_be_bytes());
    fix_checksums(&mut short);
    let c = Crunch::new(&short).unwrap();
    let e = c.unpack(0, 0, &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("more bits than"), "{e}");
    // A header that claims a huge size over a small stream fails fast, with no unbounded work:
    // 16384x16384 DXT1 is 134 MB of blocks; the level's bits run out in its first rows.
    let mut huge = data.clone();
    huge[12..16].copy_from_slice(&[0x40, 0, 0x40, 0]);
    fix_checksums(&mut huge);
    let c = Crunch::new(&huge).unwrap();
    let t0 = std::time::Instant::now();
    let e = c.unpack(0, 0, &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("more bits than"), "{e}");
    assert!(t0.elapsed().as_secs() < 10, "took {:?}", t0.elapsed());
    // A flipped byte inside a level fails the data checksum.
    let mut flipped = data.clone();
    flipped[crn.header.level_ofs[2] as usize + 7] ^= 0x10;
    let e = Crunch::new(&flipped).err().unwrap();
    assert!(e.to_string().contains("m_data_crc16"), "{e}");
    // Levels and faces that do not exist.
    assert!(crn.unpack(10, 0, &Limits::default()).is_err());
    assert!(crn.unpack(0, 1, &Limits::default()).is_err());
    // A tight allocation limit is honoured before unpacking.
    let tight = Limits {
        max_alloc: 1000,
        ..Limits::default()
    };
    assert_eq!(
        crn.unpack(0, 0, &tight).unwrap_err().kind,
        ErrorKind::LimitExceeded
    );
}

#[test]
fn every_prefix_of_a_crn_gives_an_error_or_a_texture_never_a_panic() {
    let d = dir();
    for stem in ["CRUNCH_DXT5", "UNITYCRUNCH_ETC2A"] {
        let data = std::fs::read(d.join(format!("textures/{stem}.crn"))).unwrap();
        for cut in (0..data.len()).step_by(997) {
            let src: SourceRef = Arc::new(BytesSource::new(
                format!("{stem}.crn"),
                data[..cut].to_vec(),
            ));
            let cat = texscope::open(vec![src], &Default::default());
            assert_eq!(
                cat.textures.len() + cat.problems.len(),
                1,
                "{stem} cut at {cut}"
            );
            for t in 0..cat.textures.len() {
                let _ = cat.decode(t, 0, 0, Default::default());
            }
        }
        // Flipped bytes inside the palettes and level data, checksums made to match so the
        // decoder itself meets them: errors or images, never panics.
        for at in (200..data.len()).step_by(1499) {
            let mut bad = data.clone();
            bad[at] ^= 0x5a;
            fix_checksums(&mut bad);
            if let Ok(c) = Crunch::new(&bad) {
                for level in 0..c.header.levels {
                    let _ = c.unpack(level, 0, &Limits::default());
                }
            }
        }
    }
}
