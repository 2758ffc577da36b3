//! BC1-BC7 through bcdec_rs (measured bit-exact against `dds` on random blocks, all BC6H modes, and
//! 4 GB/s BC1 natively: shared/notes/crates-and-toolchain.md).

use super::{Image, PixelFormat, Pixels};
use crate::io::Result;

/// Decodes `format` if it is a BCn format; returns Ok(false) for any other format.
pub(super) fn decode(
    format: PixelFormat,
    w: u32,
    h: u32,
    data: &[u8],
    img: &mut Image,
) -> Result<bool> {
    use PixelFormat::*;
    let bytes = match format {
        BC1 | BC4 | BC4S => 8,
        BC2 | BC3 | BC5 | BC5S | BC6HU | BC6HS | BC7 => 16,
        _ => return Ok(false),
    };
    let (w, h) = (w as usize, h as usize);
    let bw = w.div_ceil(4);
    let bh = h.div_ceil(4);
    match &mut img.pixels {
        Pixels::Rgba8(out) => {
            for by in 0..bh {
                for bx in 0..bw {
                    let i = (by * bw + bx) * bytes;
                    let block = &data[i..i + bytes];
                    let mut px = [0u8; 64];
                    match format {
                        BC1 => bcdec_rs::bc1(block, &mut px, 16),
                        BC2 => bcdec_rs::bc2(block, &mut px, 16),
                        BC3 => bcdec_rs::bc3(block, &mut px, 16),
                        BC7 => bcdec_rs::bc7(block, &mut px, 16),
                        BC4 => {
                            let mut r = [0u8; 16];
                            bcdec_rs::bc4(block, &mut r, 4, false);
                            for (t, v) in r.iter().enumerate() {
                                px[t * 4..t * 4 + 4].copy_from_slice(&[*v, 0, 0, 255]);
                            }
                        }
                        BC5 => {
                            let mut rg = [0u8; 32];
                            bcdec_rs::bc5(block, &mut rg, 8, false);
                            for t in 0..16 {
                                px[t * 4..t * 4 + 4].copy_from_slice(&[
                                    rg[t * 2],
                                    rg[t * 2 + 1],
                                    0,
                                    255,
                                ]);
                            }
                        }
                        _ => unreachable!("float formats decode below"),
                    }
                    copy_block(out, w, h, bx, by, &px);
                }
            }
        }
        Pixels::Rgba32F(out) => {
            for by in 0..bh {
                for bx in 0..bw {
                    let i = (by * bw + bx) * bytes;
                    let block = &data[i..i + bytes];
                    let mut px = [0f32; 64];
                    match format {
                        BC6HU | BC6HS => {
                            let mut rgb = [0f32; 48];
                            bcdec_rs::bc6h_float(block, &mut rgb, 12, format == BC6HS);
                            for t in 0..16 {
                                px[t * 4..t * 4 + 4].copy_from_slice(&[
                                    rgb[t * 3],
                                    rgb[t * 3 + 1],
                                    rgb[t * 3 + 2],
                                    1.0,
                                ]);
                            }
                        }
                        BC4S => {
                            let mut r = [0f32; 16];
                            bcdec_rs::bc4_float(block, &mut r, 4, true);
                            for (t, v) in r.iter().enumerate() {
                                px[t * 4..t * 4 + 4].copy_from_slice(&[*v, 0.0, 0.0, 1.0]);
                            }
                        }
                        BC5S => {
                            let mut rg = [0f32; 32];
                            bcdec_rs::bc5_float(block, &mut rg, 8, true);
                            for t in 0..16 {
                                px[t * 4..t * 4 + 4].copy_from_slice(&[
                                    rg[t * 2],
                                    rg[t * 2 + 1],
                                    0.0,
                                    1.0,
                                ]);
                            }
                        }
                        _ => unreachable!("8-bit formats decode above"),
                    }
                    copy_block(out, w, h, bx, by, &px);
                }
            }
        }
        Pixels::Rgba16(_) => unreachable!("no BC format decodes to 16-bit"),
    }
    Ok(true)
}

/// Copies the visible part of a decoded 4x4 block (RGBA, 16 texels) into the image.
pub(super) fn copy_block<T: Copy>(
    out: &mut [T],
    w: usize,
    h: usize,
    bx: usize,
    by: usize,
    px: &[T],
) {
    let x0 = bx * 4;
    let cols = (w - x0).min(4);
    for row in 0..4 {
        let y = by * 4 + row;
        if y >= h {
            break;
        }
        let o = (y * w + x0) * 4;
        out[o..o + cols * 4].copy_from_slice(&px[row * 16..row * 16 + cols * 4]);
    }
}
