//! ASTC against ARM's astcenc (the Khronos reference codec) through PyPI `astc-encoder-py` 0.1.12:
//! - LDR: tests/vectors/gen_astc.py — per footprint an image astcenc compressed (LDR profile) and 16
//!   random blocks, both with astcenc's RGBA8 decode (LDR profile, no decode_unorm8 flag). Bit-exact.
//! - HDR: tests/vectors/gen_astc_hdr.py — per footprint a float image astcenc compressed with the
//!   HDR profile, random blocks, and mutated encoder blocks (flipped bits reach many more legal
//!   modes than pure random data), with astcenc's float32 decode (HDR profile). Exact to the bit
//!   (NaN error texels compared as NaN).

use std::path::Path;
use texscope::codec::{decode_surface, PixelFormat as PF, Pixels, ASTC_FOOTPRINTS};
use texscope::io::Limits;

/// Reads the (width, height, blocks, expected bytes) records of a vector file.
fn records(name: &str, texel_bytes: usize, bw: u32, bh: u32) -> Vec<(u32, u32, Vec<u8>, Vec<u8>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/vectors/{name}"));
    let all = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    let mut at = 0;
    while at < all.len() {
        let w = u32::from_le_bytes(all[at..at + 4].try_into().unwrap());
        let h = u32::from_le_bytes(all[at + 4..at + 8].try_into().unwrap());
        let nblocks = (w.div_ceil(bw) * h.div_ceil(bh)) as usize;
        let blocks = all[at + 8..at + 8 + nblocks * 16].to_vec();
        let start = at + 8 + nblocks * 16;
        let len = (w * h) as usize * 4 * texel_bytes;
        out.push((w, h, blocks, all[start..start + len].to_vec()));
        at = start + len;
    }
    out
}

/// Texel `t` of a `w`-wide surface: its (x, y) and the 16 bytes of its block, for failure messages.
fn locate(blocks: &[u8], bw: u32, bh: u32, w: u32, t: usize) -> (u32, u32, &[u8]) {
    let (x, y) = (t as u32 % w, t as u32 / w);
    let blk = ((y / bh) * w.div_ceil(bw) + x / bw) as usize;
    (x, y, &blocks[blk * 16..blk * 16 + 16])
}

/// Compares an RGBA8 decode with astcenc's. The astcenc in astc-encoder-py 0.1.12 writes its NaN
/// error colour to RGBA8 as white (min(NaN, 1) * 255 gives 255); the specification's LDR error colour
/// is magenta, which we give. So where astcenc's whole block is white and ours is magenta, the block
/// counts as an error block on both sides. Returns how many texels were error texels.
fn compare_rgba8(
    what: &str,
    bw: u32,
    bh: u32,
    w: u32,
    got: &[u8],
    expected: &[u8],
    blocks: &[u8],
) -> usize {
    let mut errors = 0;
    for (t, (g, e)) in got
        .chunks_exact(4)
        .zip(expected.chunks_exact(4))
        .enumerate()
    {
        if g == e {
            continue;
        }
        if g == [255, 0, 255, 255] && e == [255, 255, 255, 255] {
            errors += 1;
            continue;
        }
        let (x, y, block) = locate(blocks, bw, bh, w, t);
        panic!("{what}: texel ({x},{y}) ours {g:?} astcenc {e:?} block {block:02x?}");
    }
    errors
}

fn rgba8(f: PF, w: u32, h: u32, blocks: &[u8]) -> Vec<u8> {
    match decode_surface(f, w, h, blocks, &Limits::default())
        .unwrap()
        .pixels
    {
        Pixels::Rgba8(p) => p,
        _ => panic!("LDR ASTC must decode to RGBA8"),
    }
}

#[test]
fn ldr_matches_astcenc_on_every_footprint() {
    let (mut texels, mut errors) = (0, 0);
    for (bw, bh) in ASTC_FOOTPRINTS {
        let f = PF::ASTC {
            w: bw,
            h: bh,
            hdr: false,
        };
        let (bw, bh) = (bw as u32, bh as u32);
        let mut recs = records(&format!("astc_{bw}x{bh}.bin"), 1, bw, bh);
        assert_eq!(recs.len(), 2, "{bw}x{bh}: image and random records");
        recs.extend(records(&format!("astc_mut_{bw}x{bh}.bin"), 1, bw, bh));
        for (r, (w, h, blocks, expected)) in recs.iter().enumerate() {
            let got = rgba8(f, *w, *h, blocks);
            let e = compare_rgba8(
                &format!("{bw}x{bh} record {r}"),
                bw,
                bh,
                *w,
                &got,
                expected,
                blocks,
            );
            // The encoder's own image never holds an error block.
            if r == 0 {
                assert_eq!(e, 0, "{bw}x{bh}: error texels in the encoded image");
            }
            errors += e;
            texels += got.len() / 4;
        }
    }
    // Random and bit-flipped blocks must reach both legal and illegal encodings.
    assert!(
        errors > 1000 && errors < texels / 2,
        "{errors} error texels of {texels}"
    );
}

#[test]
fn hdr_matches_astcenc_fp16_exactly() {
    let (mut texels, mut nans) = (0, 0);
    for (bw, bh) in ASTC_FOOTPRINTS {
        let f = PF::ASTC {
            w: bw,
            h: bh,
            hdr: true,
        };
        let (bw, bh) = (bw as u32, bh as u32);
        let recs = records(&format!("astc_hdr_{bw}x{bh}.bin"), 2, bw, bh);
        assert_eq!(recs.len(), 3);
        for (r, (w, h, blocks, expected)) in recs.iter().enumerate() {
            let img = decode_surface(f, *w, *h, blocks, &Limits::default()).unwrap();
            let Pixels::Rgba32F(got) = img.pixels else {
                panic!("HDR ASTC must decode to f32")
            };
            for (i, (g, e)) in got.iter().zip(expected.chunks_exact(2)).enumerate() {
                let e = half::f16::from_bits(u16::from_le_bytes([e[0], e[1]]));
                let ok = if e.is_nan() {
                    nans += 1;
                    g.is_nan()
                } else {
                    // astcenc's float output is FP16-exact, so ours must be that very FP16.
                    half::f16::from_f32(*g).to_f32() == *g && half::f16::from_f32(*g) == e
                };
                if !ok {
                    let (x, y, block) = locate(blocks, bw, bh, *w, i / 4);
                    panic!(
                        "{bw}x{bh} record {r}: texel ({x},{y}) channel {} ours {g} astcenc {e} block {block:02x?}",
                        i % 4
                    );
                }
            }
            // The encoder's own HDR image: no error texels, and values above 1 (it is HDR).
            if r == 0 {
                assert!(got.iter().all(|v| !v.is_nan()));
                assert!(got.iter().any(|&v| v > 100.0));
            }
            texels += got.len() / 4;
        }
    }
    assert!(
        nans > 1000 && nans < texels,
        "{nans} NaN channels of {texels} texels"
    );
}

/// Arbitrary bits never panic: 4096 random blocks per footprint and profile (about half of all
/// random 16-byte blocks are illegal encodings, the rest reach every mode family), decoded at a size
/// with partial blocks. Expected: an image of the asked size (the values are checked above).
#[test]
fn random_blocks_never_panic() {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    for (bw, bh) in ASTC_FOOTPRINTS {
        for hdr in [false, true] {
            let f = PF::ASTC { w: bw, h: bh, hdr };
            let (w, h) = (64 * bw as u32 - 1, 64 * bh as u32 - 3);
            let data: Vec<u8> = (0..f.surface_size(w, h))
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    (s >> 24) as u8
                })
                .collect();
            let img = decode_surface(f, w, h, &data, &Limits::default()).unwrap();
            assert_eq!((img.width, img.height), (w, h));
        }
    }
}
