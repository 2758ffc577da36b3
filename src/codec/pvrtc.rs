//! PVRTC1 (PowerVR texture compression, version 1): 4 bpp (4x4 texel blocks) and 2 bpp (8x4), each
//! 64-bit block a little-endian u32 of modulation bits followed by a u32 of colour data.
//!
//! Written here from the format's public description: Fenney, "Texture compression using
//! low-frequency signal modulation" (Graphics Hardware 2003) and Imagination's PVRTC specification
//! as embodied in its PVRTDecompress reference (PowerVR SDK), read for the facts only:
//! - colour word: bit 0 the modulation mode; colour A in bits 1-15, colour B in bits 16-31, each
//!   with its top bit set for opaque RGB (A 5:5:4, B 5:5:5) or clear for ARGB (A 3:4:4:3,
//!   B 3:4:4:4); channels widen to 5 bits (alpha to 4) by bit replication (3-bit alpha gets a 0 bit);
//! - each texel blends the A and B images, bilinearly upscaled from the block grid with block
//!   centres as sample points and wrap-around at the edges (the texture tiles), converted 5.x to 8
//!   bits as `v + (v >> 5)` on the 5.3 fixed-point value (alpha 4.4: `v + (v >> 4)`);
//! - 4 bpp: 2-bit weights 0, 3/8, 5/8, 1, or with the mode bit 0, 1/2, 1/2 with alpha forced to 0
//!   ("punch-through"), 1;
//! - 2 bpp: mode bit 0 is 1 bit per texel (A or B); mode bit 1 stores 2-bit values in a checkerboard
//!   (texels with (x ^ y) even, row-major) and interpolates the others from their neighbours: both
//!   directions, or horizontal only / vertical only when modulation bit 0 is set (bit 20, the
//!   centre stored texel's low bit, then picks vertical); those two flag bits take the value of the
//!   bit above them;
//! - blocks are stored in Morton (twiddled) order over the block grid, y in the lower bit, the
//!   extra high bits of the longer side appended; the grid is at least 2x2 blocks, and power-of-two.
//!
//! Not a crate: texture2ddecoder 0.1.2 is the only Rust PVRTC decoder and is not proved on wasm32
//! (shared notes); this file is checked against PyPI texture2ddecoder 1.0.6 (tests/codec_pvrtc.rs).
//! The RGB and RGBA formats share one bit layout and decode the same way.

use super::{Image, PixelFormat, Pixels};
use crate::io::{Error, Result};

/// Decodes `format` if it is a PVRTC1 format; returns Ok(false) for any other format.
pub(super) fn decode(
    format: PixelFormat,
    w: u32,
    h: u32,
    data: &[u8],
    img: &mut Image,
) -> Result<bool> {
    use PixelFormat::*;
    let two_bpp = match format {
        PVRTC2RGB | PVRTC2RGBA => true,
        PVRTC4RGB | PVRTC4RGBA => false,
        _ => return Ok(false),
    };
    let Pixels::Rgba8(out) = &mut img.pixels else {
        return Ok(false);
    };
    let bw: usize = if two_bpp { 8 } else { 4 };
    let bh: usize = 4;
    let nbx = (w as usize).div_ceil(bw).max(2);
    let nby = (h as usize).div_ceil(bh).max(2);
    if !nbx.is_power_of_two() || !nby.is_power_of_two() {
        return Err(Error::unsupported(format!(
            "{} needs power-of-two sizes (PVRTC1 blocks are twiddled over a power-of-two grid); this surface is {w}x{h}",
            format.name()
        ))
        .at_field("width/height"));
    }
    // The caller checked `data` holds nbx * nby blocks (PixelFormat::surface_size).
    let block = |bx: usize, by: usize| -> (u32, u32) {
        let i = twiddle(bx, by, nbx, nby) * 8;
        let b = &data[i..i + 8];
        (
            u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        )
    };

    // Pass 1: per block, colours A and B as 5:5:5:4 (row-major over the grid), and per texel of the
    // whole grid (which may be larger than the image) the modulation weight in eighths, bit 4 set
    // for punch-through; 2 bpp interpolated texels hold 0x80 | mode until pass 2.
    let (vw, vh) = (nbx * bw, nby * bh);
    let mut colours = vec![[0u8; 8]; nbx * nby];
    let mut modw = vec![0u8; vw * vh];
    let mut pending = false;
    for by in 0..nby {
        for bx in 0..nbx {
            let (m, c) = block(bx, by);
            colours[by * nbx + bx] = unpack_colours(c);
            let origin = by * bh * vw + bx * bw;
            let mode = c & 1;
            if !two_bpp {
                for t in 0..16 {
                    let v = (m >> (2 * t)) & 3;
                    modw[origin + (t / 4) * vw + t % 4] = match (mode, v) {
                        (0, _) => [0, 3, 5, 8][v as usize],
                        (_, 0) => 0,
                        (_, 1) => 4,
                        (_, 2) => 4 | PUNCH,
                        _ => 8,
                    };
                }
            } else if mode == 0 {
                for t in 0..32 {
                    modw[origin + (t / 8) * vw + t % 8] = if m >> t & 1 == 1 { 8 } else { 0 };
                }
            } else {
                pending = true;
                let mut m = m;
                let interp = if m & 1 == 0 {
                    1
                } else if m & (1 << 20) != 0 {
                    3
                } else {
                    2
                };
                if interp != 1 {
                    m = (m & !(1 << 20)) | ((m >> 1) & (1 << 20));
                }
                m = (m & !1) | ((m >> 1) & 1);
                let mut k = 0;
                for y in 0..4 {
                    for x in 0..8 {
                        modw[origin + y * vw + x] = if (x ^ y) & 1 == 0 {
                            let v = [0, 3, 5, 8][((m >> (2 * k)) & 3) as usize];
                            k += 1;
                            v
                        } else {
                            0x80 | interp
                        };
                    }
                }
            }
        }
    }
    // Pass 2 (2 bpp): interpolated texels from their stored neighbours (always stored: block sizes
    // are even, so (x ^ y) parity is global), wrapping at the grid edges.
    if pending {
        for y in 0..vh {
            let (up, down) = ((y + vh - 1) % vh, (y + 1) % vh);
            for x in 0..vw {
                let v = modw[y * vw + x];
                if v & 0x80 == 0 {
                    continue;
                }
                let (left, right) = ((x + vw - 1) % vw, (x + 1) % vw);
                let h2 = modw[y * vw + left] as u32 + modw[y * vw + right] as u32;
                let v2 = modw[up * vw + x] as u32 + modw[down * vw + x] as u32;
                modw[y * vw + x] = match v & 3 {
                    1 => (h2 + v2 + 2) / 4,
                    2 => h2.div_ceil(2),
                    _ => v2.div_ceil(2),
                } as u8;
            }
        }
    }

    // Pass 3: bilinear A and B per texel, then the blend. Texel x lies between the centres of
    // blocks (x - bw/2) / bw and the next one, at weight fx / bw.
    let xs: Vec<(usize, usize, i32)> = (0..w as usize)
        .map(|x| {
            let p = (x + vw - bw / 2) % vw;
            (p / bw, (p / bw + 1) % nbx, (p % bw) as i32)
        })
        .collect();
    let (bw_i, bh_i) = (bw as i32, bh as i32);
    let row = w as usize * 4;
    for (y, out_row) in out.chunks_exact_mut(row).enumerate().take(h as usize) {
        let p = (y + vh - bh / 2) % vh;
        let (by0, by1, fy) = (p / bh, (p / bh + 1) % nby, (p % bh) as i32);
        let (r0, r1) = (&colours[by0 * nbx..][..nbx], &colours[by1 * nbx..][..nbx]);
        let mrow = &modw[y * vw..][..vw];
        for (x, (&(bx0, bx1, fx), texel)) in xs.iter().zip(out_row.chunks_exact_mut(4)).enumerate()
        {
            let (p, q, r, s) = (&r0[bx0], &r0[bx1], &r1[bx0], &r1[bx1]);
            let wp = (bw_i - fx) * (bh_i - fy);
            let wq = fx * (bh_i - fy);
            let wr = (bw_i - fx) * fy;
            let ws = fx * fy;
            let m = mrow[x];
            let wt = (m & 15) as i32;
            for c in 0..4 {
                let a = wp * p[c] as i32 + wq * q[c] as i32 + wr * r[c] as i32 + ws * s[c] as i32;
                let b = wp * p[c + 4] as i32
                    + wq * q[c + 4] as i32
                    + wr * r[c + 4] as i32
                    + ws * s[c + 4] as i32;
                let (a, b) = if two_bpp {
                    (to8_2bpp(a, c), to8_2bpp(b, c))
                } else {
                    (to8_4bpp(a, c), to8_4bpp(b, c))
                };
                texel[c] = ((a * (8 - wt) + b * wt) >> 3) as u8;
            }
            if m & PUNCH != 0 {
                texel[3] = 0;
            }
        }
    }
    Ok(true)
}

/// Set in a 4 bpp modulation weight for the punch-through texel (alpha 0).
const PUNCH: u8 = 16;

/// A bilinear sum of 16 weights (4 bpp) to 8 bits: colour 5.4 -> 5.3 -> 8, alpha 4.4 -> 8.
#[inline]
fn to8_4bpp(v: i32, c: usize) -> i32 {
    if c == 3 {
        v + (v >> 4)
    } else {
        let v = v >> 1;
        v + (v >> 5)
    }
}

/// A bilinear sum of 32 weights (2 bpp) to 8 bits.
#[inline]
fn to8_2bpp(v: i32, c: usize) -> i32 {
    if c == 3 {
        let v = v >> 1;
        v + (v >> 4)
    } else {
        let v = v >> 2;
        v + (v >> 5)
    }
}

/// Colours A and B of a colour word as [r, g, b, a] each, colour channels 5 bits, alpha 4 bits.
fn unpack_colours(c: u32) -> [u8; 8] {
    let rep4 = |v: u32| ((v << 1) | (v >> 3)) as u8;
    let a = c & 0xFFFF;
    let b = c >> 16;
    let ca = if a & 0x8000 != 0 {
        [
            ((a >> 10) & 31) as u8,
            ((a >> 5) & 31) as u8,
            rep4((a >> 1) & 15),
            15,
        ]
    } else {
        let b3 = (a >> 1) & 7;
        [
            rep4((a >> 8) & 15),
            rep4((a >> 4) & 15),
            ((b3 << 2) | (b3 >> 1)) as u8,
            (((a >> 12) & 7) << 1) as u8,
        ]
    };
    let cb = if b & 0x8000 != 0 {
        [
            ((b >> 10) & 31) as u8,
            ((b >> 5) & 31) as u8,
            (b & 31) as u8,
            15,
        ]
    } else {
        [
            rep4((b >> 8) & 15),
            rep4((b >> 4) & 15),
            rep4(b & 15),
            (((b >> 12) & 7) << 1) as u8,
        ]
    };
    [ca[0], ca[1], ca[2], ca[3], cb[0], cb[1], cb[2], cb[3]]
}

/// Morton index of block (x, y) in an `nx` x `ny` power-of-two grid: bits of y and x interleaved
/// (y lowest) up to the shorter side, then the remaining high bits of the longer side's coordinate.
fn twiddle(x: usize, y: usize, nx: usize, ny: usize) -> usize {
    let min = nx.min(ny);
    let mut out = 0;
    let mut shift = 0;
    while (1 << shift) < min {
        out |= ((y >> shift) & 1) << (2 * shift);
        out |= ((x >> shift) & 1) << (2 * shift + 1);
        shift += 1;
    }
    let rest = (if nx > ny { x } else { y }) >> shift;
    out | (rest << (2 * shift))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twiddle_orders() {
        // Square 4x4 grid: Morton with y in bit 0 (PVRTC specification's block order).
        assert_eq!(twiddle(1, 0, 4, 4), 2);
        assert_eq!(twiddle(0, 1, 4, 4), 1);
        assert_eq!(twiddle(3, 3, 4, 4), 15);
        // 8x2 grid: one interleaved bit, then x's high bits: x=5 (0b101), y=1 -> 1 | 0b10 | 0b10 << 2.
        assert_eq!(twiddle(5, 1, 8, 2), 0b1011);
    }
}
