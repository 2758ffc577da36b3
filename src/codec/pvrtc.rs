//! PVRTC1 (PowerVR texture compression, version 1) and PVRTC2: 4 bpp (4x4 texel blocks) and 2 bpp
//! (8x4), each 64-bit block a little-endian u32 of modulation bits followed by a u32 of colour data.
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
//! PVRTC2 (PVRTC-II, 2 and 4 bpp) from the Khronos Data Format Specification 1.3's "PVRTC2"
//! sections (derived from Imagination's PVRTC user guide): the same words with one opacity flag for
//! both colours (colour B's 3-bit alpha padded with a 1), blocks in raster order over a grid of any
//! size, and the hard transition flag, which for the region between four block centres selects
//! PVRTC1's bilinear colours (punch-through texels then transparent black), the texel's own block's
//! colours, or (4 bpp, modulation flag set) a local palette of the four blocks' eight colours
//! (`Grid::texel_v2`). Checked bit-exact against Binomial's basisu PVRTC2 unpacker and by PSNR on
//! PVRTexTool's files (tests/codec_pvrtc.rs).
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
    let (two_bpp, v2) = match format {
        PVRTC2RGB | PVRTC2RGBA => (true, false),
        PVRTC4RGB | PVRTC4RGBA => (false, false),
        PVRTCII2 => (true, true),
        PVRTCII4 => (false, true),
        _ => return Ok(false),
    };
    let Pixels::Rgba8(out) = &mut img.pixels else {
        return Ok(false);
    };
    let bw: usize = if two_bpp { 8 } else { 4 };
    let bh: usize = 4;
    // PVRTC1: at least 2x2 blocks, a power-of-two grid in Morton order; PVRTC2: any size, blocks
    // in raster order.
    let min = if v2 { 1 } else { 2 };
    let nbx = (w as usize).div_ceil(bw).max(min);
    let nby = (h as usize).div_ceil(bh).max(min);
    if !v2 && (!nbx.is_power_of_two() || !nby.is_power_of_two()) {
        return Err(Error::unsupported(format!(
            "{} needs power-of-two sizes (PVRTC1 blocks are twiddled over a power-of-two grid); this surface is {w}x{h}",
            format.name()
        ))
        .at_field("width/height"));
    }
    // The caller checked `data` holds nbx * nby blocks (PixelFormat::surface_size).
    let block = |bx: usize, by: usize| -> (u32, u32) {
        let i = if v2 {
            (by * nbx + bx) * 8
        } else {
            twiddle(bx, by, nbx, nby) * 8
        };
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
    // PVRTC2: each block's modulation flag M (bit 32) and hard transition flag H (bit 47).
    let mut flags = vec![0u8; if v2 { nbx * nby } else { 0 }];
    let mut pending = false;
    for by in 0..nby {
        for bx in 0..nbx {
            let (m, c) = block(bx, by);
            colours[by * nbx + bx] = if v2 {
                flags[by * nbx + bx] = (c & 1) as u8 | (((c >> 15) & 1) as u8 * HARD);
                unpack_colours_v2(c)
            } else {
                unpack_colours(c)
            };
            let origin = by * bh * vw + bx * bw;
            let mode = c & 1;
            if v2 && !two_bpp {
                // PVRTC2 4 bpp: the raw 2-bit values; what they weigh depends on the mode of the
                // hard transition region a texel lies in (pass 3).
                for t in 0..16 {
                    modw[origin + (t / 4) * vw + t % 4] = ((m >> (2 * t)) & 3) as u8;
                }
            } else if !two_bpp {
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

    if v2 {
        let grid = Grid {
            nbx,
            nby,
            bw,
            bh,
            colours: &colours,
            flags: &flags,
            modw: &modw,
            two_bpp,
        };
        for (y, row) in out
            .chunks_exact_mut(w as usize * 4)
            .enumerate()
            .take(h as usize)
        {
            for (x, texel) in row.chunks_exact_mut(4).enumerate() {
                texel.copy_from_slice(&grid.texel_v2(x, y));
            }
        }
        return Ok(true);
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
/// PVRTC2 block flags: M is bit 0 (the modulation flag), H this bit (hard transition).
const HARD: u8 = 2;

/// A PVRTC2 surface after pass 1 (and 2 for 2 bpp): per block its colours (5:5:5:4) and flags,
/// per texel its modulation (4 bpp: the raw 2-bit value; 2 bpp: the weight in eighths).
struct Grid<'a> {
    nbx: usize,
    nby: usize,
    bw: usize,
    bh: usize,
    colours: &'a [[u8; 8]],
    flags: &'a [u8],
    modw: &'a [u8],
    two_bpp: bool,
}

/// A 5-bit channel (or 4-bit alpha, `alpha`) of the 4555 colours to 8 bits by bit replication
/// (Khronos Data Format Specification, PVRTC2 "Non-interpolated" and "Local palette mode").
fn widen(v: u8, alpha: bool) -> u32 {
    let v = v as u32;
    if alpha {
        v << 4 | v
    } else {
        v << 3 | v >> 2
    }
}

impl Grid<'_> {
    /// Colour A (`b` = 0) or B (`b` = 4) of block (bx, by) as 8-bit RGBA.
    fn colour(&self, bx: usize, by: usize, b: usize) -> [u32; 4] {
        let c = &self.colours[by * self.nbx + bx];
        std::array::from_fn(|k| widen(c[b + k], k == 3))
    }

    /// One texel of a PVRTC2 surface (Khronos Data Format Specification 1.3, "PVRTC2"): the
    /// texel's hard transition region is the one between the centres of blocks P = (bx0, by0),
    /// Q (right of P), R (below P) and S (right of R); H is P's flag, M the flag of the block
    /// holding the texel. H = 0: PVRTC1's bilinear colours (M = 1 in 4 bpp: punch-through, whose
    /// texels are transparent black); H = 1: the texel's own block's colours, not interpolated
    /// (M = 0, and always in 2 bpp), or in 4 bpp with M = 1 the local palette of P, Q, R, S.
    fn texel_v2(&self, x: usize, y: usize) -> [u8; 4] {
        let (bw, bh, nbx, nby) = (self.bw, self.bh, self.nbx, self.nby);
        let (vw, vh) = (nbx * bw, nby * bh);
        let px = (x + vw - bw / 2) % vw;
        let py = (y + vh - bh / 2) % vh;
        let (bx0, by0, xr, yr) = (px / bw, py / bh, px % bw, py % bh);
        let (bx1, by1) = ((bx0 + 1) % nbx, (by0 + 1) % nby);
        let (xm, ym) = (x / bw, y / bh);
        let hard = self.flags[by0 * nbx + bx0] & HARD != 0;
        let m = self.flags[ym * nbx + xm] & 1 == 1;
        let raw = self.modw[y * vw + x] as usize;
        let blend = |a: [u32; 4], b: [u32; 4], wt: u32| -> [u8; 4] {
            std::array::from_fn(|k| ((a[k] * (8 - wt) + b[k] * wt) >> 3) as u8)
        };
        if !hard {
            let (wt, punch) = match (self.two_bpp, m) {
                (true, _) => (raw as u32, false),
                (false, false) => ([0, 3, 5, 8][raw], false),
                (false, true) => ([0, 4, 4, 8][raw], raw == 2),
            };
            if punch {
                return [0; 4];
            }
            let (fx, fy) = (xr as i32, yr as i32);
            let (bw_i, bh_i) = (bw as i32, bh as i32);
            let corners = [
                (bx0, by0, (bw_i - fx) * (bh_i - fy)),
                (bx1, by0, fx * (bh_i - fy)),
                (bx0, by1, (bw_i - fx) * fy),
                (bx1, by1, fx * fy),
            ];
            let image = |b: usize| -> [u32; 4] {
                std::array::from_fn(|k| {
                    let v: i32 = corners
                        .iter()
                        .map(|&(cx, cy, f)| f * self.colours[cy * nbx + cx][b + k] as i32)
                        .sum();
                    (if self.two_bpp {
                        to8_2bpp(v, k)
                    } else {
                        to8_4bpp(v, k)
                    }) as u32
                })
            };
            return blend(image(0), image(4), wt);
        }
        if self.two_bpp || !m {
            let wt = if self.two_bpp {
                raw as u32
            } else {
                [0, 3, 5, 8][raw]
            };
            return blend(self.colour(xm, ym, 0), self.colour(xm, ym, 4), wt);
        }
        // Local palette: per texel offset (xr, yr) in the region, the colour each modulation
        // value picks (the specification's table): P, Q, R, S are 0..3, A is 0 and B 4.
        const PALETTE: [[[(u8, u8); 4]; 4]; 4] = {
            const AP: (u8, u8) = (0, 0);
            const BP: (u8, u8) = (0, 4);
            const AQ: (u8, u8) = (1, 0);
            const BQ: (u8, u8) = (1, 4);
            const AR: (u8, u8) = (2, 0);
            const BR: (u8, u8) = (2, 4);
            const AS: (u8, u8) = (3, 0);
            const BS: (u8, u8) = (3, 4);
            [
                // yr = 0, xr = 0..3 (xr = yr = 0 is the bilinear texel, handled below)
                [
                    [AP, BP, AQ, BQ],
                    [AP, BP, AQ, BQ],
                    [AP, BP, AQ, BQ],
                    [AP, BP, AQ, BQ],
                ],
                [
                    [AP, BP, AR, BR],
                    [AP, BP, AQ, BR],
                    [AP, BP, AQ, BQ],
                    [AS, BP, AQ, BQ],
                ],
                [
                    [AP, BP, AR, BR],
                    [AP, BP, AR, BR],
                    [AP, BS, AR, BQ],
                    [AS, BS, AQ, BQ],
                ],
                [
                    [AP, BP, AR, BR],
                    [AP, BS, AR, BR],
                    [AS, BS, AR, BR],
                    [AS, BS, AR, BQ],
                ],
            ]
        };
        if xr == 0 && yr == 0 {
            // The texel at P's centre: P's own colours, blended by the standard weights.
            let wt = [0, 3, 5, 8][raw];
            return blend(self.colour(bx0, by0, 0), self.colour(bx0, by0, 4), wt);
        }
        let (which, b) = PALETTE[yr][xr][raw];
        let (cx, cy) = [(bx0, by0), (bx1, by0), (bx0, by1), (bx1, by1)][which as usize];
        self.colour(cx, cy, b as usize).map(|v| v as u8)
    }
}

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

/// PVRTC2 colours A and B as [r, g, b, a] each (5-bit colour, 4-bit alpha): PVRTC1's layouts with
/// one opacity flag, bit 31, for both colours (bit 15 is the hard transition flag), and colour
/// B's 3-bit alpha widened with a 1 bit instead of a 0 (Khronos Data Format Specification,
/// "PVRTC2 4bpp").
fn unpack_colours_v2(c: u32) -> [u8; 8] {
    let opaque = c >> 31;
    let mut v = unpack_colours((c & !0x8000) | opaque << 15);
    if opaque == 0 {
        v[7] |= 1;
    }
    v
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
