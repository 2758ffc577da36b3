//! Differential tests of the BCn and plain-format decoders on random data against an independent
//! reference: the image-rs `dds` crate 0.2 (its own BCn and DXGI decoders, not bcdec_rs), through
//! `dds::decode` into an `ImageViewMut`. Where no DXGI format matches a Unity-specific order (L8, LA8,
//! ARGB32), expected values are computed in the test from the format's definition (seed 004).

use dds::{Channels, ColorFormat, Format as DF, ImageViewMut, Precision as DP, Size};
use texscope::codec::{decode_surface, Image, PixelFormat as PF, Pixels};
use texscope::io::{ErrorKind, Limits};

mod common;

/// xorshift64* — deterministic test data without a rand dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 32) as u8).collect()
    }
}

/// Decodes with the `dds` crate in its native channel layout, widened to our RGBA convention
/// (grey -> (r,0,0,1), alpha -> (0,0,0,a), rgb -> (r,g,b,1)). Values come back as f64 in the
/// requested precision's integer scale (0..255, 0..65535) or as floats.
fn reference(format: DF, w: u32, h: u32, data: &[u8], precision: DP) -> Vec<f64> {
    let channels = format.color().channels;
    let color = ColorFormat::new(channels, precision);
    let mut out = vec![0u8; (w * h) as usize * color.bytes_per_pixel() as usize];
    let view = ImageViewMut::new(&mut out, Size::new(w, h), color).expect("view size");
    dds::decode(&mut &data[..], view, format, &Default::default()).expect("reference decode");
    let vals: Vec<f64> = match precision {
        DP::U8 => out.iter().map(|&v| v as f64).collect(),
        DP::U16 => out
            .chunks_exact(2)
            .map(|c| u16::from_ne_bytes([c[0], c[1]]) as f64)
            .collect(),
        DP::F32 => out
            .chunks_exact(4)
            .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]) as f64)
            .collect(),
    };
    let one = match precision {
        DP::U8 => 255.0,
        DP::U16 => 65535.0,
        DP::F32 => 1.0,
    };
    let n = channels.count() as usize;
    vals.chunks_exact(n)
        .flat_map(|p| match channels {
            Channels::Grayscale => [p[0], 0.0, 0.0, one],
            Channels::Alpha => [0.0, 0.0, 0.0, p[0]],
            Channels::Rgb => [p[0], p[1], p[2], one],
            Channels::Rgba => [p[0], p[1], p[2], p[3]],
        })
        .collect()
}

fn ours(format: PF, w: u32, h: u32, data: &[u8]) -> Image {
    decode_surface(format, w, h, data, &Limits::default()).expect("our decode")
}

fn values(img: &Image) -> Vec<f64> {
    match &img.pixels {
        Pixels::Rgba8(p) => p.iter().map(|&v| v as f64).collect(),
        Pixels::Rgba16(p) => p.iter().map(|&v| v as f64).collect(),
        Pixels::Rgba32F(p) => p.iter().map(|&v| v as f64).collect(),
    }
}

/// Asserts every channel of every texel is within `tol` (NaN matches NaN); returns how many differ.
fn compare(what: &str, a: &[f64], b: &[f64], tol: f64) -> usize {
    assert_eq!(a.len(), b.len(), "{what}: length");
    let mut differ = 0;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x.is_nan() && y.is_nan() || x == y {
            continue;
        }
        differ += 1;
        assert!(
            (x - y).abs() <= tol,
            "{what}: texel {} channel {}: ours {x} reference {y}",
            i / 4,
            i % 4
        );
    }
    differ
}

const SIZES: [(u32, u32); 4] = [(1, 1), (5, 3), (13, 7), (64, 64)];

/// Random surfaces of every size, with `patch` applied to each block to force a mode.
fn bc_case(ours_f: PF, ref_f: DF, precision: DP, tol: f64, patch: &dyn Fn(&mut [u8], &mut Rng)) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ ours_f.name().len() as u64);
    for (w, h) in SIZES {
        let mut data = rng.bytes(ours_f.surface_size(w, h) as usize);
        for b in data.chunks_exact_mut(ours_f.block().bytes as usize) {
            patch(b, &mut rng);
        }
        let got = values(&ours(ours_f, w, h, &data));
        let want = reference(ref_f, w, h, &data, precision);
        compare(&format!("{} {w}x{h}", ours_f.name()), &got, &want, tol);
    }
}

fn no_patch(_: &mut [u8], _: &mut Rng) {}

#[test]
fn bc1_with_punch_through() {
    // Half the blocks have c0 <= c1 (3-colour + transparent black mode). D3D11 functional spec allows
    // palette rounding to differ by 1 between decoders (seed 004), so BC1 is held within 1.
    bc_case(PF::BC1, DF::BC1_UNORM, DP::U8, 1.0, &|b, rng| {
        if rng.next() & 1 == 0 {
            let (c0, c1) = ([b[0], b[1]], [b[2], b[3]]);
            let (lo, hi) = if u16::from_le_bytes(c0) <= u16::from_le_bytes(c1) {
                (c0, c1)
            } else {
                (c1, c0)
            };
            b[..2].copy_from_slice(&lo);
            b[2..4].copy_from_slice(&hi);
        }
    });
}

#[test]
fn bc2_bc3() {
    bc_case(PF::BC2, DF::BC2_UNORM, DP::U8, 1.0, &no_patch);
    // BC3's colour half always uses the four-colour palette, whatever the endpoint order
    // (EXT_texture_compression_s3tc: "treated as though color0 > color1"; bcdec_rs does this).
    // `dds` 0.2 decodes BC3 colour with BC1's three-colour rule when c0 <= c1, so the reference
    // colour is taken from its BC2 decoder (same colour half, forced four-colour) and the alpha
    // from its BC3 decoder (the BC4-style alpha half).
    let mut rng = Rng(33);
    for (w, h) in SIZES {
        let data = rng.bytes(PF::BC3.surface_size(w, h) as usize);
        let got = values(&ours(PF::BC3, w, h, &data));
        let colour = reference(DF::BC2_UNORM, w, h, &data, DP::U8);
        let alpha = reference(DF::BC3_UNORM, w, h, &data, DP::U8);
        let want: Vec<f64> = colour
            .chunks_exact(4)
            .zip(alpha.chunks_exact(4))
            .flat_map(|(c, a)| [c[0], c[1], c[2], a[3]])
            .collect();
        compare(&format!("BC3 {w}x{h}"), &got, &want, 1.0);
    }
}

#[test]
fn bc4_bc5_unsigned_bit_exact() {
    bc_case(PF::BC4, DF::BC4_UNORM, DP::U8, 0.0, &no_patch);
    bc_case(PF::BC5, DF::BC5_UNORM, DP::U8, 0.0, &no_patch);
}

/// Signed BC4/BC5 decode to f32 in -1..1 (what an SNORM sampler returns); `dds` reports them mapped to
/// 0..1, so the reference is mapped back. Tolerance is float rounding of the two scalings.
#[test]
fn bc4_bc5_signed_to_float() {
    for (ours_f, ref_f) in [(PF::BC4S, DF::BC4_SNORM), (PF::BC5S, DF::BC5_SNORM)] {
        let mut rng = Rng(77);
        for (w, h) in SIZES {
            let mut data = rng.bytes(ours_f.surface_size(w, h) as usize);
            // Force the -128 endpoint (clamps to -127) into some blocks.
            for b in data.chunks_exact_mut(8) {
                if rng.next() % 4 == 0 {
                    b[(rng.next() % 2) as usize] = 0x80;
                }
            }
            let got = values(&ours(ours_f, w, h, &data));
            let want: Vec<f64> = reference(ref_f, w, h, &data, DP::F32)
                .chunks_exact(4)
                .flat_map(|p| {
                    let s = |v: f64| v * 2.0 - 1.0;
                    if ours_f == PF::BC4S {
                        [s(p[0]), 0.0, 0.0, 1.0]
                    } else {
                        [s(p[0]), s(p[1]), 0.0, 1.0]
                    }
                })
                .collect();
            compare(&format!("{} {w}x{h}", ours_f.name()), &got, &want, 1e-5);
        }
    }
}

/// Signed BC4/BC5 against bcdec_rs 0.2.1's `bc4_float`/`bc5_float` (what decoded them before
/// codec/bc.rs's own loop), every f32 bit of every visible texel: random blocks with the -128
/// endpoint forced into a quarter of them, both palette orders, whole and clipped blocks.
#[test]
fn bc4_bc5_signed_bit_exact_against_bcdec_rs() {
    let mut rng = Rng(0xBC45);
    for f in [PF::BC4S, PF::BC5S] {
        let bytes = if f == PF::BC4S { 8 } else { 16 };
        for (w, h) in SIZES {
            let mut data = rng.bytes(f.surface_size(w, h) as usize);
            for b in data.chunks_exact_mut(8) {
                if rng.next() % 4 == 0 {
                    b[(rng.next() % 2) as usize] = 0x80;
                }
            }
            let Pixels::Rgba32F(got) = ours(f, w, h, &data).pixels else {
                panic!("{}: decodes to f32", f.name());
            };
            let (w, h) = (w as usize, h as usize);
            let bw = w.div_ceil(4);
            for (k, b) in data.chunks_exact(bytes).enumerate() {
                let mut rg = [0f32; 32];
                if f == PF::BC4S {
                    bcdec_rs::bc4_float(b, &mut rg[..16], 4, true);
                } else {
                    bcdec_rs::bc5_float(b, &mut rg, 8, true);
                }
                let (x0, y0) = (k % bw * 4, k / bw * 4);
                for t in 0..16 {
                    let (x, y) = (x0 + t % 4, y0 + t / 4);
                    if x >= w || y >= h {
                        continue;
                    }
                    let want = if f == PF::BC4S {
                        [rg[t], 0.0, 0.0, 1.0]
                    } else {
                        [rg[t * 2], rg[t * 2 + 1], 0.0, 1.0]
                    };
                    let o = (y * w + x) * 4;
                    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(
                        bits(&got[o..o + 4]),
                        bits(&want),
                        "{} {w}x{h} texel ({x},{y})",
                        f.name()
                    );
                }
            }
        }
    }
}

/// BC6H mode ids as stored in the low bits of byte 0 (D3D11 BC6H format description): modes 1 and 2
/// use two bits, the other twelve use five.
const BC6H_MODES: [(u8, u8); 14] = [
    (0b00, 2),
    (0b01, 2),
    (0b00010, 5),
    (0b00110, 5),
    (0b01010, 5),
    (0b01110, 5),
    (0b10010, 5),
    (0b10110, 5),
    (0b11010, 5),
    (0b11110, 5),
    (0b00011, 5),
    (0b00111, 5),
    (0b01011, 5),
    (0b01111, 5),
];

#[test]
fn bc6h_every_mode_unsigned_and_signed_bit_exact_f32() {
    for (ours_f, ref_f) in [(PF::BC6HU, DF::BC6H_UF16), (PF::BC6HS, DF::BC6H_SF16)] {
        for (bits, len) in BC6H_MODES {
            bc_case(ours_f, ref_f, DP::F32, 0.0, &|b, _| {
                let mask = (1u8 << len) - 1;
                b[0] = (b[0] & !mask) | bits;
            });
        }
        // Reserved mode ids decode to black in both.
        bc_case(ours_f, ref_f, DP::F32, 0.0, &|b, _| {
            b[0] = (b[0] & !31) | 0b10011
        });
    }
}

/// BC6H as bcdec_rs 0.2.1 decodes it (the decoder codec/bc/bc6h.rs replaced, itself bit-exact
/// with `dds` above and fuzzed against C bcdec by its authors), widened to RGBA with alpha 1, f32
/// bits of every texel visible in a `w` x `h` surface.
fn bc6h_bcdec_rs(data: &[u8], w: usize, h: usize, signed: bool) -> Vec<u32> {
    let bw = w.div_ceil(4);
    let mut want = vec![0u32; w * h * 4];
    for (k, b) in data.chunks_exact(16).enumerate() {
        let mut rgb = [0f32; 48];
        bcdec_rs::bc6h_float(b, &mut rgb, 12, signed);
        let (x0, y0) = (k % bw * 4, k / bw * 4);
        for t in 0..16 {
            let (x, y) = (x0 + t % 4, y0 + t / 4);
            if x < w && y < h {
                let o = (y * w + x) * 4;
                for c in 0..3 {
                    want[o + c] = rgb[t * 3 + c].to_bits();
                }
                want[o + 3] = 1f32.to_bits();
            }
        }
    }
    want
}

/// Ours against [`bc6h_bcdec_rs`], every f32 bit (the sign of zero included, which [`compare`]
/// would let pass); returns how many values were infinite.
fn bc6h_same_bits(what: &str, data: &[u8], w: u32, h: u32, signed: bool) -> usize {
    let f = if signed { PF::BC6HS } else { PF::BC6HU };
    let Pixels::Rgba32F(got) = ours(f, w, h, data).pixels else {
        panic!("{what}: BC6H decodes to f32");
    };
    let want = bc6h_bcdec_rs(data, w as usize, h as usize, signed);
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, x)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g.to_bits(),
            *x,
            "{what}: texel {} channel {}: ours {g} bcdec_rs {}",
            i / 4,
            i % 4,
            f32::from_bits(*x)
        );
    }
    want.iter()
        .filter(|x| f32::from_bits(**x).is_infinite())
        .count()
}

/// Every BC6H mode (block k of a surface in mode k mod 15, the 15th a reserved id in turn), signed
/// and unsigned, whole and clipped blocks, random bits otherwise: bit-exact against bcdec_rs. Half
/// of the 16-bit-endpoint blocks (mode 13) get w = -32768 in one channel, the value whose signed
/// interpolation reaches the half 0xfc00 (minus infinity) in bcdec.
#[test]
fn bc6h_every_mode_bit_exact_against_bcdec_rs() {
    const RESERVED: [u8; 4] = [0b10011, 0b10111, 0b11011, 0b11111];
    let mut rng = Rng(0xBC6);
    let mut infinite = 0;
    for signed in [false, true] {
        for (w, h) in [
            (1, 1),
            (5, 3),
            (13, 7),
            (64, 64),
            (30, 17),
            (256, 4),
            (120, 120),
        ] {
            let mut data = rng.bytes(PF::BC6HU.surface_size(w, h) as usize);
            for (k, b) in data.chunks_exact_mut(16).enumerate() {
                let m = k % 15;
                if m == 14 {
                    b[0] = (b[0] & !31) | RESERVED[k / 15 % 4];
                    continue;
                }
                let (bits, len) = BC6H_MODES[m];
                b[0] = (b[0] & !((1u8 << len) - 1)) | bits;
                if m == 13 && k % 2 == 0 {
                    // Mode 13's rw: bits 5..15 then its top six reversed, bit 39 = rw[15] (D3D11
                    // BC6H mode table). rw = 0x8000: low ten bits 0, bit 39 set, 40..45 clear.
                    let mut v = u128::from_le_bytes(b[..].try_into().unwrap());
                    v &= !(0x3ff << 5) & !(0x3f << 39);
                    v |= 1 << 39;
                    b.copy_from_slice(&v.to_le_bytes());
                }
            }
            let what = format!("BC6H{} {w}x{h}", if signed { "S" } else { "U" });
            infinite += bc6h_same_bits(&what, &data, w, h, signed);
        }
    }
    assert!(infinite > 0, "no block reached the signed -32768 case");
}

/// The real BC6H file of the samples (PVRTexTool's BC6H.ktx2 of texture2ddecoder's test set,
/// 512x512; level 0 at byte 224, 262,144 bytes: its header read with Python struct.unpack, as
/// tests/ktx.rs asserts), decoded unsigned as stored and signed (the same blocks read as BC6HS):
/// bit-exact against bcdec_rs.
#[test]
fn bc6h_real_file_bit_exact_against_bcdec_rs() {
    let path = common::samples()
        .join("unity/UniversalGameExtraction_texture2ddecoder/resources/tests/textures/BC6H.ktx2");
    let bytes = std::fs::read(&path).expect("the BC6H.ktx2 sample");
    let blocks = &bytes[224..224 + 262_144];
    for signed in [false, true] {
        bc6h_same_bits("BC6H.ktx2", blocks, 512, 512, signed);
    }
}

#[test]
fn bc7_every_mode_bit_exact() {
    for mode in 0..8u8 {
        bc_case(PF::BC7, DF::BC7_UNORM, DP::U8, 0.0, &|b, _| {
            let mask = ((2u16 << mode) - 1) as u8;
            b[0] = (b[0] & !mask) | (1 << mode);
        });
    }
    // Byte 0 zero is not a valid mode: both give transparent black.
    bc_case(PF::BC7, DF::BC7_UNORM, DP::U8, 0.0, &|b, _| b[0] = 0);
}

/// Every partition of every multi-subset BC7 mode (0, 1, 2, 3, 7) and every rotation and
/// index-selection value of modes 4 and 5, bit-exact against `dds` (its own BC7 tables): block k of
/// a surface gets partition k mod 2^bits, or rotation/selection k mod 8, the other bits random.
#[test]
fn bc7_every_partition_rotation_and_index_selection_bit_exact() {
    // (mode, bits of the field after the mode bits: partition, or rotation + index selection).
    for (mode, field) in [(0u32, 4u32), (1, 6), (2, 6), (3, 6), (7, 6), (4, 3), (5, 2)] {
        let k = std::cell::Cell::new(0u128);
        bc_case(PF::BC7, DF::BC7_UNORM, DP::U8, 0.0, &|b, _| {
            let mut v = u128::from_le_bytes(b.try_into().unwrap());
            let mask = ((1u128 << field) - 1) << (mode + 1);
            v = (v & !mask & !((2u128 << mode) - 1)) | 1 << mode;
            v |= (k.get() % (1 << field)) << (mode + 1);
            k.set(k.get() + 1);
            b.copy_from_slice(&v.to_le_bytes());
        });
    }
}

/// Our 8-bit BCn decoders (codec/bc.rs, written for speed) against bcdec_rs 0.2.1, the decoder they
/// replaced (itself held to `dds` above and fuzzed against C bcdec by its authors): bit-exact, same
/// palette rounding, on random blocks of every BC7 mode and BC1 mode, whole and clipped blocks.
#[test]
fn bc_8bit_bit_exact_against_bcdec_rs() {
    type Dec = fn(&[u8], &mut [u8; 64]);
    let cases: [(PF, Dec); 6] = [
        (PF::BC1, |b, o| bcdec_rs::bc1(b, o, 16)),
        (PF::BC2, |b, o| bcdec_rs::bc2(b, o, 16)),
        (PF::BC3, |b, o| bcdec_rs::bc3(b, o, 16)),
        (PF::BC4, |b, o| {
            let mut r = [0u8; 16];
            bcdec_rs::bc4(b, &mut r, 4, false);
            for (t, v) in r.iter().enumerate() {
                o[t * 4..t * 4 + 4].copy_from_slice(&[*v, 0, 0, 255]);
            }
        }),
        (PF::BC5, |b, o| {
            let mut rg = [0u8; 32];
            bcdec_rs::bc5(b, &mut rg, 8, false);
            for t in 0..16 {
                o[t * 4..t * 4 + 4].copy_from_slice(&[rg[t * 2], rg[t * 2 + 1], 0, 255]);
            }
        }),
        (PF::BC7, |b, o| bcdec_rs::bc7(b, o, 16)),
    ];
    let mut rng = Rng(0xB0C5);
    for (f, dec) in cases {
        let bytes = f.block().bytes as usize;
        for (w, h) in [(1, 1), (5, 3), (13, 7), (64, 64), (30, 17), (256, 4)] {
            let mut data = rng.bytes(f.surface_size(w, h) as usize);
            for (k, b) in data.chunks_exact_mut(bytes).enumerate() {
                match f {
                    // Half the blocks in the 3-colour mode (c0 <= c1), c0 == c1 included.
                    PF::BC1 if k % 2 == 0 => {
                        b[2] = b[2].max(b[0]);
                        b[3] = b[3].max(b[1]);
                        if k % 8 == 0 {
                            b.copy_within(0..2, 2);
                        }
                    }
                    // Modes 0..7 in turn, and byte 0 = 0 (not a mode) every ninth block.
                    PF::BC7 => {
                        let m = k % 9;
                        b[0] = if m == 8 {
                            0
                        } else {
                            (b[0] & !(((2u16 << m) - 1) as u8)) | 1 << m
                        };
                    }
                    _ => {}
                }
            }
            let got = values(&ours(f, w, h, &data));
            let (bw, w, h) = (w.div_ceil(4) as usize, w as usize, h as usize);
            let mut want = vec![0.0; w * h * 4];
            for (k, b) in data.chunks_exact(bytes).enumerate() {
                let mut px = [0u8; 64];
                dec(b, &mut px);
                let (x0, y0) = (k % bw * 4, k / bw * 4);
                for t in 0..16 {
                    let (x, y) = (x0 + t % 4, y0 + t / 4);
                    if x < w && y < h {
                        for c in 0..4 {
                            want[(y * w + x) * 4 + c] = px[t * 4 + c] as f64;
                        }
                    }
                }
            }
            compare(&format!("{} {w}x{h}", f.name()), &got, &want, 0.0);
        }
    }
}

/// Plain formats with a DXGI equivalent, compared against `dds`'s decoder of that DXGI format.
#[test]
fn plain_formats_against_dxgi_equivalents() {
    let cases: &[(PF, DF, DP)] = &[
        (PF::R8, DF::R8_UNORM, DP::U8),
        (PF::A8, DF::A8_UNORM, DP::U8),
        (PF::RG8, DF::R8G8_UNORM, DP::U8),
        (PF::RGB8, DF::R8G8B8_UNORM, DP::U8),
        (PF::BGR8, DF::B8G8R8_UNORM, DP::U8),
        (PF::RGBA8, DF::R8G8B8A8_UNORM, DP::U8),
        (PF::BGRA8, DF::B8G8R8A8_UNORM, DP::U8),
        (PF::BGRX8, DF::B8G8R8X8_UNORM, DP::U8),
        (PF::RGB565, DF::B5G6R5_UNORM, DP::U8),
        (PF::BGRA5551, DF::B5G5R5A1_UNORM, DP::U8),
        // Unity ARGB4444 (seed 004 "ARGB4444 nibble order": alpha 12-15, red 8-11, green 4-7, blue 0-3)
        // is D3D's B4G4R4A4.
        (PF::ARGB4444, DF::B4G4R4A4_UNORM, DP::U8),
        // Unity RGBA4444 in the common decoders' order (red 12-15 ... alpha 0-3) is DXGI A4B4G4R4.
        (PF::RGBA4444, DF::A4B4G4R4_UNORM, DP::U8),
        (PF::R16, DF::R16_UNORM, DP::U16),
        (PF::RG16, DF::R16G16_UNORM, DP::U16),
        (PF::RGBA16, DF::R16G16B16A16_UNORM, DP::U16),
        (PF::RGB10A2, DF::R10G10B10A2_UNORM, DP::U16),
        (PF::R16F, DF::R16_FLOAT, DP::F32),
        (PF::RG16F, DF::R16G16_FLOAT, DP::F32),
        (PF::RGBA16F, DF::R16G16B16A16_FLOAT, DP::F32),
        (PF::R32F, DF::R32_FLOAT, DP::F32),
        (PF::RG32F, DF::R32G32_FLOAT, DP::F32),
        (PF::RGB32F, DF::R32G32B32_FLOAT, DP::F32),
        (PF::RGBA32F, DF::R32G32B32A32_FLOAT, DP::F32),
        (PF::RGB9E5, DF::R9G9B9E5_SHAREDEXP, DP::F32),
        (PF::RG11B10F, DF::R11G11B10_FLOAT, DP::F32),
    ];
    let mut rng = Rng(2024);
    for &(ours_f, ref_f, precision) in cases {
        for (w, h) in SIZES {
            let data = rng.bytes(ours_f.surface_size(w, h) as usize);
            let img = ours(ours_f, w, h, &data);
            let want_precision = match precision {
                DP::U8 => texscope::codec::Precision::Unorm8,
                DP::U16 => texscope::codec::Precision::Unorm16,
                DP::F32 => texscope::codec::Precision::Float,
            };
            assert_eq!(img.precision(), want_precision, "{}", ours_f.name());
            let want = reference(ref_f, w, h, &data, precision);
            compare(
                &format!("{} {w}x{h}", ours_f.name()),
                &values(&img),
                &want,
                0.0,
            );
        }
    }
}

/// Unity orders with no DXGI twin, expected values from the definitions.
#[test]
fn unity_orders_from_definitions() {
    let mut rng = Rng(5);
    let (w, h) = (13, 7);
    let n = (w * h) as usize;
    // ARGB32: byte 0 alpha, then R, G, B (seed 004 "ARGB32 byte order").
    let data = rng.bytes(n * 4);
    let want: Vec<f64> = data
        .chunks_exact(4)
        .flat_map(|t| [t[1], t[2], t[3], t[0]].map(|v| v as f64))
        .collect();
    compare("ARGB8", &values(&ours(PF::ARGB8, w, h, &data)), &want, 0.0);
    // L8: luminance replicated to RGB (GL LUMINANCE sampling rule).
    let data = rng.bytes(n);
    let want: Vec<f64> = data
        .iter()
        .flat_map(|&l| [l, l, l, 255].map(|v| v as f64))
        .collect();
    compare("L8", &values(&ours(PF::L8, w, h, &data)), &want, 0.0);
    // LA8: byte 0 luminance, byte 1 alpha (GL LUMINANCE_ALPHA).
    let data = rng.bytes(n * 2);
    let want: Vec<f64> = data
        .chunks_exact(2)
        .flat_map(|t| [t[0], t[0], t[0], t[1]].map(|v| v as f64))
        .collect();
    compare("LA8", &values(&ours(PF::LA8, w, h, &data)), &want, 0.0);
    // ARGB4444 by the seed's nibble positions with round(v * 255 / 15) widening: the WarningSign
    // pixel colour of seed 004 (amber: red nibble at bits 8-11) must come out red-dominant.
    let px = 0xF_C_9_1u16.to_le_bytes(); // a=15 r=12 g=9 b=1
    let img = ours(PF::ARGB4444, 1, 1, &px);
    assert_eq!(values(&img), vec![204.0, 153.0, 17.0, 255.0]);
    // RGBA4444 "common" order: r 12-15, g 8-11, b 4-7, a 0-3.
    let img = ours(PF::RGBA4444, 1, 1, &0xC_9_1_Fu16.to_le_bytes());
    assert_eq!(values(&img), vec![204.0, 153.0, 17.0, 255.0]);
}

/// YUY2 (Y0 U Y1 V) against `dds`'s YUY2, which uses Microsoft's BT.601 studio-range float formula;
/// ours uses the integer form of the same recommendation, so values agree within 1.
#[test]
fn yuy2_against_dds() {
    let mut rng = Rng(9);
    for (w, h) in [(2, 1), (5, 3), (14, 7), (64, 64)] {
        let data = rng.bytes(PF::YUY2.surface_size(w, h) as usize);
        let got = values(&ours(PF::YUY2, w, h, &data));
        let want = reference(DF::YUY2, w, h, &data, DP::U8);
        compare(&format!("YUY2 {w}x{h}"), &got, &want, 1.0);
    }
}

#[test]
fn short_data_and_hostile_sizes_fail_cleanly() {
    let l = Limits::default();
    for f in [PF::BC1, PF::BC7, PF::RGBA8, PF::RGB32F, PF::YUY2] {
        let need = f.surface_size(13, 7) as usize;
        let e = decode_surface(f, 13, 7, &vec![0; need - 1], &l).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated, "{}", f.name());
        assert!(decode_surface(f, 13, 7, &vec![0; need], &l).is_ok());
    }
    // Beyond max_dim (65536) is refused before anything is allocated.
    let e = decode_surface(PF::RGBA8, 70000, 1, &[], &l).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
}

/// Every named format on random bytes of the exact surface size, at sizes with partial blocks:
/// a decoder either returns an image of the right size or, for formats not implemented yet, a
/// clean Unsupported error — never a panic.
#[test]
fn every_format_on_random_bytes_decodes_or_refuses_cleanly() {
    let mut rng = Rng(31337);
    let mut formats: Vec<PF> = texscope::codec::ALL_FIXED.to_vec();
    for (w, h) in texscope::codec::ASTC_FOOTPRINTS {
        formats.push(PF::ASTC { w, h, hdr: false });
        formats.push(PF::ASTC { w, h, hdr: true });
    }
    for f in formats {
        for (w, h) in [(1, 1), (13, 7), (33, 17)] {
            let data = rng.bytes(f.surface_size(w, h) as usize);
            match decode_surface(f, w, h, &data, &Limits::default()) {
                Ok(img) => assert_eq!((img.width, img.height), (w, h), "{}", f.name()),
                Err(e) => assert_eq!(e.kind, ErrorKind::Unsupported, "{}: {e:?}", f.name()),
            }
        }
    }
}
