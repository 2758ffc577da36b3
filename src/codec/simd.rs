//! WebAssembly SIMD (simd128) kernels for the hot decode loops (8-bit formats, and ASTC's texel
//! loops). wasm32 only: natively the scalar loops in plain.rs / bc.rs / astc.rs are autovectorised
//! by the compiler (SSE2), in wasm they are not (issue 3: plain byte formats ran at 0.11-0.53x
//! native in Chromium, scalar). Each kernel does the bulk of a surface and leaves the tail to the
//! scalar code. Where there is a table, it takes it from the scalar code (plain::Order,
//! plain::Packed, bc's palettes and ramps); where it restates a small formula (BC2's nibbles times
//! 17, ASTC's interpolation and infill) the scalar code is the reference it is held to:
//! tests/browser/wasm-native.test.mjs compares wasm (these kernels) with native (scalar) on every
//! format at 64x32 (kernels), 13x7 (kernels and tails) and 1x1 (tails only).
//!
//! Functions carry `#[target_feature(enable = "simd128")]` instead of a module-wide
//! `-C target-feature=+simd128`, so the rest of the module is compiled as before (a whole-module
//! build measured no gain and changes code everywhere). Every current browser runs wasm SIMD
//! (Chrome 91, Firefox 89, Safari 16.4).
//!
//! Loads and stores go through byte arrays (the crate forbids `unsafe`); the compiler turns them
//! into single v128 loads and stores (checked in the wasm-dis output).

use core::arch::wasm32::*;

/// 16 bytes as a vector.
#[inline]
#[target_feature(enable = "simd128")]
pub(super) fn load(b: &[u8]) -> v128 {
    let b: &[u8; 16] = b[..16].try_into().expect("16 bytes");
    u8x16(
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
        b[14], b[15],
    )
}

/// A vector into the first 16 bytes of `o`.
#[inline]
#[target_feature(enable = "simd128")]
pub(super) fn store(o: &mut [u8], v: v128) {
    o[..8].copy_from_slice(&u64x2_extract_lane::<0>(v).to_le_bytes());
    o[8..16].copy_from_slice(&u64x2_extract_lane::<1>(v).to_le_bytes());
}

/// Swizzle mask taking 4 texels of `n` bytes, the first at byte `first` of a vector, to RGBA
/// (`order` as plain::Order); out-of-range lanes (the constant channels) swizzle to 0.
#[inline]
#[target_feature(enable = "simd128")]
fn texel_mask(order: [u8; 4], n: usize, first: usize) -> v128 {
    let mut m = [0u8; 16];
    for (j, b) in m.iter_mut().enumerate() {
        let p = order[j % 4] as usize;
        *b = if p < n {
            (first + j / 4 * n + p) as u8
        } else {
            0x80
        };
    }
    load(&m)
}

/// The constant channels of `order` (plain::FULL: 255) for 4 texels, to be or-ed in.
#[inline]
#[target_feature(enable = "simd128")]
fn texel_fill(order: [u8; 4]) -> v128 {
    let mut fill = [0u8; 16];
    for (j, f) in fill.iter_mut().enumerate() {
        *f = if order[j % 4] == super::plain::FULL {
            255
        } else {
            0
        };
    }
    load(&fill)
}

/// Byte-order formats (`N` bytes a texel, 1, 2 or 4, each output channel a byte of the texel or a
/// constant, `order` as plain::Order): one swizzle per 4 output texels, `V` = 16 / N / 4 of them
/// per 16-byte load. Returns a vector with room for `n` bytes holding the texels done (the rest of
/// `data` is a tail of under 16 bytes), and how many. Collected from an exact-size iterator, so
/// there is no capacity check per store (an `extend_from_slice` a vector measured slower than the
/// zero-filled image it replaces).
#[target_feature(enable = "simd128")]
pub(super) fn reorder<const N: usize, const V: usize>(
    data: &[u8],
    n: usize,
    order: [u8; 4],
) -> (Vec<u8>, usize) {
    let masks: [v128; V] = std::array::from_fn(|k| texel_mask(order, N, k * 4 * N));
    let fill = texel_fill(order);
    let chunks = data.chunks_exact(16);
    let done = chunks.len() * 16 / N;
    let mut out: Vec<[[u8; 16]; V]> = Vec::with_capacity(n.div_ceil(16 * V));
    out.extend(chunks.map(|t| {
        let x = load(t);
        masks.map(|m| bytes(v128_or(u8x16_swizzle(x, m), fill)))
    }));
    (out.into_flattened().into_flattened(), done)
}

/// 3-byte formats (RGB8, BGR8), as [`reorder`]: 16 texels from each 48 bytes, 4 swizzles of loads
/// at bytes 0, 12, 24 and 32 (the last one's texels start at its byte 4). Scalar in wasm, RGB8
/// ran at 0.70-0.75x native.
#[target_feature(enable = "simd128")]
pub(super) fn reorder3(data: &[u8], n: usize, order: [u8; 4]) -> (Vec<u8>, usize) {
    let (head, tail) = (texel_mask(order, 3, 0), texel_mask(order, 3, 4));
    let fill = texel_fill(order);
    let chunks = data.chunks_exact(48);
    let done = chunks.len() * 16;
    let mut out: Vec<[[u8; 16]; 4]> = Vec::with_capacity(n.div_ceil(64));
    out.extend(chunks.map(|t| {
        let texels = |at: usize, m: v128| bytes(v128_or(u8x16_swizzle(load(&t[at..]), m), fill));
        [
            texels(0, head),
            texels(12, head),
            texels(24, head),
            texels(32, tail),
        ]
    }));
    (out.into_flattened().into_flattened(), done)
}

/// 16-bit packed formats (`packed` as plain::Packed: per channel a shift and a bit count, widened
/// with plain::WIDEN's multiply-add-shift): 8 texels per load. Returns a vector with room for `n`
/// bytes holding the texels done, and how many (as [`reorder`]).
#[target_feature(enable = "simd128")]
pub(super) fn packed16(data: &[u8], n: usize, packed: super::plain::Packed) -> (Vec<u8>, usize) {
    let ch = packed.map(|(shift, bits)| {
        let (mul, add) = super::plain::WIDEN[bits as usize];
        (
            shift as u32,
            u16x8_splat(((1u32 << bits) - 1) as u16),
            u16x8_splat(mul),
            u16x8_splat(add),
        )
    });
    let chunks = data.chunks_exact(16);
    let done = chunks.len() * 8;
    let mut out: Vec<[[u8; 16]; 2]> = Vec::with_capacity(n.div_ceil(32));
    out.extend(chunks.map(|t| {
        let v = load(t);
        let [r, g, b, a] = ch.map(|(shift, mask, mul, add)| {
            let x = v128_and(u16x8_shr(v, shift), mask);
            u16x8_shr(u16x8_add(u16x8_mul(x, mul), add), 6)
        });
        let rg = v128_or(r, u16x8_shl(g, 8));
        let ba = v128_or(b, u16x8_shl(a, 8));
        [
            bytes(i16x8_shuffle::<0, 8, 1, 9, 2, 10, 3, 11>(rg, ba)),
            bytes(i16x8_shuffle::<4, 12, 5, 13, 6, 14, 7, 15>(rg, ba)),
        ]
    }));
    (out.into_flattened().into_flattened(), done)
}

/// Swizzle masks picking a BC1 / ATC row's 4 palette colours (16 bytes) by its index byte: byte 4t + c of
/// mask i is byte c of colour (i >> 2t) & 3. A 4 KB table, built at compile time.
static PALETTE_MASKS: [[u8; 16]; 256] = {
    let mut m = [[0u8; 16]; 256];
    let mut i = 0;
    while i < 256 {
        let mut j = 0;
        while j < 16 {
            m[i][j] = (4 * ((i >> (2 * (j / 4))) & 3) + j % 4) as u8;
            j += 1;
        }
        i += 1;
    }
    m
};

/// Masks moving 16 bytes (one per texel of a block, row by row) to the alpha byte of row r's 4 texels.
static ALPHA_AT: [[u8; 16]; 4] = {
    let mut m = [[0x80u8; 16]; 4];
    let mut r = 0;
    while r < 4 {
        let mut t = 0;
        while t < 4 {
            m[r][4 * t + 3] = (4 * r + t) as u8;
            t += 1;
        }
        r += 1;
    }
    m
};

/// A vector as 16 bytes.
#[inline]
#[target_feature(enable = "simd128")]
fn bytes(v: v128) -> [u8; 16] {
    let mut o = [0u8; 16];
    store(&mut o, v);
    o
}

/// `[f(0), f(1), f(2), f(3)]`, always inlined: `[0, 1, 2, 3].map(f)` goes through std's
/// `array::try_map`, which LLVM left out of line in the block kernels (a call per row, its vectors
/// through memory).
#[inline(always)]
fn four<T>(f: impl Fn(usize) -> T) -> [T; 4] {
    [f(0), f(1), f(2), f(3)]
}

/// A 4-colour block's rows (BC1, ATC): `pal` as one vector, each row one swizzle of it by the
/// row's index byte (`idx`: the block's 4 index bytes).
#[inline]
#[target_feature(enable = "simd128")]
fn palette_rows(pal: v128, idx: &[u8]) -> [v128; 4] {
    four(|i| u8x16_swizzle(pal, load(&PALETTE_MASKS[idx[i] as usize])))
}

// The block kernels. Each is a type whose `decode` is `#[inline(always)]` (bc::Block) rather than a
// closure: as closures LLVM kept the larger ones (BC1, BC3) out of line, a call and a 64-byte result
// through memory per block, and BC7's decoder was not compiled with simd128 at all. Hot loops use
// [`four`] instead of `[0, 1, 2, 3].map`, and each kernel is a function of its own ([`kernel`]).
// Against the closures with scalar alpha at the session's start (`scripts/bench-cpu.mjs --wall`,
// Chromium, 3 rounds x 7 decodes, medians): BC4 1.74x, BC5 1.82x, ATC 1.31-1.75x, BC1/BC2/BC3/BC7
// 1.01-1.04x (within the host's noise), ETC1 (untouched) 0.98x.

/// The palette of an 8-byte colour block, 4 RGBA colours in one vector.
trait Palette {
    fn of(b: &[u8; 8]) -> v128;
}

/// BC1's palette (bc::bc1_palette, the reference, computed in vectors); `FOUR`: always 4 colours
/// (the colour half of BC2/BC3, alpha left 0). Each endpoint's R, G and B sit in the lanes of an
/// i32x4, so each of bc1_palette's formulas is one multiply, add and shift for all three channels;
/// the 5-bit channels' formulas shift by less than the 6-bit one's, so their multiplier and addend
/// are scaled by the power of two that makes every lane shift by the same amount (the quotient
/// is unchanged: floor(2^k x / 2^(n+k)) = floor(x / 2^n)). The 3- and 4-colour palettes are both
/// computed and one selected, where the scalar code branches on the endpoints' order. Against
/// the scalar palette in this kernel: BC1 3792 -> 4874 MB/s in node (docs/benchmarks.md, "BC1-BC5
/// and ATC in wasm").
struct Bc1Palette<const FOUR: bool>;

impl<const FOUR: bool> Palette for Bc1Palette<FOUR> {
    #[inline(always)]
    fn of(b: &[u8; 8]) -> v128 {
        let c0 = u16::from_le_bytes([b[0], b[1]]) as u32;
        let c1 = u16::from_le_bytes([b[2], b[3]]) as u32;
        // R, G, B of a 5:6:5 colour in lanes 0-2 (lane 3: 0): c << 0, 6, 11, then >> 11 and masked.
        let split = |c: u32| {
            let v = i32x4_mul(u32x4_splat(c), u32x4(1, 64, 2048, 0));
            v128_and(u32x4_shr(v, 11), u32x4(31, 63, 31, 0))
        };
        let (a, b) = (split(c0), split(c1));
        // bc1_palette's e5/e6 ((v * 527 + 23) >> 6, (v * 259 + 33) >> 6); alpha 255 from lane 3's
        // addend unless FOUR (alpha 0).
        let opaque = if FOUR { 0 } else { 255 };
        let em = u32x4(527, 259, 527, 0);
        let ea = u32x4(23, 33, 23, opaque << 6);
        let e = |v: v128| u32x4_shr(i32x4_add(i32x4_mul(v, em), ea), 6);
        // t5: ((2a + b) * 351 + 61) >> 7 as (.. * 5616 + 976) >> 11; t6 as written.
        let tm = u32x4(5616, 2763, 5616, 0);
        let ta = u32x4(976, 1039, 976, opaque << 11);
        let t = |v: v128| u32x4_shr(i32x4_add(i32x4_mul(v, tm), ta), 11);
        let p2 = t(i32x4_add(i32x4_add(a, a), b));
        let p3 = t(i32x4_add(i32x4_add(b, b), a));
        let lo = u16x8_narrow_i32x4(e(a), e(b));
        let hi = if FOUR {
            u16x8_narrow_i32x4(p2, p3)
        } else {
            // h5: ((a + b) * 1053 + 125) >> 8 as (.. * 8424 + 1000) >> 11; h6 as written; the
            // 3-colour palette's colour 3 is 0 (transparent black).
            let hm = u32x4(8424, 4145, 8424, 0);
            let ha = u32x4(1000, 1019, 1000, 255 << 11);
            let h2 = u32x4_shr(i32x4_add(i32x4_mul(i32x4_add(a, b), hm), ha), 11);
            let three = u16x8_narrow_i32x4(h2, u32x4_splat(0));
            let four_colours = u32x4_splat(if c0 > c1 { u32::MAX } else { 0 });
            v128_bitselect(u16x8_narrow_i32x4(p2, p3), three, four_colours)
        };
        u8x16_narrow_i16x8(lo, hi)
    }
}

/// ATC's palette.
struct AtcPalette;

impl Palette for AtcPalette {
    #[inline(always)]
    fn of(b: &[u8; 8]) -> v128 {
        let p = super::atc::palette(b);
        u32x4(p[0], p[1], p[2], p[3])
    }
}

/// 8-byte colour blocks (BC1, ATC RGB).
struct Colour<P>(std::marker::PhantomData<P>);

impl<P: Palette> super::bc::Block<8> for Colour<P> {
    type Rows = [[u8; 16]; 4];
    #[inline(always)]
    fn decode(&self, b: &[u8; 8]) -> Self::Rows {
        let c = palette_rows(P::of(b), &b[4..]);
        four(|r| bytes(c[r]))
    }
}

/// The rows of an 8-byte alpha block, each texel's alpha in its byte 3 and 0 elsewhere.
trait AlphaRows {
    fn rows(&self, b: &[u8; 8]) -> [v128; 4];
}

/// BC2 / ATC explicit alpha (as bc::bc2_alpha: 4 bits a texel, widened by 17): the 16 nibbles
/// split and interleaved into texel order, widened, and moved into place with one swizzle a row.
/// Built from the scalar values instead, BC2 ran at 0.72x native in Chromium (README).
struct Explicit([v128; 4]);

impl AlphaRows for Explicit {
    #[inline(always)]
    fn rows(&self, b: &[u8; 8]) -> [v128; 4] {
        let v = u64x2_splat(u64::from_le_bytes(*b));
        let low4 = u8x16_splat(15);
        // Texel 2k: the low nibble of byte k; texel 2k + 1: its high nibble.
        let lo = v128_and(v, low4);
        let hi = v128_and(u16x8_shr(v, 4), low4);
        let a = i8x16_shuffle::<0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23>(lo, hi);
        // x * 17 = x | x << 4 (x < 16: nothing crosses into the next byte).
        let a = v128_or(a, u16x8_shl(a, 4));
        four(|r| u8x16_swizzle(a, self.0[r]))
    }
}

/// A ramp's alpha ([`Ramp`], BC3 or ATC interpolated): the palette narrowed into bytes 0-7, each
/// row one swizzle of it by a mask with the texel's index at byte 3.
impl AlphaRows for Ramp {
    #[inline(always)]
    fn rows(&self, b: &[u8; 8]) -> [v128; 4] {
        let [lo, hi] = self.lanes(b);
        let pal = u8x16_narrow_i16x8(u16x8_narrow_i32x4(lo, hi), u16x8_splat(0));
        let idx = u64::from_le_bytes(*b) >> 16;
        four(|r| {
            let m = v128_or(u32x4_shl(channel_row(idx, r), 24), u32x4_splat(0x0080_8080));
            u8x16_swizzle(pal, m)
        })
    }
}

/// 16-byte blocks, an alpha block then a colour block (BC2, BC3, ATC RGBA).
struct ColourAlpha<P, A>(A, std::marker::PhantomData<P>);

impl<P: Palette, A: AlphaRows> super::bc::Block<16> for ColourAlpha<P, A> {
    type Rows = [[u8; 16]; 4];
    #[inline(always)]
    fn decode(&self, b: &[u8; 16]) -> Self::Rows {
        let c = palette_rows(P::of(b[8..].try_into().expect("8 bytes")), &b[12..]);
        let a = self.0.rows(b[..8].try_into().expect("8 bytes"));
        let rgb = u32x4_splat(0x00ff_ffff);
        four(|r| bytes(v128_or(v128_and(c[r], rgb), a[r])))
    }
}

/// One of bc::RAMPS as vectors: [a0 > a1][wa, wb, add][lanes 0-3, 4-7].
struct Ramp([[[v128; 2]; 3]; 2]);

impl Ramp {
    const BC4: usize = 0;
    const BC3: usize = 1;
    const ATC: usize = 2;

    #[inline]
    #[target_feature(enable = "simd128")]
    fn new(ramp: usize) -> Ramp {
        Ramp(
            super::bc::RAMPS[ramp].map(|set| {
                set.map(|l| [u32x4(l[0], l[1], l[2], l[3]), u32x4(l[4], l[5], l[6], l[7])])
            }),
        )
    }

    /// The 8 entries of a channel block's ramp (its endpoints `b[0]`, `b[1]`) as u32 lanes 0-3
    /// and 4-7.
    #[inline]
    #[target_feature(enable = "simd128")]
    fn lanes(&self, b: &[u8]) -> [v128; 2] {
        let [wa, wb, add] = &self.0[(b[0] > b[1]) as usize];
        let (a0, a1) = (u32x4_splat(b[0] as u32), u32x4_splat(b[1] as u32));
        let lane = |h: usize| {
            let v = i32x4_add(i32x4_mul(a0, wa[h]), i32x4_mul(a1, wb[h]));
            u32x4_shr(i32x4_add(v, add[h]), 16)
        };
        [lane(0), lane(1)]
    }
}

/// The 3-bit indices of a channel block's row `r` (`idx`: the block's 48 index bits), index t in
/// lane t: a multiply moves index t to the top 3 bits of the low 16 bits of lane t (simd128 has no
/// per-lane shifts), and the high 16 bits by 0. A 16-bit multiply: V8's i32x4 one is x86's
/// slower pmulld (measured in docs/benchmarks.md, "BC1-BC5 and ATC in wasm").
#[inline]
#[target_feature(enable = "simd128")]
fn channel_row(idx: u64, r: usize) -> v128 {
    let bits = u32x4_splat((idx >> (12 * r)) as u32);
    u16x8_shr(
        i16x8_mul(bits, i16x8(1 << 13, 0, 1 << 10, 0, 1 << 7, 0, 1 << 4, 0)),
        13,
    )
}

/// BC4: (r, 0, 0, 255) a texel. The ramp narrowed into bytes 0-7 of one vector (byte 8 = 255);
/// each row one swizzle of it by a mask built from the row's indices.
struct Red(Ramp);

impl super::bc::Block<8> for Red {
    type Rows = [[u8; 16]; 4];
    #[inline(always)]
    fn decode(&self, b: &[u8; 8]) -> Self::Rows {
        let [lo, hi] = self.0.lanes(b);
        let pal = u8x16_narrow_i16x8(u16x8_narrow_i32x4(lo, hi), i16x8(255, 0, 0, 0, 0, 0, 0, 0));
        let idx = u64::from_le_bytes(*b) >> 16;
        // Byte 0 of lane t: the index; bytes 1 and 2 out of range (0); byte 3: the 255 at byte 8.
        let fill = u32x4_splat(0x0880_8000);
        four(|r| bytes(u8x16_swizzle(pal, v128_or(channel_row(idx, r), fill))))
    }
}

/// BC5: (r, g, 0, 255) a texel: as [`Red`], the red ramp in bytes 0-7 and the green one in bytes
/// 8-15 of one vector, alpha ORed in after the swizzle.
struct RedGreen(Ramp);

impl super::bc::Block<16> for RedGreen {
    type Rows = [[u8; 16]; 4];
    #[inline(always)]
    fn decode(&self, b: &[u8; 16]) -> Self::Rows {
        let [rl, rh] = self.0.lanes(&b[..8]);
        let [gl, gh] = self.0.lanes(&b[8..]);
        let pal = u8x16_narrow_i16x8(u16x8_narrow_i32x4(rl, rh), u16x8_narrow_i32x4(gl, gh));
        let ri = u64::from_le_bytes(b[..8].try_into().expect("8 bytes")) >> 16;
        let gi = u64::from_le_bytes(b[8..].try_into().expect("8 bytes")) >> 16;
        // Byte 0 of lane t: the red index; byte 1: 8 + the green index; bytes 2 and 3 out of range.
        let fill = u32x4_splat(0x8080_0800);
        four(|r| {
            let m = v128_or(channel_row(ri, r), u32x4_shl(channel_row(gi, r), 8));
            bytes(v128_or(
                u8x16_swizzle(pal, v128_or(m, fill)),
                u32x4_splat(0xff00_0000),
            ))
        })
    }
}

/// BC7: the scalar decoder (bc::bc7_block), here compiled with simd128 so that LLVM vectorises it
/// in wasm as it does natively with SSE2. Its texels come as 8-bit values in 16-bit lanes, packed
/// here a row (4 texels) to one byte narrowing instead of shifts and masks per texel.
struct Bc7;

impl super::bc::Block<16> for Bc7 {
    type Rows = [[u8; 16]; 4];
    #[inline(always)]
    fn decode(&self, b: &[u8; 16]) -> Self::Rows {
        let t = super::bc::bc7_block(b);
        four(|r| {
            let lo = u64x2(t[4 * r], t[4 * r + 1]);
            let hi = u64x2(t[4 * r + 2], t[4 * r + 3]);
            bytes(u8x16_narrow_i16x8(lo, hi))
        })
    }
}

/// Masks for [`Explicit`].
#[inline]
#[target_feature(enable = "simd128")]
fn explicit() -> Explicit {
    Explicit(ALPHA_AT.map(|m| load(&m)))
}

/// BC6H (`signed`: BC6HS) to RGBA f32: bc/bc6h.rs's decoder, compiled here with simd128 (always
/// inlined into this one caller), which puts each texel's 16-byte copy and the block's colour
/// computation (four lanes) in v128 operations. Measured in docs/benchmarks.md ("BC6H").
#[cfg(feature = "codec-bc6h")]
#[target_feature(enable = "simd128")]
pub(super) fn bc6h(signed: bool, w: usize, data: &[u8], out: &mut [f32]) {
    if signed {
        super::bc::bc6h::rows::<true>(w, data, out)
    } else {
        super::bc::bc6h::rows::<false>(w, data, out)
    }
}

/// Decodes a surface of `format` (a BCn or ATC format with an 8-bit kernel here) into `out`, a
/// row of blocks at a time (bc::rows); false for any other format. Scalar bc.rs / atc.rs are the
/// reference (tests/browser/wasm-native.test.mjs compares every format).
#[target_feature(enable = "simd128")]
pub(super) fn blocks(format: super::PixelFormat, w: usize, data: &[u8], out: &mut [u8]) -> bool {
    use super::PixelFormat::*;
    use std::marker::PhantomData as P;
    match format {
        BC1 => kernel::<8, _>(w, data, out, Colour::<Bc1Palette<false>>(P)),
        BC2 => kernel::<16, _>(
            w,
            data,
            out,
            ColourAlpha::<Bc1Palette<true>, _>(explicit(), P),
        ),
        BC3 => kernel::<16, _>(
            w,
            data,
            out,
            ColourAlpha::<Bc1Palette<true>, _>(Ramp::new(Ramp::BC3), P),
        ),
        BC4 => kernel::<8, _>(w, data, out, Red(Ramp::new(Ramp::BC4))),
        BC5 => kernel::<16, _>(w, data, out, RedGreen(Ramp::new(Ramp::BC4))),
        BC7 => kernel::<16, _>(w, data, out, Bc7),
        ATCRGB => kernel::<8, _>(w, data, out, Colour::<AtcPalette>(P)),
        ATCRGBAExplicit => {
            kernel::<16, _>(w, data, out, ColourAlpha::<AtcPalette, _>(explicit(), P))
        }
        ATCRGBAInterpolated => kernel::<16, _>(
            w,
            data,
            out,
            ColourAlpha::<AtcPalette, _>(Ramp::new(Ramp::ATC), P),
        ),
        _ => return false,
    }
    true
}

/// One kernel's surface loop, a function of its own: all of them inlined into [`blocks`] measured
/// 0.55-0.75x as fast in Chromium (BC2, BC3, BC4) as separate functions.
#[inline(never)]
#[target_feature(enable = "simd128")]
fn kernel<const B: usize, K: super::bc::Block<B>>(w: usize, data: &[u8], out: &mut [u8], k: K) {
    super::bc::rows::<B, _>(w, data, out, k);
}

/// ETC colour blocks (etc.rs, the scalar reference), and ETC2 RGBA8's EAC alpha. `Etc::colour`:
/// the individual and differential modes decoded without branches, in vectors, from the block read
/// little-endian (no byte swap, which wasm lacks): the two half-blocks' base colours from bytes 0-2
/// (both modes computed, one selected); each half's 4 colours one channel-major vector, the base
/// plus and minus the table's modifiers with saturating byte arithmetic (the specification's clamp
/// to 0..255; punch-through's transparent index 2 subtracts 255 from every channel); the 16 texels'
/// 2-bit indices tested out of bytes 4-7 at once into one vector; each row two swizzles of the
/// halves' colours (out-of-range lanes give 0). T and H blocks take their 4 colours from etc.rs and
/// the same index path; planar blocks are computed in vectors ([`etc_special`], out of line).
/// `Etc::alpha`: the 8 EAC values one vector, the 3-bit indices moved to the top of u16 lanes by
/// multiplies, each row one swizzle. One kernel with run-time flags for the four 8-bit formats
/// (ETC1 / Basis ETC1S, ETC2 RGB, RGBA1, RGBA8), one call site of its block code ([`etc_strip`]):
/// the core module went from 295,780 to 291,588 bytes gzipped with ETC2 RGBA8 added.
///
/// Speed (issue 22): the previous kernel (etc.rs's mode decision on the byte-swapped word, indices
/// gathered a row at a time with scalar multiplies, etc.rs's texel loops for T/H/planar) and scalar
/// ETC2 RGBA8 ran at 0.64 / 0.64 / 0.76 / 0.39 of native in Chromium on a quiet machine. Against it
/// (`node scripts/bench-cpu.mjs --a DIST_BEFORE --b DIST_AFTER --formats
/// ETC1,ETC2RGB,ETC2RGBA1,ETC2RGBA8 --rounds 3 --runs 5`, Chromium, renderer CPU time, 2048x2048
/// random blocks, loaded host): ETC1 1724 -> 2920 MB/s (1.69x), ETC2 RGB 1629 -> 2348 (1.44x),
/// RGBA1 1534 -> 2505 (1.63x), RGBA8 844 -> 2043 (2.42x); wasm/native in docs/benchmarks.md, "ETC in
/// wasm after the kernel work". Writing whole rows of blocks to a buffer and appending its lines
/// (as plain::append, no zero-filled image) measured slower (scripts/bench-node.mjs timed with
/// process.cpuUsage(): ETC1 3279 vs 3633 MB/s, ETC2 RGB and RGBA8 within 3%).
struct Etc {
    etc2: bool,
    punch: bool,
    /// ETC2 RGBA8: 16-byte blocks, EAC alpha then the colour block.
    alpha: bool,
    /// Basis ETC1S with alpha: 16-byte blocks, the colour block then an ETC1S block whose green
    /// is the alpha (etc.rs's scalar `BasisETC1SA`, the reference).
    basis_alpha: bool,
    /// Constants LLVM must not see (through `black_box`): `eac_shifts`, the multipliers of
    /// [`Etc::alpha`], which it turned into per-lane shifts, which simd128 lacks, so 8 lanes
    /// extracted, shifted and replaced one by one; `zero`, 0, or-ed into one of the two addends of
    /// `hi + hi` in [`Etc::colour`], which it made a shift by 1 (V8: 16-bit shift and a mask).
    eac_shifts: v128,
    zero: v128,
    /// ETC_MODS and EAC_MODS as vectors, also through `black_box`: from the static tables LLVM
    /// loaded only the bytes that are not 0 in every entry, one lane insert each (28 a block).
    mods: [[[v128; 2]; 2]; 8],
    eac_mods: [v128; 16],
}

/// Per table, channel-major (byte 4c + i: channel c of colour i): what colours 0-3 add and what
/// they subtract, with saturation (the specification's clamp to 0..255): + a, + b, - a, - b on R, G
/// and B; for opaque blocks and for punch-through blocks that are not (colour 0 adds 0, colour 2
/// subtracts 255 from every channel, alpha too: transparent black).
static ETC_MODS: [[[[u8; 16]; 2]; 2]; 8] = {
    let mut m = [[[[0u8; 16]; 2]; 2]; 8];
    let mut t = 0;
    while t < 8 {
        let [a, b] = super::etc::ETC1_MODIFIERS[t];
        let (a, b) = (a as u8, b as u8);
        let mut c = 0;
        while c < 3 {
            m[t][0][0][4 * c] = a;
            m[t][0][0][4 * c + 1] = b;
            m[t][0][1][4 * c + 2] = a;
            m[t][0][1][4 * c + 3] = b;
            m[t][1][0][4 * c + 1] = b;
            m[t][1][1][4 * c + 2] = 255;
            m[t][1][1][4 * c + 3] = b;
            c += 1;
        }
        m[t][1][1][14] = 255;
        t += 1;
    }
    m
};

/// etc::EAC_MODIFIERS as i16 lanes.
static EAC_MODS: [[i16; 8]; 16] = {
    let mut m = [[0i16; 8]; 16];
    let mut t = 0;
    while t < 16 {
        let mut k = 0;
        while k < 8 {
            m[t][k] = super::etc::EAC_MODIFIERS[t][k] as i16;
            k += 1;
        }
        t += 1;
    }
    m
};

#[inline]
#[target_feature(enable = "simd128")]
fn load_i16(v: &[i16; 8]) -> v128 {
    i16x8(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])
}

/// What [`etc_special`] gives for a T, H or planar block.
enum Special {
    /// T and H: the 4 colours (index 2 already transparent black in a punch-through block that
    /// is not opaque).
    Palette([u32; 4]),
    /// Planar: the rows.
    Rows([v128; 4]),
}

/// A T (`mode` bit 0: red overflowed), H (bit 1: green) or planar (bit 2: blue) block, `b` its
/// big-endian word: T and H colours from etc.rs; planar as etc.rs's (the reference) on i16 lanes,
/// two texels a vector: (x (h - o) + y (v - o) + 4o + 2) >> 2, narrowed with saturation (the clamp).
/// Out of line: 3-6% of random blocks (T and H 1/32 of ETC2 blocks each, 1/16 of punch-through
/// ones). With etc.rs's scalar `planar` here instead, ETC2 RGB and RGBA1 ran 8% and 5% slower
/// (Chromium, renderer CPU time, 2048x2048: 2104 vs 2271 and 1918 vs 2009 MB/s).
#[inline(never)]
#[target_feature(enable = "simd128")]
fn etc_special(b: u64, mode: u32, opaque: bool) -> Special {
    let mut pal = if mode & 1 != 0 {
        super::etc::t_mode(b)
    } else if mode & 2 != 0 {
        super::etc::h_mode(b)
    } else {
        let [o, h, v] = super::etc::planar_colours(b);
        let lanes = |c: [i32; 3], a: i16| {
            let [r, g, b] = c.map(|c| c as i16);
            i16x8(r, g, b, a, r, g, b, a)
        };
        let step = |k: usize| h[k] - o[k];
        // Texels 0 and 1 of row 0, the step to texels 2 and 3, and from row to row.
        let r0 = i16x8_add(
            lanes(o.map(|c| 4 * c + 2), 4 * 255),
            v128_and(lanes([step(0), step(1), step(2)], 0), u64x2(0, u64::MAX)),
        );
        let right = lanes([2 * step(0), 2 * step(1), 2 * step(2)], 0);
        let down = lanes([v[0] - o[0], v[1] - o[1], v[2] - o[2]], 0);
        let (r1, r2, r3) = (
            i16x8_add(r0, down),
            i16x8_add(r0, i16x8_add(down, down)),
            i16x8_sub(i16x8_add(r0, i16x8_shl(down, 2)), down),
        );
        let row = |l: v128| u8x16_narrow_i16x8(i16x8_shr(l, 2), i16x8_shr(i16x8_add(l, right), 2));
        return Special::Rows([row(r0), row(r1), row(r2), row(r3)]);
    };
    if !opaque {
        pal[2] = 0;
    }
    Special::Palette(pal)
}

impl Etc {
    /// The rows of a colour block (`w`: its 8 bytes read little-endian).
    #[inline(always)]
    fn colour(&self, w: u64) -> [v128; 4] {
        let v = u64x2_splat(w);
        let ctl = (w >> 24) as u8;
        let diff = ctl & 2 != 0;
        let opaque = !self.punch || diff;
        // Punch-through has no individual mode (bit 33 is the opacity flag).
        let differential = diff || self.punch;
        // Bytes 0-2 (R, G, B) in u16 lanes 0-2 and again 4-6.
        let x = i8x16_shuffle::<0, 16, 1, 16, 2, 16, 16, 16, 0, 16, 1, 16, 2, 16, 16, 16>(
            v,
            u64x2_splat(0),
        );
        // Individual: 4-bit bases, the first half's in the high nibbles; widened by 17.
        let ind = v128_bitselect(
            u16x8_shr(x, 4),
            v128_and(x, u16x8_splat(15)),
            u64x2(u64::MAX, 0),
        );
        let ind = i16x8_mul(ind, i16x8_splat(17));
        // Differential: 5-bit bases, the second half's plus a signed 3-bit delta.
        let delta = i16x8_sub(
            v128_xor(v128_and(x, u16x8_splat(7)), u16x8_splat(4)),
            u16x8_splat(4),
        );
        let sum = i16x8_add(u16x8_shr(x, 3), v128_and(delta, u64x2(0, u64::MAX)));
        let five = v128_and(sum, u16x8_splat(31));
        let dif = v128_or(i16x8_shl(five, 3), u16x8_shr(five, 2));
        let base = v128_bitselect(dif, ind, i16x8_splat(-(differential as i16)));
        let base = v128_or(base, u64x2_splat(255 << 48));
        // Each half's base colour channel-major (each channel 4 times), plus and minus its
        // modifiers.
        let mods = |t: u8| self.mods[(t & 7) as usize][!opaque as usize];
        let half = |c: v128, [plus, minus]: [v128; 2]| u8x16_sub_sat(u8x16_add_sat(c, plus), minus);
        #[rustfmt::skip]
        let mut pal = [
            half(i8x16_shuffle::<0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6>(base, base), mods(ctl >> 5)),
            half(i8x16_shuffle::<8, 8, 8, 8, 10, 10, 10, 10, 12, 12, 12, 12, 14, 14, 14, 14>(base, base), mods(ctl >> 2)),
        ];
        // ETC2: a second half's red, green or blue out of 0..31 selects T, H or planar mode.
        if self.etc2 && differential {
            let over = (i16x8_bitmask(u16x8_gt(sum, u16x8_splat(31))) >> 4) as u32 & 7;
            if over != 0 {
                match etc_special(w.swap_bytes(), over, opaque) {
                    Special::Palette(p) => {
                        let p = u32x4(p[0], p[1], p[2], p[3]);
                        let p = i8x16_shuffle::<0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15>(
                            p, p,
                        );
                        pal = [p; 2];
                    }
                    Special::Rows(rows) => return rows,
                }
            }
        }
        // Texel (x, y) (lane 4y + x here) has its index's low bit at bit 4x + y of bytes 7, 6
        // (little-endian order: byte 7 holds bits 0-7) and its high bit 16 above (bytes 5, 4);
        // a set bit minus (bit - 1), saturated, is 1, a clear one 0.
        let bit = u8x16(1, 16, 1, 16, 2, 32, 2, 32, 4, 64, 4, 64, 8, 128, 8, 128);
        let below = u8x16(0, 15, 0, 15, 1, 31, 1, 31, 3, 63, 3, 63, 7, 127, 7, 127);
        let set = |bytes: v128| u8x16_sub_sat(v128_and(bytes, bit), below);
        #[rustfmt::skip]
        let (lo, hi) = (
            set(i8x16_shuffle::<7, 7, 6, 6, 7, 7, 6, 6, 7, 7, 6, 6, 7, 7, 6, 6>(v, v)),
            set(i8x16_shuffle::<5, 5, 4, 4, 5, 5, 4, 4, 5, 5, 4, 4, 5, 5, 4, 4>(v, v)),
        );
        // Each texel's index plus 16 in the second half (flipped: rows 2-3; not: columns 2-3).
        let second = v128_bitselect(
            u64x2(0, 0x1010_1010_1010_1010),
            u32x4_splat(0x1010_0000),
            u8x16_splat(0u8.wrapping_sub(ctl & 1)),
        );
        let idx = u8x16_add(u8x16_add(lo, second), u8x16_add(hi, v128_or(hi, self.zero)));
        // Channel c of a texel: byte 4c + index of its half's colours.
        let rgba = u32x4_splat(0x0c08_0400);
        let row = |m: v128| {
            let m = v128_or(m, rgba);
            v128_or(
                u8x16_swizzle(pal[0], m),
                u8x16_swizzle(pal[1], v128_xor(m, u8x16_splat(16))),
            )
        };
        // Row r: texels 4r..4r + 3, each index in the texel's 4 bytes.
        #[rustfmt::skip]
        let rows = [
            row(i8x16_shuffle::<0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3>(idx, idx)),
            row(i8x16_shuffle::<4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7>(idx, idx)),
            row(i8x16_shuffle::<8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 11>(idx, idx)),
            row(i8x16_shuffle::<12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15>(idx, idx)),
        ];
        rows
    }

    /// The rows of an EAC alpha block (`w`: its 8 bytes read little-endian), each texel's alpha
    /// in all four of its bytes.
    #[inline(always)]
    fn alpha(&self, w: u64) -> [v128; 4] {
        let (base, mult, table) = (w as u8, (w >> 12) as u8 & 15, (w >> 8) as u8 & 15);
        let pal = i16x8_add(
            u16x8_splat(base as u16),
            i16x8_mul(self.eac_mods[table as usize], u16x8_splat(mult as u16)),
        );
        let pal = u8x16_narrow_i16x8(pal, pal);
        let idx = eac_indices(self.eac_shifts, w);
        let row = |m: v128| u8x16_swizzle(pal, m);
        // Row r: texels (x, r).
        #[rustfmt::skip]
        let rows = [
            row(i8x16_shuffle::<0, 0, 0, 0, 8, 8, 8, 8, 1, 1, 1, 1, 9, 9, 9, 9>(idx, idx)),
            row(i8x16_shuffle::<2, 2, 2, 2, 10, 10, 10, 10, 3, 3, 3, 3, 11, 11, 11, 11>(idx, idx)),
            row(i8x16_shuffle::<4, 4, 4, 4, 12, 12, 12, 12, 5, 5, 5, 5, 13, 13, 13, 13>(idx, idx)),
            row(i8x16_shuffle::<6, 6, 6, 6, 14, 14, 14, 14, 7, 7, 7, 7, 15, 15, 15, 15>(idx, idx)),
        ];
        rows
    }

    /// A block's rows (8 bytes, or 16 with alpha).
    #[inline(always)]
    fn block(&self, b: &[u8]) -> [v128; 4] {
        let word = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let mask = u32x4_splat(0xff00_0000);
        if self.basis_alpha {
            let (c, a) = (self.colour(word(0)), self.colour(word(8)));
            // Each texel's green (byte 1) to its alpha (byte 3).
            return four(|r| v128_bitselect(u32x4_shl(a[r], 16), c[r], mask));
        }
        let c = self.colour(word(b.len() - 8));
        if !self.alpha {
            return c;
        }
        let a = self.alpha(word(0));
        four(|r| v128_bitselect(a[r], c[r], mask))
    }
}

/// An EAC block's 16 3-bit indices (`w`: its 8 bytes read little-endian), texel (x, y) (the
/// (4x + y)-th) at byte 2(4x + y), or 2(4x + y - 8) + 1 from x = 2 on. The 48 index bits (bytes
/// 2-7, big-endian; texel (x, y)'s 3 bits the (4x + y)-th from the top): each texel's index within
/// the u16 of its first byte (high) and the next (low), moved to the top 3 bits by a multiply (no
/// per-lane shifts in simd128; `shifts`: [`Etc::eac_shifts`]).
#[inline(always)]
fn eac_indices(shifts: v128, w: u64) -> v128 {
    let v = u64x2_splat(w);
    let top = |u: v128| u16x8_shr(i16x8_mul(u, shifts), 13);
    #[rustfmt::skip]
    let (first, last) = (
        top(i8x16_shuffle::<3, 2, 3, 2, 3, 2, 4, 3, 4, 3, 4, 3, 5, 4, 5, 4>(v, v)),
        top(i8x16_shuffle::<6, 5, 6, 5, 6, 5, 7, 6, 7, 6, 7, 6, 7, 7, 7, 7>(v, v)),
    );
    v128_or(first, i16x8_shl(last, 8))
}

/// EAC R11 / RG11 (RGBA16) and their signed forms (RGBA32F), etc.rs's `decode` the scalar
/// reference: per block each channel's 8 values one i16 vector (computed as etc::eac_palette,
/// unsigned ones widened to 16 bits there), the indices as ETC2 RGBA8's alpha ([`eac_indices`]),
/// each row of 4 texels' (R, G) pairs two swizzles (R's palette, G's; G's a zero vector for R11),
/// then 2 (RGBA16) or 4 (RGBA32F, `v as f32 / 1023.0` per value as the scalar code) v128 of
/// output. One routine for both channel counts.
///
/// Speed (issue 22): the scalar loop ran at 0.47-0.66 of native in Chromium; with this kernel
/// 0.96-1.46 (docs/benchmarks.md, "EAC in wasm"; renderer CPU time 1.69-2.21x the scalar loop's).
/// Whole rows are written in place as fixed-size arrays: copying them from a buffer by slice
/// compiled to a `memory.copy` a row and gained only 1.06-1.31x.
struct Eac {
    two: bool,
    signed: bool,
    shifts: v128,
    mods: [v128; 16],
}

impl Eac {
    #[inline(always)]
    fn palette(&self, w: u64) -> v128 {
        let (base, mult, table) = (w as u8, (w >> 12) as u8 & 15, (w >> 8) as usize & 15);
        // A zero multiplier means 1/8: the modifier is added at 11-bit precision.
        let mult = if mult == 0 { 1 } else { mult as i16 * 8 };
        let step = i16x8_mul(self.mods[table], i16x8_splat(mult));
        let (off, lo, hi) = if self.signed {
            ((base as i8).max(-127) as i16 * 8, -1023, 1023)
        } else {
            (base as i16 * 8 + 4, 0, 2047)
        };
        let v = i16x8_add(i16x8_splat(off), step);
        let v = i16x8_min(i16x8_max(v, i16x8_splat(lo)), i16x8_splat(hi));
        if self.signed {
            v
        } else {
            v128_or(i16x8_shl(v, 5), u16x8_shr(v, 6))
        }
    }

    /// A block's 4 rows, each [R0, G0, R1, G1, R2, G2, R3, G3] as i16.
    #[inline(always)]
    fn rows(&self, b: &[u8]) -> [v128; 4] {
        let word = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let r = word(0);
        let (g, pg) = if self.two {
            let g = word(8);
            (g, self.palette(g))
        } else {
            (r, u64x2_splat(0))
        };
        let pr = self.palette(r);
        // Byte offsets of the values in the palettes: 2i (R), 2i + 16 (G) and +1 for high bytes;
        // R's swizzle gives 0 for G's offsets (>= 16), G's (offset - 16) 0 for R's (wrapped).
        let (ir, ig) = (eac_indices(self.shifts, r), eac_indices(self.shifts, g));
        let (ir, ig) = (i8x16_add(ir, ir), i8x16_add(ig, ig));
        let add = i8x16(0, 1, 16, 17, 0, 1, 16, 17, 0, 1, 16, 17, 0, 1, 16, 17);
        let row = |m: v128| {
            let m = i8x16_add(m, add);
            v128_or(
                u8x16_swizzle(pr, m),
                u8x16_swizzle(pg, i8x16_sub(m, i8x16_splat(16))),
            )
        };
        #[rustfmt::skip]
        let rows = [
            row(i8x16_shuffle::<0, 0, 16, 16, 8, 8, 24, 24, 1, 1, 17, 17, 9, 9, 25, 25>(ir, ig)),
            row(i8x16_shuffle::<2, 2, 18, 18, 10, 10, 26, 26, 3, 3, 19, 19, 11, 11, 27, 27>(ir, ig)),
            row(i8x16_shuffle::<4, 4, 20, 20, 12, 12, 28, 28, 5, 5, 21, 21, 13, 13, 29, 29>(ir, ig)),
            row(i8x16_shuffle::<6, 6, 22, 22, 14, 14, 30, 30, 7, 7, 23, 23, 15, 15, 31, 31>(ir, ig)),
        ];
        rows
    }
}

/// Decodes a `w` x `h` surface of EAC blocks into `out` (4 channels of `T` a texel), `texels`
/// writing a row of [`Eac::rows`] as its 4 texels; clips the last column and row of blocks.
#[inline(never)]
#[target_feature(enable = "simd128")]
fn eac_surface<T: Copy + Default>(
    k: &Eac,
    (w, h): (usize, usize),
    data: &[u8],
    out: &mut [T],
    texels: impl Fn(v128, &mut [T; 16]),
) {
    let (bw, n) = (w.div_ceil(4), if k.two { 16 } else { 8 });
    let mut part = [T::default(); 16];
    for (by, src) in data.chunks_exact(bw * n).take(h.div_ceil(4)).enumerate() {
        let lines = (h - by * 4).min(4);
        for (bx, b) in src.chunks_exact(n).enumerate() {
            let rows = k.rows(b);
            let cols = (w - bx * 4).min(4) * 4;
            for (r, &row) in rows.iter().enumerate().take(lines) {
                let o = ((by * 4 + r) * w + bx * 4) * 4;
                // Whole rows written in place (v128 stores); a slice's copy_from_slice was a
                // memory.copy a row, slower in V8.
                match <&mut [T; 16]>::try_from(&mut out[o..o + cols]) {
                    Ok(d) => texels(row, d),
                    Err(_) => {
                        texels(row, &mut part);
                        out[o..o + cols].copy_from_slice(&part[..cols]);
                    }
                }
            }
        }
    }
}

/// EAC R11 / RG11 (`two`: RG11) into RGBA16 ([`Eac`]).
#[target_feature(enable = "simd128")]
pub(super) fn eac16(two: bool, wh: (usize, usize), data: &[u8], out: &mut [u16]) {
    let k = eac(two, false);
    let fill = u16x8(0, u16::MAX, 0, u16::MAX, 0, u16::MAX, 0, u16::MAX);
    eac_surface(&k, wh, data, out, |row, d| {
        #[rustfmt::skip]
        let v = [
            i8x16_shuffle::<0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 16, 17, 18, 19>(row, fill),
            i8x16_shuffle::<8, 9, 10, 11, 16, 17, 18, 19, 12, 13, 14, 15, 16, 17, 18, 19>(row, fill),
        ];
        for (d, v) in d.chunks_exact_mut(8).zip(v) {
            d[0] = u16x8_extract_lane::<0>(v);
            d[1] = u16x8_extract_lane::<1>(v);
            d[2] = u16x8_extract_lane::<2>(v);
            d[3] = u16x8_extract_lane::<3>(v);
            d[4] = u16x8_extract_lane::<4>(v);
            d[5] = u16x8_extract_lane::<5>(v);
            d[6] = u16x8_extract_lane::<6>(v);
            d[7] = u16x8_extract_lane::<7>(v);
        }
    });
}

/// EAC R11 / RG11 signed (`two`: RG11) into RGBA32F ([`Eac`]).
#[target_feature(enable = "simd128")]
pub(super) fn eac32(two: bool, wh: (usize, usize), data: &[u8], out: &mut [f32]) {
    let k = eac(two, true);
    let fill = f32x4(0.0, 0.0, 0.0, 1.0);
    let scale = f32x4_splat(1023.0);
    eac_surface(&k, wh, data, out, |row, d| {
        let f = |v: v128| f32x4_div(f32x4_convert_i32x4(v), scale);
        let (lo, hi) = (
            f(i32x4_extend_low_i16x8(row)),
            f(i32x4_extend_high_i16x8(row)),
        );
        let v = [
            i32x4_shuffle::<0, 1, 6, 7>(lo, fill),
            i32x4_shuffle::<2, 3, 6, 7>(lo, fill),
            i32x4_shuffle::<0, 1, 6, 7>(hi, fill),
            i32x4_shuffle::<2, 3, 6, 7>(hi, fill),
        ];
        for (d, v) in d.chunks_exact_mut(4).zip(v) {
            d[0] = f32::from_bits(u32x4_extract_lane::<0>(v));
            d[1] = f32::from_bits(u32x4_extract_lane::<1>(v));
            d[2] = f32::from_bits(u32x4_extract_lane::<2>(v));
            d[3] = f32::from_bits(u32x4_extract_lane::<3>(v));
        }
    });
}

#[inline]
#[target_feature(enable = "simd128")]
fn eac(two: bool, signed: bool) -> Eac {
    Eac {
        two,
        signed,
        shifts: std::hint::black_box(u16x8(1, 8, 64, 2, 16, 128, 4, 32)),
        mods: std::hint::black_box(EAC_MODS.map(|m| load_i16(&m))),
    }
}

/// One row of blocks (`src`) into 4 lines of whole blocks.
#[inline(never)]
#[target_feature(enable = "simd128")]
fn etc_strip(k: &Etc, src: &[u8], lines: [&mut [u8]; 4]) {
    let n = if k.alpha || k.basis_alpha { 16 } else { 8 };
    let [d0, d1, d2, d3] = lines;
    let dsts = d0
        .chunks_exact_mut(16)
        .zip(d1.chunks_exact_mut(16))
        .zip(d2.chunks_exact_mut(16))
        .zip(d3.chunks_exact_mut(16));
    for (b, (((d0, d1), d2), d3)) in src.chunks_exact(n).zip(dsts) {
        let r = k.block(b);
        d0.copy_from_slice(&bytes(r[0]));
        d1.copy_from_slice(&bytes(r[1]));
        d2.copy_from_slice(&bytes(r[2]));
        d3.copy_from_slice(&bytes(r[3]));
    }
}

/// Decodes a surface of an 8-bit ETC format (ETC1 / Basis ETC1S, ETC2 RGB, RGBA1, RGBA8, Basis
/// ETC1S with alpha) into
/// `out`, a row of blocks at a time ([`etc_strip`], its only call site of the block code); a row
/// clipped at the right or bottom goes through a buffer of whole blocks.
#[target_feature(enable = "simd128")]
pub(super) fn etc(format: super::PixelFormat, w: usize, data: &[u8], out: &mut [u8]) {
    use super::PixelFormat::*;
    let k = Etc {
        etc2: !matches!(format, ETC1 | BasisETC1SA),
        punch: format == ETC2RGBA1,
        alpha: format == ETC2RGBA8,
        basis_alpha: format == BasisETC1SA,
        eac_shifts: std::hint::black_box(u16x8(1, 8, 64, 2, 16, 128, 4, 32)),
        zero: std::hint::black_box(u64x2_splat(0)),
        mods: std::hint::black_box(ETC_MODS.map(|t| t.map(|h| h.map(|m| load(&m))))),
        eac_mods: std::hint::black_box(EAC_MODS.map(|m| load_i16(&m))),
    };
    let n = if k.alpha || k.basis_alpha { 16 } else { 8 };
    let (bw, pitch) = (w.div_ceil(4), w * 4);
    let mut buf = Vec::new();
    for (src, dst) in data.chunks_exact(bw * n).zip(out.chunks_mut(pitch * 4)) {
        let whole = w % 4 == 0 && dst.len() == pitch * 4;
        let lines = if whole {
            &mut *dst
        } else {
            buf.resize(bw * 64, 0);
            &mut buf[..]
        };
        let line = lines.len() / 4;
        let (l0, rest) = lines.split_at_mut(line);
        let (l1, rest) = rest.split_at_mut(line);
        let (l2, l3) = rest.split_at_mut(line);
        etc_strip(&k, src, [l0, l1, l2, l3]);
        if !whole {
            for (d, s) in dst.chunks_mut(pitch).zip(buf.chunks_exact(bw * 16)) {
                d.copy_from_slice(&s[..pitch]);
            }
        }
    }
}

/// ASTC's interpolation of a block's texels (astc.rs, `Decoder::block`), a texel's four lanes in
/// one vector: `(base + w * diff) >> 6` with `base` = 64 * e0 + 32 and `diff` = e1 - e0 of the
/// texel's partition, `w` its plane-0 weight, or its plane-1 weight in lane `ccs`. The scalar loop
/// there (native) is the reference; LLVM left it scalar in wasm, where perf (node, ASTC_8x5) put
/// it among the hottest code of a decode.
#[cfg(feature = "codec-astc")]
#[inline]
#[target_feature(enable = "simd128")]
pub(super) fn astc_texels(
    base: &[[i32; 4]; 4],
    diff: &[[i32; 4]; 4],
    part_map: Option<&[u8]>,
    tw: &[[i32; 2]],
    ccs: usize,
    out: &mut [u64; 144],
) {
    let vector = |e: &[i32; 4]| i32x4(e[0], e[1], e[2], e[3]);
    let (base, diff) = (base.map(|e| vector(&e)), diff.map(|e| vector(&e)));
    let plane1 = i32x4(
        -((ccs == 0) as i32),
        -((ccs == 1) as i32),
        -((ccs == 2) as i32),
        -((ccs == 3) as i32),
    );
    for (i, (o, w)) in out.iter_mut().zip(tw).enumerate() {
        let p = part_map.map_or(0, |m| m[i] as usize) & 3;
        let w = v128_bitselect(i32x4_splat(w[1]), i32x4_splat(w[0]), plane1);
        let v = i32x4_shr(i32x4_add(base[p], i32x4_mul(diff[p], w)), 6);
        // The low halves of the lanes (each under 2^16): no saturating narrow needed.
        let v = i8x16_shuffle::<0, 1, 4, 5, 8, 9, 12, 13, 0, 1, 4, 5, 8, 9, 12, 13>(v, v);
        *o = u64x2_extract_lane::<0>(v);
    }
}

/// The infilled weights of plane `pl` of 4 texels as i32 lanes (at most 64), from the grid's
/// weights (`grid`, 64 bytes, planes interleaved; only its first `vectors` hold weights) and the
/// texels' taps: `j` their 4 weight indices each, `f` the 4 factors (texel-major, as
/// `Grid::quads`).
#[cfg(feature = "codec-astc")]
#[inline]
#[target_feature(enable = "simd128")]
#[cfg_attr(feature = "relaxed-simd", target_feature(enable = "relaxed-simd"))]
fn infill4(
    grid: &[v128; 4],
    vectors: usize,
    (j, f): (v128, v128),
    planes: usize,
    pl: u8,
    k: Weigh,
) -> v128 {
    let j = plane_index(j, planes, pl);
    // Out-of-range swizzle indices (here j - 16k outside 0..16, wrapping) give 0.
    let mut w = u8x16_swizzle(grid[0], j);
    for (k, g) in grid.iter().enumerate().take(vectors).skip(1) {
        let i = u8x16_sub(j, u8x16_splat(16 * k as u8));
        w = v128_or(w, u8x16_swizzle(*g, i));
    }
    weigh(w, f, k)
}

/// The byte of weight `j` of plane `pl` with `planes` planes interleaved.
#[cfg(feature = "codec-astc")]
#[inline]
#[target_feature(enable = "simd128")]
fn plane_index(j: v128, planes: usize, pl: u8) -> v128 {
    match planes {
        1 => j,
        _ => u8x16_add(u8x16_add(j, j), u8x16_splat(pl)),
    }
}

/// [`infill4`] from a window of the weights (see astc.rs `Windows`): `j` relative to its first byte,
/// every index read (with `planes`, `pl`) under 16, so one swizzle gathers the taps' weights.
#[cfg(feature = "codec-astc")]
#[inline]
#[target_feature(enable = "simd128")]
#[cfg_attr(feature = "relaxed-simd", target_feature(enable = "relaxed-simd"))]
fn infill4_window(window: v128, (j, f): (v128, v128), planes: usize, pl: u8, k: Weigh) -> v128 {
    weigh(swizzle16(window, plane_index(j, planes, pl)), f, k)
}

/// 4 texels' weights from their taps' weights `w` and factors `f` (texel-major): the dot
/// products, `(sum + 8) >> 4`, as i32 lanes.
#[cfg(feature = "codec-astc")]
#[inline]
#[target_feature(enable = "simd128")]
#[cfg_attr(feature = "relaxed-simd", target_feature(enable = "relaxed-simd"))]
fn weigh(w: v128, f: v128, (ones, eight): Weigh) -> v128 {
    // Relaxed SIMD (feature `relaxed-simd`, the full module's second build): products and pair
    // sums in one instruction (x86 pmaddubsw), then texel sums. Its result is the same on every
    // platform here: weights (at most 64) and factors (at most 16) are in its i7 range, and pair
    // sums (at most 2048) do not saturate. Measured in Chromium against the plain build: 1.02x /
    // 1.06x / 1.09x / 1.15x on ASTC 4x4 / 6x6 / 8x8 / 12x12 (docs/benchmarks.md, "Relaxed SIMD").
    #[cfg(feature = "relaxed-simd")]
    let s = i32x4_dot_i16x8(i16x8_relaxed_dot_i8x16_i7x16(w, f), ones);
    // Products under 64 * 16 + 1: i16 lanes; pair sums then texel sums in i32 lanes.
    #[cfg(not(feature = "relaxed-simd"))]
    let s = {
        let lo = i32x4_dot_i16x8(u16x8_extmul_low_u8x16(w, f), ones);
        let hi = i32x4_dot_i16x8(u16x8_extmul_high_u8x16(w, f), ones);
        i32x4_add(
            i32x4_shuffle::<0, 2, 4, 6>(lo, hi),
            i32x4_shuffle::<1, 3, 5, 7>(lo, hi),
        )
    };
    i32x4_shr(i32x4_add(s, eight), 4)
}

/// [`weigh`]'s constants: i16 lanes of 1 and i32 lanes of 8 (see [`TEXEL_CONSTS`]).
#[cfg(feature = "codec-astc")]
type Weigh = (v128, v128);

/// How [`astc_ldr_texels`] finds a texel's weights in a weight grid (when the grid is not the
/// block's texels).
#[cfg(feature = "codec-astc")]
pub(super) enum Infill<'a> {
    /// The grid's taps (`Grid::quads`) and its number of cells.
    Grid(&'a [[[u8; 16]; 2]], usize),
    /// The taps relative to each group's window.
    Windows(&'a super::astc::Windows),
}

/// ASTC's weight infill (astc.rs, `infill_weights`, the reference) for 4 texels at a time: each
/// texel's 4 weights picked from the 64-byte weight grid `wq` by 4 swizzles, multiplied by their
/// factors, summed by pairs with a dot product and then across pairs, `(sum + 8) >> 4`. Scalar in
/// wasm, perf (node, ASTC_8x5) put the loop among the hottest code, with register spills in the
/// large function it was inlined into; hence also `inline(never)` (that alone measured 1.04x).
#[cfg(feature = "codec-astc")]
#[inline(never)]
#[target_feature(enable = "simd128")]
#[cfg_attr(feature = "relaxed-simd", target_feature(enable = "relaxed-simd"))]
pub(super) fn astc_infill(
    tw: &mut [[i32; 2]; 144],
    quads: &[[[u8; 16]; 2]],
    wq: &[u8; 64],
    planes: usize,
) {
    let grid: [v128; 4] = std::array::from_fn(|k| load(&wq[16 * k..]));
    for (q, t) in quads.iter().zip(tw.chunks_exact_mut(4)) {
        let (j, f) = (load(&q[0]), load(&q[1]));
        // The 4 texels' weights of plane `pl`, which is wq[j * planes + pl] for weight j.
        let plane = |pl: u8| -> [i32; 4] {
            let s = infill4(
                &grid,
                4,
                (j, f),
                planes,
                pl,
                (i16x8_splat(1), i32x4_splat(8)),
            );
            [
                i32x4_extract_lane::<0>(s),
                i32x4_extract_lane::<1>(s),
                i32x4_extract_lane::<2>(s),
                i32x4_extract_lane::<3>(s),
            ]
        };
        let w0 = plane(0);
        if planes == 1 {
            for (t, w) in t.iter_mut().zip(w0) {
                t[0] = w;
            }
        } else {
            for ((t, a), b) in t.iter_mut().zip(w0).zip(plane(1)) {
                *t = [a, b];
            }
        }
    }
}

/// `u8x16_swizzle` for indices under 16. The relaxed build (feature `relaxed-simd`) uses relaxed
/// swizzle, whose result differs from the plain one only for indices of 16 or more: on x86 one
/// pshufb, where V8 makes the plain swizzle a saturating add of 0x70 to the indices (and its
/// constant) before the pshufb, so that such indices give 0. Together with the two adds in place
/// of a byte shift in [`astc_ldr_texels`], measured in node against the relaxed build before:
/// ASTC 4x4 / 6x6 / 8x8 1.01x / 1.02x / 1.02x (best of 9-15 alternating rounds; small, and the
/// machine was noisy).
#[cfg(feature = "codec-astc")]
#[inline]
#[target_feature(enable = "simd128")]
#[cfg_attr(feature = "relaxed-simd", target_feature(enable = "relaxed-simd"))]
fn swizzle16(a: v128, i: v128) -> v128 {
    #[cfg(feature = "relaxed-simd")]
    return i8x16_relaxed_swizzle(a, i);
    #[cfg(not(feature = "relaxed-simd"))]
    u8x16_swizzle(a, i)
}

/// Unquantises the first `n` weights of `wq` (quantised indices, astc.rs `Indices`) in place
/// through `tab` (astc.rs `Tables::weight_tab`), 16 a vector: every weight range has at most 32
/// levels, so the lookup is two swizzles of the table's first 32 bytes (out-of-range indices give
/// 0 in each, and the two are or-ed). Bytes past `n` up to the next 16 are changed too (any byte
/// does there, see astc.rs `Parsed::wq`).
#[cfg(feature = "codec-astc")]
#[inline]
#[target_feature(enable = "simd128")]
pub(super) fn astc_unquant_weights(wq: &mut [u8; 128], n: usize, tab: &[u8; 256]) {
    let (lo, hi) = (load(&tab[..16]), load(&tab[16..32]));
    let sixteen = u8x16_splat(16);
    for c in 0..n.div_ceil(16).min(4) {
        let v = load(&wq[16 * c..]);
        let w = v128_or(
            u8x16_swizzle(lo, v),
            u8x16_swizzle(hi, u8x16_sub(v, sixteen)),
        );
        store(&mut wq[16 * c..], w);
    }
}

/// Bytes 0, 1, 2, 3 of a vector, each four times: a texel's value into its four lanes.
#[cfg(feature = "codec-astc")]
const ASTC_REP: [u8; 16] = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3];

/// The vector constants of [`astc_ldr_texels`]' loops, which it reads from a copy in the decoder
/// (astc.rs `Decoder::texel_consts`) instead of writing them as constants: V8 builds a vector
/// constant again wherever it is used (two or three instructions each, several a group of 4
/// texels: perf, node), where a value loaded from memory before the loop stays in a register.
/// In order: [`ASTC_REP`]; the lanes' bytes 0-3 of a texel (0x03020100 a u32 lane); 64 a byte;
/// 32 a u16; 1 an i16 and 8 an i32 (`weigh`); [`ASTC_REP`] times 4 (the i32 lanes' low bytes);
/// 1 a byte. Measured in node against the constants (scripts/bench-node.mjs, medians of 7-11
/// alternating rounds): ASTC 4x4 / 6x6 / 8x8 / 12x12 1.05x / 1.08x / 1.12x / 1.16x in the relaxed
/// build, 4x4 / 12x12 1.03x / 1.10x in the plain one.
#[cfg(feature = "codec-astc")]
pub(super) const TEXEL_CONSTS: [[u8; 16]; 8] = {
    let mut k = [[0u8; 16]; 8];
    let mut i = 0;
    while i < 16 {
        k[0][i] = ASTC_REP[i];
        k[1][i] = (i % 4) as u8;
        k[2][i] = 64;
        k[3][i] = if i % 2 == 0 { 32 } else { 0 };
        k[4][i] = if i % 2 == 0 { 1 } else { 0 };
        k[5][i] = if i % 4 == 0 { 8 } else { 0 };
        k[6][i] = 4 * ASTC_REP[i];
        k[7][i] = 1;
        i += 1;
    }
    k
};

/// ASTC's LDR texels (astc.rs, `Decoder::block_ldr`; its scalar path, native, is the reference),
/// 4 texels a vector, straight to RGBA8: each texel's endpoints picked by its partition from
/// `ends` (e0 then e1 of partition p at bytes 4p..4p + 4) with one swizzle each, its weight
/// (plane 1's in lane `ccs` of a dual-plane block) in its four lanes, the sums
/// e0 * (64 - w) + e1 * w in u16 lanes (at most 255 * 64), and astc.rs's `pack_ldr` rounding to
/// 8 bits, `(s + ((s + 32) >> 8)) >> 6`, before one narrowing store. `infill` says where the
/// weights of a grid's taps are ([`Infill`]); None when the weight grid is the block's texels.
/// Writes `n.div_ceil(4)` groups of 16 bytes to `out`. `k`: [`TEXEL_CONSTS`] (from memory, see
/// there). The scalar loops this replaces in wasm ran at 0.67x native there (node, perf: the
/// texel loops 42% of an ASTC_4x4 decode).
#[cfg(feature = "codec-astc")]
#[inline(never)]
#[target_feature(enable = "simd128")]
#[cfg_attr(feature = "relaxed-simd", target_feature(enable = "relaxed-simd"))]
#[allow(clippy::too_many_arguments)]
pub(super) fn astc_ldr_texels(
    ends: &[[u8; 16]; 2],
    part: &[u8; 144],
    wq: &[u8; 128],
    infill: Option<Infill>,
    dual: bool,
    ccs: usize,
    n: usize,
    out: &mut [u8; 576],
    k: &[[u8; 16]; 8],
) {
    let (e0, e1) = (load(&ends[0]), load(&ends[1]));
    let [rep, channel, six4, c32, ones, eight, lanes, one8] = k.map(|c| load(&c));
    let weigh_k = (ones, eight);
    // Lanes of channel `ccs` (none when ccs is 4, one plane).
    let plane1 = u8x16_eq(channel, u8x16_splat(ccs as u8));
    let mut group = |g: usize, w: v128| {
        // Each texel's partition into its four lanes, times 4 plus the lane: the endpoints' bytes.
        let p: [u8; 4] = part[4 * g..4 * g + 4].try_into().unwrap_or_default();
        // (Partitions are 0..=3, so every index here is under 16: see `swizzle16`. The shift
        // by 2 is two adds: V8 makes a byte shift a 16-bit shift and a mask, and the mask a
        // constant built in the loop.)
        let p = swizzle16(u32x4_splat(u32::from_le_bytes(p)), rep);
        let p = u8x16_add(p, p);
        let idx = v128_or(u8x16_add(p, p), channel);
        let (a, b) = (swizzle16(e0, idx), swizzle16(e1, idx));
        let iw = u8x16_sub(six4, w);
        let sum = |s: v128| {
            let q = u16x8_shr(u16x8_add(s, c32), 8);
            u16x8_shr(u16x8_add(s, q), 6)
        };
        let lo = u16x8_add(u16x8_extmul_low_u8x16(a, iw), u16x8_extmul_low_u8x16(b, w));
        let hi = u16x8_add(
            u16x8_extmul_high_u8x16(a, iw),
            u16x8_extmul_high_u8x16(b, w),
        );
        store(&mut out[16 * g..], u8x16_narrow_i16x8(sum(lo), sum(hi)));
    };
    let groups = n.div_ceil(4).min(36);
    match infill {
        None if dual => {
            // Weights interleaved by plane: texel t's are bytes 2t and 2t + 1.
            let idx = u8x16_add(u8x16_add(rep, rep), v128_and(plane1, one8));
            for g in 0..groups.min(8) {
                let w: [u8; 8] = wq[8 * g..8 * g + 8].try_into().unwrap_or_default();
                group(g, swizzle16(u64x2_splat(u64::from_le_bytes(w)), idx));
            }
        }
        None => {
            for g in 0..groups.min(16) {
                let w: [u8; 4] = wq[4 * g..4 * g + 4].try_into().unwrap_or_default();
                group(g, swizzle16(u32x4_splat(u32::from_le_bytes(w)), rep));
            }
        }
        Some(Infill::Windows(win)) => {
            // One swizzle from a window of the weights where `Infill::Grid` takes one a vector
            // of the grid (up to 4): measured in node against that, ASTC 4x4 / 6x6 / 8x8 /
            // 12x12 1.01x / 1.02x / 1.03x / 1.04x in the relaxed build, 1.11x on 6x6 and
            // 1.00-1.01x on 8x8 and 12x12 in the plain one (scripts/bench-node.mjs, medians of
            // 7-11 alternating rounds). (This arm and the next repeat their set-up and plane
            // select on purpose: folded into one helper, or hoisted above the match, node ran
            // ASTC 8x8 / 12x12 at 0.97x / 0.94x.)
            let planes = if dual { 2 } else { 1 };
            for (g, (q, &first)) in win.quads.iter().zip(&win.first).enumerate().take(groups) {
                let jf = (load(&q[0]), load(&q[1]));
                let window = load(&wq[first as usize..]);
                let plane = |pl| swizzle16(infill4_window(window, jf, planes, pl, weigh_k), lanes);
                let w = if dual {
                    v128_bitselect(plane(1), plane(0), plane1)
                } else {
                    plane(0)
                };
                group(g, w);
            }
        }
        Some(Infill::Grid(quads, cells)) => {
            let grid: [v128; 4] = core::array::from_fn(|k| load(&wq[16 * k..]));
            let planes = if dual { 2 } else { 1 };
            // Only the vectors that hold the grid's weights are swizzled (every tap names a
            // weight of the grid, see astc.rs `infill`): an 8x8 block with a 4x4 grid took four
            // swizzles a texel's weights where one does. Measured in node against the count from
            // the footprint: ASTC 8x8 / 12x12 1.10x / 1.09x, 4x4 and 6x6 unchanged (medians of 9
            // alternating rounds, scripts/bench-node.mjs).
            let vectors = (cells * planes).min(64).div_ceil(16);
            // (`lanes`: bytes 0, 4, 8, 12, the i32 lanes' low bytes, each four times.)
            for (g, q) in quads.iter().enumerate().take(groups) {
                let jf = (load(&q[0]), load(&q[1]));
                // The 4 texels' weights of plane `pl` in their four lanes (as astc_infill).
                let plane = |pl| swizzle16(infill4(&grid, vectors, jf, planes, pl, weigh_k), lanes);
                let w = if dual {
                    v128_bitselect(plane(1), plane(0), plane1)
                } else {
                    plane(0)
                };
                group(g, w);
            }
        }
    }
}

/// Copies `src` to `dst` (the same length, a multiple of 4: RGBA8 texels) a vector at a time. A
/// plain copy_from_slice of a length only known at run time is a memory.copy, which V8 runs as a
/// call out of the module (perf, node: 4.5% of an ASTC_4x4 decode in memmove and its wrapper for
/// rows of 16 bytes).
#[cfg(feature = "codec-astc")]
#[inline]
#[target_feature(enable = "simd128")]
pub(super) fn copy_texels(dst: &mut [u8], src: &[u8]) {
    let n = dst.len().min(src.len());
    if n >= 16 {
        // Whole vectors, then the last 16 bytes (which may overlap the one before): a row of
        // 20-48 bytes (ASTC 5-12 texels wide) is two or three vector copies, where its tail took
        // a loop of 4-byte copies, and a 16-byte row one copy and no loop. Measured in node
        // against that (relaxed build, medians of 9 alternating rounds): ASTC 4x4 / 6x6 / 8x8 /
        // 12x12 1.06x / 1.11x / 1.01x / 1.00x; plain build 4x4 / 6x6 1.06x / 1.07x.
        let mut i = 0;
        while i + 16 < n {
            store(&mut dst[i..], load(&src[i..]));
            i += 16;
        }
        store(&mut dst[n - 16..], load(&src[n - 16..n]));
        return;
    }
    let mut d = dst.chunks_exact_mut(16);
    let mut s = src.chunks_exact(16);
    for (d, s) in (&mut d).zip(&mut s) {
        store(d, load(s));
    }
    for (d, s) in d
        .into_remainder()
        .chunks_exact_mut(4)
        .zip(s.remainder().chunks_exact(4))
    {
        d.copy_from_slice(s);
    }
}
