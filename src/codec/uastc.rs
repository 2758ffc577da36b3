//! Basis Universal UASTC LDR 4x4: 16-byte blocks, a 19-mode subset of ASTC 4x4 LDR with a simpler
//! bit layout, decoded straight to RGBA8.
//!
//! Written from the UASTC LDR 4x4 Texture Specification (Binomial, public domain): the mode table
//! (field offsets of each mode), the packed trit/quint endpoint encoding (ETQ), the anchor-shortened
//! weights in plain LSB-first order, the common BC7/ASTC partition patterns and their anchors, and
//! the interpolation, which is ASTC's (`astc_interpolate` with sRGB off: 8-bit endpoints widened by
//! `* 257`, `(l (64 - w) + h w + 32) >> 6`, top 8 bits kept, as astc.rs does for ASTC LDR). Endpoint
//! values are unquantised by the ASTC rules (astc::unquant_colour; UASTC uses ASTC's range numbers)
//! and there is no blue contraction. Not the `basisu` crate: it carries the whole transcoder (every
//! target format's tables) and measured 534,702 B gzipped in a wasm build that only asks for RGBA32,
//! about as much as the whole full module (435,900 B); the crate is a dev-dependency that
//! tests/codec_basis.rs holds this decoder to, with the `basisu` encoder's own unpacked PNGs.
//!
//! A block whose mode code is the reserved mode 19, or whose pattern index is past its table, is the
//! ASTC error colour (opaque magenta), as astc.rs shows an illegal ASTC block; the reference
//! transcoder refuses the whole image instead.

use super::astc::{unquant_colour, RANGES};

/// The mode of a block from the low 7 bits of its first byte (the specification's Huffman
/// decoding table of the mode codes).
#[rustfmt::skip]
const MODE_OF: [u8; 128] = [
    11, 0, 10, 3, 11, 15, 12, 7, 11, 18, 10, 5, 11, 14, 12, 9, 11, 0, 10, 4, 11, 16, 12, 8, 11, 18, 10, 6,
    11, 2, 12, 13, 11, 0, 10, 3, 11, 17, 12, 7, 11, 18, 10, 5, 11, 14, 12, 9, 11, 0, 10, 4, 11, 1, 12, 8,
    11, 18, 10, 6, 11, 2, 12, 13, 11, 0, 10, 3, 11, 19, 12, 7, 11, 18, 10, 5, 11, 14, 12, 9, 11, 0, 10, 4,
    11, 16, 12, 8, 11, 18, 10, 6, 11, 2, 12, 13, 11, 0, 10, 3, 11, 17, 12, 7, 11, 18, 10, 5, 11, 14, 12, 9,
    11, 0, 10, 4, 11, 1, 12, 8, 11, 18, 10, 6, 11, 2, 12, 13,
];

/// One mode's layout (specification, "List of UASTC Modes"): components (2 = LA, 3 = RGB, 4 =
/// RGBA), subsets, planes, weight bits, endpoint range (ASTC numbering), which pattern table
/// (`PAT_*`) and the bit offsets of the pattern index, of the component selector (0: none) and of
/// the endpoint bits (the trit/quint codes sit just before them).
struct Mode {
    comps: u8,
    subsets: u8,
    planes: u8,
    wbits: u8,
    range: u8,
    table: u8,
    pat: u8,
    ccs: u8,
    ebits: u8,
}

const PAT_NONE: u8 = 0;
const PAT_2: u8 = 1;
const PAT_3: u8 = 2;
const PAT_2_OF_3: u8 = 3;

#[rustfmt::skip]
const MODES: [Mode; 19] = [
    Mode { comps: 3, subsets: 1, planes: 1, wbits: 4, range: 19, table: PAT_NONE, pat: 0, ccs: 0, ebits: 29 },
    Mode { comps: 3, subsets: 1, planes: 1, wbits: 2, range: 20, table: PAT_NONE, pat: 0, ccs: 0, ebits: 21 },
    Mode { comps: 3, subsets: 2, planes: 1, wbits: 3, range: 8, table: PAT_2, pat: 20, ccs: 0, ebits: 25 },
    Mode { comps: 3, subsets: 3, planes: 1, wbits: 2, range: 7, table: PAT_3, pat: 20, ccs: 0, ebits: 53 },
    Mode { comps: 3, subsets: 2, planes: 1, wbits: 2, range: 12, table: PAT_2, pat: 20, ccs: 0, ebits: 53 },
    Mode { comps: 3, subsets: 1, planes: 1, wbits: 3, range: 20, table: PAT_NONE, pat: 0, ccs: 0, ebits: 20 },
    Mode { comps: 3, subsets: 1, planes: 2, wbits: 2, range: 18, table: PAT_NONE, pat: 0, ccs: 20, ebits: 36 },
    Mode { comps: 3, subsets: 2, planes: 1, wbits: 2, range: 12, table: PAT_2_OF_3, pat: 20, ccs: 0, ebits: 53 },
    // Mode 8 is the solid colour (void extent) mode, decoded on its own.
    Mode { comps: 4, subsets: 1, planes: 1, wbits: 0, range: 20, table: PAT_NONE, pat: 0, ccs: 0, ebits: 0 },
    Mode { comps: 4, subsets: 2, planes: 1, wbits: 2, range: 8, table: PAT_2, pat: 28, ccs: 0, ebits: 33 },
    Mode { comps: 4, subsets: 1, planes: 1, wbits: 4, range: 13, table: PAT_NONE, pat: 0, ccs: 0, ebits: 33 },
    Mode { comps: 4, subsets: 1, planes: 2, wbits: 2, range: 13, table: PAT_NONE, pat: 0, ccs: 19, ebits: 34 },
    Mode { comps: 4, subsets: 1, planes: 1, wbits: 3, range: 19, table: PAT_NONE, pat: 0, ccs: 0, ebits: 33 },
    Mode { comps: 4, subsets: 1, planes: 2, wbits: 1, range: 20, table: PAT_NONE, pat: 0, ccs: 28, ebits: 30 },
    Mode { comps: 4, subsets: 1, planes: 1, wbits: 2, range: 20, table: PAT_NONE, pat: 0, ccs: 0, ebits: 28 },
    Mode { comps: 2, subsets: 1, planes: 1, wbits: 4, range: 20, table: PAT_NONE, pat: 0, ccs: 0, ebits: 30 },
    Mode { comps: 2, subsets: 2, planes: 1, wbits: 2, range: 20, table: PAT_2, pat: 29, ccs: 0, ebits: 34 },
    // Mode 17 (LA, two planes) has no selector field: its second plane is always alpha.
    Mode { comps: 2, subsets: 1, planes: 2, wbits: 2, range: 20, table: PAT_NONE, pat: 0, ccs: 0, ebits: 29 },
    Mode { comps: 3, subsets: 1, planes: 1, wbits: 5, range: 11, table: PAT_NONE, pat: 0, ccs: 0, ebits: 19 },
];

/// The specification's partition pattern tables, packed two bits a texel (texel t, raster order,
/// in bits 2t..2t+2, the ASTC subset index), and the anchor texels of each pattern as a mask
/// (one per subset; their weights are stored a bit short). Packed by a one-off script from the
/// specification's g_uastc_patterns2 / g_uastc_patterns3 / g_bc7_3_uastc2_patterns2 and anchor
/// tables; tests/codec_basis.rs checks each pattern against the ASTC partition function of the
/// seed the specification gives it (astc::select_partition).
#[rustfmt::skip]
pub(super) const PATTERNS_2: [u32; 30] = [
    0x50505050, 0x40404040, 0x01010101, 0x54505040, 0x05151555, 0x55545450, 0x00010515, 0x01051555,
    0x50400000, 0x00000105, 0x55544000, 0x01155555, 0x00000115, 0x00005555, 0x55555500, 0x00555555,
    0x55551501, 0x40545555, 0x00405054, 0x00004050, 0x15050100, 0x50545555, 0x15050501, 0x00404050,
    0x50545455, 0x14141414, 0x55000055, 0x11111111, 0x00550055, 0x05145041,
];
#[rustfmt::skip]
const ANCHORS_2: [u16; 30] = [
    0x0005, 0x0009, 0x0003, 0x0009, 0x0081, 0x0005, 0x0009, 0x0081, 0x0801, 0x0005, 0x0081, 0x0801,
    0x0009, 0x0101, 0x0011, 0x1001, 0x0003, 0x0101, 0x0003, 0x0005, 0x0011, 0x0101, 0x0003, 0x0005,
    0x0011, 0x0003, 0x0011, 0x0003, 0x0011, 0x0003,
];
#[rustfmt::skip]
pub(super) const PATTERNS_3: [u32; 11] = [
    0xa5a50000, 0xaa005555, 0xaa000055, 0x0000aa55, 0x25252525, 0x94949494, 0x58585858, 0x56560202,
    0x92929292, 0x55aa0055, 0xa05050a0,
];
#[rustfmt::skip]
const ANCHORS_3: [u16; 11] = [
    0x0501, 0x1101, 0x1011, 0x0111, 0x000d, 0x000b, 0x0007, 0x0203, 0x0007, 0x0111, 0x0045,
];
#[rustfmt::skip]
pub(super) const PATTERNS_2_OF_3: [u32; 19] = [
    0x00005500, 0x10101010, 0x00010505, 0x50504000, 0x55005555, 0x04040404, 0x55555040, 0x50505054,
    0x05500005, 0x00005454, 0x15150000, 0x05000005, 0x00005054, 0x55554000, 0x14555555, 0x01050505,
    0x01015555, 0x01051450, 0x00005455,
];
#[rustfmt::skip]
const ANCHORS_2_OF_3: [u16; 19] = [
    0x0011, 0x0005, 0x0005, 0x0081, 0x0101, 0x0003, 0x0009, 0x0003, 0x0005, 0x0003, 0x0101, 0x0005,
    0x0003, 0x0081, 0x1001, 0x0005, 0x0201, 0x0005, 0x0011,
];

/// The ASTC seeds of the three pattern tables (specification), for the test that holds the packed
/// patterns to the ASTC partition function.
#[cfg(test)]
pub(super) const SEEDS: [&[u16]; 3] = [
    &[
        28, 20, 16, 29, 91, 9, 107, 72, 149, 204, 50, 114, 496, 17, 78, 39, 252, 828, 43, 156, 116,
        210, 476, 273, 684, 359, 246, 195, 694, 524,
    ],
    &[260, 74, 32, 156, 183, 15, 745, 0, 335, 902, 254],
    &[
        36, 48, 61, 137, 161, 183, 226, 281, 302, 307, 479, 495, 593, 594, 605, 799, 812, 988, 993,
    ],
];

/// Weight values (0..64) for 1- to 5-bit weights (specification, "UASTC Weight Tables", the same
/// as ASTC's unquantised weights).
const WEIGHTS: [&[u8]; 6] = [
    &[0],
    &[0, 64],
    &[0, 21, 43, 64],
    &[0, 9, 18, 27, 37, 46, 55, 64],
    &[0, 4, 8, 12, 17, 21, 25, 29, 35, 39, 43, 47, 52, 56, 60, 64],
    &[
        0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 34, 36, 38, 40, 42, 44, 46, 48,
        50, 52, 54, 56, 58, 60, 62, 64,
    ],
];

/// The ASTC LDR error colour (little-endian RGBA: opaque magenta).
const ERROR: u32 = 0xffff_00ff;

/// `n` (at most 32) bits of `v` from bit `pos`.
#[inline(always)]
fn bits(v: u128, pos: u32, n: u32) -> u32 {
    if n == 0 || pos >= 128 {
        return 0;
    }
    ((v >> pos) as u32) & (((1u64 << n) - 1) as u32)
}

/// Decodes one UASTC block to 16 little-endian RGBA texels (raster order).
pub(super) fn block(b: &[u8; 16]) -> [u32; 16] {
    let v = u128::from_le_bytes(*b);
    let mode = MODE_OF[(v & 127) as usize] as usize;
    if mode == 8 {
        // Solid colour: R, G, B, A bytes from bit 5.
        return [bits(v, 5, 32); 16];
    }
    let Some(m) = MODES.get(mode) else {
        return [ERROR; 16];
    };
    let (pattern, anchors) = match m.table {
        // One subset: texel 0 is the anchor (of both planes in two-plane modes).
        PAT_NONE => (0, 1u16),
        table => {
            let i = bits(v, m.pat as u32, if table == PAT_3 { 4 } else { 5 }) as usize;
            let found = match table {
                PAT_2 => PATTERNS_2.get(i).zip(ANCHORS_2.get(i)),
                PAT_3 => PATTERNS_3.get(i).zip(ANCHORS_3.get(i)),
                _ => PATTERNS_2_OF_3.get(i).zip(ANCHORS_2_OF_3.get(i)),
            };
            match found {
                Some((&p, &a)) => (p, a),
                None => return [ERROR; 16],
            }
        }
    };
    // Endpoint values: trits or quints packed first (5 trits in 8 bits, 3 quints in 7, a last
    // partial group in the fewest bits that hold it), then each value's low bits.
    let range = m.range as usize;
    let (trits, quints, b) = RANGES[range];
    let n = (m.comps * 2 * m.subsets) as usize;
    let b = b as u32;
    let mut high = [0u32; 18];
    if trits == 1 || quints == 1 {
        let (group, base, widths): (usize, u32, &[u32]) = if trits == 1 {
            (5, 3, &[0, 2, 4, 5, 7, 8])
        } else {
            (3, 5, &[0, 3, 5, 7])
        };
        let total: u32 = (0..n.div_ceil(group))
            .map(|g| widths[(n - g * group).min(group)])
            .sum();
        let mut pos = m.ebits as u32 - total;
        for g in 0..n.div_ceil(group) {
            let count = (n - g * group).min(group);
            let mut packed = bits(v, pos, widths[count]);
            pos += widths[count];
            for h in high.iter_mut().skip(g * group).take(count) {
                *h = packed % base;
                packed /= base;
            }
        }
    }
    let mut e = [0u32; 18];
    for (i, (e, h)) in e.iter_mut().zip(high).take(n).enumerate() {
        let q = (h << b) | bits(v, m.ebits as u32 + i as u32 * b, b);
        *e = unquant_colour(range, q as u8) as u32;
    }
    // Weights, LSB first from just after the endpoints; anchor texels (both planes of texel 0 in
    // two-plane modes) are a bit short.
    let table = WEIGHTS[m.wbits as usize];
    let planes = m.planes as usize;
    let mut w = [[0u32; 2]; 16];
    let mut pos = m.ebits as u32 + n as u32 * b;
    for (t, tw) in w.iter_mut().enumerate() {
        let short = (anchors >> t) & 1;
        for p in tw.iter_mut().take(planes) {
            let nb = m.wbits as u32 - short as u32;
            *p = table[bits(v, pos, nb) as usize] as u32;
            pos += nb;
        }
    }
    let ccs = match (planes, mode) {
        (1, _) => 4,
        (_, 17) => 3,
        _ => bits(v, m.ccs as u32, 2) as usize,
    };
    // Each subset's endpoints as RGBA lanes (comps values a subset, channel-major, low then high).
    let ends: [[[u32; 4]; 2]; 3] = std::array::from_fn(|s| {
        let at = s * m.comps as usize * 2;
        let c = |k: usize, hi: usize| e[(at + 2 * k + hi).min(17)];
        std::array::from_fn(|hi| match m.comps {
            2 => [c(0, hi), c(0, hi), c(0, hi), c(1, hi)],
            3 => [c(0, hi), c(1, hi), c(2, hi), 255],
            _ => [c(0, hi), c(1, hi), c(2, hi), c(3, hi)],
        })
    });
    std::array::from_fn(|t| {
        let [lo, hi] = &ends[((pattern >> (2 * t)) & 3).min(2) as usize];
        (0..4).fold(0u32, |acc, k| {
            let wt = w[t][(k == ccs) as usize];
            let (l, h) = (lo[k] * 257, hi[k] * 257);
            let c = ((l * (64 - wt) + h * wt + 32) >> 6) >> 8;
            acc | c << (8 * k)
        })
    })
}

/// Decodes `format` if it is UASTC; Ok(false) for any other format.
pub(super) fn decode(
    format: super::PixelFormat,
    w: u32,
    _h: u32,
    data: &[u8],
    img: &mut super::Image,
) -> crate::io::Result<bool> {
    if format != super::PixelFormat::BasisUASTC {
        return Ok(false);
    }
    if let super::Pixels::Rgba8(out) = &mut img.pixels {
        super::bc::rows::<16, _>(w as usize, data, out, block);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each packed pattern is the ASTC partition function (astc.rs, itself held to astcenc) of the
    /// seed the specification lists for it, for a 4x4 block (fewer than 31 texels: "small").
    #[test]
    fn patterns_are_the_astc_partitions_of_their_seeds() {
        for (table, (patterns, count)) in [
            (&PATTERNS_2[..], 2),
            (&PATTERNS_3[..], 3),
            (&PATTERNS_2_OF_3[..], 2),
        ]
        .into_iter()
        .enumerate()
        {
            for (i, (&p, &seed)) in patterns.iter().zip(SEEDS[table]).enumerate() {
                for t in 0..16u32 {
                    let astc = super::super::astc::select_partition(
                        seed as u32,
                        t % 4,
                        t / 4,
                        count,
                        true,
                    );
                    assert_eq!(
                        (p >> (2 * t)) & 3,
                        astc as u32,
                        "table {table} pattern {i} texel {t}"
                    );
                }
            }
        }
    }
}
