//! ETC1, ETC2 (RGB, punch-through RGBA1, RGBA8) and EAC R11/RG11, written from the Khronos Data
//! Format Specification 1.3 (sections "ETC1S/ETC1" and "ETC2"/"EAC"). Hand-written rather than
//! texture2ddecoder 0.1.2 because that crate outputs BGRA8 only (EAC's 11 bits and signed values are
//! lost) and its wasm32 output was measured to differ from native (shared/notes/crates-and-toolchain.md).
//! Checked against PyPI texture2ddecoder vectors in tests/codec_etc.rs.
//!
//! Unsigned EAC decodes to RGBA16 (the 11-bit value widened by bit replication, as the spec's
//! conversion to 16 bits), signed EAC to f32 in -1..1: 8 bits would drop three of the 11.

use super::bc::copy_block;
use super::{Image, PixelFormat, Pixels};
use crate::io::Result;

/// ETC1 intensity modifier tables (spec table "ETC1 intensity modifier sets"), values for pixel
/// index 0 and 1; indices 2 and 3 are their negatives.
const ETC1_MODIFIERS: [[i32; 2]; 8] = [
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
const EAC_MODIFIERS: [[i32; 8]; 16] = [
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
pub(super) fn decode(
    format: PixelFormat,
    w: u32,
    h: u32,
    data: &[u8],
    img: &mut Image,
) -> Result<bool> {
    use PixelFormat::*;
    let bytes = match format {
        ETC1 | ETC2RGB | ETC2RGBA1 | EACR11 | EACR11S | BasisETC1S => 8,
        ETC2RGBA8 | EACRG11 | EACRG11S | BasisETC1SA => 16,
        _ => return Ok(false),
    };
    let (w, h) = (w as usize, h as usize);
    let bw = w.div_ceil(4);
    let bh = h.div_ceil(4);
    for by in 0..bh {
        for bx in 0..bw {
            let i = (by * bw + bx) * bytes;
            let block = &data[i..i + bytes];
            let word = |o: usize| u64::from_be_bytes(block[o..o + 8].try_into().unwrap_or([0; 8]));
            match &mut img.pixels {
                Pixels::Rgba8(out) => {
                    let mut px = [0u8; 64];
                    match format {
                        ETC1 | BasisETC1S => etc_rgb(word(0), false, false, &mut px),
                        BasisETC1SA => {
                            etc_rgb(word(0), false, false, &mut px);
                            let mut a = [0u8; 64];
                            etc_rgb(word(8), false, false, &mut a);
                            for t in 0..16 {
                                px[t * 4 + 3] = a[t * 4 + 1];
                            }
                        }
                        ETC2RGB => etc_rgb(word(0), true, false, &mut px),
                        ETC2RGBA1 => etc_rgb(word(0), true, true, &mut px),
                        _ => {
                            etc_rgb(word(8), true, false, &mut px);
                            let mut a = [0i32; 16];
                            eac(word(0), EacKind::Alpha8, &mut a);
                            for (t, v) in a.iter().enumerate() {
                                px[t * 4 + 3] = *v as u8;
                            }
                        }
                    }
                    copy_block(out, w, h, bx, by, &px);
                }
                Pixels::Rgba16(out) => {
                    let mut px = [0u16; 64];
                    for c in 0..bytes / 8 {
                        let mut v = [0i32; 16];
                        eac(word(c * 8), EacKind::Unsigned11, &mut v);
                        for t in 0..16 {
                            let v = v[t] as u16;
                            px[t * 4 + c] = (v << 5) | (v >> 6);
                        }
                    }
                    for t in 0..16 {
                        px[t * 4 + 3] = u16::MAX;
                    }
                    copy_block(out, w, h, bx, by, &px);
                }
                Pixels::Rgba32F(out) => {
                    let mut px = [0f32; 64];
                    for c in 0..bytes / 8 {
                        let mut v = [0i32; 16];
                        eac(word(c * 8), EacKind::Signed11, &mut v);
                        for t in 0..16 {
                            px[t * 4 + c] = v[t] as f32 / 1023.0;
                        }
                    }
                    for t in 0..16 {
                        px[t * 4 + 3] = 1.0;
                    }
                    copy_block(out, w, h, bx, by, &px);
                }
            }
        }
    }
    Ok(true)
}

/// Texel `t` (row-major in the 4x4 block) of an ETC/EAC block is indexed column-major in the bits.
fn bit_index(t: usize) -> usize {
    (t % 4) * 4 + t / 4
}

fn ext4(v: u64) -> i32 {
    let v = (v & 15) as i32;
    (v << 4) | v
}

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

fn bits(b: u64, lo: u32, n: u32) -> u64 {
    (b >> lo) & ((1 << n) - 1)
}

fn clamp8(v: i32) -> u8 {
    v.clamp(0, 255) as u8
}

/// One ETC1/ETC2 colour block (64 bits, big-endian) into 16 RGBA8 texels (row-major).
/// `etc2` enables the T, H and planar modes; `punch` is ETC2 RGB A1, where bit 33 means "opaque".
fn etc_rgb(b: u64, etc2: bool, punch: bool, px: &mut [u8; 64]) {
    let diff = bits(b, 33, 1) == 1;
    let opaque = !punch || diff;
    let sel: [usize; 16] = std::array::from_fn(|t| {
        let i = bit_index(t) as u32;
        ((bits(b, i + 16, 1) << 1) | bits(b, i, 1)) as usize
    });
    // Differential mode uses 5-bit bases plus 3-bit signed deltas; an out-of-range sum selects
    // one of ETC2's extra modes. Punch-through has no individual mode: bit 33 is the opacity flag.
    if diff || punch {
        let base = |lo: u32| bits(b, lo, 5) as i32;
        let delta = |lo: u32| ((bits(b, lo, 3) as i32) << 29) >> 29;
        let (r, g, bl) = (base(59), base(51), base(43));
        let (r2, g2, b2) = (r + delta(56), g + delta(48), bl + delta(40));
        if etc2 && !(0..32).contains(&r2) {
            return t_mode(b, opaque, &sel, px);
        }
        if etc2 && !(0..32).contains(&g2) {
            return h_mode(b, opaque, &sel, px);
        }
        if etc2 && !(0..32).contains(&b2) {
            return planar(b, px);
        }
        let c1 = [ext5(r), ext5(g), ext5(bl)];
        let c2 = [ext5(r2 & 31), ext5(g2 & 31), ext5(b2 & 31)];
        return sub_blocks(b, c1, c2, opaque, &sel, px);
    }
    let c1 = [ext4(b >> 60), ext4(b >> 52), ext4(b >> 44)];
    let c2 = [ext4(b >> 56), ext4(b >> 48), ext4(b >> 40)];
    sub_blocks(b, c1, c2, true, &sel, px)
}

/// The two half-blocks of the individual and differential modes.
fn sub_blocks(
    b: u64,
    c1: [i32; 3],
    c2: [i32; 3],
    opaque: bool,
    sel: &[usize; 16],
    px: &mut [u8; 64],
) {
    let flip = bits(b, 32, 1) == 1;
    let tables = [bits(b, 37, 3) as usize, bits(b, 34, 3) as usize];
    for t in 0..16 {
        let (x, y) = (t % 4, t / 4);
        let second = if flip { y >= 2 } else { x >= 2 };
        let (base, table) = if second {
            (c2, tables[1])
        } else {
            (c1, tables[0])
        };
        let s = sel[t];
        let o = &mut px[t * 4..t * 4 + 4];
        if !opaque && s == 2 {
            o.copy_from_slice(&[0, 0, 0, 0]);
            continue;
        }
        // Punch-through blocks that are not opaque drop the small modifier (index 0 adds 0).
        let m = match s {
            0 if !opaque => 0,
            0 => ETC1_MODIFIERS[table][0],
            1 => ETC1_MODIFIERS[table][1],
            2 => -ETC1_MODIFIERS[table][0],
            _ => -ETC1_MODIFIERS[table][1],
        };
        o.copy_from_slice(&[
            clamp8(base[0] + m),
            clamp8(base[1] + m),
            clamp8(base[2] + m),
            255,
        ]);
    }
}

fn paint(colours: [[i32; 3]; 4], opaque: bool, sel: &[usize; 16], px: &mut [u8; 64]) {
    for t in 0..16 {
        let s = sel[t];
        let o = &mut px[t * 4..t * 4 + 4];
        if !opaque && s == 2 {
            o.copy_from_slice(&[0, 0, 0, 0]);
        } else {
            let c = colours[s];
            o.copy_from_slice(&[clamp8(c[0]), clamp8(c[1]), clamp8(c[2]), 255]);
        }
    }
}

fn t_mode(b: u64, opaque: bool, sel: &[usize; 16], px: &mut [u8; 64]) {
    let r1 = (bits(b, 59, 2) << 2) | bits(b, 56, 2);
    let c1 = [ext4(r1), ext4(b >> 52), ext4(b >> 48)];
    let c2 = [ext4(b >> 44), ext4(b >> 40), ext4(b >> 36)];
    let d = ETC2_DISTANCES[((bits(b, 34, 2) << 1) | bits(b, 32, 1)) as usize];
    let add = |c: [i32; 3], k: i32| [c[0] + k, c[1] + k, c[2] + k];
    paint([c1, add(c2, d), c2, add(c2, -d)], opaque, sel, px);
}

fn h_mode(b: u64, opaque: bool, sel: &[usize; 16], px: &mut [u8; 64]) {
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
    let add = |c: [i32; 3], k: i32| [c[0] + k, c[1] + k, c[2] + k];
    paint(
        [add(c1, d), add(c1, -d), add(c2, d), add(c2, -d)],
        opaque,
        sel,
        px,
    );
}

/// Planar mode: three colours (origin, horizontal, vertical) extrapolated over the block; always
/// opaque, also in punch-through blocks.
fn planar(b: u64, px: &mut [u8; 64]) {
    let o = [
        ext6(bits(b, 57, 6)),
        ext7((bits(b, 56, 1) << 6) | bits(b, 49, 6)),
        ext6((bits(b, 48, 1) << 5) | (bits(b, 43, 2) << 3) | bits(b, 39, 3)),
    ];
    let hz = [
        ext6((bits(b, 34, 5) << 1) | bits(b, 32, 1)),
        ext7(bits(b, 25, 7)),
        ext6(bits(b, 19, 6)),
    ];
    let v = [
        ext6(bits(b, 13, 6)),
        ext7(bits(b, 6, 7)),
        ext6(bits(b, 0, 6)),
    ];
    for t in 0..16 {
        let (x, y) = ((t % 4) as i32, (t / 4) as i32);
        for c in 0..3 {
            px[t * 4 + c] = clamp8((x * (hz[c] - o[c]) + y * (v[c] - o[c]) + 4 * o[c] + 2) >> 2);
        }
        px[t * 4 + 3] = 255;
    }
}

#[derive(Clone, Copy, PartialEq)]
enum EacKind {
    /// ETC2 RGBA8's alpha: 8-bit result.
    Alpha8,
    /// R11/RG11 unsigned: 0..2047.
    Unsigned11,
    /// R11/RG11 signed: -1023..1023.
    Signed11,
}

/// One EAC block (64 bits, big-endian) into 16 values (row-major).
fn eac(b: u64, kind: EacKind, out: &mut [i32; 16]) {
    let mult = bits(b, 52, 4) as i32;
    let table = &EAC_MODIFIERS[bits(b, 48, 4) as usize];
    let base = bits(b, 56, 8) as i32;
    for (t, o) in out.iter_mut().enumerate() {
        let m = table[bits(b, 45 - 3 * bit_index(t) as u32, 3) as usize];
        *o = match kind {
            EacKind::Alpha8 => (base + m * mult).clamp(0, 255),
            // A zero multiplier means 1/8: the modifier is added at 11-bit precision.
            EacKind::Unsigned11 => {
                let step = if mult == 0 { m } else { m * mult * 8 };
                (base * 8 + 4 + step).clamp(0, 2047)
            }
            EacKind::Signed11 => {
                // -128 is treated as -127 so that the range is symmetric.
                let sbase = (base as u8 as i8 as i32).max(-127);
                let step = if mult == 0 { m } else { m * mult * 8 };
                (sbase * 8 + step).clamp(-1023, 1023)
            }
        };
    }
}
