//! WebAssembly SIMD (simd128) kernels for the hot 8-bit decode loops. wasm32 only: natively the
//! scalar loops in plain.rs / bc.rs are autovectorised by the compiler (SSE2), in wasm they are not
//! (issue 3: plain byte formats ran at 0.11-0.53x native in Chromium, scalar). Each kernel does the
//! bulk of a surface and leaves the tail to the scalar code, and takes its maths from the same
//! tables the scalar code uses (plain::Order, plain::Packed, bc's palettes), so the two paths cannot
//! drift apart; tests/browser/wasm-native.test.mjs compares wasm (these kernels) with native (scalar)
//! on every format at 64x32 (kernels), 13x7 (kernels and tails) and 1x1 (tails only).
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

/// Byte-order formats (`N` bytes a texel, each output channel a byte of the texel or a constant,
/// `order` as plain::Order): one swizzle per 4 output texels, `V` = 16 / N / 4 of them per 16-byte
/// load. Returns a vector with room for `n` bytes holding the texels done (the rest of `data` is a
/// tail of under 16 bytes), and how many. Collected from an exact-size iterator, so there is no
/// capacity check per store (an `extend_from_slice` a vector measured slower than the zero-filled
/// image it replaces).
#[target_feature(enable = "simd128")]
pub(super) fn reorder<const N: usize, const V: usize>(
    data: &[u8],
    n: usize,
    order: [u8; 4],
) -> (Vec<u8>, usize) {
    let mut fill = [0u8; 16];
    for (j, f) in fill.iter_mut().enumerate() {
        *f = if order[j % 4] == super::plain::FULL {
            255
        } else {
            0
        };
    }
    let masks: [v128; V] = std::array::from_fn(|k| {
        let mut m = [0u8; 16];
        for (j, b) in m.iter_mut().enumerate() {
            let p = order[j % 4] as usize;
            // Out of range lanes (>= 16) swizzle to 0; the constant channels come from `fill`.
            *b = if p < N {
                ((k * 4 + j / 4) * N + p) as u8
            } else {
                0x80
            };
        }
        load(&m)
    });
    let fill = load(&fill);
    let chunks = data.chunks_exact(16);
    let done = chunks.len() * 16 / N;
    let mut out: Vec<[[u8; 16]; V]> = Vec::with_capacity(n.div_ceil(16 * V));
    out.extend(chunks.map(|t| {
        let x = load(t);
        masks.map(|m| bytes(v128_or(u8x16_swizzle(x, m), fill)))
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

/// A 4-colour block's rows (BC1, ATC): `pal` as one vector, each row one swizzle of it by the
/// row's index byte (`idx`: the block's 4 index bytes).
#[inline]
#[target_feature(enable = "simd128")]
fn palette_rows(pal: [u32; 4], idx: &[u8]) -> [v128; 4] {
    let pal = u32x4(pal[0], pal[1], pal[2], pal[3]);
    [0, 1, 2, 3].map(|i| u8x16_swizzle(pal, load(&PALETTE_MASKS[idx[i] as usize])))
}

/// Surfaces of 8-byte colour blocks (BC1, ATC RGB) whose 4 colours `palette` gives (bc::rows).
#[target_feature(enable = "simd128")]
pub(super) fn colour8(
    w: usize,
    data: &[u8],
    out: &mut [u8],
    palette: impl Fn(&[u8; 8]) -> [u32; 4],
) {
    super::bc::rows::<8, _>(w, data, out, |b| {
        palette_rows(palette(b), &b[4..]).map(|v| bytes(v))
    });
}

/// Surfaces of 16-byte blocks, an alpha block then a colour block (BC2, BC3, ATC RGBA): colour as
/// [`colour8`], the 16 alpha values from `alpha` (scalar) moved into place with one swizzle a row.
#[target_feature(enable = "simd128")]
pub(super) fn colour_alpha(
    w: usize,
    data: &[u8],
    out: &mut [u8],
    palette: impl Fn(&[u8; 8]) -> [u32; 4],
    alpha: impl Fn(&[u8; 8]) -> [u8; 16],
) {
    let at = ALPHA_AT.map(|m| load(&m));
    let rgb = u32x4_splat(0x00ff_ffff);
    super::bc::rows::<16, _>(w, data, out, |b| {
        let c = palette_rows(palette(b[8..].try_into().expect("8 bytes")), &b[12..]);
        let a = load(&alpha(b[..8].try_into().expect("8 bytes")));
        [0, 1, 2, 3].map(|r| bytes(v128_or(v128_and(c[r], rgb), u8x16_swizzle(a, at[r]))))
    });
}

/// Per-lane weights of a BC4 palette (bc::alpha with `bc4`): entry j is (wa[j] a0 + wb[j] a1 +
/// add[j]) >> 16, the same 16-bit fixed point as the scalar code. Index 0: a0 <= a1 (4 steps,
/// then 0 and 255, the latter as an added 255 << 16), index 1: a0 > a1 (6 steps). Entries 0 and 1
/// are a0 and a1 themselves (weight 1 << 16).
static BC4_WEIGHTS: [[[u32; 8]; 3]; 2] = {
    const H: u32 = 32768;
    [
        [
            [65536, 0, 52429, 39321, 26215, 13107, 0, 0],
            [0, 65536, 13107, 26215, 39321, 52429, 0, 0],
            [H, H, H, H, H, H, H, H + (255 << 16)],
        ],
        [
            [65536, 0, 56173, 46812, 37450, 28086, 18724, 9363],
            [0, 65536, 9363, 18724, 28086, 37450, 46812, 56173],
            [H; 8],
        ],
    ]
};

/// The 8 palette entries of a BC4 / BC5 channel block as u32 lanes 0-3 and 4-7 (`weights`: BC4_WEIGHTS
/// as vectors).
#[inline]
#[target_feature(enable = "simd128")]
fn channel_palette(b: &[u8], weights: &[[[v128; 2]; 3]; 2]) -> [v128; 2] {
    let [wa, wb, add] = &weights[(b[0] > b[1]) as usize];
    let (a0, a1) = (u32x4_splat(b[0] as u32), u32x4_splat(b[1] as u32));
    [0, 1].map(|h| {
        let v = i32x4_add(i32x4_mul(a0, wa[h]), i32x4_mul(a1, wb[h]));
        u32x4_shr(i32x4_add(v, add[h]), 16)
    })
}

/// BC4_WEIGHTS as vectors.
#[inline]
#[target_feature(enable = "simd128")]
fn channel_weights() -> [[[v128; 2]; 3]; 2] {
    BC4_WEIGHTS
        .map(|set| set.map(|l| [u32x4(l[0], l[1], l[2], l[3]), u32x4(l[4], l[5], l[6], l[7])]))
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

/// Surfaces of BC4 blocks, (r, 0, 0, 255) a texel. The palette ([`channel_palette`]) is narrowed
/// into bytes 0-7 of one vector (byte 8 = 255); each row of 4 texels is then one swizzle of it by
/// a mask built from the row's indices ([`channel_row`]). Scalar bc::alpha is the reference
/// (tests/browser/wasm-native.test.mjs). Measured against that scalar code in Chromium (renderer
/// CPU time, scripts/bench-cpu.mjs): 1.25x.
#[target_feature(enable = "simd128")]
pub(super) fn bc4(w: usize, data: &[u8], out: &mut [u8]) {
    let weights = channel_weights();
    // Byte 0 of lane t: the index; bytes 1 and 2 out of range (0); byte 3: the 255 at byte 8.
    let fill = u32x4_splat(0x0880_8000);
    let alpha = i16x8(255, 0, 0, 0, 0, 0, 0, 0);
    super::bc::rows::<8, _>(w, data, out, |b| {
        let [lo, hi] = channel_palette(b, &weights);
        let pal = u8x16_narrow_i16x8(u16x8_narrow_i32x4(lo, hi), alpha);
        let idx = u64::from_le_bytes(*b) >> 16;
        [0, 1, 2, 3].map(|r| bytes(u8x16_swizzle(pal, v128_or(channel_row(idx, r), fill))))
    });
}

/// Surfaces of BC5 blocks, (r, g, 0, 255) a texel: as [`bc4`], the red palette in bytes 0-7 and
/// the green one in bytes 8-15 of one vector, alpha ORed in after the swizzle.
#[target_feature(enable = "simd128")]
pub(super) fn bc5(w: usize, data: &[u8], out: &mut [u8]) {
    let weights = channel_weights();
    // Byte 0 of lane t: the red index; byte 1: 8 + the green index; bytes 2 and 3 out of range.
    let fill = u32x4_splat(0x8080_0800);
    let alpha = u32x4_splat(0xff00_0000);
    super::bc::rows::<16, _>(w, data, out, |b| {
        let [rl, rh] = channel_palette(&b[..8], &weights);
        let [gl, gh] = channel_palette(&b[8..], &weights);
        let pal = u8x16_narrow_i16x8(u16x8_narrow_i32x4(rl, rh), u16x8_narrow_i32x4(gl, gh));
        let ri = u64::from_le_bytes(b[..8].try_into().expect("8 bytes")) >> 16;
        let gi = u64::from_le_bytes(b[8..].try_into().expect("8 bytes")) >> 16;
        [0, 1, 2, 3].map(|r| {
            let m = v128_or(channel_row(ri, r), u32x4_shl(channel_row(gi, r), 8));
            bytes(v128_or(u8x16_swizzle(pal, v128_or(m, fill)), alpha))
        })
    });
}
