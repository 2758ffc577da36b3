//! BC1-BC7. The 8-bit formats (BC1, BC2, BC3, BC4, BC5, BC7) are decoded here, a row of blocks at a
//! time straight into the image, and so are BC6H (to f32, in bc/bc6h.rs) and BC4S/BC5S (to f32 in
//! -1..1, bit-exact with bcdec_rs, which decoded them before).
//!
//! Why hand-written (issue 3 targets: BC1 >= 2.5 GB/s and BC7 >= 0.7 GB/s of RGBA in Chromium):
//! bcdec_rs decodes a block into a 64-byte scratch that was then copied into the image, reads BC7
//! through a bit-stream reader with a branch per field, and re-checks bounds at every texel.
//! Measured in one run, bcdec_rs path -> this file, wasm in node (V8, CPU time of `decode()` on
//! the bench's 2048x2048 random surfaces, medians, loaded machine): BC1 783/910 -> 1502/1858,
//! BC2 697/918 -> 1597/1610, BC3 608/723 -> 1106/1438, BC4 670/776 -> 1607/1921, BC5 592/623 ->
//! 916/1253, BC7 180/178 -> 581/748 MB/s; natively BC7 CPU time of 21 decodes 1.06 s -> 0.43 s.
//! The palette rounding is bcdec_rs's (exact rounding of the 5/6-bit interpolation for BC1, its own
//! alpha rounding for BC3 and BC4), so images are unchanged: tests/codec_reference.rs holds every
//! 8-bit format bit-exact against bcdec_rs and against the `dds` crate. In wasm the 8-bit formats
//! run as simd kernels (src/codec/simd.rs) with this file's code as their reference.

use super::{Image, PixelFormat, PixelRows};
use crate::io::Result;

// The page's core wasm module leaves BC6H to the full one (feature `codec-bc6h`), see Cargo.toml.
#[cfg(any(not(target_arch = "wasm32"), feature = "codec-bc6h"))]
pub(super) mod bc6h;

/// Decodes `format` if it is a BCn format; returns Ok(false) for any other format.
pub(super) fn decode(
    format: PixelFormat,
    w: u32,
    _h: u32,
    data: &[u8],
    img: &mut Image,
) -> Result<bool> {
    if !is_bc(format) {
        return Ok(false);
    }
    decode_rows(format, w as usize, data, img.pixels.rows_mut())?;
    Ok(true)
}

/// The formats this file decodes.
pub(super) fn is_bc(format: PixelFormat) -> bool {
    use PixelFormat::*;
    matches!(
        format,
        BC1 | BC4 | BC4S | BC2 | BC3 | BC5 | BC5S | BC6HU | BC6HS | BC7
    )
}

/// Decodes the rows of blocks in `data` (a BCn format's: [`is_bc`]) into `out`, the image rows
/// they cover (a whole image, or a band of it: `codec::decode_tiled`), `w` texels wide.
/// Inlined, so that the page's core module, whose only caller is [`decode`], keeps one copy.
#[inline(always)]
pub(super) fn decode_rows(
    format: PixelFormat,
    w: usize,
    data: &[u8],
    out: PixelRows<'_>,
) -> Result<()> {
    use PixelFormat::*;
    // The height is the image's: every loop below runs over `out`'s rows.
    match out {
        // wasm: simd kernels (src/codec/simd.rs), the scalar code below is their reference.
        #[cfg(target_arch = "wasm32")]
        PixelRows::Rgba8(out) => {
            let done = super::simd::blocks(format, w, data, out);
            debug_assert!(done, "every 8-bit BC format has a wasm kernel");
        }
        #[cfg(not(target_arch = "wasm32"))]
        PixelRows::Rgba8(out) => match format {
            BC1 => rows::<8, _>(w, data, out, |b: &[u8; 8]| bc1(b, false)),
            BC2 => rows::<16, _>(w, data, out, |b: &[u8; 16]| colour_alpha(b, bc2_alpha)),
            BC3 => rows::<16, _>(w, data, out, |b: &[u8; 16]| {
                colour_alpha(b, |a| alpha(a, false))
            }),
            BC4 => rows::<8, _>(w, data, out, |b: &[u8; 8]| {
                alpha(b, true).map(|r| r as u32 | 0xff00_0000)
            }),
            BC5 => rows::<16, _>(w, data, out, |b: &[u8; 16]| {
                let r = alpha(b[..8].try_into().expect("8 bytes"), true);
                let g = alpha(b[8..].try_into().expect("8 bytes"), true);
                std::array::from_fn(|t| r[t] as u32 | (g[t] as u32) << 8 | 0xff00_0000)
            }),
            BC7 => rows::<16, _>(w, data, out, bc7),
            _ => unreachable!("float formats decode below"),
        },
        // wasm: the same code compiled with simd128 (src/codec/simd.rs).
        #[cfg(all(target_arch = "wasm32", feature = "codec-bc6h"))]
        PixelRows::Rgba32F(out) if matches!(format, BC6HU | BC6HS) => {
            super::simd::bc6h(format == BC6HS, w, data, out)
        }
        #[cfg(all(target_arch = "wasm32", not(feature = "codec-bc6h")))]
        PixelRows::Rgba32F(_) if matches!(format, BC6HU | BC6HS) => {
            return Err(crate::io::Error::not_in_build(format.name(), "codec-bc6h"));
        }
        #[cfg(not(target_arch = "wasm32"))]
        PixelRows::Rgba32F(out) if matches!(format, BC6HU | BC6HS) => {
            if format == BC6HS {
                bc6h::rows::<true>(w, data, out)
            } else {
                bc6h::rows::<false>(w, data, out)
            }
        }
        PixelRows::Rgba32F(out) if format == BC4S => rows_f32::<8>(w, data, out, |b| {
            let r = snorm(b);
            std::array::from_fn(|l| texels_f32(|t| [r[l * 4 + t], 0.0, 0.0, 1.0]))
        }),
        PixelRows::Rgba32F(out) => rows_f32::<16>(w, data, out, |b| {
            let r = snorm(b[..8].try_into().expect("8 bytes"));
            let g = snorm(b[8..].try_into().expect("8 bytes"));
            std::array::from_fn(|l| texels_f32(|t| [r[l * 4 + t], g[l * 4 + t], 0.0, 1.0]))
        }),
        PixelRows::Rgba16(_) => unreachable!("no BC format decodes to 16-bit"),
    }
    Ok(())
}

/// A signed BC4 block's (or BC5 channel's) 16 values in -1..1, with bcdec_rs 0.2.1's `bc4_float`
/// arithmetic step for step (the same f32 operations in the same order, so the same bits:
/// tests/codec_reference.rs compares every value). Written here because bcdec_rs stores each texel
/// through a run-time pitch into a scratch block that was then copied texel by texel and again into
/// the image: through it BC5S ran at 0.76x native in Chromium, the lowest of any format.
#[inline(always)]
fn snorm(b: &[u8; 8]) -> [f32; 16] {
    // -128 clamps to -127 (D3D's SNORM rule), i.e. -1.0.
    let a0 = (b[0] as i8 as f32 / 127.0).max(-1.0);
    let a1 = (b[1] as i8 as f32 / 127.0).max(-1.0);
    let p = if a0 > a1 {
        [
            a0,
            a1,
            (6.0 * a0 + a1) / 7.0,
            (5.0 * a0 + 2.0 * a1) / 7.0,
            (4.0 * a0 + 3.0 * a1) / 7.0,
            (3.0 * a0 + 4.0 * a1) / 7.0,
            (2.0 * a0 + 5.0 * a1) / 7.0,
            (a0 + 6.0 * a1) / 7.0,
        ]
    } else {
        [
            a0,
            a1,
            (4.0 * a0 + a1) / 5.0,
            (3.0 * a0 + 2.0 * a1) / 5.0,
            (2.0 * a0 + 3.0 * a1) / 5.0,
            (a0 + 4.0 * a1) / 5.0,
            -1.0,
            1.0,
        ]
    };
    let idx = u64::from_le_bytes(*b) >> 16;
    std::array::from_fn(|t| p[(idx >> (3 * t)) as usize & 7])
}

/// One row of 4 RGBA f32 texels, texel `t`'s from `texel(t)`.
#[inline(always)]
fn texels_f32(texel: impl Fn(usize) -> [f32; 4]) -> [f32; 16] {
    let mut row = [0f32; 16];
    for (t, d) in row.chunks_exact_mut(4).enumerate() {
        d.copy_from_slice(&texel(t));
    }
    row
}

/// [`rows`] for RGBA f32 images: `block` gives a `B`-byte block's 4 rows of 4 texels, each row one
/// 16-float copy into the image (clipped at the right and bottom edges).
#[inline(always)]
pub(super) fn rows_f32<const B: usize>(
    w: usize,
    data: &[u8],
    out: &mut [f32],
    block: impl Fn(&[u8; B]) -> [[f32; 16]; 4],
) {
    let bw = w.div_ceil(4);
    let pitch = w * 4;
    let full = w / 4;
    for (src, dst) in data.chunks_exact(bw * B).zip(out.chunks_mut(pitch * 4)) {
        let lines = dst.len() / pitch;
        // One call of `block` (inlined: one copy of the decoder, which the core wasm module's size
        // budget needs), whole blocks and clipped ones alike.
        for (bx, b) in src.chunks_exact(B).enumerate() {
            let px = block(b.try_into().expect("B bytes"));
            let o = bx * 16;
            if lines == 4 && bx < full {
                for (l, row) in px.iter().enumerate() {
                    dst[l * pitch + o..l * pitch + o + 16].copy_from_slice(row);
                }
            } else {
                let cols = (w - bx * 4).min(4);
                for (l, row) in px.iter().enumerate().take(lines) {
                    dst[l * pitch + o..l * pitch + o + cols * 4].copy_from_slice(&row[..cols * 4]);
                }
            }
        }
    }
}

/// Decodes every `B`-byte block of a surface `w` texels wide (its height is `out`'s) with `block` (its
/// 16 texels, as [`BlockRows`]) into `out`, one row of blocks at a time: a whole block's row of 4
/// texels is one 16-byte copy. Always inlined, so that in wasm a caller with simd128 enabled
/// (src/codec/simd.rs) gets the loop compiled with it. The clipped last column and row of blocks go
/// through [`rows_clipped`], not inlined, so that `block` has one call site here: with three, LLVM
/// kept the wasm BC1/BC2/BC3 kernels' block closures out of line, a call and a 64-byte result through
/// memory per block. A [`Block`] can also be a type whose `decode` is always inlined (every wasm
/// kernel in src/codec/simd.rs), where LLVM's cost model would not inline a closure that large.
#[inline(always)]
pub(super) fn rows<const B: usize, K: Block<B>>(w: usize, data: &[u8], out: &mut [u8], block: K) {
    let bw = w.div_ceil(4);
    let pitch = w * 4;
    let full = w / 4;
    for (src, dst) in data.chunks_exact(bw * B).zip(out.chunks_mut(pitch * 4)) {
        if dst.len() < pitch * 4 {
            rows_clipped(w, src, dst, &block);
            continue;
        }
        let (r0, rest) = dst.split_at_mut(pitch);
        let (r1, rest) = rest.split_at_mut(pitch);
        let (r2, r3) = rest.split_at_mut(pitch);
        let dsts = r0[..full * 16]
            .chunks_exact_mut(16)
            .zip(r1[..full * 16].chunks_exact_mut(16))
            .zip(r2[..full * 16].chunks_exact_mut(16))
            .zip(r3[..full * 16].chunks_exact_mut(16));
        for (b, (((d0, d1), d2), d3)) in src[..full * B].chunks_exact(B).zip(dsts) {
            let px = block.decode(b.try_into().expect("B bytes"));
            for (r, d) in [d0, d1, d2, d3].into_iter().enumerate() {
                d.copy_from_slice(&px.row(r));
            }
        }
        if full < bw {
            rows_clipped(w, src, dst, &block);
        }
    }
}

/// [`rows`] for one row of blocks clipped at the bottom (`dst` under 4 lines: every block) or at
/// the right (4 lines: the last block only, whose texels past `w` are dropped).
#[inline(never)]
fn rows_clipped<const B: usize, K: Block<B>>(w: usize, src: &[u8], dst: &mut [u8], block: &K) {
    let pitch = w * 4;
    let lines = dst.len() / pitch;
    let first = if lines == 4 { w / 4 } else { 0 };
    for (bx, b) in src.chunks_exact(B).enumerate().skip(first) {
        let px = block.decode(b.try_into().expect("B bytes"));
        let cols = (w - bx * 4).min(4);
        for l in 0..lines {
            let o = l * pitch + bx * 16;
            dst[o..o + cols * 4].copy_from_slice(&px.row(l)[..cols * 4]);
        }
    }
}

/// Decodes one `B`-byte block for [`rows`]: any closure from the block's bytes to its texels.
pub(super) trait Block<const B: usize> {
    type Rows: BlockRows;
    fn decode(&self, b: &[u8; B]) -> Self::Rows;
}

impl<const B: usize, R: BlockRows, F: Fn(&[u8; B]) -> R> Block<B> for F {
    type Rows = R;
    #[inline(always)]
    fn decode(&self, b: &[u8; B]) -> R {
        self(b)
    }
}

/// A decoded block's 16 texels, one row of 4 at a time as RGBA bytes.
pub(super) trait BlockRows {
    fn row(&self, r: usize) -> [u8; 16];
}

/// Little-endian RGBA u32 texels, row by row (the scalar decoders).
impl BlockRows for [u32; 16] {
    #[inline(always)]
    fn row(&self, r: usize) -> [u8; 16] {
        let mut o = [0u8; 16];
        for (d, v) in o.chunks_exact_mut(4).zip(&self[r * 4..r * 4 + 4]) {
            d.copy_from_slice(&v.to_le_bytes());
        }
        o
    }
}

/// Rows of RGBA bytes (the wasm simd kernels).
impl BlockRows for [[u8; 16]; 4] {
    #[inline(always)]
    fn row(&self, r: usize) -> [u8; 16] {
        self[r]
    }
}

/// A BC1 colour block (also the colour half of BC2/BC3, which always use four colours:
/// `four`). Palette arithmetic of bcdec_rs (see the module comment): 5/6-bit endpoints expanded with
/// rounding, thirds and halves rounded from the 5/6-bit sums.
#[cfg(not(target_arch = "wasm32"))] // wasm: simd::Colour / ColourAlpha
#[inline(always)]
fn bc1(b: &[u8; 8], four: bool) -> [u32; 16] {
    let pal = bc1_palette(b, four);
    let idx = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    std::array::from_fn(|t| pal[(idx >> (2 * t)) as usize & 3])
}

/// The four colours of a BC1 block (little-endian RGBA u32), as [`bc1`] picks them.
#[cfg(not(target_arch = "wasm32"))] // wasm: simd::Bc1Palette, the same arithmetic in vectors
#[inline(always)]
fn bc1_palette(b: &[u8; 8], four: bool) -> [u32; 4] {
    let c0 = u16::from_le_bytes([b[0], b[1]]) as u32;
    let c1 = u16::from_le_bytes([b[2], b[3]]) as u32;
    let (r0, g0, b0) = (c0 >> 11, (c0 >> 5) & 63, c0 & 31);
    let (r1, g1, b1) = (c1 >> 11, (c1 >> 5) & 63, c1 & 31);
    let rgb = |r: u32, g: u32, b: u32| r | g << 8 | b << 16 | 0xff00_0000;
    let e5 = |v: u32| (v * 527 + 23) >> 6;
    let e6 = |v: u32| (v * 259 + 33) >> 6;
    let mut pal = [
        rgb(e5(r0), e6(g0), e5(b0)),
        rgb(e5(r1), e6(g1), e5(b1)),
        0,
        0,
    ];
    if c0 > c1 || four {
        let t5 = |a: u32, b: u32| ((2 * a + b) * 351 + 61) >> 7;
        let t6 = |a: u32, b: u32| ((2 * a + b) * 2763 + 1039) >> 11;
        pal[2] = rgb(t5(r0, r1), t6(g0, g1), t5(b0, b1));
        pal[3] = rgb(t5(r1, r0), t6(g1, g0), t5(b1, b0));
        if four {
            // BC2/BC3 add their alpha on top.
            pal = pal.map(|c| c & 0x00ff_ffff);
        }
    } else {
        let h5 = |a: u32, b: u32| ((a + b) * 1053 + 125) >> 8;
        let h6 = |a: u32, b: u32| ((a + b) * 4145 + 1019) >> 11;
        pal[2] = rgb(h5(r0, r1), h6(g0, g1), h5(b0, b1));
    }
    pal
}

/// A BC2 / BC3 block: the alpha block's 16 values (`alpha`) on top of the colour block's.
#[cfg(not(target_arch = "wasm32"))] // wasm: simd::colour_alpha
#[inline(always)]
fn colour_alpha(b: &[u8; 16], alpha: impl Fn(&[u8; 8]) -> [u8; 16]) -> [u32; 16] {
    let mut px = bc1(b[8..].try_into().expect("8 bytes"), true);
    for (p, a) in px
        .iter_mut()
        .zip(alpha(b[..8].try_into().expect("8 bytes")))
    {
        *p |= (a as u32) << 24;
    }
    px
}

/// A BC2 alpha block: 4 bits a texel, widened by 17 (bit replication).
#[cfg(not(target_arch = "wasm32"))] // wasm: simd::Explicit
#[inline(always)]
pub(super) fn bc2_alpha(b: &[u8; 8]) -> [u8; 16] {
    let a = u64::from_le_bytes(*b);
    std::array::from_fn(|t| ((a >> (4 * t)) as u8 & 15) * 17)
}

/// BC4's interpolation weights k/7 and k/5 in 16-bit fixed point, as bcdec_rs (9363 * k, rounded
/// per its table); [`alpha`] and [`RAMPS`] use them.
const W7: [u32; 7] = [0, 9363, 18724, 28086, 37450, 46812, 56173];
const W5: [u32; 5] = [0, 13107, 26215, 39321, 52429];

/// A BC3 alpha / BC4 / BC5 channel block: two 8-bit endpoints and 3-bit indices. `bc4` selects
/// BC4's rounding (nearest, 16-bit fixed point) over BC3's ((n + 1) / 7), both as bcdec_rs.
#[cfg(not(target_arch = "wasm32"))] // wasm: simd::Ramp (its weights are these numbers)
#[inline(always)]
fn alpha(b: &[u8; 8], bc4: bool) -> [u8; 16] {
    let (a0, a1) = (b[0] as u32, b[1] as u32);
    let mut pal = [a0, a1, 0, 0, 0, 0, 0, 255];
    if a0 > a1 {
        for k in 1..7 {
            pal[k + 1] = if bc4 {
                (W7[7 - k] * a0 + W7[k] * a1 + 32768) >> 16
            } else {
                ((7 - k as u32) * a0 + k as u32 * a1 + 1) / 7
            };
        }
    } else {
        for k in 1..5 {
            pal[k + 1] = if bc4 {
                (W5[5 - k] * a0 + W5[k] * a1 + 32768) >> 16
            } else {
                ((5 - k as u32) * a0 + k as u32 * a1 + 1) / 5
            };
        }
        pal[6] = 0;
    }
    let idx = u64::from_le_bytes(*b) >> 16;
    std::array::from_fn(|t| pal[(idx >> (3 * t)) as usize & 7] as u8)
}

/// Per-lane weights of the three 8-entry alpha ramps, for the wasm kernels (simd::Ramp), which
/// compute all 8 entries at once: entry j is
/// `(wa[j] a0 + wb[j] a1 + add[j]) >> 16`. Index 0 of a ramp: a0 <= a1 (4 steps, then 0 and 255,
/// the latter as an added `255 << 16`); index 1: a0 > a1 (6 steps). Entries 0 and 1 are a0 and a1
/// themselves (weight `1 << 16`, add under `1 << 16`).
/// - BC4 / BC5: the scalar code's 16-bit fixed point (`alpha` with `bc4`), the same numbers.
/// - BC3: ((n - k) a0 + k a1 + 1) / n (`alpha`), as (x + 1) * ceil(65536 / n) >> 16 with the
///   multiplier folded into the weights: exact for every x this can be (x <= 7 * 255 + 1), checked
///   for all 65,536 endpoint pairs (`tests::ramps_match_the_scalar_ramps`).
/// - ATC interpolated: the same with + 3 (n = 7) and + 2 (n = 5) (atc::alpha_ramp), also checked.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // tests use it natively
pub(super) static RAMPS: [[[[u32; 8]; 3]; 2]; 3] = {
    const H: u32 = 32768;
    const S7: u32 = 9363; // ceil(65536 / 7)
    const S5: u32 = 13108; // ceil(65536 / 5)
                           // The weight of a1 for step k (0..n); a0's is that of n - k.
    const fn multiples<const N: usize>(s: u32) -> [u32; N] {
        let mut w = [0u32; N];
        let mut k = 0;
        while k < N {
            w[k] = k as u32 * s;
            k += 1;
        }
        w
    }
    // Weights of a0 (`a`) or a1: 1 << 16 at entry 0 (a0) or 1 (a1), then steps k = 1..n-1 at
    // entries 2.., the rest 0.
    const fn steps(w: &[u32], a: bool) -> [u32; 8] {
        let n = w.len();
        let mut out = [0u32; 8];
        out[if a { 0 } else { 1 }] = 65536;
        let mut k = 1;
        while k < n {
            out[k + 1] = if a { w[n - k] } else { w[k] };
            k += 1;
        }
        out
    }
    // `lo` for entries 0 and 1 (under 1 << 16), `hi` for the steps; for 5 steps (`top`) entry 6
    // is 0 and entry 7 is 255 (added as 255 << 16).
    const fn add(lo: u32, hi: u32, top: bool) -> [u32; 8] {
        let mut a = [hi; 8];
        a[0] = lo;
        a[1] = lo;
        if top {
            a[6] = 0;
            a[7] = hi + (255 << 16);
        }
        a
    }
    const fn ramp(w5: &[u32], w7: &[u32], lo: u32, h5: u32, h7: u32) -> [[[u32; 8]; 3]; 2] {
        [
            [steps(w5, true), steps(w5, false), add(lo, h5, true)],
            [steps(w7, true), steps(w7, false), add(lo, h7, false)],
        ]
    }
    let (m5, m7) = (multiples::<5>(S5), multiples::<7>(S7));
    [
        ramp(&W5, &W7, H, H, H),
        ramp(&m5, &m7, 0, S5, S7),
        ramp(&m5, &m7, 0, 2 * S5, 3 * S7),
    ]
};

/// One BC7 mode's field widths (BC7 format specification: Microsoft "BC7 Format Mode Reference",
/// the same in the Khronos Data Format Specification's BPTC section).
struct Mode {
    /// Subsets.
    ns: u8,
    /// Partition, rotation and index-selection bits.
    pb: u8,
    rb: u8,
    isb: u8,
    /// Colour and alpha bits an endpoint (alpha 0: opaque).
    cb: u8,
    ab: u8,
    /// A P-bit for every endpoint, or one shared by a subset's two endpoints.
    epb: bool,
    spb: bool,
    /// Primary and secondary index bits.
    ib: u8,
    ib2: u8,
}

#[rustfmt::skip]
const MODES: [Mode; 8] = [
    Mode { ns: 3, pb: 4, rb: 0, isb: 0, cb: 4, ab: 0, epb: true, spb: false, ib: 3, ib2: 0 },
    Mode { ns: 2, pb: 6, rb: 0, isb: 0, cb: 6, ab: 0, epb: false, spb: true, ib: 3, ib2: 0 },
    Mode { ns: 3, pb: 6, rb: 0, isb: 0, cb: 5, ab: 0, epb: false, spb: false, ib: 2, ib2: 0 },
    Mode { ns: 2, pb: 6, rb: 0, isb: 0, cb: 7, ab: 0, epb: true, spb: false, ib: 2, ib2: 0 },
    Mode { ns: 1, pb: 0, rb: 2, isb: 1, cb: 5, ab: 6, epb: false, spb: false, ib: 2, ib2: 3 },
    Mode { ns: 1, pb: 0, rb: 2, isb: 0, cb: 7, ab: 8, epb: false, spb: false, ib: 2, ib2: 2 },
    Mode { ns: 1, pb: 0, rb: 0, isb: 0, cb: 7, ab: 7, epb: true, spb: false, ib: 4, ib2: 0 },
    Mode { ns: 2, pb: 6, rb: 0, isb: 0, cb: 5, ab: 5, epb: true, spb: false, ib: 2, ib2: 0 },
];

/// Interpolation weights for 2-, 3- and 4-bit indices (BC7 specification), indexed by bits - 2.
const WEIGHTS: [[u32; 16]; 3] = [
    [0, 21, 43, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 9, 18, 27, 37, 46, 55, 64, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64],
];

/// The BC7 partition tables for 2 and 3 subsets, packed 2 bits a texel (texel t in bits 2t..2t+2),
/// and the anchor texels of each partition as a mask (texel 0 always; then the second and third
/// subsets' anchors). Values of the BC7 specification's partition and anchor-index tables, packed
/// by a one-off script from bcdec_rs 0.2.1's transcription of them (its note: Khronos's copy has
/// errors); tests/codec_reference.rs decodes every partition of every multi-subset mode bit-exact
/// against the `dds` crate's own tables.
#[rustfmt::skip]
const PARTITIONS: [[u32; 64]; 2] = [
    [
        0x50505050, 0x40404040, 0x54545454, 0x54505040, 0x50404000, 0x55545450, 0x55545040, 0x54504000,
        0x50400000, 0x55555450, 0x55544000, 0x54400000, 0x55555440, 0x55550000, 0x55555500, 0x55000000,
        0x55150100, 0x00004054, 0x15010000, 0x00405054, 0x00004050, 0x15050100, 0x05010000, 0x40505054,
        0x00404050, 0x05010100, 0x14141414, 0x05141450, 0x01155440, 0x00555500, 0x15014054, 0x05414150,
        0x44444444, 0x55005500, 0x11441144, 0x05055050, 0x05500550, 0x11114444, 0x41144114, 0x44111144,
        0x15055054, 0x01055040, 0x05041050, 0x05455150, 0x14414114, 0x50050550, 0x41411414, 0x00141400,
        0x00041504, 0x00105410, 0x10541000, 0x04150400, 0x50410514, 0x41051450, 0x05415014, 0x14054150,
        0x41050514, 0x41505014, 0x40011554, 0x54150140, 0x50505500, 0x00555050, 0x15151010, 0x54540404,
    ],
    [
        0xaa685050, 0x6a5a5040, 0x5a5a4200, 0x5450a0a8, 0xa5a50000, 0xa0a05050, 0x5555a0a0, 0x5a5a5050,
        0xaa550000, 0xaa555500, 0xaaaa5500, 0x90909090, 0x94949494, 0xa4a4a4a4, 0xa9a59450, 0x2a0a4250,
        0xa5945040, 0x0a425054, 0xa5a5a500, 0x55a0a0a0, 0xa8a85454, 0x6a6a4040, 0xa4a45000, 0x1a1a0500,
        0x0050a4a4, 0xaaa59090, 0x14696914, 0x69691400, 0xa08585a0, 0xaa821414, 0x50a4a450, 0x6a5a0200,
        0xa9a58000, 0x5090a0a8, 0xa8a09050, 0x24242424, 0x00aa5500, 0x24924924, 0x24499224, 0x50a50a50,
        0x500aa550, 0xaaaa4444, 0x66660000, 0xa5a0a5a0, 0x50a050a0, 0x69286928, 0x44aaaa44, 0x66666600,
        0xaa444444, 0x54a854a8, 0x95809580, 0x96969600, 0xa85454a8, 0x80959580, 0xaa141414, 0x96960000,
        0xaaaa1414, 0xa05050a0, 0xa0a5a5a0, 0x96000000, 0x40804080, 0xa9a8a9a8, 0xaaaaaa44, 0x2a4a5254,
    ],
];

#[rustfmt::skip]
const ANCHORS: [[u16; 64]; 2] = [
    [
        0x8001, 0x8001, 0x8001, 0x8001, 0x8001, 0x8001, 0x8001, 0x8001, 0x8001, 0x8001, 0x8001, 0x8001,
        0x8001, 0x8001, 0x8001, 0x8001, 0x8001, 0x0005, 0x0101, 0x0005, 0x0005, 0x0101, 0x0101, 0x8001,
        0x0005, 0x0101, 0x0005, 0x0005, 0x0101, 0x0101, 0x0005, 0x0005, 0x8001, 0x8001, 0x0041, 0x0101,
        0x0005, 0x0101, 0x8001, 0x8001, 0x0005, 0x0101, 0x0005, 0x0005, 0x0005, 0x8001, 0x8001, 0x0041,
        0x0041, 0x0005, 0x0041, 0x0101, 0x8001, 0x8001, 0x0005, 0x0005, 0x8001, 0x8001, 0x8001, 0x8001,
        0x8001, 0x0005, 0x0005, 0x8001,
    ],
    [
        0x8009, 0x0109, 0x8101, 0x8009, 0x8101, 0x8009, 0x8009, 0x8101, 0x8101, 0x8101, 0x8041, 0x8041,
        0x8041, 0x8021, 0x8009, 0x0109, 0x8009, 0x0109, 0x8101, 0x8009, 0x8009, 0x0109, 0x8041, 0x0501,
        0x0029, 0x8101, 0x0141, 0x0441, 0x8101, 0x8021, 0x8401, 0x8101, 0x8101, 0x8009, 0x8009, 0x0421,
        0x0441, 0x0501, 0x0301, 0x8401, 0x8041, 0x8009, 0x8101, 0x8021, 0x8009, 0x8041, 0x8041, 0x8101,
        0x8009, 0x8009, 0x8021, 0x8021, 0x8021, 0x8101, 0x8021, 0x8401, 0x8021, 0x8401, 0x8101, 0xa001,
        0x8009, 0x9001, 0x8009, 0x0109,
    ],
];

/// `n` bits of `v` from bit `pos` (n <= 32).
#[inline(always)]
fn bits(v: u128, pos: u32, n: u32) -> u32 {
    ((v >> pos) as u32) & ((1u64 << n) - 1) as u32
}

/// Four 16-bit lanes (R, G, B, A from the low end): the channels of an endpoint, worked on at once.
const LANES: u64 = 0x0001_0001_0001_0001;
const LOW8: u64 = 0x00ff_00ff_00ff_00ff;
/// The R, G and B lanes.
const RGB: u64 = 0x0000_ffff_ffff_ffff;

/// Expands `n`-bit lanes (4..8) to 8 bits by repeating their top bits (BC7 specification); the
/// bits a right shift carries in from the next lane land above bit 7 and are masked off.
#[inline(always)]
fn expand(v: u64, n: u32) -> u64 {
    ((v << (8 - n)) | (v >> (2 * n - 8))) & LOW8
}

/// An endpoint pair made ready for [`lerp`]: `64 * e0 + 32` and `e1 - e0` in every 16-bit lane.
/// The difference is taken on the whole u64, so a negative lane borrows from the lane above it.
#[inline(always)]
fn pair(e0: u64, e1: u64) -> [u64; 2] {
    [e0 * 64 + 32 * LANES, e1.wrapping_sub(e0)]
}

/// The BC7 interpolation `((64 - w) * e0 + w * e1 + 32) >> 6` (BC7 specification) of all four
/// lanes at once, as `(64 * e0 + 32 + w * (e1 - e0)) >> 6`: one multiply instead of two (see the
/// README's BC7 figures). The borrows between lanes of [`pair`]'s difference do no harm: the sum is
/// linear in the lanes, so modulo 2^64 it is the packed per-lane results, each in 32..=16352
/// (under 2^16), hence without carries. The bits the shift brings down from the lane above land
/// above bit 7 of each lane and are masked off.
#[inline(always)]
fn lerp([base, diff]: [u64; 2], w: u64) -> u64 {
    (base.wrapping_add(diff.wrapping_mul(w)) >> 6) & LOW8
}

/// `idx` with a zero bit inserted at bit `p` (p < 63), the bits from `p` up moved one up: an
/// anchor texel's index, stored without its top bit (always 0), made as wide as the others.
#[inline(always)]
fn unshorten(idx: u64, p: u32) -> u64 {
    idx & ((1 << p) - 1) | (idx >> p) << (p + 1)
}

/// `f(0)` to `f(15)`, unrolled (LLVM kept a loop over a block's texels as a loop).
#[inline(always)]
pub(super) fn sixteen(mut f: impl FnMut(usize)) {
    f(0);
    f(1);
    f(2);
    f(3);
    f(4);
    f(5);
    f(6);
    f(7);
    f(8);
    f(9);
    f(10);
    f(11);
    f(12);
    f(13);
    f(14);
    f(15);
}

/// Four 8-bit values in 16-bit lanes, packed to an RGBA8 texel.
#[cfg(not(target_arch = "wasm32"))] // wasm: simd::Bc7 packs a row with one narrowing
#[inline(always)]
fn pack(x: u64) -> u32 {
    let y = x | x >> 8;
    (y & 0xffff) as u32 | (y >> 16) as u32 & 0xffff_0000
}

/// One BC7 block: read once as a u128, its fields taken at the offsets the mode table gives,
/// endpoints held as four 16-bit lanes, weights applied with the specification's integer formula.
/// An invalid mode (first byte 0) decodes to transparent black, as the specification says and
/// `dds` does.
#[cfg(not(target_arch = "wasm32"))] // wasm: simd::Bc7
fn bc7(b: &[u8; 16]) -> [u32; 16] {
    bc7_block(b).map(pack)
}

/// [`bc7`] before packing (texels as four 16-bit lanes), always inlined: the wasm kernel
/// (simd::Bc7) inlines it into a function compiled with simd128.
#[inline(always)]
pub(super) fn bc7_block(b: &[u8; 16]) -> [u64; 16] {
    let v = u128::from_le_bytes(*b);
    // One copy of the decoder per mode, its field widths constants (loops unrolled): measured
    // natively on the bench's 2048x2048 random blocks, CPU time of 21 decodes 0.58 s -> 0.43 s.
    match b[0].trailing_zeros() {
        0 => bc7_mode::<0>(v),
        1 => bc7_mode::<1>(v),
        2 => bc7_mode::<2>(v),
        3 => bc7_mode::<3>(v),
        4 => bc7_mode::<4>(v),
        5 => bc7_mode::<5>(v),
        6 => bc7_mode::<6>(v),
        7 => bc7_mode::<7>(v),
        _ => [0; 16],
    }
}

#[inline(always)]
fn bc7_mode<const MODE: usize>(v: u128) -> [u64; 16] {
    let m = &MODES[MODE];
    let mut pos = MODE as u32 + 1;
    macro_rules! take {
        ($n:expr) => {{
            let n = $n as u32;
            let x = bits(v, pos, n);
            pos += n;
            x as u64
        }};
    }
    let partition = take!(m.pb) as usize;
    let rotation = take!(m.rb) as usize;
    let swap = take!(m.isb) == 1;
    let ends = 2 * m.ns as usize;
    // Endpoints [subset * 2 + end], lanes R, G, B, A; the block stores them channel-major.
    let mut ep = [0u64; 6];
    for c in 0..3 {
        for e in ep.iter_mut().take(ends) {
            *e |= take!(m.cb) << (16 * c);
        }
    }
    if m.ab > 0 {
        for e in ep.iter_mut().take(ends) {
            *e |= take!(m.ab) << 48;
        }
    }
    let (mut cb, mut ab) = (m.cb as u32, m.ab as u32);
    if m.epb || m.spb {
        let mut p = 0;
        for (i, e) in ep.iter_mut().take(ends).enumerate() {
            if m.epb || i % 2 == 0 {
                p = take!(1);
            }
            *e = (*e << 1) | (p * LANES);
        }
        cb += 1;
        ab += (ab > 0) as u32;
    }
    for e in ep.iter_mut().take(ends) {
        let rgb = expand(*e, cb) & RGB;
        let a = if ab > 0 {
            expand(*e, ab) & !RGB
        } else {
            255 << 48
        };
        *e = rgb | a;
    }
    let (subsets, anchors) = match m.ns {
        1 => (0, 1u16),
        n => (
            PARTITIONS[n as usize - 2][partition],
            ANCHORS[n as usize - 2][partition],
        ),
    };
    // 4, not 3: a texel's subset is a 2-bit field (no bounds check).
    let mut pairs = [[0u64; 2]; 4];
    for (s, p) in pairs.iter_mut().take(m.ns as usize).enumerate() {
        *p = pair(ep[2 * s], ep[2 * s + 1]);
    }
    let ib = m.ib as u32;
    let wt = &WEIGHTS[ib as usize - 2];
    let mut px = [0u64; 16];
    if m.ib2 == 0 {
        // One index a texel for all four channels; at most 63 index bits in these modes, so one
        // u64. An anchor texel's index is stored a bit short (its top bit is 0): that bit put back
        // at each anchor, lowest first, every texel's index is at bit ib * t, a constant once the
        // loop is unrolled (no running shift by a width that depends on the texel).
        let mut idx = (v >> pos) as u64;
        let mut a = anchors;
        for _ in 0..m.ns {
            idx = unshorten(idx, ib * a.trailing_zeros() + ib - 1);
            a &= a - 1;
        }
        let mask = (1 << ib) - 1;
        sixteen(|t| {
            // `& 15`: no bounds check.
            let w = wt[(idx >> (ib as usize * t) & mask & 15) as usize] as u64;
            px[t] = lerp(pairs[(subsets >> (2 * t)) as usize & 3], w);
        });
    } else {
        // Modes 4 and 5: a colour and an alpha index a texel, the index-selection bit saying which
        // stream is which; texel 0's indices are a bit short (as anchors above). The rotation bits
        // swap alpha with one colour channel after interpolation: done here on the endpoints
        // before it, alpha's weight then going to that channel's lane (`alpha`).
        let mut e = [ep[0], ep[1]];
        let alpha = match rotation {
            0 => !RGB,
            r => {
                let s = 16 * (r as u32 - 1);
                for x in &mut e {
                    let (a, c) = (*x >> 48, (*x >> s) & 255);
                    *x = (*x & !(255 << s) & RGB) | a << s | c << 48;
                }
                0xffff << s
            }
        };
        let pair = pair(e[0], e[1]);
        let ib2 = m.ib2 as u32;
        let wt2 = &WEIGHTS[ib2 as usize - 2];
        let i1 = unshorten((v >> pos) as u64, ib - 1);
        let i2 = unshorten((v >> (pos + 16 * ib - 1)) as u64, ib2 - 1);
        let (m1, m2) = if swap {
            (alpha, !alpha)
        } else {
            (!alpha, alpha)
        };
        let (mask1, mask2) = ((1 << ib) - 1, (1 << ib2) - 1);
        sixteen(|t| {
            let w1 = wt[(i1 >> (ib as usize * t) & mask1 & 15) as usize] as u64;
            let w2 = wt2[(i2 >> (ib2 as usize * t) & mask2 & 15) as usize] as u64;
            px[t] = lerp(pair, w1) & m1 | lerp(pair, w2) & m2;
        });
    }
    px
}

#[cfg(test)]
mod tests {
    /// RAMPS (the wasm kernels' weights) give exactly the scalar ramps for every endpoint pair:
    /// BC4/BC5 and BC3 against [`super::alpha`], ATC against atc::alpha_ramp (the scalar code is
    /// itself held to bcdec_rs, `dds` and Compressonator's formulas in tests/).
    #[test]
    fn ramps_match_the_scalar_ramps() {
        for a0 in 0..=255u8 {
            for a1 in 0..=255u8 {
                let mut b = [a0, a1, 0, 0, 0, 0, 0, 0];
                for (ramp, reference) in [
                    (0, scalar(&mut b, |b| super::alpha(b, true))),
                    (1, scalar(&mut b, |b| super::alpha(b, false))),
                    (2, crate::codec::atc::alpha_ramp(a0, a1)),
                ] {
                    let [wa, wb, add] = &super::RAMPS[ramp][(a0 > a1) as usize];
                    for j in 0..8 {
                        let v = (wa[j] * a0 as u32 + wb[j] * a1 as u32 + add[j]) >> 16;
                        assert_eq!(
                            v, reference[j] as u32,
                            "ramp {ramp}, a0 {a0}, a1 {a1}, entry {j}"
                        );
                    }
                }
            }
        }
    }

    /// The 8 entries of a channel block's ramp, read back through the block's texels: texel t
    /// given index t (t < 8).
    fn scalar(b: &mut [u8; 8], decode: impl Fn(&[u8; 8]) -> [u8; 16]) -> [u8; 8] {
        // Indices 0..7 for texels 0..7: 3 bits each from bit 16.
        let idx: u64 = (0..8u64).fold(0, |acc, t| acc | t << (3 * t));
        b[2..].copy_from_slice(&(idx.to_le_bytes()[..6]));
        let texels = decode(b);
        std::array::from_fn(|j| texels[j])
    }
}
