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
fn palette_rows(pal: [u32; 4], idx: &[u8]) -> [v128; 4] {
    let pal = u32x4(pal[0], pal[1], pal[2], pal[3]);
    four(|i| u8x16_swizzle(pal, load(&PALETTE_MASKS[idx[i] as usize])))
}

// The block kernels. Each is a type whose `decode` is `#[inline(always)]` (bc::Block) rather than a
// closure: as closures LLVM kept the larger ones (BC1, BC3) out of line, a call and a 64-byte result
// through memory per block, and BC7's decoder was not compiled with simd128 at all. Hot loops use
// [`four`] instead of `[0, 1, 2, 3].map`, and each kernel is a function of its own ([`kernel`]).
// Against the closures with scalar alpha at the session's start (`scripts/bench-cpu.mjs --wall`,
// Chromium, 3 rounds x 7 decodes, medians): BC4 1.74x, BC5 1.82x, ATC 1.31-1.75x, BC1/BC2/BC3/BC7
// 1.01-1.04x (within the host's noise), ETC1 (untouched) 0.98x.

/// The palette of an 8-byte colour block, 4 RGBA u32 colours.
trait Palette {
    fn of(b: &[u8; 8]) -> [u32; 4];
}

/// BC1's palette; `FOUR`: always 4 colours (the colour half of BC2/BC3, alpha left 0).
struct Bc1Palette<const FOUR: bool>;

impl<const FOUR: bool> Palette for Bc1Palette<FOUR> {
    #[inline(always)]
    fn of(b: &[u8; 8]) -> [u32; 4] {
        super::bc::bc1_palette(b, FOUR)
    }
}

/// ATC's palette.
struct AtcPalette;

impl Palette for AtcPalette {
    #[inline(always)]
    fn of(b: &[u8; 8]) -> [u32; 4] {
        super::atc::palette(b)
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
/// lane t: a multiply moves index t to the top 3 bits of lane t (simd128 has no per-lane shifts).
#[inline]
#[target_feature(enable = "simd128")]
fn channel_row(idx: u64, r: usize) -> v128 {
    let bits = u32x4_splat((idx >> (12 * r)) as u32);
    u32x4_shr(
        i32x4_mul(bits, u32x4(1 << 29, 1 << 26, 1 << 23, 1 << 20)),
        29,
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

/// ETC colour blocks (etc.rs, the scalar reference): the individual and differential modes as
/// BC1's rows are, each half-block's 4 colours one vector (base + modifier on i16 lanes, narrowed
/// with saturation, which is the specification's clamp to 0..255) and each row one swizzle of it
/// by the row's index byte (PALETTE_MASKS); a row crossing both halves (no flip) takes bytes 8-15
/// from the second half's swizzle. T, H and planar blocks (1/32 of random ones each) go through the
/// scalar code. Scalar in wasm, ETC ran at ~0.35x native (node, issue 22).
/// `etc2`: the T, H and planar modes; `punch`: ETC2 RGB A1 (run-time flags: one kernel for the
/// three 8-byte formats, each a copy measured ~1 KB more of the core module).
struct Etc {
    etc2: bool,
    punch: bool,
}

/// Per table: the modifiers (a, b) and (-a, -b) on i16 lanes (R, G, B, A = 0 for each colour), for
/// opaque blocks and for punch-through blocks that are not (index 0 adds 0 there).
static ETC_MODS: [[[[i16; 8]; 2]; 2]; 8] = {
    let mut m = [[[[0i16; 8]; 2]; 2]; 8];
    let mut t = 0;
    while t < 8 {
        let [a, b] = super::etc::ETC1_MODIFIERS[t];
        let (a, b) = (a as i16, b as i16);
        let mut o = 0;
        while o < 2 {
            let a0 = if o == 0 { a } else { 0 };
            m[t][o] = [[a0, a0, a0, 0, b, b, b, 0], [-a, -a, -a, 0, -b, -b, -b, 0]];
            o += 1;
        }
        t += 1;
    }
    m
};

/// The 4 colours of a half-block (base 8-bit RGB, modifier table, opaque) as one vector.
#[inline]
#[target_feature(enable = "simd128")]
fn etc_half(c: [i32; 3], table: usize, opaque: bool) -> v128 {
    let base = c[0] as u64 & 0xffff
        | (c[1] as u64 & 0xffff) << 16
        | (c[2] as u64 & 0xffff) << 32
        | 255 << 48;
    let base = u64x2_splat(base);
    let [plus, minus] = &ETC_MODS[table & 7][!opaque as usize];
    let lo = i16x8_add(base, load_i16(plus));
    let hi = i16x8_add(base, load_i16(minus));
    let pal = u8x16_narrow_i16x8(lo, hi);
    if opaque {
        pal
    } else {
        // Index 2 (bytes 8-11) transparent black.
        v128_and(pal, u32x4(u32::MAX, u32::MAX, 0, u32::MAX))
    }
}

#[inline]
#[target_feature(enable = "simd128")]
fn load_i16(v: &[i16; 8]) -> v128 {
    i16x8(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])
}

/// The index bytes of a block's 4 rows: texel x's 2-bit index at bits 2x (PALETTE_MASKS's
/// order), from ETC's column-major bit planes (texel (x, y) at bit x * 4 + y, high bit 16 up).
#[inline(always)]
fn etc_rows(b: u64) -> [usize; 4] {
    // Bits y, 4 + y, 8 + y, 12 + y gathered to bits 0..3 by one multiply (no carries: every
    // product bit lands on its own position), then spread to the even bits.
    let gather = |v: u64| (((v & 0x1111) * 0x1248) >> 12) & 15;
    let spread = |v: u64| {
        let v = (v | v << 2) & 0x33;
        (v | v << 1) & 0x55
    };
    four(|y| (spread(gather(b >> y)) | spread(gather(b >> (16 + y))) << 1) as usize)
}

impl Etc {
    #[inline(always)]
    fn rows(&self, b: u64) -> [v128; 4] {
        match super::etc::halves(b, self.etc2, self.punch) {
            super::etc::Halves::Texels(px) => {
                use super::bc::BlockRows;
                four(|r| load(&px.row(r)))
            }
            super::etc::Halves::Palette {
                base,
                tables,
                opaque,
                flip,
            } => {
                let pal = [
                    etc_half(base[0], tables[0], opaque),
                    etc_half(base[1], tables[1], opaque),
                ];
                let idx = etc_rows(b);
                if flip {
                    four(|r| u8x16_swizzle(pal[r / 2], load(&PALETTE_MASKS[idx[r]])))
                } else {
                    let right = u64x2(0, u64::MAX);
                    four(|r| {
                        let m = load(&PALETTE_MASKS[idx[r]]);
                        v128_bitselect(u8x16_swizzle(pal[1], m), u8x16_swizzle(pal[0], m), right)
                    })
                }
            }
        }
    }
}

impl super::bc::Block<8> for Etc {
    type Rows = [[u8; 16]; 4];
    #[inline(always)]
    fn decode(&self, b: &[u8; 8]) -> Self::Rows {
        let r = self.rows(u64::from_be_bytes(*b));
        four(|k| bytes(r[k]))
    }
}

/// Decodes a surface of an 8-bit ETC colour format (ETC1, ETC2 RGB, RGBA1) into `out`. (ETC2
/// RGBA8 stays scalar in wasm: its kernel, 1.4x in node, took the core module over 300 KB.)
#[target_feature(enable = "simd128")]
pub(super) fn etc(format: super::PixelFormat, w: usize, data: &[u8], out: &mut [u8]) {
    use super::PixelFormat::*;
    kernel::<8, _>(
        w,
        data,
        out,
        Etc {
            etc2: format != ETC1,
            punch: format == ETC2RGBA1,
        },
    );
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

/// ASTC's weight infill (astc.rs, `infill_weights`, the reference) for 4 texels at a time: each
/// texel's 4 weights picked from the 64-byte weight grid `wq` by 4 swizzles, multiplied by their
/// factors, summed by pairs with a dot product and then across pairs, `(sum + 8) >> 4`. Scalar in
/// wasm, perf (node, ASTC_8x5) put the loop among the hottest code, with register spills in the
/// large function it was inlined into; hence also `inline(never)` (that alone measured 1.04x).
#[cfg(feature = "codec-astc")]
#[inline(never)]
#[target_feature(enable = "simd128")]
pub(super) fn astc_infill(
    tw: &mut [[i32; 2]; 144],
    quads: &[[[u8; 16]; 2]],
    wq: &[u8; 64],
    planes: usize,
) {
    let grid: [v128; 4] = std::array::from_fn(|k| load(&wq[16 * k..]));
    let ones = i16x8_splat(1);
    for (q, t) in quads.iter().zip(tw.chunks_exact_mut(4)) {
        let (j, f) = (load(&q[0]), load(&q[1]));
        // The 4 texels' weights of plane `pl`, which is wq[j * planes + pl] for weight j.
        let plane = |pl: u8| -> [i32; 4] {
            let j = match planes {
                1 => j,
                _ => u8x16_add(u8x16_add(j, j), u8x16_splat(pl)),
            };
            // Out-of-range swizzle indices (here j - 16k outside 0..16, wrapping) give 0.
            let mut w = u8x16_swizzle(grid[0], j);
            for (k, g) in grid.iter().enumerate().skip(1) {
                let i = u8x16_sub(j, u8x16_splat(16 * k as u8));
                w = v128_or(w, u8x16_swizzle(*g, i));
            }
            // Products under 64 * 16 + 1: i16 lanes; pair sums then texel sums in i32 lanes.
            let lo = i32x4_dot_i16x8(u16x8_extmul_low_u8x16(w, f), ones);
            let hi = i32x4_dot_i16x8(u16x8_extmul_high_u8x16(w, f), ones);
            let s = i32x4_add(
                i32x4_shuffle::<0, 2, 4, 6>(lo, hi),
                i32x4_shuffle::<1, 3, 5, 7>(lo, hi),
            );
            let s = i32x4_shr(i32x4_add(s, i32x4_splat(8)), 4);
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
