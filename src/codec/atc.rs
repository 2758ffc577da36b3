//! ATC (ATI/Qualcomm "ATITC"): RGB, RGBA with explicit 4-bit alpha, RGBA with interpolated alpha.
//! Written from AMD Compressonator's reference codec (cmp_compressonatorlib/atc: the ATI authors'
//! encoder/decoder), read for the facts only: colour 0 is X1R5G5B5 whose top bit selects the
//! "black trick" palette, colour 1 is R5G6B5, both widened by bit replication; palette
//! (c0, (5*c0 + 3*c1) >> 3, (3*c0 + 5*c1) >> 3, c1), or with the flag
//! (black, max(c0 - (c1 >> 2), 0), c0, c1); 2-bit indices row-major from the least significant bit.
//! The RGBA variants put an 8-byte alpha block first. Not the texture2ddecoder 0.1.2 crate: its black-trick colour
//! is (c0 - c1) / 4 with wrap-around, which disagrees with the reference.

use super::bc::{rows, texel_rows};
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
    let bytes = match format {
        ATCRGB => 8,
        ATCRGBAExplicit | ATCRGBAInterpolated => 16,
        _ => return Ok(false),
    };
    let Pixels::Rgba8(out) = &mut img.pixels else {
        return Ok(false);
    };
    // Whole rows of blocks straight into the image (bc::rows) instead of a scratch block copied
    // per block: measured in wasm (node, CPU time, 2048x2048, medians of two runs each) ATCRGB
    // 516/729 -> 758/849 MB/s; the two RGBA variants within the noise (alpha ramp dominates).
    let block = |b: &[u8]| -> [u32; 16] {
        let mut px = [255u8; 64];
        colour(&b[bytes - 8..], &mut px);
        let alpha = u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]));
        match format {
            ATCRGBAExplicit => {
                for t in 0..16 {
                    let a = ((alpha >> (4 * t)) & 15) as u8;
                    px[t * 4 + 3] = (a << 4) | a;
                }
            }
            ATCRGBAInterpolated => {
                let ramp = alpha_ramp(alpha as u8, (alpha >> 8) as u8);
                for t in 0..16 {
                    px[t * 4 + 3] = ramp[((alpha >> (16 + 3 * t)) & 7) as usize];
                }
            }
            _ => {}
        }
        std::array::from_fn(|t| {
            u32::from_le_bytes([px[t * 4], px[t * 4 + 1], px[t * 4 + 2], px[t * 4 + 3]])
        })
    };
    match bytes {
        8 => rows::<8>(w as usize, data, out, |b| texel_rows(block(b))),
        _ => rows::<16>(w as usize, data, out, |b| texel_rows(block(b))),
    }
    Ok(true)
}

fn colour(b: &[u8], px: &mut [u8; 64]) {
    let c0 = u16::from_le_bytes([b[0], b[1]]) as u32;
    let c1 = u16::from_le_bytes([b[2], b[3]]) as u32;
    let idx = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
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
    for t in 0..16 {
        let c = palette[((idx >> (2 * t)) & 3) as usize];
        px[t * 4..t * 4 + 3].copy_from_slice(&[c[0] as u8, c[1] as u8, c[2] as u8]);
    }
}

/// The interpolated-alpha ramp (BC3-style), with the reference's rounding (+3)/7 and (+2)/5.
fn alpha_ramp(a0: u8, a1: u8) -> [u8; 8] {
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
