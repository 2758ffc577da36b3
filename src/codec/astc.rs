//! ASTC (2D, every footprint 4x4..12x12), LDR and HDR profiles.
//!
//! Hand-written: the Rust crates measured wrong or panicking on real data (astc-decode 0.3.1 decodes
//! a valid random 4x4 block wrongly, texture2ddecoder 0.1.2 overflows on a random block; see
//! tests/vectors/gen_astc.py). Written from the ASTC chapter of the Khronos Data Format
//! Specification (block modes, integer sequence encoding, colour and weight unquantisation, endpoint
//! modes, partition hash, weight infill, void extent, error blocks). Where the specification leaves
//! the output conversion to the implementation we follow ARM's astcenc (the reference codec), which
//! the test vectors come from (tests/codec_astc.rs):
//! - LDR (PixelFormat::ASTC{hdr:false}): endpoints are widened to 16 bits by `e * 257`, interpolated
//!   as `(e0 * (64 - w) + e1 * w + 32) >> 6`, and the top 8 bits are the RGBA8 result (astcenc's
//!   RGBA8 output, bit-exact on its vectors). An error block is opaque magenta (255, 0, 255, 255)
//!   as the specification says; so is an HDR endpoint pair in an LDR texture (astcenc's stand-in
//!   endpoints (0xFF00, 0, 0xFF00, 0xFF00) give exactly that).
//! - HDR (PixelFormat::ASTC{hdr:true}): HDR endpoint lanes are 12-bit log values shifted to 16 bits,
//!   interpolated the same way and mapped to FP16 by the specification's LNS-to-FP16 rule (clamped
//!   to 0x7BFF); LDR lanes go through the same truncating unorm16-to-FP16 step; void-extent FP16
//!   colours are taken as they are. An error block is four NaNs, as the specification says for HDR.

use super::{Image, PixelFormat, Pixels};
use crate::io::Result;

/// Decodes `format` if it is ASTC; returns Ok(false) for any other format.
pub(super) fn decode(
    format: PixelFormat,
    w: u32,
    h: u32,
    data: &[u8],
    img: &mut Image,
) -> Result<bool> {
    let PixelFormat::ASTC { w: bw, h: bh, hdr } = format else {
        return Ok(false);
    };
    let (bw, bh) = (bw as usize, bh as usize);
    // wasm: one decoder for every footprint. A copy for 4x4 was slower there (node: ASTC 4x4 /
    // 6x6 0.88x / 0.92x, and 19 KB more module): binaryen stops inlining the texel kernel into
    // its two callers.
    #[cfg(target_arch = "wasm32")]
    return Ok(with_decoder(bw, bh, hdr, |dec| {
        decode_blocks_simd(dec, w, h, data, img)
    }));
    // Natively 4x4 LDR blocks (the most common footprint, and its blocks the slowest per texel)
    // have a copy of the block loop and decoder of their own, where the footprint's size is a
    // constant (`F`): its loops over the 16 texels, 4 rows and 16-byte rows have fixed counts.
    // 5% fewer instructions a 4x4 block (callgrind, scripts/bench-instructions.sh), 1.04x
    // (`texscope bench`, medians of 5 alternating turns). (A closure of its own: both copies in
    // one measured 1-3% more instructions a block on the other footprints.)
    #[cfg(not(target_arch = "wasm32"))]
    if (bw, bh, hdr) == (4, 4, false) {
        Ok(with_decoder(bw, bh, hdr, |dec| {
            decode_blocks::<4>(dec, w, h, data, img)
        }))
    } else {
        Ok(with_decoder(bw, bh, hdr, |dec| {
            decode_blocks::<0>(dec, w, h, data, img)
        }))
    }
}

/// Decoders kept per thread between calls.
const KEPT_DECODERS: usize = 4;

thread_local! {
    /// The kept decoders with when each was last used (a count of calls). They stay in place: a
    /// Decoder is ~5.8 KB of tables and scratch, and moving it out of the list and back was five
    /// copies a call (memcpy, callgrind); in place, an 8x8-texel surface decodes 1.2-1.5x
    /// faster (`texscope bench --side 8`, alternating builds).
    static DECODERS: std::cell::RefCell<(u64, Vec<(u64, Decoder)>)> =
        const { std::cell::RefCell::new((0, Vec::new())) };
}

/// Runs `f` with the thread's decoder of this footprint and profile, built on first use and kept
/// for the next call (the [`KEPT_DECODERS`] most recently used; at most about 0.5 MB each, mostly
/// partition maps). Building one (2048 block modes, every weight grid's infill, the
/// unquantisation tables) took 31 us for 4x4 and 64 us for 8x8 natively, longer than decoding a
/// 64x64 surface, and its partition maps were rebuilt for every surface: each mip of a chain and
/// each small texture paid that. Measured (`texscope bench --side N`, and in node
/// scripts/bench-node.mjs --side N): ASTC 4x4 / 8x8 / 12x12 at 64x64 2.1x / 3.7x / 7.9x natively
/// and 2.8x / 5.9x / 14x in wasm, at 256x256 1.3x / 2.5x / 3.0x and 1.3x / 1.7x / 2.3x; no change
/// at 2048x2048 (docs/benchmarks.md, "ASTC: decoders kept between calls").
fn with_decoder<R>(bw: usize, bh: usize, hdr: bool, f: impl FnOnce(&mut Decoder) -> R) -> R {
    DECODERS.with(|cell| {
        // Held while `f` decodes, which never comes back here.
        let mut kept = cell.borrow_mut();
        let (clock, list) = &mut *kept;
        *clock += 1;
        let found = list
            .iter()
            .position(|(_, d)| (d.bw, d.bh, d.hdr) == (bw, bh, hdr));
        let i = found.unwrap_or_else(|| {
            let dec = Decoder::new(bw, bh, hdr);
            if list.len() < KEPT_DECODERS {
                list.push((0, dec));
                list.len() - 1
            } else {
                // The least recently used one goes.
                let i = list
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, (t, _))| *t)
                    .map_or(0, |(i, _)| i);
                list[i].1 = dec;
                i
            }
        });
        list[i].0 = *clock;
        f(&mut list[i].1)
    })
}

/// wasm: [`decode_blocks`] (and the inlined [`Decoder::block`], the HDR path) compiled with simd128
/// enabled, so the compiler can vectorise the per-texel loops there as it does natively with SSE2.
/// Measured 1.00x / 1.05x / 1.09x on ASTC 4x4 / 8x8 / 12x12 in Chromium (issue 3,
/// scripts/bench-cpu.mjs, same run; before block_ldr). [`Decoder::block_ldr`] is out of line in
/// wasm, its texel loop the hand-written simd::astc_ldr_texels.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
fn decode_blocks_simd(dec: &mut Decoder, w: u32, h: u32, data: &[u8], img: &mut Image) -> bool {
    decode_blocks::<0>(dec, w, h, data, img)
}

/// Decodes every block of a `w` x `h` surface into `img`; false if the image's pixel type is not
/// one ASTC decodes to. `F`: the footprint's side when the caller fixes it (4: 4x4 LDR blocks,
/// natively), else 0 (the decoder's footprint).
#[inline(always)]
fn decode_blocks<const F: usize>(
    dec: &mut Decoder,
    w: u32,
    h: u32,
    data: &[u8],
    img: &mut Image,
) -> bool {
    let (bw, bh) = if F > 0 { (F, F) } else { (dec.bw, dec.bh) };
    let (w, h) = (w as usize, h as usize);
    let blocks_x = w.div_ceil(bw);
    if let (Pixels::Rgba8(out), false) = (&mut img.pixels, dec.hdr) {
        let mut texels = [0u8; 576];
        // A band of the image's rows a row of blocks, and in it a block's rows by chunks: the
        // offset and bounds of each row computed from the image's width were ~25 instructions
        // a row (callgrind, ASTC_4x4). (An image 0 texels wide has no bytes, so no band: the
        // `max` only keeps the chunk size legal.)
        for (by, band) in out.chunks_mut((w * 4 * bh).max(1)).enumerate() {
            for bx in 0..blocks_x {
                let i = (by * blocks_x + bx) * 16;
                let block: [u8; 16] = data[i..i + 16].try_into().unwrap_or([0; 16]);
                dec.block_ldr::<F>(u128::from_le_bytes(block), &mut texels);
                let x0 = bx * bw;
                let cols = (w - x0).min(bw) * 4;
                let rows = band
                    .chunks_exact_mut(w * 4)
                    .zip(texels.chunks_exact(bw * 4));
                for (dst, src) in rows {
                    let (dst, src) = (&mut dst[x0 * 4..][..cols], &src[..cols]);
                    #[cfg(target_arch = "wasm32")]
                    super::simd::copy_texels(dst, src);
                    #[cfg(not(target_arch = "wasm32"))]
                    copy_row(dst, src);
                }
            }
        }
        return true;
    }
    let mut texels = [0u64; 144];
    let mut lns = [[false; 4]; 144];
    for by in 0..h.div_ceil(bh) {
        for bx in 0..blocks_x {
            let i = (by * blocks_x + bx) * 16;
            let block: [u8; 16] = data[i..i + 16].try_into().unwrap_or([0; 16]);
            let kind = dec.block(u128::from_le_bytes(block), &mut texels, &mut lns);
            let x0 = bx * bw;
            let y0 = by * bh;
            let cols = (w - x0).min(bw);
            let rows = (h - y0).min(bh);
            match &mut img.pixels {
                Pixels::Rgba32F(out) => {
                    for r in 0..rows {
                        let o = ((y0 + r) * w + x0) * 4;
                        let dst = &mut out[o..o + cols * 4];
                        for (c, px) in dst.chunks_exact_mut(4).enumerate() {
                            let i = r * bw + c;
                            for k in 0..4 {
                                px[k] = match kind {
                                    Kind::Error => f32::from_bits(0xFFFF_E000),
                                    Kind::ConstHalf => {
                                        half::f16::from_bits(lane(texels[i], k)).to_f32()
                                    }
                                    Kind::Normal if lns[i][k] => {
                                        half::f16::from_bits(lns_to_half(lane(texels[i], k)))
                                            .to_f32()
                                    }
                                    Kind::Normal => unorm16_to_f32(lane(texels[i], k)),
                                };
                            }
                        }
                    }
                }
                // LDR decodes to RGBA8 above, HDR to float.
                Pixels::Rgba8(_) | Pixels::Rgba16(_) => return false,
            }
        }
    }
    true
}

/// Copies a row of texels (`dst` and `src` of one length): rows of the footprints' widths as copies
/// of a constant size, which the compiler makes a few moves, where a length known only at run time
/// is a call to memcpy (4% of an ASTC_4x4 decode, perf).
#[cfg(not(target_arch = "wasm32"))]
#[inline(always)]
fn copy_row(dst: &mut [u8], src: &[u8]) {
    fn fixed<const N: usize>(dst: &mut [u8], src: &[u8]) -> bool {
        match (<&mut [u8; N]>::try_from(dst), <&[u8; N]>::try_from(src)) {
            (Ok(d), Ok(s)) => {
                *d = *s;
                true
            }
            _ => false,
        }
    }
    let done = match dst.len() {
        16 => fixed::<16>(dst, src),
        20 => fixed::<20>(dst, src),
        24 => fixed::<24>(dst, src),
        32 => fixed::<32>(dst, src),
        40 => fixed::<40>(dst, src),
        48 => fixed::<48>(dst, src),
        _ => false,
    };
    if !done {
        dst.copy_from_slice(src);
    }
}

/// Lane `k` of a decoded texel: [`Decoder::block`] writes a texel's four 16-bit lanes (R, G, B, A
/// from the low end) as one u64, one store a texel (as `[u16; 4]`, the wasm build stored each lane
/// on its own).
#[inline(always)]
fn lane(t: u64, k: usize) -> u16 {
    (t >> (16 * k)) as u16
}

/// What a decoded block holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// 16-bit values per lane (unorm16, or LNS where the lane is flagged).
    Normal,
    /// A void-extent block with FP16 colour bits (HDR only; an error in LDR).
    ConstHalf,
    /// An illegal block: the error colour.
    Error,
}

/// astcenc's unorm16 to FP16 step: the value over 65536 truncated to 11 significant bits (0xFFFF is
/// 1.0). Returned as the 16.16 fixed-point numerator so callers can convert exactly.
#[inline]
fn unorm16_truncate(c: u16) -> u32 {
    if c == 0xFFFF {
        return 0x10000;
    }
    let sig = 16 - c.leading_zeros();
    let c = c as u32;
    if sig > 11 {
        c & !((1u32 << (sig - 11)) - 1)
    } else {
        c
    }
}

#[inline]
fn unorm16_to_f32(c: u16) -> f32 {
    unorm16_truncate(c) as f32 / 65536.0
}

/// The specification's LNS to FP16 mapping of a 16-bit interpolated HDR value.
#[inline]
fn lns_to_half(p: u16) -> u16 {
    let p = p as u32;
    let mc = p & 0x7FF;
    let ec = p >> 11;
    let mt = if mc < 512 {
        3 * mc
    } else if mc < 1536 {
        4 * mc - 512
    } else {
        5 * mc - 2048
    };
    ((ec << 10) | (mt >> 3)).min(0x7BFF) as u16
}

// ---------------------------------------------------------------------------------------------
// Integer sequence encoding

/// (trits, quints, bits) of each quantisation range, in the specification's order of ranges
/// 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256.
pub(super) const RANGES: [(u8, u8, u8); 21] = [
    (0, 0, 1),
    (1, 0, 0),
    (0, 0, 2),
    (0, 1, 0),
    (1, 0, 1),
    (0, 0, 3),
    (0, 1, 1),
    (1, 0, 2),
    (0, 0, 4),
    (0, 1, 2),
    (1, 0, 3),
    (0, 0, 5),
    (0, 1, 3),
    (1, 0, 4),
    (0, 0, 6),
    (0, 1, 4),
    (1, 0, 5),
    (0, 0, 7),
    (0, 1, 5),
    (1, 0, 6),
    (0, 0, 8),
];
/// Index of range 6 in [`RANGES`] (the smallest allowed for colour endpoints).
const QUANT_6: usize = 4;

fn ise_bits(range: usize, count: usize) -> usize {
    let (t, q, b) = RANGES[range];
    let b = b as usize;
    if t == 1 {
        count * b + (count * 8).div_ceil(5)
    } else if q == 1 {
        count * b + (count * 7).div_ceil(3)
    } else {
        count * b
    }
}

/// Bit `i` of `v` (for the const tables).
const fn cbit(v: usize, i: u32) -> u8 {
    ((v >> i) & 1) as u8
}

/// The five trits packed in each 8-bit value (specification's trit decoding table).
const TRITS: [[u8; 5]; 256] = {
    let mut t = [[0u8; 5]; 256];
    let mut v = 0;
    while v < 256 {
        let (c, t4, t3);
        if (v >> 2) & 7 == 7 {
            c = (((v >> 5) & 7) << 2) | (v & 3);
            t4 = 2;
            t3 = 2;
        } else {
            c = v & 0x1F;
            if (v >> 5) & 3 == 3 {
                t4 = 2;
                t3 = cbit(v, 7);
            } else {
                t4 = cbit(v, 7);
                t3 = ((v >> 5) & 3) as u8;
            }
        }
        let (t2, t1, t0);
        if c & 3 == 3 {
            t2 = 2;
            t1 = cbit(c, 4);
            t0 = (cbit(c, 3) << 1) | (cbit(c, 2) & !cbit(c, 3) & 1);
        } else if (c >> 2) & 3 == 3 {
            t2 = 2;
            t1 = 2;
            t0 = (c & 3) as u8;
        } else {
            t2 = cbit(c, 4);
            t1 = ((c >> 2) & 3) as u8;
            t0 = (cbit(c, 1) << 1) | (cbit(c, 0) & !cbit(c, 1) & 1);
        }
        t[v] = [t0, t1, t2, t3, t4];
        v += 1;
    }
    t
};

/// The three quints packed in each 7-bit value (specification's quint decoding table).
const QUINTS: [[u8; 3]; 128] = {
    let mut t = [[0u8; 3]; 128];
    let mut v = 0;
    while v < 128 {
        let (q0, q1, q2);
        if (v >> 1) & 3 == 3 && (v >> 5) & 3 == 0 {
            q2 = (cbit(v, 0) << 2)
                | ((cbit(v, 4) & !cbit(v, 0) & 1) << 1)
                | (cbit(v, 3) & !cbit(v, 0) & 1);
            q1 = 4;
            q0 = 4;
        } else {
            let c;
            if (v >> 1) & 3 == 3 {
                q2 = 4;
                c = (((v >> 3) & 3) << 3) | ((!(v >> 5) & 3) << 1) | (v & 1);
            } else {
                q2 = ((v >> 5) & 3) as u8;
                c = v & 0x1F;
            }
            if c & 7 == 5 {
                q1 = 4;
                q0 = ((c >> 3) & 3) as u8;
            } else {
                q1 = ((c >> 3) & 3) as u8;
                q0 = (c & 7) as u8;
            }
        }
        t[v] = [q0, q1, q2];
        v += 1;
    }
    t
};

/// A block's 128 bits as little-endian bytes and 4 zero bytes (bits past 128 read as 0), for
/// [`bits`]. Not a u128: in wasm a variable u128 shift is a call to `__lshrti3` that returns
/// through memory (17 of them in decode_ise; 2.4% of an ASTC_8x8 decode in the function alone,
/// node --perf-basic-prof), where this is one 4-byte load and a shift.
struct Bits([u8; 20]);

impl Bits {
    fn new(v: u128) -> Bits {
        let mut b = [0u8; 20];
        b[..16].copy_from_slice(&v.to_le_bytes());
        Bits(b)
    }
}

/// `n` (at most 24) bits of `v` from bit `pos`.
#[inline]
fn bits(v: &Bits, pos: usize, n: usize) -> u32 {
    if pos >= 128 || n == 0 {
        return 0;
    }
    let (i, b) = (pos / 8, &v.0);
    let w = u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    (w >> (pos % 8)) & ((1u32 << n) - 1)
}

/// Decodes `out.len()` values of `range` starting at bit `pos` of `v`. The reference of
/// [`decode_ise_tab`] (test `ise_tab_matches_reference`). Bits past the sequence's
/// end (a last trit or quint block that is only partly present) read as 0, as the specification says.
#[cfg(test)]
fn decode_ise(range: usize, v: &Bits, mut pos: usize, out: &mut [u8]) {
    let (t, q, b) = RANGES[range];
    let b = b as usize;
    let n = out.len();
    let end = pos + ise_bits(range, n);
    let bits = |at: usize, len: usize| bits(v, at, len.min(end.saturating_sub(at)));
    if t == 1 {
        let mut i = 0;
        while i < n {
            let mut m = [0u32; 5];
            let mut tv = 0u32;
            // m0 T0T1 m1 T2T3 m2 T4 m3 T5T6 m4 T7
            const TB: [(usize, usize); 5] = [(0, 2), (2, 2), (4, 1), (5, 2), (7, 1)];
            for (k, &(at, len)) in TB.iter().enumerate() {
                m[k] = bits(pos, b);
                pos += b;
                tv |= bits(pos, len) << at;
                pos += len;
            }
            let tr = TRITS[tv as usize];
            for k in 0..5 {
                if i + k < n {
                    out[i + k] = ((tr[k] as u32) << b | m[k]) as u8;
                }
            }
            i += 5;
        }
    } else if q == 1 {
        let mut i = 0;
        while i < n {
            let mut m = [0u32; 3];
            let mut qv = 0u32;
            const QB: [(usize, usize); 3] = [(0, 3), (3, 2), (5, 2)];
            for (k, &(at, len)) in QB.iter().enumerate() {
                m[k] = bits(pos, b);
                pos += b;
                qv |= bits(pos, len) << at;
                pos += len;
            }
            let qu = QUINTS[qv as usize];
            for k in 0..3 {
                if i + k < n {
                    out[i + k] = ((qu[k] as u32) << b | m[k]) as u8;
                }
            }
            i += 3;
        }
    } else {
        for o in out.iter_mut() {
            *o = bits(pos, b) as u8;
            pos += b;
        }
    }
}

/// Colour unquantisation of an ISE value of `range` to 0..255 (specification's table of A, B, C).
pub(super) fn unquant_colour(range: usize, v: u8) -> u8 {
    let (t, q, b) = RANGES[range];
    let v = v as u32;
    if t == 0 && q == 0 {
        // bit replication to 8 bits
        let b = b as u32;
        let mut r = v << (8 - b);
        let mut s = b;
        while s < 8 {
            r |= r >> s;
            s *= 2;
        }
        return r as u8;
    }
    let d = v >> b;
    let m = v & ((1 << b) - 1);
    let bit = |i: u32| (m >> i) & 1;
    let a = if m & 1 == 1 { 0x1FF } else { 0 };
    // B patterns written as bit strings 8..0 of the table.
    let (bb, c) = match (t, b) {
        (1, 1) => (0, 204),
        (1, 2) => {
            let x = bit(1);
            ((x << 8) | (x << 4) | (x << 2) | (x << 1), 93)
        }
        (1, 3) => {
            let (cc, x) = (bit(2), bit(1));
            (
                (cc << 8) | (x << 7) | (cc << 3) | (x << 2) | (cc << 1) | x,
                44,
            )
        }
        (1, 4) => {
            let (dd, cc, x) = (bit(3), bit(2), bit(1));
            (
                (dd << 8) | (cc << 7) | (x << 6) | (dd << 2) | (cc << 1) | x,
                22,
            )
        }
        (1, 5) => {
            let (e, dd, cc, x) = (bit(4), bit(3), bit(2), bit(1));
            (
                (e << 8) | (dd << 7) | (cc << 6) | (x << 5) | (e << 1) | dd,
                11,
            )
        }
        (1, _) => {
            let (f, e, dd, cc, x) = (bit(5), bit(4), bit(3), bit(2), bit(1));
            (
                (f << 8) | (e << 7) | (dd << 6) | (cc << 5) | (x << 4) | f,
                5,
            )
        }
        (_, 1) => (0, 113),
        (_, 2) => {
            let x = bit(1);
            ((x << 8) | (x << 3) | (x << 2), 54)
        }
        (_, 3) => {
            let (cc, x) = (bit(2), bit(1));
            ((cc << 8) | (x << 7) | (cc << 2) | (x << 1) | cc, 26)
        }
        (_, 4) => {
            let (dd, cc, x) = (bit(3), bit(2), bit(1));
            ((dd << 8) | (cc << 7) | (x << 6) | (dd << 1) | cc, 13)
        }
        (_, _) => {
            let (e, dd, cc, x) = (bit(4), bit(3), bit(2), bit(1));
            ((e << 8) | (dd << 7) | (cc << 6) | (x << 5) | e, 6)
        }
    };
    let mut tt = d * c + bb;
    tt ^= a;
    ((a & 0x80) | (tt >> 2)) as u8
}

/// Weight unquantisation of an ISE value of `range` to 0..64.
fn unquant_weight(range: usize, v: u8) -> u8 {
    let (t, q, b) = RANGES[range];
    let v = v as u32;
    let r = if t == 0 && q == 0 {
        let b = b as u32;
        let mut r = v << (6 - b);
        let mut s = b;
        while s < 6 {
            r |= r >> s;
            s *= 2;
        }
        r
    } else if b == 0 {
        if t == 1 {
            [0, 32, 63][v as usize]
        } else {
            [0, 16, 32, 47, 63][v as usize]
        }
    } else {
        let d = v >> b;
        let m = v & ((1 << b) - 1);
        let bit = |i: u32| (m >> i) & 1;
        let a = if m & 1 == 1 { 0x7F } else { 0 };
        let (bb, c) = match (t, b) {
            (1, 1) => (0, 50),
            (1, 2) => {
                let x = bit(1);
                ((x << 6) | (x << 2) | x, 23)
            }
            (1, _) => {
                let (cc, x) = (bit(2), bit(1));
                ((cc << 6) | (x << 5) | (cc << 1) | x, 11)
            }
            (_, 1) => (0, 28),
            (_, _) => {
                let x = bit(1);
                ((x << 6) | (x << 1), 13)
            }
        };
        let mut tt = d * c + bb;
        tt ^= a;
        (a & 0x20) | (tt >> 2)
    };
    (r + (r > 32) as u32) as u8
}

// ---------------------------------------------------------------------------------------------
// Block modes and weight grids

#[derive(Clone, Copy, Debug)]
struct Mode {
    gw: u8,
    gh: u8,
    dual: bool,
    range: u8,
    weight_bits: u8,
    grid: u16,
}

/// Decodes an 11-bit 2D block mode for a `bw` x `bh` footprint (None: reserved or illegal).
fn block_mode(m: u32, bw: usize, bh: usize) -> Option<(usize, usize, bool, usize)> {
    let bit = |i: u32| (m >> i) & 1;
    let (w, h, r, hp, dual);
    if m & 3 != 0 {
        let r_ = (bit(1) << 2) | (bit(0) << 1) | bit(4);
        let a = (m >> 5) & 3;
        let b = (m >> 7) & 3;
        match (m >> 2) & 3 {
            0 => (w, h) = (b + 4, a + 2),
            1 => (w, h) = (b + 8, a + 2),
            2 => (w, h) = (a + 2, b + 8),
            _ => {
                if bit(8) == 0 {
                    (w, h) = (a + 2, bit(7) + 6)
                } else {
                    (w, h) = (bit(7) + 2, a + 2)
                }
            }
        }
        r = r_;
        hp = bit(9);
        dual = bit(10) == 1;
    } else {
        let r_ = (bit(3) << 2) | (bit(2) << 1) | bit(4);
        if r_ < 2 {
            return None;
        }
        let a = (m >> 5) & 3;
        match (m >> 7) & 3 {
            0 => {
                (w, h) = (12, a + 2);
                hp = bit(9);
                dual = bit(10) == 1;
            }
            1 => {
                (w, h) = (a + 2, 12);
                hp = bit(9);
                dual = bit(10) == 1;
            }
            2 => {
                (w, h) = (a + 6, ((m >> 9) & 3) + 6);
                hp = 0;
                dual = false;
            }
            _ => {
                match (m >> 5) & 3 {
                    0 => (w, h) = (6, 10),
                    1 => (w, h) = (10, 6),
                    _ => return None,
                }
                hp = bit(9);
                dual = bit(10) == 1;
            }
        }
        r = r_;
    }
    if r < 2 {
        return None;
    }
    // weight range index into RANGES: low precision R=2..7 -> 2,3,4,5,6,8; high -> 10..32
    let range = (r - 2 + if hp == 1 { 6 } else { 0 }) as usize;
    let (w, h) = (w as usize, h as usize);
    let count = w * h * if dual { 2 } else { 1 };
    if count > 64 || w > bw || h > bh {
        return None;
    }
    let wb = ise_bits(range, count);
    if !(24..=96).contains(&wb) {
        return None;
    }
    Some((w, h, dual, range))
}

/// Per texel: up to four (weight index, factor) pairs of the specification's bilinear infill.
struct Grid {
    gw: usize,
    gh: usize,
    #[cfg(not(target_arch = "wasm32"))]
    taps: Vec<[(u8, u8); 4]>,
    /// wasm: the taps of 4 texels at a time as two vectors' worth of bytes, the 16 weight indices
    /// then the 16 factors (texel-major), the last group padded with zero factors
    /// (simd::astc_infill).
    #[cfg(target_arch = "wasm32")]
    quads: Vec<[[u8; 16]; 2]>,
    /// wasm, per plane count (1, 2): the same taps with each group's weight indices relative to
    /// the group's first weight (its window: 16 bytes of the weights from there hold every weight
    /// the group reads, planes interleaved), when every group's window fits (see
    /// [`windows`]); simd::astc_ldr_texels then takes each group's weights with one swizzle.
    #[cfg(target_arch = "wasm32")]
    windows: [Option<Windows>; 2],
    /// The same taps for [`Decoder::block_ldr`]: per texel its first tap's weight index (the
    /// others are +1, +gw, +gw + 1, or have a zero factor), and the four factors as 16-bit lanes in
    /// reverse order, so that one multiply by the four weights as lanes ([`Decoder::block_ldr`]'s
    /// `quads`) gives their dot product in the top lane (every partial sum is under 2^16).
    #[cfg(not(target_arch = "wasm32"))]
    cell: Box<[u8; 144]>,
    #[cfg(not(target_arch = "wasm32"))]
    factors: Box<[u64; 144]>,
}

/// Every texel's weights (`planes` of them) from the weight grid `wq` through `grid`'s taps.
#[cfg(not(target_arch = "wasm32"))] // wasm: simd::astc_infill
fn infill_weights(tw: &mut [[i32; 2]; 144], grid: &Grid, wq: &[u8; 64], planes: usize) {
    for (t, taps) in tw.iter_mut().zip(&grid.taps) {
        for (pl, w) in t.iter_mut().enumerate().take(planes) {
            let mut s = 8u32;
            for &(j, f) in taps {
                s += wq[(j as usize * planes + pl) & 63] as u32 * f as u32;
            }
            *w = (s >> 4) as i32;
        }
    }
}

fn infill(bw: usize, bh: usize, gw: usize, gh: usize) -> Grid {
    let ds = (1024 + bw / 2) / (bw - 1);
    let dt = (1024 + bh / 2) / (bh - 1);
    let mut taps = Vec::with_capacity(bw * bh);
    for t in 0..bh {
        for s in 0..bw {
            let gs = (ds * s * (gw - 1) + 32) >> 6;
            let gt = (dt * t * (gh - 1) + 32) >> 6;
            let (js, fs) = (gs >> 4, gs & 15);
            let (jt, ft) = (gt >> 4, gt & 15);
            let w11 = (fs * ft + 8) >> 4;
            let w10 = ft - w11;
            let w01 = fs - w11;
            let w00 = 16 + w11 - fs - ft;
            let v0 = js + jt * gw;
            // A zero factor may name a weight past the grid's edge: point it at v0 instead.
            let idx = |d: usize, f: usize| if f == 0 { v0 } else { v0 + d };
            taps.push([
                (v0 as u8, w00 as u8),
                (idx(1, w01) as u8, w01 as u8),
                (idx(gw, w10) as u8, w10 as u8),
                (idx(gw + 1, w11) as u8, w11 as u8),
            ]);
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let (mut cell, mut factors) = (Box::new([0u8; 144]), Box::new([0u64; 144]));
    #[cfg(not(target_arch = "wasm32"))]
    for (i, t) in taps.iter().enumerate() {
        cell[i] = t[0].0;
        factors[i] = (0..4).fold(0, |a, k| a | (t[3 - k].1 as u64) << (16 * k));
    }
    Grid {
        gw,
        gh,
        #[cfg(not(target_arch = "wasm32"))]
        cell,
        #[cfg(not(target_arch = "wasm32"))]
        factors,
        #[cfg(target_arch = "wasm32")]
        quads: taps
            .chunks(4)
            .map(|c| {
                let mut q = [[0u8; 16]; 2];
                for (t, taps) in c.iter().enumerate() {
                    for (k, &(j, f)) in taps.iter().enumerate() {
                        (q[0][4 * t + k], q[1][4 * t + k]) = (j, f);
                    }
                }
                q
            })
            .collect(),
        #[cfg(target_arch = "wasm32")]
        windows: [windows(&taps, 1), windows(&taps, 2)],
        #[cfg(not(target_arch = "wasm32"))]
        taps,
    }
}

/// A weight grid's taps for groups of 4 texels with indices relative to each group's window
/// ([`windows`]): the window's first byte in the weights, and the indices and factors as in
/// `Grid::quads` (wasm; natively only tested).
#[derive(Default)]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(super) struct Windows {
    pub(super) first: Vec<u8>,
    pub(super) quads: Vec<[[u8; 16]; 2]>,
}

/// The taps of groups of 4 texels (as `Grid::quads`) with weight indices relative to the group's
/// lowest one, and those lowest ones, if with `planes` planes (weights interleaved) every group
/// reads at most 16 consecutive weight bytes from there; else None. Zero-factor taps do not count
/// (their index is 0: any byte times 0 is 0). Most grids fit, nearly all with one plane (test
/// `weight_windows_hold_every_tap`).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn windows(taps: &[[(u8, u8); 4]], planes: usize) -> Option<Windows> {
    let mut w = Windows::default();
    for c in taps.chunks(4) {
        let read = || c.iter().flatten().filter(|t| t.1 > 0).map(|t| t.0 as usize);
        let (lo, hi) = (read().min().unwrap_or(0), read().max().unwrap_or(0));
        // (A legal grid has at most 64 weights: ASTC specification, "Weight Grid Size".)
        if (hi - lo + 1) * planes > 16 || (hi + 1) * planes > 64 {
            return None;
        }
        let mut q = [[0u8; 16]; 2];
        for (t, taps) in c.iter().enumerate() {
            for (k, &(j, f)) in taps.iter().enumerate() {
                let rel = if f > 0 { j as usize - lo } else { 0 };
                (q[0][4 * t + k], q[1][4 * t + k]) = (rel as u8, f);
            }
        }
        w.first.push((lo * planes) as u8);
        w.quads.push(q);
    }
    Some(w)
}

// ---------------------------------------------------------------------------------------------
// Partitions

fn hash52(mut p: u32) -> u32 {
    p ^= p >> 15;
    p = p.wrapping_sub(p << 17);
    p = p.wrapping_add(p << 7);
    p = p.wrapping_add(p << 4);
    p ^= p >> 5;
    p = p.wrapping_add(p << 16);
    p ^= p >> 7;
    p ^= p >> 3;
    p ^= p << 6;
    p ^= p >> 17;
    p
}

/// The specification's partition selection function (2D: z = 0). The decoder's maps come from
/// [`PartitionHash`]; this is UASTC's test's entry point.
#[cfg(test)]
pub(super) fn select_partition(seed: u32, x: u32, y: u32, count: u32, small: bool) -> u8 {
    PartitionHash::new(seed, count).select(x, y, small)
}

/// The parts of the partition selection function that depend on the seed and count only, so a
/// partition map hashes once per seed instead of once per texel (144 hashes for a 12x12 map). Part
/// of the LDR rewrite measured in [`Decoder::block_ldr`], not measured on its own.
struct PartitionHash {
    /// The seeds' squares shifted (s1..s8 of the specification; z's s9..s12 are unused in 2D).
    s: [u32; 8],
    rnum: u32,
    count: u32,
}

impl PartitionHash {
    fn new(seed: u32, count: u32) -> PartitionHash {
        let seed = seed + (count - 1) * 1024;
        let rnum = hash52(seed);
        let mut s = [
            rnum & 0xF,
            (rnum >> 4) & 0xF,
            (rnum >> 8) & 0xF,
            (rnum >> 12) & 0xF,
            (rnum >> 16) & 0xF,
            (rnum >> 20) & 0xF,
            (rnum >> 24) & 0xF,
            (rnum >> 28) & 0xF,
        ];
        for v in s.iter_mut() {
            *v *= *v;
        }
        let (sh1, sh2) = if seed & 1 == 1 {
            (
                if seed & 2 != 0 { 4 } else { 5 },
                if count == 3 { 6 } else { 5 },
            )
        } else {
            (
                if count == 3 { 6 } else { 5 },
                if seed & 2 != 0 { 4 } else { 5 },
            )
        };
        for (i, v) in s.iter_mut().enumerate() {
            *v >>= if i % 2 == 0 { sh1 } else { sh2 };
        }
        PartitionHash { s, rnum, count }
    }

    fn select(&self, x: u32, y: u32, small: bool) -> u8 {
        let (x, y) = if small { (x << 1, y << 1) } else { (x, y) };
        let (s, rnum) = (&self.s, self.rnum);
        // z = 0, so seeds 9..12's z terms vanish.
        let a = (s[0] * x + s[1] * y + (rnum >> 14)) & 0x3F;
        let b = (s[2] * x + s[3] * y + (rnum >> 10)) & 0x3F;
        let mut c = (s[4] * x + s[5] * y + (rnum >> 6)) & 0x3F;
        let mut d = (s[6] * x + s[7] * y + (rnum >> 2)) & 0x3F;
        if self.count < 4 {
            d = 0;
        }
        if self.count < 3 {
            c = 0;
        }
        if a >= b && a >= c && a >= d {
            0
        } else if b >= c && b >= d {
            1
        } else if c >= d {
            2
        } else {
            3
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Colour endpoints

/// Endpoints of one partition: 16-bit values per lane, and which lanes are HDR (LNS).
struct Endpoints {
    e0: [i32; 4],
    e1: [i32; 4],
    lns: [bool; 4],
}

fn blue_contract(c: [i32; 4]) -> [i32; 4] {
    [(c[0] + c[2]) >> 1, (c[1] + c[2]) >> 1, c[2], c[3]]
}

/// Bit transfer from the specification: `a` gets the top bit of `b`... (a = delta, b = base).
fn bit_transfer_signed(a: i32, b: i32) -> (i32, i32) {
    let b = (b >> 1) | (a & 0x80);
    let mut a = (a >> 1) & 0x3F;
    if a & 0x20 != 0 {
        a -= 0x40;
    }
    (a, b)
}

/// The endpoint values of `cem` from its colour values `v`, before the profile's conversion
/// ([`endpoints`], [`endpoints_ldr`]): (e0, e1, RGB is HDR, alpha is HDR, alpha is HDR's default).
type RawEndpoints = ([i32; 4], [i32; 4], bool, bool, bool);

/// Inlined into its two callers: out of line, the tuple went back through memory and the LDR path
/// kept the HDR flags it does not need. 2.6% fewer instructions a block on ASTC_4x4 (callgrind);
/// node ASTC_4x4 284 -> 301 MB/s, 8x8 541 -> 565 (medians of 11 alternating rounds).
#[inline(always)]
fn endpoint_values(cem: u32, v: &[i32]) -> RawEndpoints {
    let mut rgb_hdr = false;
    let mut alpha_hdr = false;
    let mut alpha_default_hdr = false;
    let (mut e0, mut e1): ([i32; 4], [i32; 4]);
    match cem {
        0 => {
            e0 = [v[0], v[0], v[0], 255];
            e1 = [v[1], v[1], v[1], 255];
        }
        1 => {
            let l0 = (v[0] >> 2) | (v[1] & 0xC0);
            let l1 = (l0 + (v[1] & 0x3F)).min(255);
            e0 = [l0, l0, l0, 255];
            e1 = [l1, l1, l1, 255];
        }
        2 => {
            rgb_hdr = true;
            alpha_default_hdr = true;
            let (y0, y1) = if v[1] >= v[0] {
                (v[0] << 4, v[1] << 4)
            } else {
                ((v[1] << 4) + 8, (v[0] << 4) - 8)
            };
            e0 = [y0 << 4, y0 << 4, y0 << 4, 0];
            e1 = [y1 << 4, y1 << 4, y1 << 4, 0];
        }
        3 => {
            rgb_hdr = true;
            alpha_default_hdr = true;
            let (y0, d) = if v[0] & 0x80 != 0 {
                (
                    ((v[1] & 0xE0) << 4) | ((v[0] & 0x7F) << 2),
                    (v[1] & 0x1F) << 2,
                )
            } else {
                (
                    ((v[1] & 0xF0) << 4) | ((v[0] & 0x7F) << 1),
                    (v[1] & 0xF) << 1,
                )
            };
            let y1 = (y0 + d).min(0xFFF);
            e0 = [y0 << 4, y0 << 4, y0 << 4, 0];
            e1 = [y1 << 4, y1 << 4, y1 << 4, 0];
        }
        4 => {
            e0 = [v[0], v[0], v[0], v[2]];
            e1 = [v[1], v[1], v[1], v[3]];
        }
        5 => {
            let (l1, l0) = bit_transfer_signed(v[1], v[0]);
            let (a1, a0) = bit_transfer_signed(v[3], v[2]);
            e0 = [l0, l0, l0, a0];
            let l1 = (l0 + l1).clamp(0, 255);
            let a1 = (a0 + a1).clamp(0, 255);
            e1 = [l1, l1, l1, a1];
        }
        6 | 10 => {
            let s = v[3];
            e1 = [v[0], v[1], v[2], 255];
            e0 = [(v[0] * s) >> 8, (v[1] * s) >> 8, (v[2] * s) >> 8, 255];
            if cem == 10 {
                e0[3] = v[4];
                e1[3] = v[5];
            }
        }
        7 => {
            rgb_hdr = true;
            alpha_default_hdr = true;
            (e0, e1) = hdr_rgbo(v);
        }
        8 | 12 => {
            let a = if cem == 12 { [v[6], v[7]] } else { [255, 255] };
            let c0 = [v[0], v[2], v[4], a[0]];
            let c1 = [v[1], v[3], v[5], a[1]];
            if c1[0] + c1[1] + c1[2] >= c0[0] + c0[1] + c0[2] {
                (e0, e1) = (c0, c1);
            } else {
                (e0, e1) = (blue_contract(c1), blue_contract(c0));
            }
        }
        9 | 13 => {
            let a = if cem == 13 { [v[6], v[7]] } else { [255, 255] };
            let mut c0 = [0; 4];
            let mut d = [0; 4];
            let pairs = [(v[1], v[0]), (v[3], v[2]), (v[5], v[4]), (a[1], a[0])];
            for (k, &(hi, lo)) in pairs.iter().enumerate() {
                (d[k], c0[k]) = bit_transfer_signed(hi, lo);
            }
            let c1: [i32; 4] = std::array::from_fn(|k| c0[k] + d[k]);
            if d[0] + d[1] + d[2] >= 0 {
                (e0, e1) = (c0, c1);
            } else {
                (e0, e1) = (blue_contract(c1), blue_contract(c0));
            }
            e0 = e0.map(|x| x.clamp(0, 255));
            e1 = e1.map(|x| x.clamp(0, 255));
            if cem == 9 {
                e0[3] = 255;
                e1[3] = 255;
            }
        }
        11 => {
            rgb_hdr = true;
            alpha_default_hdr = true;
            (e0, e1) = hdr_rgb(v);
        }
        14 => {
            rgb_hdr = true;
            (e0, e1) = hdr_rgb(v);
            e0[3] = v[6];
            e1[3] = v[7];
        }
        _ => {
            rgb_hdr = true;
            alpha_hdr = true;
            (e0, e1) = hdr_rgb(v);
            let (a0, a1) = hdr_alpha(v[6], v[7]);
            e0[3] = a0;
            e1[3] = a1;
        }
    }
    (e0, e1, rgb_hdr, alpha_hdr, alpha_default_hdr)
}

/// An LDR texture's endpoints of `cem`: 8-bit values (every LDR mode's are 0..=255), and astcenc's
/// stand-in (see [`endpoints`]) as the 8-bit (255, 0, 255, 255) for HDR modes, which interpolates
/// to the same RGBA8 (the error colour) whatever the weight. Inlined: natively the compiler had
/// kept it out of line since the 4x4 copy of `block_ldr` (two callers), 6% of a 4x4 decode in its
/// own frame (perf); inlined, 3.5% fewer instructions a 4x4 block (1699 -> 1639, callgrind) and
/// 1.06x (`texscope bench`, 3 alternating turns). wasm has one caller and inlined it already.
#[inline(always)]
fn endpoints_ldr(cem: u32, v: &[i32]) -> ([i32; 4], [i32; 4]) {
    let (e0, e1, rgb_hdr, _, _) = endpoint_values(cem, v);
    if rgb_hdr {
        ([255, 0, 255, 255], [255, 0, 255, 255])
    } else {
        (e0, e1)
    }
}

fn endpoints(cem: u32, v: &[i32], hdr_profile: bool) -> Endpoints {
    let (mut e0, mut e1, rgb_hdr, mut alpha_hdr, alpha_default_hdr) = endpoint_values(cem, v);
    if alpha_default_hdr {
        if hdr_profile {
            e0[3] = 0x7800;
            e1[3] = 0x7800;
            alpha_hdr = true;
        } else {
            e0[3] = 0xFF;
            e1[3] = 0xFF;
        }
    }
    if !hdr_profile && rgb_hdr {
        // astcenc's stand-in for HDR endpoints in an LDR texture (already 16-bit).
        let m = [0xFF00, 0, 0xFF00, 0xFF00];
        return Endpoints {
            e0: m,
            e1: m,
            lns: [false; 4],
        };
    }
    let lns = [rgb_hdr, rgb_hdr, rgb_hdr, alpha_hdr];
    for k in 0..4 {
        if !lns[k] {
            e0[k] *= 257;
            e1[k] *= 257;
        }
    }
    Endpoints { e0, e1, lns }
}

/// HDR RGB with scale (CEM 7): returns 16-bit (12-bit << 4) endpoints; alpha left 0.
fn hdr_rgbo(v: &[i32]) -> ([i32; 4], [i32; 4]) {
    let (v0, v1, v2, v3) = (v[0], v[1], v[2], v[3]);
    let modeval = ((v0 & 0xC0) >> 6) | (((v1 & 0x80) >> 7) << 2) | (((v2 & 0x80) >> 7) << 3);
    let (majcomp, mode) = if modeval & 0xC != 0xC {
        (modeval >> 2, modeval & 3)
    } else if modeval != 0xF {
        (modeval & 3, 4)
    } else {
        (0, 5)
    };
    let mut red = v0 & 0x3F;
    let mut green = v1 & 0x1F;
    let mut blue = v2 & 0x1F;
    let mut scale = v3 & 0x1F;
    let b0 = (v1 >> 6) & 1;
    let b1 = (v1 >> 5) & 1;
    let b2 = (v2 >> 6) & 1;
    let b3 = (v2 >> 5) & 1;
    let b4 = (v3 >> 7) & 1;
    let b5 = (v3 >> 6) & 1;
    let b6 = (v3 >> 5) & 1;
    let oh = 1 << mode;
    if oh & 0x30 != 0 {
        green |= b0 << 6;
        blue |= b2 << 6;
    }
    if oh & 0x3A != 0 {
        green |= b1 << 5;
        blue |= b3 << 5;
    }
    if oh & 0x3D != 0 {
        scale |= b6 << 5;
    }
    if oh & 0x2D != 0 {
        scale |= b5 << 6;
    }
    if oh & 0x04 != 0 {
        scale |= b4 << 7;
    }
    if oh & 0x3B != 0 {
        red |= b4 << 6;
    }
    if oh & 0x04 != 0 {
        red |= b3 << 6;
    }
    if oh & 0x10 != 0 {
        red |= b5 << 7;
    }
    if oh & 0x0F != 0 {
        red |= b2 << 7;
    }
    if oh & 0x05 != 0 {
        red |= b1 << 8;
        red |= b0 << 9;
    }
    if oh & 0x0A != 0 {
        red |= b0 << 8;
    }
    if oh & 0x02 != 0 {
        red |= b6 << 9;
        red |= b5 << 10;
    }
    if oh & 0x01 != 0 {
        red |= b3 << 10;
    }
    let shamt = [1, 1, 2, 3, 4, 5][mode as usize];
    red <<= shamt;
    green <<= shamt;
    blue <<= shamt;
    scale <<= shamt;
    if mode != 5 {
        green = red - green;
        blue = red - blue;
    }
    match majcomp {
        1 => std::mem::swap(&mut red, &mut green),
        2 => std::mem::swap(&mut red, &mut blue),
        _ => {}
    }
    let c1 = [red.max(0), green.max(0), blue.max(0)];
    let c0 = [
        (red - scale).max(0),
        (green - scale).max(0),
        (blue - scale).max(0),
    ];
    (
        [c0[0] << 4, c0[1] << 4, c0[2] << 4, 0],
        [c1[0] << 4, c1[1] << 4, c1[2] << 4, 0],
    )
}

/// HDR RGB direct (CEM 11, also the RGB of 14 and 15): 16-bit endpoints; alpha left 0.
fn hdr_rgb(v: &[i32]) -> ([i32; 4], [i32; 4]) {
    let (v0, v1, v2, v3, v4, v5) = (v[0], v[1], v[2], v[3], v[4], v[5]);
    let modeval = ((v1 & 0x80) >> 7) | (((v2 & 0x80) >> 7) << 1) | (((v3 & 0x80) >> 7) << 2);
    let majcomp = ((v4 & 0x80) >> 7) | (((v5 & 0x80) >> 7) << 1);
    if majcomp == 3 {
        return (
            [v0 << 8, v2 << 8, (v4 & 0x7F) << 9, 0],
            [v1 << 8, v3 << 8, (v5 & 0x7F) << 9, 0],
        );
    }
    let mut a = v0 | ((v1 & 0x40) << 2);
    let mut b0 = v2 & 0x3F;
    let mut b1 = v3 & 0x3F;
    let mut c = v1 & 0x3F;
    let mut d0 = v4 & 0x7F;
    let mut d1 = v5 & 0x7F;
    let dbits = [7, 6, 7, 6, 5, 6, 5, 6][modeval as usize];
    let x0 = (v2 >> 6) & 1;
    let x1 = (v3 >> 6) & 1;
    let x2 = (v4 >> 6) & 1;
    let x3 = (v5 >> 6) & 1;
    let x4 = (v4 >> 5) & 1;
    let x5 = (v5 >> 5) & 1;
    let oh = 1 << modeval;
    if oh & 0xA4 != 0 {
        a |= x0 << 9;
    }
    if oh & 0x8 != 0 {
        a |= x2 << 9;
    }
    if oh & 0x50 != 0 {
        a |= x4 << 9;
        a |= x5 << 10;
    }
    if oh & 0xA0 != 0 {
        a |= x1 << 10;
    }
    if oh & 0xC0 != 0 {
        a |= x2 << 11;
    }
    if oh & 0x4 != 0 {
        c |= x1 << 6;
    }
    if oh & 0xE8 != 0 {
        c |= x3 << 6;
    }
    if oh & 0x20 != 0 {
        c |= x2 << 7;
    }
    if oh & 0x5B != 0 {
        b0 |= x0 << 6;
        b1 |= x1 << 6;
    }
    if oh & 0x12 != 0 {
        b0 |= x2 << 7;
        b1 |= x3 << 7;
    }
    if oh & 0xAF != 0 {
        d0 |= x4 << 5;
        d1 |= x5 << 5;
    }
    if oh & 0x5 != 0 {
        d0 |= x2 << 6;
        d1 |= x3 << 6;
    }
    let sx = 32 - dbits;
    d0 = (d0 << sx) >> sx;
    d1 = (d1 << sx) >> sx;
    let sh = (modeval >> 1) ^ 3;
    a <<= sh;
    b0 <<= sh;
    b1 <<= sh;
    c <<= sh;
    d0 <<= sh;
    d1 <<= sh;
    let mut c1 = [a, a - b0, a - b1];
    let mut c0 = [a - c, a - b0 - c - d0, a - b1 - c - d1];
    for k in 0..3 {
        c0[k] = c0[k].clamp(0, 4095);
        c1[k] = c1[k].clamp(0, 4095);
    }
    match majcomp {
        1 => {
            c0.swap(0, 1);
            c1.swap(0, 1);
        }
        2 => {
            c0.swap(0, 2);
            c1.swap(0, 2);
        }
        _ => {}
    }
    (
        [c0[0] << 4, c0[1] << 4, c0[2] << 4, 0],
        [c1[0] << 4, c1[1] << 4, c1[2] << 4, 0],
    )
}

/// HDR alpha (CEM 15): 16-bit endpoints.
fn hdr_alpha(v6: i32, v7: i32) -> (i32, i32) {
    let sel = ((v6 >> 7) & 1) | ((v7 >> 6) & 2);
    let (mut a0, mut a1) = (v6 & 0x7F, v7 & 0x7F);
    if sel == 3 {
        a0 <<= 5;
        a1 <<= 5;
    } else {
        a0 |= (a1 << (sel + 1)) & 0x780;
        a1 &= 0x3F >> sel;
        a1 ^= 32 >> sel;
        a1 -= 32 >> sel;
        a0 <<= 4 - sel;
        a1 <<= 4 - sel;
        a1 = (a1 + a0).clamp(0, 0xFFF);
    }
    (a0 << 4, a1 << 4)
}

// ---------------------------------------------------------------------------------------------
// The block decoder

struct Decoder {
    bw: usize,
    bh: usize,
    hdr: bool,
    /// Block modes and the unquantisation tables.
    tables: Tables,
    grids: Vec<Grid>,
    /// Partition index of every texel per (count - 2) * 1024 + seed, built on first use.
    partitions: Vec<Option<Box<[u8; 144]>>>,
    /// Scratch: the block being decoded, and per plane and grid cell its four weights
    /// ([`Decoder::block_ldr`]'s infill). Locals were zeroed for every block (and the quads copied
    /// out of a closure): memory.fill / memory.copy calls in wasm, 5% of an ASTC_4x4 decode in node
    /// (perf, node --perf-basic-prof, scripts/bench-node.mjs).
    parsed: Parsed,
    #[cfg(not(target_arch = "wasm32"))]
    quads: [[u64; 64]; 2],
    /// Scratch: [`Decoder::block_ldr`]'s interpolation sums per texel (native; wasm:
    /// simd::astc_ldr_texels).
    #[cfg(not(target_arch = "wasm32"))]
    sums: [[u16; 4]; 144],
    /// Per-texel weights of both planes, scratch for [`Decoder::block`] (which writes the first
    /// `bw * bh` before reading them). Kept here instead of a local array zeroed (1152 bytes) for
    /// every block: measured 1.03x / 1.02x / 1.00x on ASTC 4x4 / 8x8 / 12x12 in Chromium (issue 3,
    /// scripts/bench-cpu.mjs, same run).
    tw: [[i32; 2]; 144],
    /// simd::TEXEL_CONSTS, read from here (memory) so that they are not constants in wasm.
    #[cfg(target_arch = "wasm32")]
    texel_consts: [[u8; 16]; 8],
}

/// What [`Decoder::parse`] reads: tables per footprint.
struct Tables {
    /// Block mode table for this footprint (None: illegal).
    modes: Vec<Option<Mode>>,
    /// Unquantised colour values per range (from QUANT_6 on) and weights per range (up to 32
    /// levels): tables, since every block needs up to 18 + 64 of them (measured: this loop was the
    /// second-largest cost of a 4x4 decode). 256 entries each, so a u8 index needs no bounds check.
    colour_tab: Vec<[u8; 256]>,
    weight_tab: Vec<[u8; 256]>,
    /// The colour endpoints' range per (number of colour values / 2, bits available): the largest
    /// range whose encoding fits (`COLOUR_NONE`: none does), instead of a search per block; and
    /// that encoding's length in bits (at most 18 values of 8 bits), instead of `ise_bits`'
    /// divisions per block.
    colour_range: [[(u8, u8); 112]; 10],
}

/// No colour range fits (in [`Tables::colour_range`]).
const COLOUR_NONE: u8 = 0xFF;

/// The partition map of one-partition blocks.
static ONE_PARTITION: [u8; 144] = [0; 144];

/// Number of values of a quantisation range.
fn levels(range: usize) -> usize {
    let (t, q, b) = RANGES[range];
    (if t == 1 {
        3
    } else if q == 1 {
        5
    } else {
        1
    }) << b
}

/// The bits of an integer sequence from its start (bits from its end on read as 0, as the
/// specification says of a last trit or quint block that is only partly present), as bytes with 8
/// zero bytes after them: any 56 bits from any position of the sequence are one 8-byte load.
struct Seq([u8; 24]);

impl Seq {
    /// The sequence of `len` bits at the low end of `v`.
    #[inline(always)]
    fn new(v: u128, len: usize) -> Seq {
        // u64 halves: a variable u128 shift is a call in wasm (see [`Bits`]).
        let (mut lo, mut hi) = (v as u64, (v >> 64) as u64);
        if len < 64 {
            lo &= (1u64 << len) - 1;
            hi = 0;
        } else if len < 128 {
            hi &= (1u64 << (len - 64)) - 1;
        }
        let mut b = [0u8; 24];
        b[..8].copy_from_slice(&lo.to_le_bytes());
        b[8..16].copy_from_slice(&hi.to_le_bytes());
        Seq(b)
    }

    /// At least 56 bits from bit `pos` (at most 128).
    #[inline(always)]
    fn window(&self, pos: usize) -> u64 {
        let i = (pos / 8).min(16);
        let w: [u8; 8] = self.0[i..i + 8].try_into().unwrap_or_default();
        u64::from_le_bytes(w) >> (pos % 8)
    }
}

/// Where [`ise_values`] puts a sequence's values: each trit block (5 values), quint block (3) or
/// group of `PLAIN` plain values as it is read, so the driver's bit reads are written once for
/// both consumers. Every method gets the index `i` of the group's first value, and the value
/// fields (the low `b` bits of each) still to be joined to their trits or quints.
trait IseSink {
    /// Plain values read a window at a time (at most 56 bits of one, so 8b <= 56 for 8).
    const PLAIN: usize;
    fn trits(&mut self, i: usize, b: u32, tv: u64, m: [u64; 5]);
    fn quints(&mut self, i: usize, b: u32, qv: u64, m: [u64; 3]);
    /// `x` holds the group's fields from its low end, `b` bits each.
    fn plain(&mut self, i: usize, b: u32, x: u64);
}

/// Unquantises each value through `tab` into `out` (up to 4 entries past the sequence's values
/// are overwritten).
struct Unquant<'a, const N: usize> {
    tab: &'a [u8; 256],
    out: &'a mut [u8; N],
}

impl<const N: usize> Unquant<'_, N> {
    /// Values i.. of a trit or quint block: each trit or quint `hi[k]` above its bits `m[k]`.
    #[inline(always)]
    fn join<const K: usize>(&mut self, i: usize, b: u32, hi: &[u8; K], m: [u64; K]) {
        for k in 0..K {
            self.out[i + k] = self.tab[(((hi[k] as u64) << b) | m[k]) as u8 as usize];
        }
    }
}

impl<const N: usize> IseSink for Unquant<'_, N> {
    const PLAIN: usize = 4;

    #[inline(always)]
    fn trits(&mut self, i: usize, b: u32, tv: u64, m: [u64; 5]) {
        self.join(i, b, &TRITS[tv as usize], m);
    }

    #[inline(always)]
    fn quints(&mut self, i: usize, b: u32, qv: u64, m: [u64; 3]) {
        self.join(i, b, &QUINTS[qv as usize], m);
    }

    #[inline(always)]
    fn plain(&mut self, i: usize, b: u32, x: u64) {
        let mb = (1u64 << b) - 1;
        for k in 0..4 {
            self.out[i + k] = self.tab[((x >> (k as u32 * b)) & mb) as u8 as usize];
        }
    }
}

/// Each entry of a [`TRITS`] / [`QUINTS`] table as the low bytes of a u64 (value k in byte k).
const fn packed<const V: usize, const K: usize>(t: &[[u8; K]; V]) -> [u64; V] {
    let mut out = [0u64; V];
    let mut v = 0;
    while v < V {
        let mut k = 0;
        while k < K {
            out[v] |= (t[v][k] as u64) << (8 * k);
            k += 1;
        }
        v += 1;
    }
    out
}

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
const TRITS8: [u64; 256] = packed(&TRITS);
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
const QUINTS8: [u64; 128] = packed(&QUINTS);

/// Writes each weight's quantised index (its trit or quint above its `b` bits, b <= 5) to its
/// byte, a group at a time as one unaligned 8-byte store (bytes past the group are overwritten by
/// the next group's, or left as any byte past the last value: up to 8 past the sequence's
/// values). wasm then unquantises them 16 at a time (simd::astc_unquant_weights) where
/// [`Unquant`] looks each one up: node 1.035x / 1.01x / 1.04x / 1.03x on ASTC 4x4 / 6x6 / 8x8 /
/// 12x12 (scripts/bench-node.mjs, medians of 7-9 alternating rounds). Natively (no byte
/// shuffle in SSE2) the lookups stay.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
struct Indices<'a>(&'a mut [u8; 128]);

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
impl Indices<'_> {
    #[inline(always)]
    fn put(&mut self, i: usize, v: u64) {
        let i = i.min(120);
        self.0[i..i + 8].copy_from_slice(&v.to_le_bytes());
    }

    /// Values i.. of a trit or quint block: the block's trits or quints packed a byte each
    /// (`TRITS8` / `QUINTS8`), each above its bits `m[k]`.
    #[inline(always)]
    fn join<const K: usize>(&mut self, i: usize, b: u32, packed: u64, m: [u64; K]) {
        let mut v = packed << b;
        for (k, m) in m.iter().enumerate() {
            v |= m << (8 * k);
        }
        self.put(i, v);
    }
}

impl IseSink for Indices<'_> {
    const PLAIN: usize = 8;

    #[inline(always)]
    fn trits(&mut self, i: usize, b: u32, tv: u64, m: [u64; 5]) {
        self.join(i, b, TRITS8[tv as usize], m);
    }

    #[inline(always)]
    fn quints(&mut self, i: usize, b: u32, qv: u64, m: [u64; 3]) {
        self.join(i, b, QUINTS8[qv as usize], m);
    }

    #[inline(always)]
    fn plain(&mut self, i: usize, b: u32, x: u64) {
        let mb = (1u64 << b) - 1;
        let mut v = 0;
        for k in 0..8 {
            v |= ((x >> (k * b)) & mb) << (8 * k);
        }
        self.put(i, v);
    }
}

/// Reads `n` (at most 64) values of `range` from `seq` into `sink`. The whole trit (8 + 5b bits,
/// at most 38) or quint block (7 + 3b, at most 22) is one [`Seq::window`]: the bit reads of
/// [`decode_ise`] (its reference) clamped each field to the sequence's end.
#[inline(always)]
fn ise_values<S: IseSink>(range: usize, seq: &Seq, n: usize, mut sink: S) {
    let (t, q, b) = RANGES[range.min(RANGES.len() - 1)];
    let b = b as u32;
    let mb = (1u64 << b) - 1;
    let n = n.min(64);
    let (mut i, mut pos) = (0, 0);
    if t == 1 {
        while i < n {
            // m0 T0T1 m1 T2T3 m2 T4 m3 T5T6 m4 T7
            let x = seq.window(pos);
            let m0 = x & mb;
            let mut tv = (x >> b) & 3;
            let x = x >> (b + 2);
            let m1 = x & mb;
            tv |= ((x >> b) & 3) << 2;
            let x = x >> (b + 2);
            let m2 = x & mb;
            tv |= ((x >> b) & 1) << 4;
            let x = x >> (b + 1);
            let m3 = x & mb;
            tv |= ((x >> b) & 3) << 5;
            let x = x >> (b + 2);
            let m4 = x & mb;
            tv |= ((x >> b) & 1) << 7;
            sink.trits(i, b, tv, [m0, m1, m2, m3, m4]);
            i += 5;
            pos += 8 + 5 * b as usize;
        }
    } else if q == 1 {
        while i < n {
            // m0 Q0Q1Q2 m1 Q3Q4 m2 Q5Q6
            let x = seq.window(pos);
            let m0 = x & mb;
            let mut qv = (x >> b) & 7;
            let x = x >> (b + 3);
            let m1 = x & mb;
            qv |= ((x >> b) & 3) << 3;
            let x = x >> (b + 2);
            let m2 = x & mb;
            qv |= ((x >> b) & 3) << 5;
            sink.quints(i, b, qv, [m0, m1, m2]);
            i += 3;
            pos += 7 + 3 * b as usize;
        }
    } else {
        // `S::PLAIN` values a window (at most 56 bits): a fraction of the turns, each of which is
        // a bounds-clamped load and, in wasm, a stack check at the loop head.
        while i < n {
            sink.plain(i, b, seq.window(pos));
            i += S::PLAIN;
            pos += S::PLAIN * b as usize;
        }
    }
}

/// Decodes `n` (at most 64) values of `range` from `seq` and writes them through `tab` (their
/// unquantisation) to `out` (up to 4 entries past `n` are overwritten, and the first 16 with
/// 8-bit values): [`ise_values`] into [`Unquant`].
#[inline(always)]
fn decode_ise_tab<const N: usize>(
    range: usize,
    seq: &Seq,
    n: usize,
    tab: &[u8; 256],
    out: &mut [u8; N],
) {
    if RANGES[range.min(RANGES.len() - 1)].2 == 8 && N >= 16 {
        // 8-bit values (only colours, 256 levels) are the sequence's bytes, and their
        // unquantisation (bit replication of 8 bits) is the identity, so they are one copy. The
        // most common colour range: 45% of the random legal blocks of the ASTC 4x4 bench
        // (counted on a 512x512 codec::sample surface). Measured against the lookups: node
        // 1.025x / 1.02x / 1.01x on ASTC 4x4 / 6x6 / 8x8 (scripts/bench-node.mjs, medians of 7-9
        // alternating rounds); natively 1659 -> 1628 instructions a 4x4 block (callgrind).
        //
        // 16 bytes hold them all (at most 13 in a block: 111 colour bits). They are copied as
        // two 8-byte halves, as Seq::new stored them: one 16-byte load over both fresh stores
        // cannot take its bytes from them and waits until they reach the cache (perf put 1.9% of
        // a native 4x4 decode on that load); measured 1.01x natively and in node on ASTC 4x4.
        let (lo, hi) = seq.0.split_at(8);
        out[..8].copy_from_slice(lo);
        out[8..16].copy_from_slice(&hi[..8]);
        return;
    }
    ise_values(range, seq, n, Unquant { tab, out });
}

/// A block's fields (not a void extent) before the endpoints' decoding.
struct Parsed {
    mode: Mode,
    parts: usize,
    cems: [u32; 4],
    /// Unquantised colour values, all partitions' in order.
    vals: [u8; 72],
    /// Unquantised weights (planes interleaved), in grid order, and room past them: `block_ldr`'s
    /// `quads` read up to 2 * (gw + 1) entries past the grid (with zero factors, so any byte does).
    wq: [u8; 128],
    /// The lane plane 1 weights (4: one plane).
    ccs: usize,
    seed: u32,
}

impl Parsed {
    fn new() -> Parsed {
        Parsed {
            mode: Mode {
                gw: 0,
                gh: 0,
                dual: false,
                range: 0,
                weight_bits: 0,
                grid: 0,
            },
            parts: 0,
            cems: [0; 4],
            vals: [0; 72],
            wq: [0; 128],
            ccs: 0,
            seed: 0,
        }
    }
}

/// An RGBA8 texel (four channels, their low 8 bits) spread to 16 bits each (lane k at bit 16k).
#[cfg(not(target_arch = "wasm32"))]
#[inline(always)]
fn spread(c: &[i32; 4]) -> u64 {
    let l = |k: usize| (c[k] as u64 & 0xFF) << (16 * k);
    l(0) | l(1) | l(2) | l(3)
}

/// A partition's endpoints for [`Decoder::block_ldr`]'s native texel loop, in 16-bit lanes (see
/// [`spread`]): 64 * e0, e1 - e0, and in the `ccs` lane of a dual-plane block e0 - e1, so a texel's
/// sums are 64 e0 + w0 (e1 - e0) + (w0 - w1) (e0 - e1)[ccs], that is (64 - w) e0 + w e1 in every
/// lane with w = w1 in lane `ccs` and w0 in the others. The differences' lanes go negative and
/// borrow from the lane above, but the arithmetic wraps mod 2^64 and every lane of the result is
/// in 0..=255 * 64, so the result is exact (test `ldr_ends_match_per_lane_sums`). One multiply a
/// texel (two with two planes) where (64 - w0) e0 + w0 e1 per plane took two (four), and the
/// endpoints spread once a partition: 6-10% fewer instructions a block, 1.09-1.14x natively on
/// ASTC 4x4-12x12 (docs/benchmarks.md, "ASTC: fewer multiplies a texel").
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Copy, Default)]
struct LdrEnds {
    base: u64,
    delta: u64,
    plane1: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl LdrEnds {
    /// From 8-bit endpoints; `ccs` the lane weighted by plane 1 (4: one plane).
    #[inline(always)]
    fn new(e0: &[i32; 4], e1: &[i32; 4], ccs: usize) -> LdrEnds {
        let (a, b) = (spread(e0), spread(e1));
        let c = if ccs < 4 { 0xFFFFu64 << (16 * ccs) } else { 0 };
        LdrEnds {
            base: a << 6,
            delta: b.wrapping_sub(a),
            plane1: (a & c).wrapping_sub(b & c),
        }
    }

    /// The texel's four sums from its weights `w0` (plane 0) and `w1` (plane 1 if `dual`).
    #[inline(always)]
    fn sum(&self, w0: u64, w1: u64, dual: bool) -> u64 {
        let s = self.base.wrapping_add(w0.wrapping_mul(self.delta));
        if dual {
            s.wrapping_add(w0.wrapping_sub(w1).wrapping_mul(self.plane1))
        } else {
            s
        }
    }
}

/// The RGBA8 channel of an interpolated sum `s` = e0 * (64 - w) + e1 * w of 8-bit endpoints (at
/// most 255 * 64), as the 16-bit pipeline computes it: endpoints widened by 257,
/// `c = (257 * s + 32) >> 6`, and the top 8 bits `c >> 8` (astcenc's RGBA8 output, bit-exact on its
/// vectors: `(c >> 8) * 257` through its FP16 step rounds back to `c >> 8`, checked for all 256
/// values; also the ASTC decode-mode extension's unorm8 result). `(257 * s + 32) >> 14` is
/// `(s + ((s + 32) >> 8)) >> 6` (write 257s + 32 = 256 (s + q) + r with q = (s + 32) >> 8 and
/// r < 256), which stays under 2^14: u16 arithmetic, so a loop of it over a block's sums is eight
/// lanes a vector (test `ldr_pack_matches_16_bit_interpolation` checks every s).
#[cfg(not(target_arch = "wasm32"))]
#[inline(always)]
fn pack_ldr(s: u16) -> u8 {
    ((s + ((s + 32) >> 8)) >> 6) as u8
}

/// A texel's four sums (16-bit lanes of a u64, R at the low end) as u16s.
#[cfg(not(target_arch = "wasm32"))]
#[inline(always)]
fn lanes16(s: u64) -> [u16; 4] {
    [
        s as u16,
        (s >> 16) as u16,
        (s >> 32) as u16,
        (s >> 48) as u16,
    ]
}

/// The error colour as an RGBA8 texel (opaque magenta).
const MAGENTA: u32 = u32::from_le_bytes([255, 0, 255, 255]);

impl Decoder {
    fn new(bw: usize, bh: usize, hdr: bool) -> Decoder {
        let mut grids: Vec<Grid> = Vec::new();
        let mut modes = Vec::with_capacity(2048);
        for m in 0..2048u32 {
            modes.push(block_mode(m, bw, bh).map(|(gw, gh, dual, range)| {
                let grid = match grids.iter().position(|g| g.gw == gw && g.gh == gh) {
                    Some(i) => i,
                    None => {
                        grids.push(infill(bw, bh, gw, gh));
                        grids.len() - 1
                    }
                };
                let count = gw * gh * if dual { 2 } else { 1 };
                Mode {
                    gw: gw as u8,
                    gh: gh as u8,
                    dual,
                    range: range as u8,
                    weight_bits: ise_bits(range, count) as u8,
                    grid: grid as u16,
                }
            }));
        }
        let mut colour_range = [[(COLOUR_NONE, 0); 112]; 10];
        for (pairs, row) in colour_range.iter_mut().enumerate() {
            for (avail, r) in row.iter_mut().enumerate() {
                if let Some(range) = (QUANT_6..RANGES.len())
                    .rev()
                    .find(|&r| ise_bits(r, 2 * pairs) <= avail)
                {
                    *r = (range as u8, ise_bits(range, 2 * pairs) as u8);
                }
            }
        }
        Decoder {
            bw,
            bh,
            hdr,
            tables: Tables {
                modes,
                colour_tab: (0..RANGES.len())
                    .map(|r| {
                        let mut t = [0u8; 256];
                        if r >= QUANT_6 {
                            for (v, o) in t.iter_mut().enumerate().take(levels(r)) {
                                *o = unquant_colour(r, v as u8);
                            }
                        }
                        t
                    })
                    .collect(),
                weight_tab: (0..12)
                    .map(|r| {
                        let mut t = [0u8; 256];
                        for (v, o) in t.iter_mut().enumerate().take(levels(r)) {
                            *o = unquant_weight(r, v as u8);
                        }
                        t
                    })
                    .collect(),
                colour_range,
            },
            grids,
            partitions: vec![None; 3 * 1024],
            tw: [[0; 2]; 144],
            parsed: Parsed::new(),
            #[cfg(not(target_arch = "wasm32"))]
            quads: [[0; 64]; 2],
            #[cfg(not(target_arch = "wasm32"))]
            sums: [[0; 4]; 144],
            #[cfg(target_arch = "wasm32")]
            texel_consts: super::simd::TEXEL_CONSTS,
        }
    }

    /// A block's mode, partitions, endpoint modes, unquantised colour values and weights; None for
    /// an illegal block. `v` is `block`'s bits; `mode_bits` its low 11 bits (not a void extent).
    #[inline(always)]
    fn parse<const LDR: bool>(
        t: &Tables,
        block: u128,
        v: &Bits,
        mode_bits: u32,
        p: &mut Parsed,
    ) -> bool {
        let Some(mode) = t.modes[mode_bits as usize & 2047] else {
            return false;
        };
        let parts = bits(v, 11, 2) as usize + 1;
        if mode.dual && parts == 4 {
            return false;
        }
        let weight_count = mode.gw as usize * mode.gh as usize * if mode.dual { 2 } else { 1 };
        let mut below = 128 - mode.weight_bits as usize;
        // Colour endpoint modes.
        let mut cems = [0u32; 4];
        let mut extra = 0;
        if parts == 1 {
            cems[0] = bits(v, 13, 4);
        } else {
            let low = bits(v, 23, 6);
            if low & 3 == 0 {
                for c in cems.iter_mut().take(parts) {
                    *c = (low >> 2) & 0xF;
                }
            } else {
                extra = 3 * parts - 4;
                below -= extra;
                let enc = low | (bits(v, below, extra) << 6);
                let base = (enc & 3) - 1;
                for (i, c) in cems.iter_mut().take(parts).enumerate() {
                    let hi = (enc >> (2 + i)) & 1;
                    let lo = (enc >> (2 + parts + 2 * i)) & 3;
                    *c = ((hi + base) << 2) | lo;
                }
            }
        }
        let ints: usize = cems[..parts]
            .iter()
            .map(|c| 2 * ((c >> 2) as usize + 1))
            .sum();
        if ints > 18 {
            return false;
        }
        let avail = (if parts == 1 { 111 } else { 99 } as isize)
            - mode.weight_bits as isize
            - extra as isize
            - if mode.dual { 2 } else { 0 };
        let avail = avail.clamp(0, 111) as usize;
        let (crange, clen) = t.colour_range[ints / 2][avail];
        if crange == COLOUR_NONE {
            return false;
        }
        let crange = crange as usize;
        // The colour values start at bit 17 (one partition) or 29.
        let colour = if parts == 1 { block >> 17 } else { block >> 29 };
        decode_ise_tab(
            crange,
            &Seq::new(colour, clen as usize),
            ints,
            &t.colour_tab[crange],
            &mut p.vals,
        );
        let ccs = if mode.dual {
            bits(v, below - 2, 2) as usize
        } else {
            4
        };
        // Weights: read from the top of the block downwards.
        let seq = &Seq::new(block.reverse_bits(), mode.weight_bits as usize);
        let tab = &t.weight_tab[mode.range as usize % 12];
        // In wasm the LDR decoder's are unquantised by swizzles (see [`Indices`]); the HDR one
        // keeps the lookups, so that the swizzles have one caller, which binaryen inlines (with
        // two it was a call a block, 3.7% of an ASTC 4x4 decode in node, perf): node 1.03x /
        // 1.01x / 1.01x / 1.01x on ASTC 4x4 / 6x6 / 8x8 / 12x12 (medians of 7-11 rounds).
        if cfg!(target_arch = "wasm32") && LDR {
            ise_values(mode.range as usize, seq, weight_count, Indices(&mut p.wq));
            #[cfg(target_arch = "wasm32")]
            super::simd::astc_unquant_weights(&mut p.wq, weight_count, tab);
        } else {
            decode_ise_tab(mode.range as usize, seq, weight_count, tab, &mut p.wq);
        }
        (p.mode, p.parts, p.cems, p.ccs, p.seed) = (mode, parts, cems, ccs, bits(v, 13, 10));
        true
    }

    /// Builds the partition map of (`parts`, `seed`) if it is not cached yet; returns its key.
    #[inline(always)]
    fn cache_partitions(&mut self, parts: usize, seed: u32) -> usize {
        let key = ((parts - 2) * 1024 + seed as usize) % (3 * 1024);
        if self.partitions[key].is_none() {
            let (bw, n) = (self.bw, self.bw * self.bh);
            let hash = PartitionHash::new(seed, parts as u32);
            let mut map = Box::new([0u8; 144]);
            for (i, p) in map.iter_mut().enumerate().take(n) {
                *p = hash.select((i % bw) as u32, (i / bw) as u32, n < 31);
            }
            self.partitions[key] = Some(map);
        }
        key
    }

    /// Every texel's weights of `p`'s planes into `self.tw`.
    #[inline(always)]
    fn texel_weights(&mut self, p: &Parsed) {
        let n = self.bw * self.bh;
        let grid = &self.grids[p.mode.grid as usize];
        let tw = &mut self.tw;
        let planes = if p.mode.dual { 2 } else { 1 };
        let wq: &[u8; 64] = p.wq.first_chunk().unwrap_or(&[0; 64]);
        if grid.gw == self.bw && grid.gh == self.bh {
            // Identity grid (no infill): the weights are the texels'.
            for (i, t) in tw.iter_mut().enumerate().take(n) {
                for (pl, w) in t.iter_mut().enumerate().take(planes) {
                    *w = wq[(i * planes + pl) & 63] as i32;
                }
            }
        } else {
            #[cfg(not(target_arch = "wasm32"))]
            infill_weights(tw, grid, wq, planes);
            #[cfg(target_arch = "wasm32")]
            super::simd::astc_infill(tw, &grid.quads, wq, planes);
        }
    }

    /// Decodes one block of an LDR texture into `out` as RGBA8 texels (the error colour for an
    /// illegal block): [`Decoder::block`]'s 16-bit pipeline in 8-bit endpoints, see [`pack_ldr`].
    /// With [`decode_ise_tab`], [`PartitionHash`] and `Tables::colour_range`, measured against
    /// [`Decoder::block`] on the same blocks: 1.61x / 1.77x / 1.97x / 1.92x natively and 1.27x /
    /// 1.24x / 1.39x / 1.33x in Chromium on ASTC 4x4 / 6x6 / 8x8 / 12x12 (scripts/bench.sh, the
    /// branch then main minutes apart; docs/benchmarks.md, "ASTC after the rewrite"). `F` as in
    /// [`decode_blocks`].
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn block_ldr<const F: usize>(&mut self, block: u128, out: &mut [u8; 576]) {
        let (bw, bh) = if F > 0 { (F, F) } else { (self.bw, self.bh) };
        let n = bw * bh;
        let v = &Bits::new(block);
        let mode_bits = bits(v, 0, 11);
        let fill = |out: &mut [u8; 576], c: u32| {
            for t in out.chunks_exact_mut(4).take(n) {
                t.copy_from_slice(&c.to_le_bytes());
            }
        };
        if mode_bits & 0x1FF == 0x1FC {
            // Void extent: an LDR colour's 16-bit lanes (the block's top 64 bits) to their top
            // bytes; FP16 colour (bit 9) is an error in LDR.
            let ok = self.void_extent_kind(v) == Kind::Normal;
            let b = block.to_le_bytes();
            let colour = u32::from_le_bytes([b[9], b[11], b[13], b[15]]);
            fill(out, if ok { colour } else { MAGENTA });
            return;
        }
        if !Decoder::parse::<true>(&self.tables, block, v, mode_bits, &mut self.parsed) {
            fill(out, MAGENTA);
            return;
        }
        let (parts, seed) = (self.parsed.parts, self.parsed.seed);
        let key = (parts > 1).then(|| self.cache_partitions(parts, seed));
        let p = &self.parsed;
        // Endpoints of partition i: in wasm at bytes 4i..4i + 4 (e0, then e1) for the kernel,
        // natively as `LdrEnds`.
        #[cfg(target_arch = "wasm32")]
        let mut ends = [[0u8; 16]; 2];
        #[cfg(not(target_arch = "wasm32"))]
        let mut lanes = [LdrEnds::default(); 4];
        let mut at = 0;
        for (i, &cem) in p.cems.iter().enumerate().take(p.parts) {
            let k = 2 * ((cem >> 2) as usize + 1);
            let mut vals = [0i32; 8];
            for (d, &s) in vals.iter_mut().zip(&p.vals[at..at + k]) {
                *d = s as i32;
            }
            let (e0, e1) = endpoints_ldr(cem, &vals[..k]);
            #[cfg(target_arch = "wasm32")]
            for c in 0..4 {
                (ends[0][4 * i + c], ends[1][4 * i + c]) = (e0[c] as u8, e1[c] as u8);
            }
            #[cfg(not(target_arch = "wasm32"))]
            {
                lanes[i] = LdrEnds::new(&e0, &e1, p.ccs);
            }
            at += k;
        }
        let part: &[u8; 144] = key
            .and_then(|k| self.partitions[k].as_deref())
            .unwrap_or(&ONE_PARTITION);
        let grid = &self.grids[p.mode.grid as usize];
        let identity = grid.gw == bw && grid.gh == bh;
        #[cfg(target_arch = "wasm32")]
        super::simd::astc_ldr_texels(
            &ends,
            part,
            &p.wq,
            (!identity).then(|| match &grid.windows[p.mode.dual as usize] {
                Some(w) => super::simd::Infill::Windows(w),
                None => super::simd::Infill::Grid(&grid.quads, grid.gw * grid.gh),
            }),
            p.mode.dual,
            p.ccs,
            n,
            out,
            &self.texel_consts,
        );
        #[cfg(not(target_arch = "wasm32"))]
        {
            let wq = &p.wq;
            // One texel from its weights (of plane 0 and 1) and partition; `dual` is a constant
            // in each loop below. Tested per texel as `p.ccs < 4` (the same fact), the compiler
            // kept a compare and branch in every texel of every loop: 3.6% / 5.7% / 7.0% / 8.8%
            // fewer instructions a block on ASTC 4x4 / 6x6 / 8x8 / 12x12 (callgrind,
            // scripts/bench-instructions.sh), 1.04x on 4x4 (`texscope bench`, 3 alternating turns).
            let texel = |w0: u64, w1: u64, pi: u8, dual: bool| {
                lanes16(lanes[pi as usize & 3].sum(w0, w1, dual))
            };
            // The texels' sums first, then their RGBA8 in a loop of its own, which the compiler
            // vectorises: measured 1.06x / 1.12x on ASTC 4x4 / 12x12 natively (CPU time of
            // `texscope bench`, alternating builds) with the sums as u64s, two texels a vector;
            // as u16s, four texels a vector, 1.04x / 1.08x / 1.11x / 1.13x more on ASTC 4x4 / 6x6
            // / 8x8 / 12x12 (medians of 4 alternating turns; 4-9% fewer instructions, callgrind).
            let sums = &mut self.sums[..n];
            if identity {
                // Identity grid (no infill): the weights are the texels'.
                if p.mode.dual {
                    for ((o, w), &pi) in sums.iter_mut().zip(wq.chunks_exact(2)).zip(part) {
                        *o = texel(w[0] as u64, w[1] as u64, pi, true);
                    }
                } else {
                    for ((o, &w), &pi) in sums.iter_mut().zip(wq).zip(part) {
                        *o = texel(w as u64, 0, pi, false);
                    }
                }
            } else {
                // Infill: per grid cell its four weights (the cell's, right, below, below right)
                // as 16-bit lanes, so a texel's weight is one multiply by its reversed factors,
                // the sum in the top lane (see `Grid::factors`), rounded as `infill_weights` does.
                let (gw, cells) = (grid.gw, (grid.gw * grid.gh).min(64));
                // One loop per plane count: the loop over planes (and clamped byte indices) were
                // 14% of an ASTC_4x4 decode (perf, `texscope bench`); this measured 1.14x on
                // ASTC_4x4 (CPU time, alternating builds). A cell's two taps of a row are one
                // 4-byte load from its weight (both planes of the cell and the next, or two
                // bytes of one plane) spread to 16-bit lanes by masks, where each tap was a byte
                // load and a shift (2-3% fewer instructions a block on ASTC 4x4 and 8x8,
                // callgrind). The load's start is clamped into `wq`: taps past the grid have
                // zero factors, so any byte does there.
                let [q0, q1] = &mut self.quads;
                let word = |i: usize| {
                    let i = i.min(wq.len() - 4);
                    u32::from_le_bytes(wq[i..i + 4].try_into().unwrap_or_default()) as u64
                };
                const BYTES: u64 = 0x00FF_00FF_00FF_00FF;
                if p.mode.dual {
                    for (c, (q0, q1)) in q0.iter_mut().zip(q1.iter_mut()).enumerate().take(cells) {
                        // Cells c and c + 1, both planes, in the low u32; the row below's in
                        // the high one.
                        let x = word(2 * c) | word(2 * (c + gw)) << 32;
                        (*q0, *q1) = (x & BYTES, (x >> 8) & BYTES);
                    }
                } else {
                    let pair = |i: usize| {
                        let x = word(i) & 0xFFFF;
                        (x | x << 8) & BYTES
                    };
                    for (c, q) in q0.iter_mut().enumerate().take(cells) {
                        *q = pair(c) | pair(c + gw) << 32;
                    }
                }
                let dot = |q: u64, f: u64| ((q.wrapping_mul(f) >> 48) + 8) >> 4;
                let texels = sums
                    .iter_mut()
                    .zip(part)
                    .zip(grid.cell.iter().zip(grid.factors.iter()));
                let [q0, q1] = &self.quads;
                if p.mode.dual {
                    for ((o, &pi), (&c, &f)) in texels {
                        let c = c as usize & 63;
                        *o = texel(dot(q0[c], f), dot(q1[c], f), pi, true);
                    }
                } else {
                    for ((o, &pi), (&c, &f)) in texels {
                        *o = texel(dot(q0[c as usize & 63], f), 0, pi, false);
                    }
                }
            }
            for (o, &s) in out.iter_mut().zip(self.sums[..n].as_flattened()) {
                *o = pack_ldr(s);
            }
        }
    }

    /// Decodes one block of an HDR texture into `out` (16-bit lanes) and `lns` (lanes that are
    /// LNS). Inlined in wasm into decode_blocks_simd, so its loops are compiled with simd128 there.
    #[cfg_attr(target_arch = "wasm32", inline(always))]
    fn block(&mut self, block: u128, out: &mut [u64; 144], lns: &mut [[bool; 4]; 144]) -> Kind {
        let n = self.bw * self.bh;
        let v = &Bits::new(block);
        let mode_bits = bits(v, 0, 11);
        if mode_bits & 0x1FF == 0x1FC {
            lns[..n].fill([false; 4]);
            return self.void_extent(v, out, n);
        }
        let mut p = Parsed::new();
        if !Decoder::parse::<false>(&self.tables, block, v, mode_bits, &mut p) {
            return Kind::Error;
        }
        let p = &p;
        // Endpoints per partition.
        let mut e0 = [[0i32; 4]; 4];
        let mut e1 = [[0i32; 4]; 4];
        let mut elns = [[false; 4]; 4];
        let mut at = 0;
        for i in 0..p.parts {
            let k = 2 * ((p.cems[i] >> 2) as usize + 1);
            let mut vals = [0i32; 8];
            for (d, &s) in vals.iter_mut().zip(&p.vals[at..at + k]) {
                *d = s as i32;
            }
            let e = endpoints(p.cems[i], &vals[..k], self.hdr);
            (e0[i], e1[i], elns[i]) = (e.e0, e.e1, e.lns);
            at += k;
        }
        let key = (p.parts > 1).then(|| self.cache_partitions(p.parts, p.seed));
        self.texel_weights(p);
        let part_map: Option<&[u8]> = key
            .and_then(|k| self.partitions[k].as_deref())
            .map(|m| &m[..]);
        let tw = &self.tw;
        let ccs = p.ccs;
        // Interpolation `(e0 * (64 - w) + e1 * w + 32) >> 6` (specification) as
        // `(64 * e0 + 32 + w * (e1 - e0)) >> 6`: one multiply a lane. `ccs` (4 when there is one
        // plane) is the lane weighted by plane 1.
        let base: [[i32; 4]; 4] = e0.map(|e| e.map(|c| 64 * c + 32));
        let diff: [[i32; 4]; 4] =
            std::array::from_fn(|p| std::array::from_fn(|k| e1[p][k] - e0[p][k]));
        #[cfg(target_arch = "wasm32")]
        super::simd::astc_texels(&base, &diff, part_map, &tw[..n], ccs, out);
        #[cfg(not(target_arch = "wasm32"))]
        for (i, (o, w)) in out.iter_mut().zip(&tw[..n]).enumerate() {
            let p = part_map.map_or(0, |m| m[i] as usize);
            *o = (0..4).fold(0, |t, k| {
                let c = (base[p][k] + w[(k == ccs) as usize] * diff[p][k]) >> 6;
                t | (c as u64) << (16 * k)
            });
        }
        // Only the HDR decoder's float output reads `lns` (in LDR, `endpoints` replaces HDR
        // endpoints with a stand-in and no lane is LNS).
        if self.hdr {
            for (i, l) in lns[..n].iter_mut().enumerate() {
                *l = elns[part_map.map_or(0, |m| m[i] as usize)];
            }
        }
        Kind::Normal
    }

    fn void_extent(&self, v: &Bits, out: &mut [u64; 144], n: usize) -> Kind {
        // The four 16-bit lanes are the block's top 64 bits.
        let colour = (0..4).fold(0, |t, k| t | (bits(v, 64 + 16 * k, 16) as u64) << (16 * k));
        out[..n].fill(colour);
        self.void_extent_kind(v)
    }

    /// What a void-extent block holds: an error (illegal extents, or FP16 colour in LDR), FP16
    /// colour, or unorm16 colour.
    fn void_extent_kind(&self, v: &Bits) -> Kind {
        if bits(v, 10, 2) != 3 {
            return Kind::Error;
        }
        let c = |i: usize| bits(v, 12 + 13 * i, 13);
        let all_ones = (0..4).all(|i| c(i) == 0x1FFF);
        if (c(0) >= c(1) || c(2) >= c(3)) && !all_ones {
            return Kind::Error;
        }
        if bits(v, 9, 1) == 1 {
            if self.hdr {
                Kind::ConstHalf
            } else {
                Kind::Error
            }
        } else {
            Kind::Normal
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_surfaces_decode_to_nothing() {
        // No texels: nothing written and no panic (decode_blocks' LDR rows come in bands of
        // `width * 4 * block height` bytes, 0 for a surface 0 texels wide).
        use super::super::{Limits, Precision};
        for (hdr, precision) in [(false, Precision::Unorm8), (true, Precision::Float)] {
            for (w, h) in [(0, 8), (8, 0), (0, 0)] {
                let mut img = Image::new(w, h, precision, &Limits::default()).unwrap();
                let blank = img.clone();
                let data =
                    vec![0; PixelFormat::ASTC { w: 6, h: 5, hdr }.surface_size(w, h) as usize];
                assert!(decode_blocks::<0>(
                    &mut Decoder::new(6, 5, hdr),
                    w,
                    h,
                    &data,
                    &mut img
                ));
                assert_eq!(img, blank, "{w}x{h}");
            }
        }
    }

    /// The decoders kept between calls ([`with_decoder`]) decode as a new one does: every
    /// footprint and profile on legal blocks (sample::Surface), decoded through `decode` forwards
    /// then backwards over the formats twice (so kept decoders are reused, their partition maps
    /// already built by other data, and evicted), against `decode_blocks` with a `Decoder::new`
    /// each time. The expected output is that fresh decoder's, through the footprint-generic
    /// `decode_blocks::<0>`: so natively this also holds `decode`'s 4x4 copy (`::<4>`) to it.
    #[test]
    fn kept_decoders_match_new_ones() {
        use super::super::{sample, Limits, Precision};
        let formats: Vec<PixelFormat> = super::super::ASTC_FOOTPRINTS
            .iter()
            .flat_map(|&(w, h)| [false, true].map(|hdr| PixelFormat::ASTC { w, h, hdr }))
            .collect();
        let side = 40;
        let surfaces: Vec<_> = formats
            .iter()
            .enumerate()
            .map(|(i, &f)| sample::Surface::new(f, side, 11 + i as u64))
            .collect();
        let fresh = |s: &sample::Surface| {
            let PixelFormat::ASTC { w, h, hdr } = s.format else {
                unreachable!()
            };
            let precision = if hdr {
                Precision::Float
            } else {
                Precision::Unorm8
            };
            let mut img = Image::new(side, side, precision, &Limits::default()).unwrap();
            let mut dec = Decoder::new(w as usize, h as usize, hdr);
            assert!(decode_blocks::<0>(&mut dec, side, side, s.data(), &mut img));
            sample::digest(&img)
        };
        let want: Vec<u64> = surfaces.iter().map(fresh).collect();
        let order: Vec<usize> = (0..formats.len()).chain((0..formats.len()).rev()).collect();
        for _ in 0..2 {
            for &i in &order {
                let got = sample::digest(&surfaces[i].decode().unwrap());
                assert_eq!(got, want[i], "{:?}", formats[i]);
            }
        }
    }

    #[test]
    fn ldr_ends_match_per_lane_sums() {
        // Expected: the specification's per-channel interpolation (64 - w) * e0 + w * e1, w being
        // plane 1's weight in channel `ccs` of a dual-plane block, computed lane by lane.
        let bytes = super::super::sample::random_bytes(200_000 * 11, 0x2545_F491_4F6C_DD1D);
        for (case, b) in bytes.chunks_exact(11).enumerate() {
            let e0: [i32; 4] = std::array::from_fn(|k| b[k] as i32);
            let e1: [i32; 4] = std::array::from_fn(|k| b[4 + k] as i32);
            // The extreme weights first.
            let (w0, w1) = match case {
                0 => (0, 64),
                1 => (64, 0),
                _ => (b[8] as u64 % 65, b[9] as u64 % 65),
            };
            let ccs = b[10] as usize % 5;
            let got = LdrEnds::new(&e0, &e1, ccs).sum(w0, w1, ccs < 4);
            for k in 0..4 {
                let w = if k == ccs { w1 } else { w0 } as i32;
                let want = (64 - w) * e0[k] + w * e1[k];
                assert_eq!(
                    lane(got, k) as i32,
                    want,
                    "{e0:?} {e1:?} w {w0} {w1} ccs {ccs}"
                );
            }
        }
    }

    /// `pack_ldr` against the 16-bit pipeline it stands for, for every sum a lane can hold.
    #[test]
    fn ldr_pack_matches_16_bit_interpolation() {
        for s in 0..=255u32 * 64 {
            let want = ((257 * s + 32) >> 6) >> 8;
            assert_eq!(pack_ldr(s as u16) as u32, want, "s = {s}");
        }
    }

    /// Every texel's taps read through `windows` name the weights `infill` names, at window
    /// indices under 16 (what simd::astc_ldr_texels's one swizzle needs), for every footprint and
    /// smaller grid that has windows.
    #[test]
    fn weight_windows_hold_every_tap() {
        let footprints = [
            (4, 4),
            (5, 5),
            (6, 6),
            (8, 5),
            (8, 8),
            (10, 10),
            (12, 10),
            (12, 12),
        ];
        let (mut single, mut dual, mut grids) = (0, 0, 0);
        for (bw, bh) in footprints {
            for (gw, gh) in (2..=bw).flat_map(|w| (2..=bh).map(move |h| (w, h))) {
                if (gw, gh) == (bw, bh) || gw * gh > 64 {
                    continue;
                }
                let taps = infill(bw, bh, gw, gh).taps;
                grids += 1;
                for planes in [1, 2] {
                    let Some(w) = windows(&taps, planes) else {
                        continue;
                    };
                    (single, dual) = (single + (planes == 1) as u32, dual + (planes == 2) as u32);
                    assert_eq!(w.quads.len(), taps.len().div_ceil(4));
                    for (i, t) in taps.iter().enumerate() {
                        let (q, first) = (&w.quads[i / 4], w.first[i / 4] as usize);
                        for (k, &(j, f)) in t.iter().enumerate() {
                            let rel = q[0][4 * (i % 4) + k] as usize;
                            assert_eq!(q[1][4 * (i % 4) + k], f);
                            if f > 0 {
                                for pl in 0..planes {
                                    assert!(rel * planes + pl < 16);
                                    assert_eq!(first + rel * planes + pl, j as usize * planes + pl);
                                }
                            }
                        }
                    }
                }
            }
        }
        // Not vacuous: nearly every grid has windows with one plane (351 of these 359 when this
        // was written) and many with two (166); the rest take simd::Infill::Grid.
        assert!(
            single * 10 > grids * 9 && dual > grids / 3,
            "{single} {dual} {grids}"
        );
    }

    /// `decode_ise_tab` against `decode_ise` (bit reads clamped to the sequence's end) for every
    /// range and count, on pseudo-random bits; and for the weight ranges (at most 32 levels), the
    /// indices [`Indices`] writes (which wasm then unquantises by swizzles) against the same.
    #[test]
    fn ise_tab_matches_reference() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let identity: [u8; 256] = std::array::from_fn(|i| i as u8);
        // decode_ise_tab copies 8-bit values, which holds because their unquantisation is the
        // identity.
        assert!((0..=255).all(|v| unquant_colour(RANGES.len() - 1, v) == v));
        for _ in 0..200 {
            let v = (next() as u128) << 64 | next() as u128;
            for range in 0..RANGES.len() {
                for n in 1..=64 {
                    let len = ise_bits(range, n);
                    if len > 128 {
                        break;
                    }
                    let mut want = [0u8; 64];
                    decode_ise(range, &Bits::new(v), 0, &mut want[..n]);
                    let mut got = [0u8; 72];
                    decode_ise_tab(range, &Seq::new(v, len), n, &identity, &mut got);
                    assert_eq!(got[..n], want[..n], "range {range}, {n} values");
                    if levels(range) <= 32 {
                        let mut idx = [0u8; 128];
                        ise_values(range, &Seq::new(v, len), n, Indices(&mut idx));
                        assert_eq!(idx[..n], want[..n], "indices: range {range}, {n} values");
                    }
                }
            }
        }
    }
}
