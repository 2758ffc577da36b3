//! Seeded random surfaces, a digest of decoded images and the list of every decodable format: the
//! shared ground of the decode benchmark (`texscope bench`, bench.html) and of the check that wasm32
//! decodes exactly like native (`texscope fingerprints` against the `codecFingerprints` export).
//! Platform-free on purpose: both sides run this same code, so only the decoders can differ.

use super::tiling::{self, Tiling};
use super::{decode_surface, Image, PixelFormat, Pixels, ALL_FIXED, ASTC_FOOTPRINTS};
use crate::io::{Limits, Result};

/// Every format: [`ALL_FIXED`] then every ASTC footprint, LDR and HDR. Formats added to
/// `ALL_FIXED` by later work are picked up without touching this file.
pub fn formats() -> Vec<PixelFormat> {
    let mut v = ALL_FIXED.to_vec();
    for (w, h) in ASTC_FOOTPRINTS {
        for hdr in [false, true] {
            v.push(PixelFormat::ASTC { w, h, hdr });
        }
    }
    v
}

/// `len` bytes of xorshift64 output from `seed` (any seed; 0 is remapped).
pub fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut s = seed.max(1);
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let n = (len - out.len()).min(8);
        out.extend_from_slice(&s.to_le_bytes()[..n]);
    }
    out
}

/// FNV-1a (64-bit) over the size and every channel value of `img`, little-endian. Float NaNs are
/// hashed as one canonical NaN: wasm leaves NaN payloads of arithmetic results unspecified, and
/// every NaN displays the same.
pub fn digest(img: &Image) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(&img.width.to_le_bytes());
    eat(&img.height.to_le_bytes());
    match &img.pixels {
        Pixels::Rgba8(p) => eat(p),
        Pixels::Rgba16(p) => p.iter().for_each(|v| eat(&v.to_le_bytes())),
        Pixels::Rgba32F(p) => p.iter().for_each(|v| {
            let bits = if v.is_nan() { 0x7fc0_0000 } else { v.to_bits() };
            eat(&bits.to_le_bytes())
        }),
    }
    h
}

/// What decoding gave, as text: the digest in hex, or the error kind.
fn outcome(r: Result<Image>) -> String {
    match r {
        Ok(img) => format!("{:016x}", digest(&img)),
        Err(e) => format!("error {:?}", e.kind),
    }
}

/// For every format of [`formats`] and a few sizes (whole blocks, partial blocks, below one block),
/// decodes seeded random bytes and returns (`FORMAT WxH`, outcome). Equal lists from two builds
/// mean the two decode every format identically on these inputs. ASTC's two larger sizes are
/// legal blocks ([`legal_astc`], 64 distinct ones): random bytes are mostly illegal, which left
/// the decoding of legal blocks (partitions, dual planes, infill) out of the comparison.
pub fn fingerprints() -> Vec<(String, String)> {
    let limits = Limits::default();
    let mut out = Vec::new();
    for (i, f) in formats().into_iter().enumerate() {
        for (j, (w, h)) in [(64u32, 32u32), (13, 7), (1, 1)].into_iter().enumerate() {
            let (len, seed) = (f.surface_size(w, h) as usize, 1 + (i * 3 + j) as u64);
            let data = match f {
                PixelFormat::ASTC { .. } if j < 2 => legal_astc(f, len, seed, 64),
                _ => random_bytes(len, seed),
            };
            let r = decode_surface(f, w, h, &data, &limits);
            out.push((format!("{} {w}x{h}", f.name()), outcome(r)));
        }
    }
    out.extend(every_bc1_endpoint());
    out
}

/// BC1 and BC3 surfaces whose colour blocks hold every 16-bit first endpoint once (block k: c0 = k,
/// c1 a scrambled k, so both endpoint orders and equal endpoints occur) and every 2-bit index in
/// each row: the wasm kernels compute BC1's palette in vectors (src/codec/simd.rs, `Bc1Palette`)
/// with rescaled constants, and random blocks would reach only a few hundred endpoints of 65,536.
fn every_bc1_endpoint() -> Vec<(String, String)> {
    let colour = |k: u32| {
        let c1 = (k.wrapping_mul(40_503) >> 3 ^ k) as u16;
        let c1 = if k % 97 == 0 { k as u16 } else { c1 };
        let mut b = [0u8; 8];
        b[..2].copy_from_slice(&(k as u16).to_le_bytes());
        b[2..4].copy_from_slice(&c1.to_le_bytes());
        b[4..].copy_from_slice(&0x1b6c_b1e4u32.rotate_left(k % 32).to_le_bytes());
        b
    };
    let bc1: Vec<u8> = (0..1u32 << 16).flat_map(colour).collect();
    let alpha = 0xb6db_6d24_4924_00ffu64.to_le_bytes();
    let bc3: Vec<u8> = (0..1u32 << 16)
        .flat_map(|k| alpha.into_iter().chain(colour(k)))
        .collect();
    let limits = Limits::default();
    [(PixelFormat::BC1, bc1), (PixelFormat::BC3, bc3)]
        .into_iter()
        .map(|(f, data)| {
            let r = decode_surface(f, 1024, 1024, &data, &limits);
            (format!("{} every endpoint 1024x1024", f.name()), outcome(r))
        })
        .collect()
}

/// The format of a reference-vector file in tests/vectors (`<codec>_<variant>.bin`: u32 LE width,
/// u32 LE height, the blocks, then the expected RGBA8), from its name; None for an unknown name.
pub fn vector_format(name: &str) -> Option<PixelFormat> {
    use PixelFormat::*;
    let stem = name.strip_suffix(".bin")?;
    Some(match stem {
        "atc_rgb" => ATCRGB,
        "atc_rgba_explicit" => ATCRGBAExplicit,
        "atc_rgba_interpolated" => ATCRGBAInterpolated,
        "etc_etc1" => ETC1,
        "etc_etc2_rgb" => ETC2RGB,
        "etc_etc2_rgba1" => ETC2RGBA1,
        "etc_etc2_rgba8" => ETC2RGBA8,
        "etc_eac_r11" => EACR11,
        "etc_eac_r11s" => EACR11S,
        "etc_eac_rg11" => EACRG11,
        "etc_eac_rg11s" => EACRG11S,
        s if s.starts_with("pvrtc_4bpp") => PVRTC4RGBA,
        s if s.starts_with("pvrtc_2bpp") => PVRTC2RGBA,
        _ => return None,
    })
}

/// The outcome of decoding the blocks of a reference-vector file (see [`vector_format`]), or None
/// when the name is unknown or the file is too short to hold its header. A `.crn` file (crunch
/// streams the test-only writer made: cube maps, every level) gives the outcomes of every level of
/// every face, in order.
pub fn vector_fingerprint(name: &str, file: &[u8]) -> Option<String> {
    if name.ends_with(".crn") {
        return crn_fingerprint(file);
    }
    if let Some(f) = astc_vector_format(name) {
        return Some(astc_vector_fingerprint(f, file));
    }
    #[cfg(feature = "codec-basis")]
    if [".ktx", ".ktx2", ".basis"]
        .iter()
        .any(|e| name.ends_with(e))
    {
        return Some(file_fingerprint(name, file));
    }
    let f = vector_format(name)?;
    let (w, h) = (le32(file, 0)?, le32(file, 4)?);
    Some(outcome(decode_surface(
        f,
        w,
        h,
        file.get(8..)?,
        &Limits::default(),
    )))
}

/// A whole texture file (KTX, KTX 2, .basis: the Basis Universal and PVRTC2 test files) opened as
/// the page opens it: the outcome of every mip of every slice of every texture, in order (the
/// Basis slices are decoded by the containers' derived sources, which no surface test reaches).
/// (The full module's and native builds' only: the wasm == native test loads the full module.)
#[cfg(feature = "codec-basis")]
fn file_fingerprint(name: &str, file: &[u8]) -> String {
    let src = crate::io::BytesSource::shared(name, file.to_vec());
    let cat = crate::open(vec![src], &crate::OpenOptions::default());
    let mut parts: Vec<String> = cat
        .problems
        .iter()
        .map(|p| format!("problem {:?}", p.kind))
        .collect();
    for (i, t) in cat.textures.iter().enumerate() {
        for mip in 0..t.mips.len() {
            for s in 0..t.slices {
                parts.push(outcome(cat.decode(i, mip, s, Default::default())));
            }
        }
    }
    parts.join(" ")
}

/// The format of an ASTC vector file (tests/vectors/gen_astc.py, gen_astc_hdr.py):
/// `astc_[hdr_|mut_]<w>x<h>.bin`, HDR for `hdr_`.
fn astc_vector_format(name: &str) -> Option<PixelFormat> {
    let stem = name.strip_prefix("astc_")?.strip_suffix(".bin")?;
    let name = match stem.strip_prefix("hdr_") {
        Some(size) => format!("ASTC_{size}_HDR"),
        None => format!("ASTC_{}", stem.strip_prefix("mut_").unwrap_or(stem)),
    };
    PixelFormat::from_name(&name)
}

/// The little-endian u32 at byte `at` of `b`, if `b` holds it.
fn le32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The outcomes of the blocks of every record of an ASTC vector file (u32 LE width and height,
/// the blocks, then astcenc's decode: 4 bytes a texel, 8 for HDR, skipped here), in order; a
/// record cut short ends the list with "truncated".
fn astc_vector_fingerprint(f: PixelFormat, file: &[u8]) -> String {
    let PixelFormat::ASTC { hdr, .. } = f else {
        return String::new();
    };
    let mut parts = Vec::new();
    let mut rest = file;
    while !rest.is_empty() {
        let dims = le32(rest, 0).zip(le32(rest, 4));
        let Some((w, h)) = dims.filter(|&(w, h)| w > 0 && h > 0 && w <= 4096 && h <= 4096) else {
            parts.push("truncated".to_string());
            break;
        };
        let blocks = f.surface_size(w, h) as usize;
        let expected = (w * h) as usize * if hdr { 8 } else { 4 };
        let Some(data) = rest.get(8..8 + blocks) else {
            parts.push("truncated".to_string());
            break;
        };
        parts.push(outcome(decode_surface(f, w, h, data, &Limits::default())));
        rest = rest.get(8 + blocks + expected..).unwrap_or_default();
    }
    parts.join(" ")
}

#[cfg(feature = "codec-crunch")]
fn crn_fingerprint(file: &[u8]) -> Option<String> {
    let limits = Limits::default();
    let crn = match super::crunch::Crunch::new(file) {
        Ok(c) => c,
        Err(e) => return Some(format!("error {:?}", e.kind)),
    };
    let h = &crn.header;
    let mut parts = Vec::new();
    for level in 0..h.levels {
        let (w, hh) = h.level_dims(level);
        for face in 0..h.faces {
            let r = crn
                .unpack(level, face, &limits)
                .and_then(|b| decode_surface(h.format.block_format(), w, hh, &b, &limits));
            parts.push(outcome(r));
        }
    }
    Some(parts.join(" "))
}

#[cfg(not(feature = "codec-crunch"))]
fn crn_fingerprint(_: &[u8]) -> Option<String> {
    None
}

/// Distinct legal blocks an ASTC bench surface is tiled from (in random order, so the branch
/// predictor cannot learn the sequence).
const ASTC_POOL: usize = 1024;

/// `len` bytes of legal ASTC blocks of `format`: random 128-bit candidates, kept when our decoder
/// gives the error colour (opaque magenta in LDR, NaN in HDR: ASTC specification, "Illegal
/// encodings") for none of their texels (so also no HDR endpoint mode in an LDR block), so the mix of partition counts, endpoint modes, weight grids and dual planes
/// is what random legal encodings give. Random bytes alone are mostly illegal, and the error-colour
/// fast path would be what the bench measured. Candidates are decoded as one-block surfaces.
/// `len` bytes of seeded blocks of `format`: legal ones for ASTC, random bytes otherwise.
fn blocks(format: PixelFormat, len: usize, seed: u64) -> Vec<u8> {
    match format {
        PixelFormat::ASTC { .. } => legal_astc(format, len, seed, ASTC_POOL),
        _ => random_bytes(len, seed),
    }
}

fn legal_astc(format: PixelFormat, len: usize, seed: u64, pool_size: usize) -> Vec<u8> {
    let PixelFormat::ASTC { w, h, .. } = format else {
        return random_bytes(len, seed);
    };
    let (w, h) = (w as u32, h as u32);
    let limits = Limits::default();
    let mut pool: Vec<[u8; 16]> = Vec::with_capacity(pool_size);
    let mut round = 0u64;
    while pool.len() < pool_size && round < 64 {
        let candidates = random_bytes(16 * pool_size, seed.wrapping_mul(0x9E37_79B9) ^ round);
        round += 1;
        for c in candidates.chunks_exact(16) {
            let legal = match decode_surface(format, w, h, c, &limits).map(|i| i.pixels) {
                Ok(Pixels::Rgba8(p)) => p.chunks_exact(4).all(|t| t != [255, 0, 255, 255]),
                Ok(Pixels::Rgba32F(p)) => p.iter().all(|v| !v.is_nan()),
                _ => false,
            };
            if legal && pool.len() < pool_size {
                pool.push(c.try_into().expect("16 bytes"));
            }
        }
    }
    if pool.is_empty() {
        return random_bytes(len, seed);
    }
    let order = random_bytes(2 * len.div_ceil(16), seed ^ 0xA57C);
    let mut out = Vec::with_capacity(len);
    for k in order.chunks_exact(2) {
        let i = u16::from_le_bytes([k[0], k[1]]) as usize % pool.len();
        out.extend_from_slice(&pool[i]);
    }
    out.truncate(len);
    out
}

/// A square surface of seeded random blocks (legal blocks for ASTC, see [`legal_astc`]), decoded
/// again and again by the benchmark; stored with a console [`Tiling`], each decode untiles first
/// (the untiling benchmark: `texscope bench --untile`, bench.html?untile=1).
pub struct Surface {
    pub format: PixelFormat,
    pub side: u32,
    pub tiling: Tiling,
    data: Vec<u8>,
}

impl Surface {
    pub fn new(format: PixelFormat, side: u32, seed: u64) -> Surface {
        let len = format.surface_size(side, side) as usize;
        Surface {
            format,
            side,
            tiling: Tiling::Linear,
            data: blocks(format, len, seed),
        }
    }

    /// The same seeded blocks stored with `tiling` ([`tiling::stored_size`] bytes of them, so
    /// untiling yields a rearrangement of legal blocks that decodes at the linear surface's cost).
    pub fn tiled(format: PixelFormat, side: u32, seed: u64, tiling: Tiling) -> Result<Surface> {
        let len = tiling::stored_size(tiling, format, 0, side, side)?;
        let len = usize::try_from(len)
            .map_err(|_| crate::io::Error::limit("the tiled benchmark surface is too large"))?;
        Ok(Surface {
            format,
            side,
            tiling,
            data: blocks(format, len, seed),
        })
    }

    /// Only the untiling step of [`Surface::decode`] (the linear blocks; a copy when linear).
    pub fn untile(&self) -> Result<Vec<u8>> {
        let w = self.side;
        tiling::untile(
            self.tiling,
            self.format,
            0,
            w,
            w,
            &self.data,
            &Limits::default(),
        )
    }

    pub fn decode(&self) -> Result<Image> {
        let limits = Limits::default();
        let (w, f) = (self.side, self.format);
        // Only the full module benchmarks untiling (bench.html loads it): the first one keeps
        // the plain path alone.
        if cfg!(not(feature = "tiling-switch")) || self.tiling.is_linear() {
            return decode_surface(f, w, w, &self.data, &limits);
        }
        // As Catalog::decode does with a tiled surface: untiled and decoded in one pass.
        #[cfg(feature = "gnf")]
        return super::decode_tiled(self.tiling, f, 0, w, w, &self.data, &limits);
        #[cfg(not(feature = "gnf"))]
        decode_surface(
            f,
            w,
            w,
            &tiling::untile(self.tiling, f, 0, w, w, &self.data, &limits)?,
            &limits,
        )
    }

    /// The surface's blocks.
    #[cfg(test)]
    pub(crate) fn data(&self) -> &[u8] {
        &self.data
    }

    /// Megabytes of RGBA output per decode (4 bytes a texel whatever the precision, so formats
    /// compare).
    pub fn output_mb(&self) -> f64 {
        self.side as f64 * self.side as f64 * 4.0 / 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_is_fnv1a() {
        // FNV-1a 64 of the 8 size bytes (1, 0, 0, 0, 1, 0, 0, 0) then RGBA (0, 0, 0, 0), worked
        // from the published FNV offset basis and prime.
        let img = Image {
            width: 1,
            height: 1,
            pixels: Pixels::Rgba8(vec![0; 4]),
        };
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for b in [1u8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0] {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        assert_eq!(digest(&img), h);
        assert_eq!(random_bytes(13, 5).len(), 13);
        assert_ne!(random_bytes(8, 1), random_bytes(8, 2));
    }

    #[test]
    fn astc_bench_blocks_are_legal() {
        // Every texel of the bench surface decodes to something other than the error colour
        // (ASTC specification: magenta in LDR, NaN in HDR), for a large and a small footprint.
        for (w, h, hdr) in [(4, 4, false), (12, 12, false), (6, 6, true)] {
            // A small pool: the debug build decodes every candidate.
            let f = PixelFormat::ASTC { w, h, hdr };
            let data = legal_astc(f, f.surface_size(96, 96) as usize, 7, 32);
            let errors = match decode_surface(f, 96, 96, &data, &Limits::default())
                .unwrap()
                .pixels
            {
                Pixels::Rgba8(p) => p
                    .chunks_exact(4)
                    .filter(|t| *t == [255, 0, 255, 255])
                    .count(),
                Pixels::Rgba32F(p) => p.iter().filter(|v| v.is_nan()).count(),
                Pixels::Rgba16(_) => unreachable!(),
            };
            assert_eq!(errors, 0, "{w}x{h} hdr {hdr}");
        }
    }

    #[test]
    fn vector_names() {
        assert_eq!(
            vector_format("etc_eac_rg11s.bin"),
            Some(PixelFormat::EACRG11S)
        );
        assert_eq!(
            vector_format("pvrtc_2bpp_16x8.bin"),
            Some(PixelFormat::PVRTC2RGBA)
        );
        assert_eq!(vector_format("gen_etc.py"), None);
    }
}
