//! ETC1, ETC2 (RGB, punch-through RGBA1, RGBA8) and EAC R11/RG11, written from the Khronos Data
//! Format Specification 1.3 (sections "ETC1S/ETC1" and "ETC2"/"EAC"). Hand-written rather than
//! texture2ddecoder 0.1.2 because that crate outputs BGRA8 only (EAC's 11 bits and signed values are
//! lost) and its wasm32 output was measured to differ from native (shared/notes/crates-and-toolchain.md).
//! Checked against PyPI texture2ddecoder vectors in tests/codec_etc.rs.
//!
//! Unsigned EAC decodes to RGBA16 (the 11-bit value widened by bit replication, as the spec's
//! conversion to 16 bits), signed EAC to f32 in -1..1: 8 bits would drop three of the 11.

use super::{Image, PixelFormat, Pixels};
use crate::io::Result;

/// ETC1 intensity modifier tables (spec table "ETC1 intensity modifier sets"), values for pixel
/// index 0 and 1; indices 2 and 3 are their negatives.
pub(super) const ETC1_MODIFIERS: [[i32; 2]; 8] = [
    [2, 8],
    [5, 17],
    [9, 29],
    [13, 42],
    [18, 60],
    [24, 80],
    [33, 106],
    [47, 183],
];

/// ETC2 T/H-mode distance table.
const ETC2_DISTANCES: [i32; 8] = [3, 6, 11, 16, 23, 32, 41, 64];

/// EAC modifier tables (spec table "Intensity modifier sets for the EAC alpha component").
pub(super) const EAC_MODIFIERS: [[i32; 8]; 16] = [
    [-3, -6, -9, -15, 2, 5, 8, 14],
    [-3, -7, -10, -13, 2, 6, 9, 12],
    [-2, -5, -8, -13, 1, 4, 7, 12],
    [-2, -4, -6, -13, 1, 3, 5, 12],
    [-3, -6, -8, -12, 2, 5, 7, 11],
    [-3, -7, -9, -11, 2, 6, 8, 10],
    [-4, -7, -8, -11, 3, 6, 7, 10],
    [-3, -5, -8, -11, 2, 4, 7, 10],
    [-2, -6, -8, -10, 1, 5, 7, 9],
    [-2, -5, -8, -10, 1, 4, 7, 9],
    [-2, -4, -8, -10, 1, 3, 7, 9],
    [-2, -5, -7, -10, 1, 4, 6, 9],
    [-3, -4, -7, -10, 2, 3, 6, 9],
    [-1, -2, -3, -10, 0, 1, 2, 9],
    [-4, -6, -8, -9, 3, 5, 7, 8],
    [-3, -5, -7, -9, 2, 4, 6, 8],
];

/// Decodes `format` if it is an ETC/EAC format; returns Ok(false) for any other format.
///
/// Speed (issue 22: ETC at 1 GB/s natively, it ran at 169 MB/s): a block is decoded to a palette
/// (the 8 colours of its two half-blocks, the 4 of T/H mode, the 8 values of an EAC block) and each
/// texel is a lookup of its index, with the texel loops unrolled (`sixteen`) and the 8-bit formats
/// written a row of blocks at a time through bc::rows (a block row of 4 texels one 16-byte copy), as
/// BC1 is. Output unchanged: every format's digests (`texscope fingerprints`) and the vectors of
/// tests/codec_etc.rs are the same as the texel-by-texel decoder's this replaced, and it was
/// checked equal to that decoder on 2^16 random blocks of every format (2048x512 and 13x7
/// surfaces) before it was removed.
pub(super) fn decode(
    format: PixelFormat,
    w: u32,
    h: u32,
    data: &[u8],
    img: &mut Image,
) -> Result<bool> {
    use PixelFormat::*;
    let (w, h) = (w as usize, h as usize);
    match &mut img.pixels {
        Pixels::Rgba8(out) => match format {
            ETC1 => etc1(w, data, out),
            // wasm: simd kernels (src/codec/simd.rs), this file's scalar code their reference.
            #[cfg(target_arch = "wasm32")]
            ETC2RGB | ETC2RGBA1 | ETC2RGBA8 => super::simd::etc(format, w, data, out),
            #[cfg(not(target_arch = "wasm32"))]
            ETC2RGB => rgba8::<8, _>(w, data, out, |b: &[u8; 8]| {
                colour::<true, false>(u64::from_be_bytes(*b))
            }),
            #[cfg(not(target_arch = "wasm32"))]
            ETC2RGBA1 => rgba8::<8, _>(w, data, out, |b: &[u8; 8]| {
                colour::<true, true>(u64::from_be_bytes(*b))
            }),
            #[cfg(not(target_arch = "wasm32"))]
            ETC2RGBA8 => rgba8::<16, _>(w, data, out, |b: &[u8; 16]| {
                let (a, c) = words(b);
                let alpha = eac_palette(a, EacKind::Alpha8);
                let mut px = colour::<true, false>(c);
                sixteen(|t| {
                    px[t] = px[t] & 0x00ff_ffff | (alpha[eac_index(a, t)] as u32) << 24;
                });
                px
            }),
            // Basis ETC1S: only Basis files make these, which need the Basis codec (codec/mod.rs's
            // stand-in says so without it).
            #[cfg(feature = "codec-basis")]
            BasisETC1S => etc1(w, data, out),
            // wasm: the ETC kernel (it ran at 0.37 of native through this scalar code).
            #[cfg(all(feature = "codec-basis", target_arch = "wasm32"))]
            BasisETC1SA => super::simd::etc(format, w, data, out),
            #[cfg(all(feature = "codec-basis", not(target_arch = "wasm32")))]
            BasisETC1SA => rgba8::<16, _>(w, data, out, |b: &[u8; 16]| {
                let (c, a) = words(b);
                let (mut px, alpha) = (colour::<false, false>(c), colour::<false, false>(a));
                // The alpha slice's green channel is the alpha.
                sixteen(|t| px[t] = px[t] & 0x00ff_ffff | (alpha[t] & 0xff00) << 16);
                px
            }),
            _ => return Ok(false),
        },
        // EAC R11 / RG11: one loop a pixel type, the channel count a run-time value (four copies
        // of the loop took ~1 KB more of the core module's 300 KB).
        Pixels::Rgba16(out) => match format {
            #[cfg(target_arch = "wasm32")]
            EACR11 | EACRG11 => super::simd::eac16(format == EACRG11, (w, h), data, out),
            #[cfg(not(target_arch = "wasm32"))]
            EACR11 | EACRG11 => {
                let n = if format == EACR11 { 8 } else { 16 };
                blocks(w, h, data, n, out, |b| {
                    let [r, g] = eac_pair(b, EacKind::Unsigned11);
                    std::array::from_fn(|t| [widen11(r[t]), widen11(g[t]), 0, u16::MAX])
                })
            }
            _ => return Ok(false),
        },
        Pixels::Rgba32F(out) => match format {
            #[cfg(target_arch = "wasm32")]
            EACR11S | EACRG11S => super::simd::eac32(format == EACRG11S, (w, h), data, out),
            #[cfg(not(target_arch = "wasm32"))]
            EACR11S | EACRG11S => {
                let n = if format == EACR11S { 8 } else { 16 };
                blocks(w, h, data, n, out, |b| {
                    let [r, g] = eac_pair(b, EacKind::Signed11);
                    std::array::from_fn(|t| [r[t] as f32 / 1023.0, g[t] as f32 / 1023.0, 0.0, 1.0])
                })
            }
            _ => return Ok(false),
        },
    }
    Ok(true)
}

/// The values of an R11 block (8 bytes; green then 0) or an RG11 block (16 bytes).
// wasm: simd.rs's EAC kernel decodes the 11-bit formats.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[inline(always)]
fn eac_pair(b: &[u8], kind: EacKind) -> [[i32; 16]; 2] {
    let word = |o: usize| u64::from_be_bytes(b[o..o + 8].try_into().expect("8 bytes"));
    let r = eac_values(word(0), kind);
    let g = if b.len() == 16 {
        eac_values(word(8), kind)
    } else {
        [0; 16]
    };
    [r, g]
}

/// ETC1 (and Basis ETC1S, whose blocks are ETC1 blocks).
fn etc1(w: usize, data: &[u8], out: &mut [u8]) {
    #[cfg(target_arch = "wasm32")]
    super::simd::etc(PixelFormat::ETC1, w, data, out);
    #[cfg(not(target_arch = "wasm32"))]
    rgba8::<8, _>(w, data, out, |b: &[u8; 8]| {
        colour::<false, false>(u64::from_be_bytes(*b))
    })
}

/// The two big-endian 64-bit words of a 16-byte block.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[inline(always)]
fn words(b: &[u8; 16]) -> (u64, u64) {
    (
        u64::from_be_bytes(b[..8].try_into().expect("8 bytes")),
        u64::from_be_bytes(b[8..].try_into().expect("8 bytes")),
    )
}

/// An 11-bit EAC value widened to 16 bits by bit replication (the specification's conversion).
// wasm: simd.rs's EAC kernel decodes the 11-bit formats.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[inline(always)]
fn widen11(v: i32) -> u16 {
    let v = v as u16;
    (v << 5) | (v >> 6)
}

/// The 8-bit formats through bc::rows (native; in wasm every 8-bit ETC format, Basis ETC1S with
/// alpha too, has a simd kernel).
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[inline(always)]
fn rgba8<const B: usize, K: super::bc::Block<B>>(w: usize, data: &[u8], out: &mut [u8], k: K) {
    super::bc::rows::<B, _>(w, data, out, k);
}

/// Decodes every `bytes`-byte block of a `w` x `h` surface with `block` (16 texels, row-major, 4
/// channels of `T`) into `out`, clipping the last column and row of blocks.
// wasm: simd.rs's EAC kernel decodes the 11-bit formats.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[inline(always)]
fn blocks<T: Copy, F: Fn(&[u8]) -> [[T; 4]; 16]>(
    w: usize,
    h: usize,
    data: &[u8],
    bytes: usize,
    out: &mut [T],
    block: F,
) {
    let bw = w.div_ceil(4);
    for (by, src) in data
        .chunks_exact(bw * bytes)
        .take(h.div_ceil(4))
        .enumerate()
    {
        for (bx, b) in src.chunks_exact(bytes).enumerate() {
            let px = block(b);
            let cols = (w - bx * 4).min(4);
            for r in 0..(h - by * 4).min(4) {
                let o = ((by * 4 + r) * w + bx * 4) * 4;
                for (d, s) in out[o..o + cols * 4]
                    .chunks_exact_mut(4)
                    .zip(&px[r * 4..r * 4 + cols])
                {
                    d.copy_from_slice(s);
                }
            }
        }
    }
}

/// `f(t)` for each texel t of a block: unrolled natively (bc.rs's helper); a loop in wasm, where
/// the unrolled lookups of the five 8-bit formats took ~10 KB of the core module (issue 8's
/// 300 KB budget) and the loop measured no slower in Chromium.
#[cfg(not(target_arch = "wasm32"))]
use super::bc::sixteen;
#[cfg(target_arch = "wasm32")]
#[inline(always)]
fn sixteen(mut f: impl FnMut(usize)) {
    for t in 0..16 {
        f(t);
    }
}

/// A block's 2-bit pixel index of texel `t` (row-major): ETC stores texel (x, y) at bit x * 4 + y,
/// the index's low bit there and its high bit 16 above.
#[inline(always)]
fn index(b: u64, t: usize) -> usize {
    let i = (t % 4) * 4 + t / 4;
    ((b >> i) & 1 | (b >> (i + 15)) & 2) as usize
}

/// Little-endian RGBA of a colour with each channel clamped to 0..255 (alpha opaque).
#[inline(always)]
fn rgb(r: i32, g: i32, b: i32) -> u32 {
    clamp8(r) as u32 | (clamp8(g) as u32) << 8 | (clamp8(b) as u32) << 16 | 0xff00_0000
}

/// One ETC1/ETC2 colour block (64 bits, big-endian) into 16 RGBA texels (row-major). `ETC2`
/// enables the T, H and planar modes; `PUNCH` is ETC2 RGB A1, where bit 33 means "opaque".
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[inline(always)]
fn colour<const ETC2: bool, const PUNCH: bool>(b: u64) -> [u32; 16] {
    match halves(b, ETC2, PUNCH) {
        Halves::Texels(px) => px,
        Halves::Palette {
            base,
            tables,
            opaque,
            flip,
        } => {
            // The 4 colours of each half-block: base + a, + b, - a, - b for index 0..3 (a, b the
            // table's modifiers). Punch-through blocks that are not opaque drop the small modifier
            // (index 0 adds 0) and make index 2 transparent black.
            let half = |c: [i32; 3], table: usize| -> [u32; 4] {
                let [a, bb] = ETC1_MODIFIERS[table];
                let a0 = if opaque { a } else { 0 };
                let col = |m: i32| rgb(c[0] + m, c[1] + m, c[2] + m);
                [col(a0), col(bb), if opaque { col(-a) } else { 0 }, col(-bb)]
            };
            let pal = [half(base[0], tables[0]), half(base[1], tables[1])];
            let mut px = [0u32; 16];
            sixteen(|t| {
                let second = if flip { t >= 8 } else { t % 4 >= 2 };
                px[t] = pal[second as usize][index(b, t)];
            });
            px
        }
    }
}

/// A colour block's two half-blocks (individual and differential modes): their base colours
/// (8-bit), modifier tables, whether the block is opaque (punch-through) and flipped; or, for the
/// ETC2 T, H and planar modes, its texels.
pub(super) enum Halves {
    Palette {
        base: [[i32; 3]; 2],
        tables: [usize; 2],
        opaque: bool,
        flip: bool,
    },
    Texels([u32; 16]),
}

/// See [`Halves`]; the mode decision of the ETC2 specification: differential mode uses 5-bit bases
/// plus 3-bit signed deltas, and an out-of-range sum selects one of ETC2's extra modes.
/// Punch-through has no individual mode: bit 33 is the opacity flag.
#[inline(always)]
pub(super) fn halves(b: u64, etc2: bool, punch: bool) -> Halves {
    let diff = bits(b, 33, 1) == 1;
    let opaque = !punch || diff;
    let base = if diff || punch {
        let base = |lo: u32| bits(b, lo, 5) as i32;
        let delta = |lo: u32| ((bits(b, lo, 3) as i32) << 29) >> 29;
        let (r, g, bl) = (base(59), base(51), base(43));
        let (r2, g2, b2) = (r + delta(56), g + delta(48), bl + delta(40));
        if etc2 && !(0..32).contains(&r2) {
            return Halves::Texels(paint(t_mode(b), opaque, b));
        }
        if etc2 && !(0..32).contains(&g2) {
            return Halves::Texels(paint(h_mode(b), opaque, b));
        }
        if etc2 && !(0..32).contains(&b2) {
            return Halves::Texels(planar(b));
        }
        [
            [ext5(r), ext5(g), ext5(bl)],
            [ext5(r2 & 31), ext5(g2 & 31), ext5(b2 & 31)],
        ]
    } else {
        [
            [ext4(b >> 60), ext4(b >> 52), ext4(b >> 44)],
            [ext4(b >> 56), ext4(b >> 48), ext4(b >> 40)],
        ]
    };
    Halves::Palette {
        base,
        tables: [bits(b, 37, 3) as usize, bits(b, 34, 3) as usize],
        opaque,
        flip: bits(b, 32, 1) == 1,
    }
}

/// The 16 texels of a 4-colour (T or H mode) block, index 2 transparent black when a
/// punch-through block is not opaque.
#[inline(always)]
fn paint(mut colours: [u32; 4], opaque: bool, b: u64) -> [u32; 16] {
    if !opaque {
        colours[2] = 0;
    }
    let mut px = [0u32; 16];
    sixteen(|t| px[t] = colours[index(b, t)]);
    px
}

#[inline(never)]
pub(super) fn t_mode(b: u64) -> [u32; 4] {
    let r1 = (bits(b, 59, 2) << 2) | bits(b, 56, 2);
    let c1 = [ext4(r1), ext4(b >> 52), ext4(b >> 48)];
    let c2 = [ext4(b >> 44), ext4(b >> 40), ext4(b >> 36)];
    let d = ETC2_DISTANCES[((bits(b, 34, 2) << 1) | bits(b, 32, 1)) as usize];
    let add = |c: [i32; 3], k: i32| rgb(c[0] + k, c[1] + k, c[2] + k);
    [add(c1, 0), add(c2, d), add(c2, 0), add(c2, -d)]
}

#[inline(never)]
pub(super) fn h_mode(b: u64) -> [u32; 4] {
    let r1 = bits(b, 59, 4);
    let g1 = (bits(b, 56, 3) << 1) | bits(b, 52, 1);
    let b1 = (bits(b, 51, 1) << 3) | bits(b, 47, 3);
    let (r2, g2, b2) = (bits(b, 43, 4), bits(b, 39, 4), bits(b, 35, 4));
    // The third distance bit is the order of the two base colours.
    let order = ((r1 << 8) | (g1 << 4) | b1) >= ((r2 << 8) | (g2 << 4) | b2);
    let idx = (bits(b, 34, 1) << 2) | (bits(b, 32, 1) << 1) | order as u64;
    let d = ETC2_DISTANCES[idx as usize];
    let c1 = [ext4(r1), ext4(g1), ext4(b1)];
    let c2 = [ext4(r2), ext4(g2), ext4(b2)];
    let add = |c: [i32; 3], k: i32| rgb(c[0] + k, c[1] + k, c[2] + k);
    [add(c1, d), add(c1, -d), add(c2, d), add(c2, -d)]
}

/// Planar mode: three colours (origin, horizontal, vertical) extrapolated over the block; always
/// opaque, also in punch-through blocks.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[inline(never)]
fn planar(b: u64) -> [u32; 16] {
    let [o, hz, v] = planar_colours(b);
    std::array::from_fn(|t| {
        let (x, y) = ((t % 4) as i32, (t / 4) as i32);
        let c = |k: usize| (x * (hz[k] - o[k]) + y * (v[k] - o[k]) + 4 * o[k] + 2) >> 2;
        rgb(c(0), c(1), c(2))
    })
}

/// A planar block's origin, horizontal and vertical colours (8-bit RGB).
#[inline(always)]
pub(super) fn planar_colours(b: u64) -> [[i32; 3]; 3] {
    [
        [
            ext6(bits(b, 57, 6)),
            ext7((bits(b, 56, 1) << 6) | bits(b, 49, 6)),
            ext6((bits(b, 48, 1) << 5) | (bits(b, 43, 2) << 3) | bits(b, 39, 3)),
        ],
        [
            ext6((bits(b, 34, 5) << 1) | bits(b, 32, 1)),
            ext7(bits(b, 25, 7)),
            ext6(bits(b, 19, 6)),
        ],
        [
            ext6(bits(b, 13, 6)),
            ext7(bits(b, 6, 7)),
            ext6(bits(b, 0, 6)),
        ],
    ]
}

/// Texel `t`'s (row-major) 3-bit index in an EAC block: indices are stored from bit 47 down,
/// texel (x, y) at position x * 4 + y.
// wasm: simd.rs's EAC kernel decodes the 11-bit formats.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[inline(always)]
fn eac_index(b: u64, t: usize) -> usize {
    let i = (t % 4) * 4 + t / 4;
    ((b >> (45 - 3 * i)) & 7) as usize
}

/// One EAC block's 16 values (row-major).
// wasm: simd.rs's EAC kernel decodes the 11-bit formats.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[inline(always)]
fn eac_values(b: u64, kind: EacKind) -> [i32; 16] {
    let pal = eac_palette(b, kind);
    let mut v = [0i32; 16];
    sixteen(|t| v[t] = pal[eac_index(b, t)]);
    v
}

/// The 8 values an EAC block's indices select.
// wasm: simd.rs's EAC kernel decodes the 11-bit formats.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[inline(always)]
fn eac_palette(b: u64, kind: EacKind) -> [i32; 8] {
    let mult = bits(b, 52, 4) as i32;
    let table = &EAC_MODIFIERS[bits(b, 48, 4) as usize];
    let base = bits(b, 56, 8) as i32;
    let mut pal = [0i32; 8];
    for (k, p) in pal.iter_mut().enumerate() {
        *p = match kind {
            EacKind::Alpha8 => (base + table[k] * mult).clamp(0, 255),
            // A zero multiplier means 1/8: the modifier is added at 11-bit precision.
            EacKind::Unsigned11 => {
                let step = if mult == 0 {
                    table[k]
                } else {
                    table[k] * mult * 8
                };
                (base * 8 + 4 + step).clamp(0, 2047)
            }
            EacKind::Signed11 => {
                // -128 is treated as -127 so that the range is symmetric.
                let sbase = (base as u8 as i8 as i32).max(-127);
                let step = if mult == 0 {
                    table[k]
                } else {
                    table[k] * mult * 8
                };
                (sbase * 8 + step).clamp(-1023, 1023)
            }
        };
    }
    pal
}

// wasm: simd.rs's EAC kernel decodes the 11-bit formats.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[derive(Clone, Copy, PartialEq)]
enum EacKind {
    /// ETC2 RGBA8's alpha: 8-bit result (wasm: simd.rs's kernel).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Alpha8,
    /// R11/RG11 unsigned: 0..2047.
    Unsigned11,
    /// R11/RG11 signed: -1023..1023.
    Signed11,
}

#[inline(always)]
fn ext4(v: u64) -> i32 {
    let v = (v & 15) as i32;
    (v << 4) | v
}

#[inline(always)]
fn ext5(v: i32) -> i32 {
    (v << 3) | (v >> 2)
}

fn ext6(v: u64) -> i32 {
    let v = (v & 63) as i32;
    (v << 2) | (v >> 4)
}

fn ext7(v: u64) -> i32 {
    let v = (v & 127) as i32;
    (v << 1) | (v >> 6)
}

#[inline(always)]
fn bits(b: u64, lo: u32, n: u32) -> u64 {
    (b >> lo) & ((1 << n) - 1)
}

#[inline(always)]
fn clamp8(v: i32) -> u8 {
    v.clamp(0, 255) as u8
}
