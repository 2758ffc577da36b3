//! Uncompressed formats. Written here: each is a few lines of bit arithmetic, and no kept crate
//! covers Unity's and Unreal's channel orders (ARGB32, ARGB4444) together with the float formats.

use super::{Image, PixelFormat, Pixels};
use crate::io::Result;
use half::f16;

/// Decodes `format` if it is an uncompressed format; returns Ok(false) for any other format.
pub(super) fn decode(
    format: PixelFormat,
    w: u32,
    h: u32,
    data: &[u8],
    img: &mut Image,
) -> Result<bool> {
    use PixelFormat::*;
    let n = w as usize * h as usize;
    let bpp = format.block().bytes as usize;
    if format == YUY2 {
        yuy2(w as usize, h as usize, data, img);
        return Ok(true);
    }
    if format.is_block_compressed() {
        return Ok(false);
    }
    let texels = data[..n * bpp].chunks_exact(bpp);
    let u16le = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let u32le = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let f16le = |b: &[u8], i: usize| f16::from_bits(u16le(b, i)).to_f32();
    let f32le = |b: &[u8], i: usize| f32::from_bits(u32le(b, i));
    match &mut img.pixels {
        Pixels::Rgba8(out) => {
            let px: fn(&[u8]) -> [u8; 4] = match format {
                R8 => |t| [t[0], 0, 0, 255],
                A8 => |t| [0, 0, 0, t[0]],
                L8 => |t| [t[0], t[0], t[0], 255],
                LA8 => |t| [t[0], t[0], t[0], t[1]],
                RG8 => |t| [t[0], t[1], 0, 255],
                RGB8 => |t| [t[0], t[1], t[2], 255],
                BGR8 => |t| [t[2], t[1], t[0], 255],
                RGBA8 => |t| [t[0], t[1], t[2], t[3]],
                BGRA8 => |t| [t[2], t[1], t[0], t[3]],
                ARGB8 => |t| [t[1], t[2], t[3], t[0]],
                BGRX8 => |t| [t[2], t[1], t[0], 255],
                RGB565 => |t| {
                    let v = u16::from_le_bytes([t[0], t[1]]);
                    [expand(v >> 11, 5), expand(v >> 5, 6), expand(v, 5), 255]
                },
                BGRA5551 => |t| {
                    let v = u16::from_le_bytes([t[0], t[1]]);
                    [
                        expand(v >> 10, 5),
                        expand(v >> 5, 5),
                        expand(v, 5),
                        if v >> 15 == 1 { 255 } else { 0 },
                    ]
                },
                ARGB4444 => |t| {
                    let v = u16::from_le_bytes([t[0], t[1]]);
                    [
                        expand(v >> 8, 4),
                        expand(v >> 4, 4),
                        expand(v, 4),
                        expand(v >> 12, 4),
                    ]
                },
                RGBA4444 => |t| {
                    let v = u16::from_le_bytes([t[0], t[1]]);
                    [
                        expand(v >> 12, 4),
                        expand(v >> 8, 4),
                        expand(v >> 4, 4),
                        expand(v, 4),
                    ]
                },
                _ => return Ok(false),
            };
            for (o, t) in out.chunks_exact_mut(4).zip(texels) {
                o.copy_from_slice(&px(t));
            }
        }
        Pixels::Rgba16(out) => {
            for (o, t) in out.chunks_exact_mut(4).zip(texels) {
                let v = match format {
                    R16 => [u16le(t, 0), 0, 0, 65535],
                    RG16 => [u16le(t, 0), u16le(t, 2), 0, 65535],
                    RGBA16 => [u16le(t, 0), u16le(t, 2), u16le(t, 4), u16le(t, 6)],
                    RGB10A2 => {
                        let v = u32le(t, 0);
                        [
                            expand16(v, 10),
                            expand16(v >> 10, 10),
                            expand16(v >> 20, 10),
                            expand16(v >> 30, 2),
                        ]
                    }
                    _ => return Ok(false),
                };
                o.copy_from_slice(&v);
            }
        }
        Pixels::Rgba32F(out) => {
            for (o, t) in out.chunks_exact_mut(4).zip(texels) {
                let v = match format {
                    R16F => [f16le(t, 0), 0.0, 0.0, 1.0],
                    RG16F => [f16le(t, 0), f16le(t, 2), 0.0, 1.0],
                    RGBA16F => [f16le(t, 0), f16le(t, 2), f16le(t, 4), f16le(t, 6)],
                    R32F => [f32le(t, 0), 0.0, 0.0, 1.0],
                    RG32F => [f32le(t, 0), f32le(t, 4), 0.0, 1.0],
                    RGB32F => [f32le(t, 0), f32le(t, 4), f32le(t, 8), 1.0],
                    RGBA32F => [f32le(t, 0), f32le(t, 4), f32le(t, 8), f32le(t, 12)],
                    RGB9E5 => rgb9e5(u32le(t, 0)),
                    RG11B10F => {
                        let v = u32le(t, 0);
                        [
                            small_float(v & 0x7ff, 6),
                            small_float((v >> 11) & 0x7ff, 6),
                            small_float(v >> 22, 5),
                            1.0,
                        ]
                    }
                    _ => return Ok(false),
                };
                o.copy_from_slice(&v);
            }
        }
    }
    Ok(true)
}

/// YUY2 (Y0 U Y1 V per pair of texels) to RGB with the integer BT.601 studio-range conversion
/// Microsoft recommends for 8-bit YUV ("Converting 8-bit YUV to RGB888"). A row of odd width still
/// stores a whole pair; its second texel is dropped.
fn yuy2(w: usize, h: usize, data: &[u8], img: &mut Image) {
    let Pixels::Rgba8(out) = &mut img.pixels else {
        return;
    };
    let pairs = w.div_ceil(2);
    let clip = |v: i32| ((v + 128) >> 8).clamp(0, 255) as u8;
    for y in 0..h {
        for p in 0..pairs {
            let s = &data[(y * pairs + p) * 4..][..4];
            let (d, e) = (s[1] as i32 - 128, s[3] as i32 - 128);
            for (k, &luma) in [s[0], s[2]].iter().enumerate() {
                let x = p * 2 + k;
                if x >= w {
                    break;
                }
                let c = 298 * (luma as i32 - 16);
                let o = (y * w + x) * 4;
                out[o..o + 4].copy_from_slice(&[
                    clip(c + 409 * e),
                    clip(c - 100 * d - 208 * e),
                    clip(c + 516 * d),
                    255,
                ]);
            }
        }
    }
}

/// Widens the low `bits` bits of `v` to 8 bits by bit replication (exact for 0 and full scale).
fn expand(v: u16, bits: u32) -> u8 {
    let v = (v & ((1 << bits) - 1)) as u32;
    ((v * 255 * 2 + ((1 << bits) - 1)) / (2 * ((1 << bits) - 1))) as u8
}

/// Widens the low `bits` bits of `v` to 16 bits, rounding to nearest.
fn expand16(v: u32, bits: u32) -> u16 {
    let max = (1u32 << bits) - 1;
    let v = v & max;
    ((v * 65535 * 2 + max) / (2 * max)) as u16
}

/// DXGI R9G9B9E5_SHAREDEXP: three 9-bit mantissas, one 5-bit exponent with bias 15.
fn rgb9e5(v: u32) -> [f32; 4] {
    let scale = 2f32.powi(((v >> 27) as i32) - 15 - 9);
    [
        (v & 0x1ff) as f32 * scale,
        ((v >> 9) & 0x1ff) as f32 * scale,
        ((v >> 18) & 0x1ff) as f32 * scale,
        1.0,
    ]
}

/// An unsigned float with a 5-bit exponent (bias 15) and `mbits` mantissa bits (R11G11B10F).
fn small_float(v: u32, mbits: u32) -> f32 {
    let m = v & ((1 << mbits) - 1);
    let e = (v >> mbits) & 0x1f;
    match e {
        0 => m as f32 * 2f32.powi(-14 - mbits as i32),
        31 => {
            if m == 0 {
                f32::INFINITY
            } else {
                f32::NAN
            }
        }
        _ => (1.0 + m as f32 / (1 << mbits) as f32) * 2f32.powi(e as i32 - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_expansion_is_exact_at_ends() {
        assert_eq!(expand(0, 5), 0);
        assert_eq!(expand(31, 5), 255);
        assert_eq!(expand(63, 6), 255);
        assert_eq!(expand(15, 4), 255);
        assert_eq!(expand(8, 4), 136);
        assert_eq!(expand16(1023, 10), 65535);
        assert_eq!(expand16(3, 2), 65535);
    }

    #[test]
    fn shared_exponent_and_small_floats() {
        // 1.0 in RGB9E5: mantissa 256, exponent 16 -> 256 * 2^(16-24) = 1.
        let v = 256 | (16 << 27);
        assert_eq!(rgb9e5(v)[0], 1.0);
        // 1.0 in an 11-bit float: exponent 15, mantissa 0.
        assert_eq!(small_float(15 << 6, 6), 1.0);
        assert_eq!(small_float(31 << 6, 6), f32::INFINITY);
        assert!(small_float((31 << 6) | 1, 6).is_nan());
    }
}
