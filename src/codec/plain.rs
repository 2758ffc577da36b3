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
    let data = &data[..n * bpp];
    let u16le = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let u32le = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let f16le = |b: &[u8], i: usize| f16::from_bits(u16le(b, i)).to_f32();
    let f32le = |b: &[u8], i: usize| f32::from_bits(u32le(b, i));
    match &mut img.pixels {
        Pixels::Rgba8(out) => match format {
            RGB8 => map::<3, _>(out, data, |t| pick(&t, ORDER_RGB8)),
            BGR8 => map::<3, _>(out, data, |t| pick(&t, ORDER_BGR8)),
            RGBA8 => out.copy_from_slice(data),
            // One arm a format with its table entry a constant, so that natively each loop is
            // specialised and autovectorised (a table looked up at run time measured 0.22-0.43x).
            R8 => map::<1, _>(out, data, |t| pick(&t, ORDER_R8)),
            A8 => map::<1, _>(out, data, |t| pick(&t, ORDER_A8)),
            L8 => map::<1, _>(out, data, |t| pick(&t, ORDER_L8)),
            LA8 => map::<2, _>(out, data, |t| pick(&t, ORDER_LA8)),
            RG8 => map::<2, _>(out, data, |t| pick(&t, ORDER_RG8)),
            BGRA8 => map::<4, _>(out, data, |t| pick(&t, ORDER_BGRA8)),
            ARGB8 => map::<4, _>(out, data, |t| pick(&t, ORDER_ARGB8)),
            BGRX8 => map::<4, _>(out, data, |t| pick(&t, ORDER_BGRX8)),
            RGB565 => map::<2, _>(out, data, |t| unpack(t, PACKED_RGB565)),
            BGRA5551 => map::<2, _>(out, data, |t| unpack(t, PACKED_BGRA5551)),
            ARGB4444 => map::<2, _>(out, data, |t| unpack(t, PACKED_ARGB4444)),
            RGBA4444 => map::<2, _>(out, data, |t| unpack(t, PACKED_RGBA4444)),
            _ => return Ok(false),
        },
        Pixels::Rgba16(out) => match format {
            R16 => map::<2, _>(out, data, |t| [u16le(&t, 0), 0, 0, 65535]),
            RG16 => map::<4, _>(out, data, |t| [u16le(&t, 0), u16le(&t, 2), 0, 65535]),
            RGBA16 => map::<8, _>(out, data, |t| {
                [u16le(&t, 0), u16le(&t, 2), u16le(&t, 4), u16le(&t, 6)]
            }),
            RGB10A2 => map::<4, _>(out, data, |t| {
                let v = u32::from_le_bytes(t);
                [
                    expand16(v, 10),
                    expand16(v >> 10, 10),
                    expand16(v >> 20, 10),
                    expand16(v >> 30, 2),
                ]
            }),
            _ => return Ok(false),
        },
        Pixels::Rgba32F(out) => match format {
            R16F => map::<2, _>(out, data, |t| [f16le(&t, 0), 0.0, 0.0, 1.0]),
            RG16F => map::<4, _>(out, data, |t| [f16le(&t, 0), f16le(&t, 2), 0.0, 1.0]),
            RGBA16F => map::<8, _>(out, data, |t| {
                [f16le(&t, 0), f16le(&t, 2), f16le(&t, 4), f16le(&t, 6)]
            }),
            R32F => map::<4, _>(out, data, |t| [f32le(&t, 0), 0.0, 0.0, 1.0]),
            RG32F => map::<8, _>(out, data, |t| [f32le(&t, 0), f32le(&t, 4), 0.0, 1.0]),
            RGB32F => map::<12, _>(out, data, |t| {
                [f32le(&t, 0), f32le(&t, 4), f32le(&t, 8), 1.0]
            }),
            RGBA32F => map::<16, _>(out, data, |t| {
                [f32le(&t, 0), f32le(&t, 4), f32le(&t, 8), f32le(&t, 12)]
            }),
            RGB9E5 => rgb9e5_rows(out, data),
            RG11B10F => map::<4, _>(out, data, |t| {
                let v = u32::from_le_bytes(t);
                [
                    small_float(v & 0x7ff, 6),
                    small_float((v >> 11) & 0x7ff, 6),
                    small_float(v >> 22, 5),
                    1.0,
                ]
            }),
            _ => return Ok(false),
        },
    }
    Ok(true)
}

/// Converts every `N`-byte texel of `data` to four output channels with `px`. One copy of this
/// loop per format (the closure inlined): measured in wasm (node, CPU time, 2048x2048) it replaced
/// a call through a function pointer per texel: R8 707 -> 5037, RGBA8 677 -> 7182 (a copy),
/// BGRA8 521 -> 2789, RGB565 423 -> 917 MB/s (medians, same run).
#[inline(always)]
fn map<const N: usize, T: Copy>(out: &mut [T], data: &[u8], px: impl Fn([u8; N]) -> [T; 4]) {
    for (o, t) in out.chunks_exact_mut(4).zip(data.chunks_exact(N)) {
        o.copy_from_slice(&px(t.try_into().expect("N bytes")));
    }
}

/// A byte-order format's output channels (R, G, B, A): each a byte of the texel, or 0 or 255.
pub(super) type Order = [u8; 4];
pub(super) const ZERO: u8 = 0xfe;
pub(super) const FULL: u8 = 0xff;

const ORDER_R8: Order = [0, ZERO, ZERO, FULL];
const ORDER_A8: Order = [ZERO, ZERO, ZERO, 0];
const ORDER_L8: Order = [0, 0, 0, FULL];
const ORDER_LA8: Order = [0, 0, 0, 1];
const ORDER_RG8: Order = [0, 1, ZERO, FULL];
const ORDER_RGB8: Order = [0, 1, 2, FULL];
const ORDER_BGR8: Order = [2, 1, 0, FULL];
const ORDER_BGRA8: Order = [2, 1, 0, 3];
const ORDER_ARGB8: Order = [1, 2, 3, 0];
const ORDER_BGRX8: Order = [2, 1, 0, FULL];

/// The byte-order formats decoded by [`pick`] (and in wasm by simd::reorder): bytes a texel and
/// channel order.
#[cfg(target_arch = "wasm32")]
fn order(format: PixelFormat) -> Option<(usize, Order)> {
    use PixelFormat::*;
    Some(match format {
        R8 => (1, ORDER_R8),
        A8 => (1, ORDER_A8),
        L8 => (1, ORDER_L8),
        LA8 => (2, ORDER_LA8),
        RG8 => (2, ORDER_RG8),
        RGB8 => (3, ORDER_RGB8),
        BGR8 => (3, ORDER_BGR8),
        BGRA8 => (4, ORDER_BGRA8),
        ARGB8 => (4, ORDER_ARGB8),
        BGRX8 => (4, ORDER_BGRX8),
        _ => return None,
    })
}

/// One texel of a byte-order format.
#[inline(always)]
fn pick<const N: usize>(t: &[u8; N], order: Order) -> [u8; 4] {
    let ch = |p: u8| match p {
        ZERO => 0,
        FULL => 255,
        i => t[i as usize],
    };
    // Written out, not `order.map`: natively LA8's loop measured 0.86x with the map.
    [ch(order[0]), ch(order[1]), ch(order[2]), ch(order[3])]
}

/// A 16-bit little-endian packed format's output channels (R, G, B, A): each a shift and a bit
/// count, widened with [`expand`] (0 bits: 255).
pub(super) type Packed = [(u8, u8); 4];

const PACKED_RGB565: Packed = [(11, 5), (5, 6), (0, 5), (0, 0)];
const PACKED_BGRA5551: Packed = [(10, 5), (5, 5), (0, 5), (15, 1)];
const PACKED_ARGB4444: Packed = [(8, 4), (4, 4), (0, 4), (12, 4)];
const PACKED_RGBA4444: Packed = [(12, 4), (8, 4), (4, 4), (0, 4)];

/// The 16-bit packed formats decoded by [`unpack`] (and in wasm by simd::packed16).
#[cfg(target_arch = "wasm32")]
fn packed(format: PixelFormat) -> Option<Packed> {
    use PixelFormat::*;
    Some(match format {
        RGB565 => PACKED_RGB565,
        BGRA5551 => PACKED_BGRA5551,
        ARGB4444 => PACKED_ARGB4444,
        RGBA4444 => PACKED_RGBA4444,
        _ => return None,
    })
}

/// One texel of a 16-bit packed format.
#[inline(always)]
fn unpack(t: [u8; 2], packed: Packed) -> [u8; 4] {
    let v = u16::from_le_bytes(t);
    packed.map(|(shift, bits)| expand(v >> shift, bits as u32))
}

/// wasm: the byte-order, 16-bit packed and RGBA8 formats as a new vector of `n` bytes (`data` holds
/// the whole surface), None for other formats. Appended by the simd kernels and [`pick`] /
/// [`unpack`] for the tail, instead of overwriting a zero-filled image: measured in V8 (node,
/// CPU time, 2048x2048) the zero fill alone took 0.58 ms of RGBA8's 1.78 ms decode.
#[cfg(target_arch = "wasm32")]
pub(super) fn append(format: PixelFormat, data: &[u8], n: usize) -> Option<Vec<u8>> {
    let texels = n / 4;
    let mut out;
    if format == PixelFormat::RGBA8 {
        out = data[..n].to_vec();
    } else if let Some((bytes, order)) = order(format) {
        let data = &data[..texels * bytes];
        let done;
        (out, done) = match bytes {
            1 => super::simd::reorder::<1, 4>(data, n, order),
            2 => super::simd::reorder::<2, 2>(data, n, order),
            3 => super::simd::reorder3(data, n, order),
            _ => super::simd::reorder::<4, 1>(data, n, order),
        };
        for t in data[done * bytes..].chunks_exact(bytes) {
            let t: [u8; 4] = std::array::from_fn(|i| t.get(i).copied().unwrap_or(0));
            out.extend_from_slice(&pick(&t, order));
        }
    } else if let Some(packed) = packed(format) {
        let data = &data[..texels * 2];
        let done;
        (out, done) = super::simd::packed16(data, n, packed);
        for t in data[done * 2..].chunks_exact(2) {
            out.extend_from_slice(&unpack([t[0], t[1]], packed));
        }
    } else {
        return None;
    }
    Some(out)
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

/// [`expand`]'s multiplier and addend by bit count (0..=6): `(v * mul + add) >> 6` is
/// round(v * 255 / (2^bits - 1)) for every `bits`-bit v (searched by a one-off script, checked for
/// every value by the `expand_rounds_to_nearest` test), and 255 for 0 bits. Products stay below
/// 2^16, so the wasm simd kernel uses the same numbers in 16-bit lanes.
pub(super) const WIDEN: [(u16, u16); 7] = [
    (0, 255 << 6),
    (255 << 6, 0),
    (85 << 6, 0),
    (2331, 30),
    (17 << 6, 0),
    (527, 23),
    (259, 33),
];

/// Widens the low `bits` bits of `v` (0..=6) to 8 bits, rounding to nearest (exact for 0 and full
/// scale); 0 bits give 255.
#[inline(always)]
fn expand(v: u16, bits: u32) -> u8 {
    let (mul, add) = WIDEN[bits as usize];
    let v = (v & ((1 << bits) - 1)) as u32;
    ((v * mul as u32 + add as u32) >> 6) as u8
}

/// Widens the low `bits` bits of `v` to 16 bits, rounding to nearest.
#[inline(always)]
fn expand16(v: u32, bits: u32) -> u16 {
    let max = (1u32 << bits) - 1;
    let v = v & max;
    ((v * 65535 * 2 + max) / (2 * max)) as u16
}

/// 2^k for -126 <= k <= 127, built from its bits: `powi` is a libm call per texel in wasm
/// (RGB9E5 and R11G11B10F ran at 147 and 61 MB/s in node before).
#[inline(always)]
fn pow2(k: i32) -> f32 {
    f32::from_bits(((k + 127) as u32) << 23)
}

/// DXGI R9G9B9E5_SHAREDEXP: three 9-bit mantissas, one 5-bit exponent with bias 15.
fn rgb9e5(v: u32) -> [f32; 4] {
    let scale = pow2(((v >> 27) as i32) - 15 - 9);
    [
        (v & 0x1ff) as f32 * scale,
        ((v >> 9) & 0x1ff) as f32 * scale,
        ((v >> 18) & 0x1ff) as f32 * scale,
        1.0,
    ]
}

/// [`map`] of RGB9E5, in wasm compiled with simd128 so that LLVM vectorises it as it does natively
/// with SSE2 (the module is built without simd128 as a whole, see scripts/build-wasm.sh). Scalar,
/// it ran at 0.56-0.59x native in Chromium (2026-12-06), the lowest of any format; simd128 on all of
/// `decode` would have taken the core module 950 B gzipped over its budget.
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
fn rgb9e5_rows(out: &mut [f32], data: &[u8]) {
    map::<4, _>(out, data, |t| rgb9e5(u32::from_le_bytes(t)))
}

/// An unsigned float with a 5-bit exponent (bias 15) and `mbits` mantissa bits (R11G11B10F).
fn small_float(v: u32, mbits: u32) -> f32 {
    let m = v & ((1 << mbits) - 1);
    let e = (v >> mbits) & 0x1f;
    match e {
        0 => m as f32 * pow2(-14 - mbits as i32),
        31 => {
            if m == 0 {
                f32::INFINITY
            } else {
                f32::NAN
            }
        }
        _ => (1.0 + m as f32 / (1 << mbits) as f32) * pow2(e as i32 - 15),
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
    fn expand_rounds_to_nearest() {
        // The definition: round(v * 255 / max), computed in exact integer arithmetic.
        for bits in 1..=6u32 {
            let max = (1 << bits) - 1;
            for v in 0..=max {
                assert_eq!(
                    expand(v as u16, bits) as u32,
                    (v * 510 + max) / (2 * max),
                    "{bits} {v}"
                );
            }
        }
        assert_eq!(expand(0x1234, 0), 255);
    }

    #[test]
    fn pow2_is_powi() {
        // The IEEE 754 binary32 value of 2^k (exact), as the standard library computes it.
        for k in -126..=127 {
            assert_eq!(pow2(k), 2f32.powi(k));
        }
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
