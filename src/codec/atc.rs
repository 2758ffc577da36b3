//! ATC (ATI/Qualcomm "ATITC"): RGB, RGBA with explicit 4-bit alpha, RGBA with interpolated alpha.
//! Written from AMD Compressonator's reference codec (cmp_compressonatorlib/atc: the ATI authors'
//! encoder/decoder), read for the facts only: colour 0 is X1R5G5B5 whose top bit selects the
//! "black trick" palette, colour 1 is R5G6B5, both widened by bit replication; palette
//! (c0, (5*c0 + 3*c1) >> 3, (3*c0 + 5*c1) >> 3, c1), or with the flag
//! (black, max(c0 - (c1 >> 2), 0), c0, c1); 2-bit indices row-major from the least significant bit.
//! The RGBA variants put an 8-byte alpha block first. Not the texture2ddecoder 0.1.2 crate: its black-trick colour
//! is (c0 - c1) / 4 with wrap-around, which disagrees with the reference.

#[cfg(not(target_arch = "wasm32"))]
use super::bc::rows;
use super::{Image, PixelFormat, Pixels};
use crate::io::Result;

/// Decodes `format` if it is an ATC format; returns Ok(false) for any other format.
pub(super) fn decode(
    format: PixelFormat,
    w: u32,
    // The height is the image's: `rows` writes as many rows as it holds.
    _h: u32,
    data: &[u8],
    img: &mut Image,
) -> Result<bool> {
    use PixelFormat::*;
    if !matches!(format, ATCRGB | ATCRGBAExplicit | ATCRGBAInterpolated) {
        return Ok(false);
    }
    let Pixels::Rgba8(out) = &mut img.pixels else {
        return Ok(false);
    };
    // Whole rows of blocks straight into the image (bc::rows) instead of a scratch block copied
    // per block: measured in wasm (node, CPU time, 2048x2048, medians of two runs each) ATCRGB
    // 516/729 -> 758/849 MB/s; the two RGBA variants within the noise (alpha ramp dominates).
    let w = w as usize;
    // wasm: the colour rows as simd swizzles of the palette (src/codec/simd.rs).
    #[cfg(target_arch = "wasm32")]
    super::simd::blocks(format, w, data, out);
    #[cfg(not(target_arch = "wasm32"))]
    {
        let bytes = if format == ATCRGB { 8 } else { 16 };
        let block = |b: &[u8]| -> [u32; 16] {
            let c: &[u8; 8] = b[bytes - 8..].try_into().expect("8 bytes");
            let pal = palette(c);
            let idx = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
            let mut px: [u32; 16] = std::array::from_fn(|t| pal[(idx >> (2 * t)) as usize & 3]);
            if bytes == 16 {
                let a = b[..8].try_into().expect("8 bytes");
                let a = match format {
                    ATCRGBAExplicit => super::bc::bc2_alpha(a),
                    _ => interpolated(a),
                };
                for (p, a) in px.iter_mut().zip(a) {
                    *p = *p & 0x00ff_ffff | (a as u32) << 24;
                }
            }
            px
        };
        match bytes {
            8 => rows::<8, _>(w, data, out, |b: &[u8; 8]| block(b)),
            _ => rows::<16, _>(w, data, out, |b: &[u8; 16]| block(b)),
        }
    }
    Ok(true)
}

/// The four colours of an ATC colour block (little-endian RGBA u32, opaque).
#[inline(always)]
pub(super) fn palette(b: &[u8; 8]) -> [u32; 4] {
    let c0 = u16::from_le_bytes([b[0], b[1]]) as u32;
    let c1 = u16::from_le_bytes([b[2], b[3]]) as u32;
    let rep5 = |v: u32| ((v << 3) | (v >> 2)) as i32;
    let rep6 = |v: u32| ((v << 2) | (v >> 4)) as i32;
    let lo = [rep5((c0 >> 10) & 31), rep5((c0 >> 5) & 31), rep5(c0 & 31)];
    let hi = [rep5(c1 >> 11), rep6((c1 >> 5) & 63), rep5(c1 & 31)];
    let palette: [[i32; 3]; 4] = if c0 & 0x8000 != 0 {
        [
            [0; 3],
            [0, 1, 2].map(|c| (lo[c] - (hi[c] >> 2)).max(0)),
            lo,
            hi,
        ]
    } else {
        [
            lo,
            [0, 1, 2].map(|c| (5 * lo[c] + 3 * hi[c]) >> 3),
            [0, 1, 2].map(|c| (3 * lo[c] + 5 * hi[c]) >> 3),
            hi,
        ]
    };
    palette.map(|[r, g, b]| r as u32 | (g as u32) << 8 | (b as u32) << 16 | 0xff00_0000)
}

/// An interpolated alpha block's 16 values: endpoints, then 3-bit indices into [`alpha_ramp`].
#[cfg(not(target_arch = "wasm32"))] // wasm: simd::Ramp
#[inline(always)]
fn interpolated(b: &[u8; 8]) -> [u8; 16] {
    let alpha = u64::from_le_bytes(*b);
    let ramp = alpha_ramp(b[0], b[1]);
    std::array::from_fn(|t| ramp[((alpha >> (16 + 3 * t)) & 7) as usize])
}

/// The interpolated-alpha ramp (BC3-style), with the reference's rounding (+3)/7 and (+2)/5.
#[cfg(any(test, not(target_arch = "wasm32")))]
pub(super) fn alpha_ramp(a0: u8, a1: u8) -> [u8; 8] {
    let (a, b) = (a0 as u32, a1 as u32);
    let mut r = [a0, a1, 0, 0, 0, 0, 0, 255];
    if a > b {
        for k in 1..7u32 {
            r[k as usize + 1] = (((7 - k) * a + k * b + 3) / 7) as u8;
        }
    } else {
        for k in 1..5u32 {
            r[k as usize + 1] = (((5 - k) * a + k * b + 2) / 5) as u8;
        }
        r[6] = 0;
    }
    r
}
