//! Crunch cube maps and mip chains (issue 3): every level of every face, both variants, DXT1 /
//! DXT5 / DXT5A / DXN; and in Unity's fork (the only one with ETC) ETC1 / ETC2 / ETC2A (their own
//! level coding with two endpoints per block) and ETC1S / ETC2AS (DXT-like level coding). No real
//! cube .crn is at hand, so the streams come from the test-only writer in
//! tests/common/crn_writer.rs (written from crnlib's format description, see there).
//!
//! Expected values come from the construction: each stream is written from chosen blocks
//! (pseudo-random palettes, a different mix per level and face), and decoding must give exactly
//! those blocks back; pixels are compared with `decode_surface` of those same blocks. The level
//! sizes (52x36 down to 1x1: 13x9, 7x5, 4x3, 2x1 and 1x1 blocks) leave partial 2x2 chunks on the
//! right and at the bottom; the blocks are laid out so every crnlib chunk encoding and every Unity
//! endpoint reference occurs (asserted from the writer's counts).

#[path = "common/crn_writer.rs"]
mod crn_writer;

use crn_writer::{
    fix_checksums, write, write_etc1, write_etc2, write_etc2a, Format, Variant as WVariant,
    Written, TILES,
};
use std::path::PathBuf;
use std::process::Command;
use texscope::codec::crunch::{Crunch, Variant};
use texscope::io::{BytesSource, SourceRef};
use texscope::{decode_surface, ErrorKind, Limits, PixelFormat, Pixels, TextureKind};

/// Blocks of every level and face, `[level][face]`.
type Levels = Vec<Vec<Vec<u8>>>;

const W: u32 = 52;
const H: u32 = 36;
const LEVELS: usize = 6;
const FORMATS: [Format; 4] = [Format::Dxt1, Format::Dxt5, Format::Dxt5A, Format::DxnXY];

/// splitmix64: a small deterministic generator for the block content.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Blocks of every level and face, `[level][face]`: per 2x2 chunk a sharing pattern (cycling
/// through the 8 with the chunk, face and level), distinct endpoints per tile drawn from small
/// pools, selectors drawn per block. Pools are per stream, so palettes are shared as in crnlib.
fn content(format: Format, faces: usize, seed: u64) -> Levels {
    let mut rng = Rng(seed);
    let mut ce: Vec<u32> = (0..24).map(|_| rng.next() as u32).collect();
    if matches!(format, Format::Etc1S | Format::Etc2AS) {
        // ETC1S colours: 5-bit R, G, B with zero deltas, one table for both halves, unflipped.
        for v in ce.iter_mut() {
            let t = (*v >> 24 & 7) as u8;
            let c = |i: u32| ((*v >> (8 * i)) as u8) & 0xf8;
            *v = u32::from_le_bytes([c(0), c(1), c(2), t << 5 | t << 2 | 2]);
        }
    }
    let cs: Vec<u32> = (0..20).map(|_| rng.next() as u32).collect();
    let ae: Vec<u16> = (0..18).map(|_| rng.next() as u16).collect();
    let asel: Vec<u64> = (0..16).map(|_| rng.next() & 0xffff_ffff_ffff).collect();
    let bpb = format.block_bytes();
    (0..LEVELS)
        .map(|l| {
            let (w, h) = ((W >> l).max(1) as usize, (H >> l).max(1) as usize);
            let (bx, by) = (w.div_ceil(4), h.div_ceil(4));
            (0..faces)
                .map(|f| {
                    let mut out = vec![0u8; bx * by * bpb];
                    for cy in 0..by.div_ceil(2) {
                        for cx in 0..bx.div_ceil(2) {
                            let enc = (cx + 3 * cy + 5 * f + 7 * l) % 8;
                            // Distinct pool indices per tile, per endpoint kind.
                            let mut pick = |n: usize| {
                                let mut v: Vec<usize> = Vec::new();
                                while v.len() < 4 {
                                    let i = rng.below(n);
                                    if !v.contains(&i) {
                                        v.push(i);
                                    }
                                }
                                v
                            };
                            let (tc, ta0, ta1) = (pick(ce.len()), pick(ae.len()), pick(ae.len()));
                            for (k, &t) in TILES[enc].iter().enumerate() {
                                let (x, y) = (2 * cx + (k & 1), 2 * cy + (k >> 1));
                                if x >= bx || y >= by {
                                    continue;
                                }
                                let b = &mut out[(y * bx + x) * bpb..][..bpb];
                                let alpha = |b: &mut [u8], ep: u16, sel: u64| {
                                    b[..2].copy_from_slice(&ep.to_le_bytes());
                                    b[2..8].copy_from_slice(&sel.to_le_bytes()[..6]);
                                };
                                let color = |b: &mut [u8], ep: u32, sel: u32| {
                                    b[..4].copy_from_slice(&ep.to_le_bytes());
                                    b[4..8].copy_from_slice(&sel.to_le_bytes());
                                };
                                match format {
                                    Format::Dxt1 | Format::Etc1S => {
                                        color(b, ce[tc[t]], cs[rng.below(cs.len())]);
                                    }
                                    Format::Dxt5 | Format::Etc2AS => {
                                        alpha(&mut b[..8], ae[ta0[t]], asel[rng.below(asel.len())]);
                                        color(&mut b[8..], ce[tc[t]], cs[rng.below(cs.len())]);
                                    }
                                    Format::Dxt5A => {
                                        alpha(b, ae[ta0[t]], asel[rng.below(asel.len())]);
                                    }
                                    Format::DxnXY => {
                                        alpha(&mut b[..8], ae[ta0[t]], asel[rng.below(asel.len())]);
                                        alpha(&mut b[8..], ae[ta1[t]], asel[rng.below(asel.len())]);
                                    }
                                }
                            }
                        }
                    }
                    out
                })
                .collect()
        })
        .collect()
}

fn block_format(f: Format) -> PixelFormat {
    match f {
        Format::Dxt1 => PixelFormat::BC1,
        Format::Dxt5 => PixelFormat::BC3,
        Format::Dxt5A => PixelFormat::BC4,
        Format::DxnXY => PixelFormat::BC5,
        Format::Etc1S => PixelFormat::ETC1,
        Format::Etc2AS => PixelFormat::ETC2RGBA8,
    }
}

fn cube(format: Format, variant: WVariant) -> (Levels, Written) {
    let seed = format.id() as u64 * 1000 + variant as u64;
    let blocks = content(format, 6, seed);
    let w = write(format, variant, W, H, &blocks);
    (blocks, w)
}

fn variant_of(v: WVariant) -> Variant {
    match v {
        WVariant::Crnlib => Variant::Crnlib,
        WVariant::Unity => Variant::Unity,
    }
}

#[test]
fn the_written_content_differs_per_face_and_level() {
    // Guards the construction itself: a face or level equal to another would hide a decoder
    // that returns the wrong face.
    for f in FORMATS {
        let blocks = content(f, 6, 7);
        for lv in &blocks[..3] {
            for a in 0..6 {
                for b in a + 1..6 {
                    assert_ne!(lv[a], lv[b], "{f:?}: faces {a} and {b}");
                }
            }
        }
    }
}

#[test]
fn every_level_and_face_unpacks_to_the_written_blocks() {
    for variant in [WVariant::Crnlib, WVariant::Unity] {
        for f in FORMATS {
            let (blocks, w) = cube(f, variant);
            let crn = Crunch::new(&w.bytes).unwrap_or_else(|e| panic!("{f:?} {variant:?}: {e}"));
            assert_eq!(crn.variant, variant_of(variant), "{f:?}");
            assert_eq!((crn.header.faces, crn.header.levels), (6, LEVELS as u32));
            for (l, lv) in blocks.iter().enumerate() {
                for (face, want) in lv.iter().enumerate() {
                    let got = crn
                        .unpack(l as u32, face as u32, &Limits::default())
                        .unwrap_or_else(|e| panic!("{f:?} {variant:?} level {l} face {face}: {e}"));
                    assert!(
                        &got == want,
                        "{f:?} {variant:?} level {l} face {face}: blocks differ"
                    );
                }
            }
            match variant {
                WVariant::Crnlib => assert!(
                    w.chunk_encodings.iter().all(|&n| n > 0),
                    "{f:?}: chunk encodings used {:?}",
                    w.chunk_encodings
                ),
                WVariant::Unity => assert!(
                    w.references[..3].iter().all(|&n| n > 0),
                    "{f:?}: references used {:?}",
                    w.references
                ),
            }
        }
    }
}

#[test]
fn a_single_face_stream_with_the_same_writer_also_round_trips() {
    for variant in [WVariant::Crnlib, WVariant::Unity] {
        let blocks = content(Format::Dxt5, 1, 99);
        let w = write(Format::Dxt5, variant, W, H, &blocks);
        let crn = Crunch::new(&w.bytes).unwrap();
        for (l, lv) in blocks.iter().enumerate() {
            let got = crn.unpack(l as u32, 0, &Limits::default()).unwrap();
            assert!(got == lv[0], "{variant:?} level {l}");
        }
    }
}

/// ETC1 blocks (with `alpha`, ETC2 RGBA8 ones: an EAC alpha half first, its endpoint repeated
/// with the colour endpoint it travels with) of every level and face: endpoints from a pool, often repeating the previous
/// block's second sub-block, the block above's first or the up-left block's second (so every
/// reference kind occurs); differential blocks (deltas -4..3), individual ones (some channel 2 or
/// more apart in 4 bits) and blocks whose halves are equal; random flips and tables; selectors from
/// a pool. The block bytes follow the ETC1 specification's layout.
fn etc_content(alpha: bool, faces: usize, seed: u64) -> Levels {
    let mut rng = Rng(seed);
    let pool: Vec<[i32; 4]> = (0..24)
        .map(|_| {
            let v = rng.next();
            [
                (v & 31) as i32,
                (v >> 8 & 31) as i32,
                (v >> 16 & 31) as i32,
                (v >> 24 & 7) as i32,
            ]
        })
        .collect();
    let sels: Vec<u32> = (0..20).map(|_| rng.next() as u32).collect();
    // ETC2A: EAC alpha endpoints (base, multiplier / table) and 48 index bits.
    let (aeps, asels): (Vec<u16>, Vec<u64>) = if alpha {
        (
            (0..16).map(|_| rng.next() as u16).collect(),
            (0..16).map(|_| rng.next() & 0xffff_ffff_ffff).collect(),
        )
    } else {
        (vec![0], vec![0])
    };
    (0..LEVELS)
        .map(|l| {
            let (w, h) = ((W >> l).max(1) as usize, (H >> l).max(1) as usize);
            let (bx, by) = (w.div_ceil(4), h.div_ceil(4));
            (0..faces)
                .map(|_| {
                    // Per block the endpoints as meant: (first, second, alpha).
                    let mut eps = vec![([0i32; 4], [0i32; 4], 0u16); bx * by];
                    let mut out = Vec::new();
                    for y in 0..by {
                        for x in 0..bx {
                            let r = rng.below(100);
                            let (e0, ae) = if x > 0 && r < 25 {
                                let n = eps[y * bx + x - 1];
                                (n.1, n.2)
                            } else if y > 0 && r < 45 {
                                let n = eps[(y - 1) * bx + x];
                                (n.0, n.2)
                            } else if y > 0 && x > 0 && r < 60 {
                                let n = eps[(y - 1) * bx + x - 1];
                                (n.1, n.2)
                            } else {
                                let e = pool[rng.below(pool.len())];
                                (
                                    e,
                                    if alpha {
                                        aeps[rng.below(aeps.len())]
                                    } else {
                                        0
                                    },
                                )
                            };
                            let mode = rng.below(3);
                            let (e1, diff) = match mode {
                                0 => (e0, true),
                                1 => {
                                    let mut e1 = e0;
                                    for c in 0..3 {
                                        let d = rng.below(8) as i32 - 4;
                                        if (0..32).contains(&(e0[c] + d)) {
                                            e1[c] = e0[c] + d;
                                        }
                                    }
                                    e1[3] = rng.below(8) as i32;
                                    (e1, true)
                                }
                                _ => loop {
                                    let e1 = pool[rng.below(pool.len())];
                                    if (0..3).any(|c| ((e1[c] >> 1) - (e0[c] >> 1)).abs() >= 2) {
                                        break (e1, false);
                                    }
                                },
                            };
                            let flip = rng.below(2) as u8;
                            let mut b = [0u8; 8];
                            for c in 0..3 {
                                b[c] = if diff {
                                    (e0[c] << 3 | (e1[c] - e0[c]) & 7) as u8
                                } else {
                                    ((e0[c] >> 1) << 4 | e1[c] >> 1) as u8
                                };
                            }
                            b[3] = (e0[3] << 5 | e1[3] << 2) as u8 | (diff as u8) << 1 | flip;
                            b[4..].copy_from_slice(&sels[rng.below(sels.len())].to_be_bytes());
                            if alpha {
                                out.extend_from_slice(&ae.to_le_bytes());
                                let idx = asels[rng.below(asels.len())];
                                out.extend_from_slice(&idx.to_be_bytes()[2..]);
                            }
                            out.extend_from_slice(&b);
                            // What a neighbour can repeat: individual halves keep 4 bits only.
                            eps[y * bx + x] = if diff {
                                (e0, e1, ae)
                            } else {
                                (e0.map(|v| v & !1), e1.map(|v| v & !1), ae)
                            };
                        }
                    }
                    out
                })
                .collect()
        })
        .collect()
}

#[test]
fn etc1_etc2_and_etc2a_cubes_unpack_and_decode_per_level_and_face() {
    for (alpha, fmt, name) in [
        (false, PixelFormat::ETC1, "ETC1"),
        (false, PixelFormat::ETC2RGB, "ETC2"),
        (true, PixelFormat::ETC2RGBA8, "ETC2A"),
    ] {
        for faces in [6, 1] {
            let blocks = etc_content(alpha, faces, 31 + faces as u64);
            let w = match name {
                "ETC1" => write_etc1(W, H, &blocks),
                "ETC2" => write_etc2(W, H, &blocks),
                _ => write_etc2a(W, H, &blocks),
            };
            assert!(
                w.references.iter().all(|&n| n > 0),
                "{name}: references used {:?}",
                w.references
            );
            let crn = Crunch::new(&w.bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(crn.variant, Variant::Unity);
            assert_eq!(crn.header.format.block_format(), fmt);
            for (l, lv) in blocks.iter().enumerate() {
                for (face, want) in lv.iter().enumerate() {
                    let got = crn
                        .unpack(l as u32, face as u32, &Limits::default())
                        .unwrap_or_else(|e| panic!("{name} level {l} face {face}: {e}"));
                    assert!(&got == want, "{name} level {l} face {face}: blocks differ");
                }
            }
            let cat = open("etc.crn", w.bytes.clone());
            assert!(cat.problems.is_empty(), "{:?}", cat.problems);
            assert_eq!(cat.textures[0].slices, faces as u32);
            for (l, lv) in blocks.iter().enumerate() {
                let (mw, mh) = ((W >> l).max(1), (H >> l).max(1));
                for (face, want) in lv.iter().enumerate() {
                    let got = cat.decode(0, l, face as u32, Default::default()).unwrap();
                    let want = decode_surface(fmt, mw, mh, want, &Limits::default()).unwrap();
                    assert!(got.pixels == want.pixels, "{name} level {l} face {face}");
                }
            }
            if faces == 6 {
                let cut = cut_level(&w.bytes, 0, w.face_starts[0][5] + 2);
                let crn = Crunch::new(&cut).unwrap();
                assert!(crn.unpack(0, 4, &Limits::default()).unwrap() == blocks[0][4]);
                let e = crn.unpack(0, 5, &Limits::default()).unwrap_err();
                assert!(e.to_string().contains("level 0, face 5"), "{e}");
            }
        }
    }
}

#[test]
fn etc1s_and_etc2as_cubes_unpack_and_decode_per_level_and_face() {
    // Unity's single-colour ETC formats: DXT1 / DXT5 level coding, ETC palettes.
    for f in [Format::Etc1S, Format::Etc2AS] {
        let (blocks, w) = cube(f, WVariant::Unity);
        assert!(
            w.references[..3].iter().all(|&n| n > 0),
            "{f:?}: {:?}",
            w.references
        );
        let crn = Crunch::new(&w.bytes).unwrap_or_else(|e| panic!("{f:?}: {e}"));
        assert_eq!(crn.variant, Variant::Unity);
        assert_eq!(crn.header.format.block_format(), block_format(f));
        let cat = open("etcs.crn", w.bytes.clone());
        assert!(cat.problems.is_empty(), "{:?}", cat.problems);
        for (l, lv) in blocks.iter().enumerate() {
            let (mw, mh) = ((W >> l).max(1), (H >> l).max(1));
            for (face, want) in lv.iter().enumerate() {
                let got = crn
                    .unpack(l as u32, face as u32, &Limits::default())
                    .unwrap();
                assert!(&got == want, "{f:?} level {l} face {face}: blocks differ");
                let img = cat.decode(0, l, face as u32, Default::default()).unwrap();
                let want =
                    decode_surface(block_format(f), mw, mh, want, &Limits::default()).unwrap();
                assert!(
                    img.pixels == want.pixels,
                    "{f:?} level {l} face {face}: pixels"
                );
            }
        }
        let cut = cut_level(&w.bytes, 0, w.face_starts[0][5] + 2);
        let crn = Crunch::new(&cut).unwrap();
        assert!(crn.unpack(0, 4, &Limits::default()).unwrap() == blocks[0][4]);
        let e = crn.unpack(0, 5, &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("level 0, face 5"), "{e}");
    }
}

fn open(name: &str, bytes: Vec<u8>) -> texscope::Catalog {
    texscope::open(
        vec![BytesSource::shared(name.to_string(), bytes) as SourceRef],
        &Default::default(),
    )
}

#[test]
fn the_catalog_lists_a_cube_and_decodes_each_face() {
    for variant in [WVariant::Crnlib, WVariant::Unity] {
        for f in FORMATS {
            let (blocks, w) = cube(f, variant);
            let cat = open("cube.crn", w.bytes);
            assert!(cat.problems.is_empty(), "{:?}", cat.problems);
            let t = &cat.textures[0];
            assert_eq!(t.kind, TextureKind::Cube);
            assert_eq!((t.slices, t.mips.len()), (6, LEVELS));
            assert_eq!(t.format, block_format(f));
            for (l, lv) in blocks.iter().enumerate() {
                let (mw, mh) = ((W >> l).max(1), (H >> l).max(1));
                for (face, want) in lv.iter().enumerate() {
                    let got = cat.decode(0, l, face as u32, Default::default()).unwrap();
                    let want =
                        decode_surface(block_format(f), mw, mh, want, &Limits::default()).unwrap();
                    let (Pixels::Rgba8(a), Pixels::Rgba8(b)) = (&got.pixels, &want.pixels) else {
                        panic!("8-bit pixels expected")
                    };
                    assert!(a == b, "{f:?} {variant:?} level {l} face {face}");
                }
            }
        }
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("texscope-crncube-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_cli_exports_every_mip_of_every_face() {
    let dir = temp_dir("export");
    let out = dir.join("out");
    let mut all = Vec::new();
    for (variant, tag) in [(WVariant::Crnlib, "crn"), (WVariant::Unity, "unity")] {
        for f in [Format::Dxt1, Format::DxnXY] {
            let (blocks, w) = cube(f, variant);
            let name = format!("{tag}_{f:?}.crn");
            std::fs::write(dir.join(&name), &w.bytes).unwrap();
            all.push((name, blocks));
        }
    }
    let res = Command::new(env!("CARGO_BIN_EXE_texscope"))
        .args(["export"])
        .arg(&dir)
        .args(["--out"])
        .arg(&out)
        .args(["--all-mips", "--all-slices", "--format", "raw"])
        .output()
        .unwrap();
    assert_eq!(
        res.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    for (name, blocks) in &all {
        let stem = name.trim_end_matches(".crn");
        for (l, lv) in blocks.iter().enumerate() {
            for (face, want) in lv.iter().enumerate() {
                // The README's name: a file named after its only texture gives its images
                // beside it; --all-mips writes __mip<N>, six faces __s<S>.
                let p = out.join(format!("{stem}__mip{l}__s{face}.raw"));
                let got = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                assert!(&got == want, "{}", p.display());
            }
        }
    }
    let files = std::fs::read_dir(&out).unwrap().count();
    assert_eq!(files, all.len() * LEVELS * 6);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Level `level`'s bytes replaced by its first `keep` bytes; later level offsets, the data size
/// and both checksums follow.
fn cut_level(bytes: &[u8], level: usize, keep: usize) -> Vec<u8> {
    let ofs = |i: usize| u32::from_be_bytes(bytes[70 + 4 * i..74 + 4 * i].try_into().unwrap());
    let levels = bytes[16] as usize;
    let start = ofs(level) as usize;
    let end = if level + 1 < levels {
        ofs(level + 1) as usize
    } else {
        bytes.len()
    };
    let removed = end - start - keep;
    let mut out = bytes[..start + keep].to_vec();
    out.extend_from_slice(&bytes[end..]);
    for i in level + 1..levels {
        let o = ofs(i) - removed as u32;
        out[70 + 4 * i..74 + 4 * i].copy_from_slice(&o.to_be_bytes());
    }
    let size = out.len() as u32;
    out[6..10].copy_from_slice(&size.to_be_bytes());
    fix_checksums(&mut out);
    out
}

#[test]
fn a_cube_cut_inside_face_5_decodes_faces_0_to_4_and_refuses_face_5() {
    for variant in [WVariant::Crnlib, WVariant::Unity] {
        for f in FORMATS {
            let (blocks, w) = cube(f, variant);
            // Level 0 keeps its first bytes up to 2 bytes into face 5.
            let keep = w.face_starts[0][5] + 2;
            let cut = cut_level(&w.bytes, 0, keep);
            let crn = Crunch::new(&cut).unwrap();
            for face in 0..5 {
                let got = crn.unpack(0, face, &Limits::default()).unwrap();
                assert!(
                    got == blocks[0][face as usize],
                    "{f:?} {variant:?} face {face}"
                );
            }
            let e = crn.unpack(0, 5, &Limits::default()).unwrap_err();
            let msg = e.to_string();
            assert_eq!(e.kind, ErrorKind::Malformed, "{msg}");
            assert!(
                msg.contains("level 0, face 5") && msg.contains("more bits than"),
                "{f:?} {variant:?}: {msg}"
            );
            // Later levels are intact.
            let got = crn.unpack(1, 5, &Limits::default()).unwrap();
            assert!(got == blocks[1][5], "{f:?} {variant:?} level 1 face 5");
            // Through the catalog the message names the file.
            let cat = open("cut.crn", cut);
            let e = cat.decode(0, 0, 5, Default::default()).unwrap_err();
            assert!(e.to_string().contains("cut.crn"), "{e}");
            assert!(cat.decode(0, 0, 4, Default::default()).is_ok());
            // The file itself cut inside face 5 of its last level (header untouched): the
            // stream is shorter than m_data_size says, refused when opened, naming the file.
            let last = LEVELS - 1;
            let ofs = u32::from_be_bytes(w.bytes[70 + 4 * last..74 + 4 * last].try_into().unwrap());
            let end = ofs as usize + w.face_starts[last][5] + 1;
            let cat = open("short.crn", w.bytes[..end].to_vec());
            assert!(cat.textures.is_empty());
            let p = format!("{:?}", cat.problems);
            assert!(p.contains("short.crn") && p.contains("m_data_size"), "{p}");
        }
    }
}

#[test]
fn wrong_face_counts_are_refused_or_caught() {
    let (blocks, w) = cube(Format::Dxt1, WVariant::Crnlib);
    // 2, 0 and 7 faces: crunch holds 1 or 6.
    for faces in [0u8, 2, 7] {
        let mut b = w.bytes.clone();
        b[17] = faces;
        fix_checksums(&mut b);
        let e = Crunch::new(&b).err().unwrap();
        assert!(e.to_string().contains("m_faces"), "{e}");
        let cat = open("faces.crn", b);
        assert_eq!(cat.textures.len(), 0);
        let p = format!("{:?}", cat.problems);
        assert!(p.contains("faces.crn") && p.contains("m_faces"), "{p}");
    }
    // A cube relabelled as one face: face 0 still decodes (faces are stored in order), and
    // there is no face 1.
    let mut one = w.bytes.clone();
    one[17] = 1;
    fix_checksums(&mut one);
    let crn = Crunch::new(&one).unwrap();
    assert!(crn.unpack(0, 0, &Limits::default()).unwrap() == blocks[0][0]);
    assert!(crn.unpack(0, 1, &Limits::default()).is_err());
    // A single-face stream relabelled as a cube: face 0 decodes, faces 1-5 ask for bits the
    // level does not hold.
    let single = content(Format::Dxt1, 1, 5);
    let mut six = write(Format::Dxt1, WVariant::Crnlib, W, H, &single).bytes;
    six[17] = 6;
    fix_checksums(&mut six);
    let crn = Crunch::new(&six).unwrap();
    assert!(crn.unpack(0, 0, &Limits::default()).unwrap() == single[0][0]);
    let e = crn.unpack(0, 5, &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("more bits than"), "{e}");
}

#[test]
fn level_offsets_past_the_end_or_out_of_order_are_refused() {
    let (_, w) = cube(Format::Dxt5, WVariant::Unity);
    let size = w.bytes.len() as u32;
    for (level, ofs) in [(3usize, size + 100), (5, size), (2, 10), (4, u32::MAX)] {
        let mut b = w.bytes.clone();
        b[70 + 4 * level..74 + 4 * level].copy_from_slice(&ofs.to_be_bytes());
        fix_checksums(&mut b);
        let e = Crunch::new(&b).err().unwrap();
        let msg = e.to_string();
        assert!(
            msg.contains("m_level_ofs") && msg.contains(&format!("level {level}")),
            "{msg}"
        );
        let cat = open("ofs.crn", b);
        let p = format!("{:?}", cat.problems);
        assert!(p.contains("ofs.crn") && p.contains("m_level_ofs"), "{p}");
    }
    // Swapped offsets of two levels (each inside the stream) are out of order.
    let mut b = w.bytes.clone();
    let (a, c) = (b[74..78].to_vec(), b[78..82].to_vec());
    b[74..78].copy_from_slice(&c);
    b[78..82].copy_from_slice(&a);
    fix_checksums(&mut b);
    let e = Crunch::new(&b).err().unwrap();
    assert!(e.to_string().contains("m_level_ofs"), "{e}");
}

#[test]
fn the_writer_crc_agrees_with_the_decoder_crc() {
    // Two implementations of crnlib's crc16 (the writer's bitwise one from the CRC catalogue's
    // parameters, the codec's from crn_decomp.h's description) agree on the check string and on a
    // whole written stream.
    assert_eq!(crn_writer::crc16(b"123456789"), 0xd64e);
    let (_, w) = cube(Format::Dxt5A, WVariant::Crnlib);
    assert_eq!(
        crn_writer::crc16(&w.bytes),
        texscope::codec::crunch::crc16(&w.bytes)
    );
}

/// Writes streams for scripts/crn_crosscheck.py (texture2ddecoder, an independent port of
/// crn_decomp.h): `CRN_DUMP=/some/dir cargo test --test codec_crunch_cube -- --ignored`.
/// Found 2026-12-02 with texture2ddecoder 1.0.6: face 0 of every level equal to the written
/// blocks for all 24 streams (DXT1 / DXT5 / DXT5A / DXN in both variants, ETC1 / ETC2A / ETC1S /
/// ETC2AS in Unity's, each with 1 and 6 faces), 144 of 144 levels. Given a
/// 6-face stream as it is, texture2ddecoder crashes (SIGSEGV): it has one output buffer and
/// unpacks every face; the script relabels cubes as 1 face (faces are stored in order).
#[test]
#[ignore]
fn dump_streams_for_the_cross_check() {
    let dir = PathBuf::from(std::env::var("CRN_DUMP").expect("CRN_DUMP names a folder"));
    std::fs::create_dir_all(&dir).unwrap();
    for (v, tag) in [(WVariant::Crnlib, "crn"), (WVariant::Unity, "unity")] {
        for f in FORMATS {
            for faces in [1usize, 6] {
                let blocks = content(f, faces, 1234 + faces as u64);
                let w = write(f, v, W, H, &blocks);
                let stem = format!("{tag}_{f:?}_{faces}");
                dump(&dir, &stem, &w, &blocks);
            }
        }
    }
    for faces in [1usize, 6] {
        let blocks = etc_content(false, faces, 4321 + faces as u64);
        let w = write_etc1(W, H, &blocks);
        dump(&dir, &format!("unity_Etc1_{faces}"), &w, &blocks);
        let blocks = etc_content(true, faces, 4321 + faces as u64);
        let w = write_etc2a(W, H, &blocks);
        dump(&dir, &format!("unity_Etc2A_{faces}"), &w, &blocks);
        for f in [Format::Etc1S, Format::Etc2AS] {
            let blocks = content(f, faces, 1234 + faces as u64);
            let w = write(f, WVariant::Unity, W, H, &blocks);
            dump(&dir, &format!("unity_{f:?}_{faces}"), &w, &blocks);
        }
    }
}

fn dump(dir: &std::path::Path, stem: &str, w: &Written, blocks: &[Vec<Vec<u8>>]) {
    std::fs::write(dir.join(format!("{stem}.crn")), &w.bytes).unwrap();
    for (l, lv) in blocks.iter().enumerate() {
        std::fs::write(dir.join(format!("{stem}.l{l}f0")), &lv[0]).unwrap();
    }
}

/// The crunch files in tests/vectors (fed to the wasm == native check,
/// tests/browser/wasm-native.test.mjs) are this writer's output for these seeds: regenerated and
/// compared here, rewritten with `CRN_VECTORS_WRITE=1`. Each one also round-trips (the expected
/// blocks are the construction's).
#[test]
fn the_crn_vector_files_are_the_writers_output() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let rewrite = std::env::var_os("CRN_VECTORS_WRITE").is_some();
    let mut files: Vec<(String, Levels, Written)> = Vec::new();
    for (f, v, tag) in [
        (Format::Dxt1, WVariant::Crnlib, "crn_dxt1"),
        (Format::Dxt5, WVariant::Crnlib, "crn_dxt5"),
        (Format::DxnXY, WVariant::Unity, "crn_unity_dxn"),
        (Format::Dxt5A, WVariant::Unity, "crn_unity_dxt5a"),
    ] {
        let blocks = content(f, 6, 500 + f.id() as u64);
        let w = write(f, v, W, H, &blocks);
        files.push((format!("{tag}_cube.crn"), blocks, w));
    }
    let blocks = etc_content(false, 6, 600);
    let w = write_etc1(W, H, &blocks);
    files.push(("crn_unity_etc1_cube.crn".into(), blocks, w));
    let blocks = etc_content(true, 6, 700);
    let w = write_etc2a(W, H, &blocks);
    files.push(("crn_unity_etc2a_cube.crn".into(), blocks, w));
    for (name, blocks, w) in files {
        let path = dir.join(&name);
        if rewrite {
            std::fs::write(&path, &w.bytes).unwrap();
        }
        let stored = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            stored == w.bytes,
            "{name} is not the writer's output (CRN_VECTORS_WRITE=1 rewrites it)"
        );
        let crn = Crunch::new(&stored).unwrap();
        for (l, lv) in blocks.iter().enumerate() {
            for (face, want) in lv.iter().enumerate() {
                let got = crn
                    .unpack(l as u32, face as u32, &Limits::default())
                    .unwrap();
                assert!(&got == want, "{name} level {l} face {face}");
            }
        }
    }
}

#[test]
fn one_entry_palettes_and_a_single_block_round_trip() {
    // Every block the same: each palette holds one entry, so every index delta is 0 of an
    // alphabet of one (the writer adds an unused second symbol to keep its codes complete).
    // And a 4x4 cube of one level: one partial chunk (crnlib) or 2x2 group (Unity) per face.
    for variant in [WVariant::Crnlib, WVariant::Unity] {
        for f in FORMATS {
            let mut one = content(f, 1, 77)[0][0][..f.block_bytes()].to_vec();
            if f == Format::DxnXY {
                // Both halves alike, so the alpha palettes hold one entry too.
                let (a, b) = one.split_at_mut(8);
                b.copy_from_slice(a);
            }
            for (w, h, levels) in [(W, H, LEVELS), (4, 4, 1)] {
                let blocks: Levels = (0..levels)
                    .map(|l| {
                        let n = ((w >> l).max(1) as usize).div_ceil(4)
                            * ((h >> l).max(1) as usize).div_ceil(4);
                        vec![one.repeat(n); 6]
                    })
                    .collect();
                let wr = write(f, variant, w, h, &blocks);
                let crn =
                    Crunch::new(&wr.bytes).unwrap_or_else(|e| panic!("{f:?} {variant:?}: {e}"));
                assert_eq!(
                    crn.header
                        .color_endpoints
                        .num
                        .max(crn.header.alpha_endpoints.num),
                    1
                );
                for (l, lv) in blocks.iter().enumerate() {
                    for face in 0..6 {
                        let got = crn.unpack(l as u32, face, &Limits::default()).unwrap();
                        assert!(
                            got == lv[face as usize],
                            "{f:?} {variant:?} {w}x{h} level {l} face {face}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn mutated_cubes_give_errors_or_blocks_at_every_level_and_face_never_a_panic() {
    // Bytes changed anywhere (header included), checksums made to match so the decoder itself
    // meets the damage; every level of every face is unpacked and decoded. The expected outcome
    // is the project's rule (an Error or an image, never a panic), not a reference. 60 changed
    // streams per file here; run once with 3,000 per file (release, 2026-12-02, six files):
    // 544,440 decodes, 538,231 Ok and 6,209 errors, no panic, 3.4 s.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut rng = Rng(2026);
    let (mut ok, mut err) = (0usize, 0usize);
    let t0 = std::time::Instant::now();
    for name in [
        "crn_dxt1_cube.crn",
        "crn_dxt5_cube.crn",
        "crn_unity_dxn_cube.crn",
        "crn_unity_dxt5a_cube.crn",
        "crn_unity_etc1_cube.crn",
        "crn_unity_etc2a_cube.crn",
    ] {
        let data = std::fs::read(dir.join(name)).unwrap();
        for _ in 0..60 {
            let mut bad = data.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(bad.len());
                bad[at] ^= 1 + rng.below(255) as u8;
            }
            fix_checksums(&mut bad);
            let Ok(crn) = Crunch::new(&bad) else {
                err += 1;
                continue;
            };
            let h = crn.header.clone();
            for level in 0..h.levels {
                let (w, hh) = h.level_dims(level);
                for face in 0..h.faces {
                    let r = crn.unpack(level, face, &Limits::default()).and_then(|b| {
                        decode_surface(h.format.block_format(), w, hh, &b, &Limits::default())
                    });
                    match r {
                        Ok(_) => ok += 1,
                        Err(_) => err += 1,
                    }
                }
            }
        }
    }
    println!(
        "mutated cubes: {ok} decodes ok, {err} errors, {:?}",
        t0.elapsed()
    );
    assert!(ok > 0 && err > 0);
}
