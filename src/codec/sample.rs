//! Seeded random surfaces, a digest of decoded images and the list of every decodable format: the
//! shared ground of the decode benchmark (`texscope bench`, bench.html) and of the check that wasm32
//! decodes exactly like native (`texscope fingerprints` against the `codecFingerprints` export).
//! Platform-free on purpose: both sides run this same code, so only the decoders can differ.

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
/// mean the two decode every format identically on these inputs.
pub fn fingerprints() -> Vec<(String, String)> {
    let limits = Limits::default();
    let mut out = Vec::new();
    for (i, f) in formats().into_iter().enumerate() {
        for (j, (w, h)) in [(64u32, 32u32), (13, 7), (1, 1)].into_iter().enumerate() {
            let data = random_bytes(f.surface_size(w, h) as usize, 1 + (i * 3 + j) as u64);
            let r = decode_surface(f, w, h, &data, &limits);
            out.push((format!("{} {w}x{h}", f.name()), outcome(r)));
        }
    }
    out
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
/// when the name is unknown or the file is too short to hold its header.
pub fn vector_fingerprint(name: &str, file: &[u8]) -> Option<String> {
    let f = vector_format(name)?;
    let w = u32::from_le_bytes(file.get(0..4)?.try_into().ok()?);
    let h = u32::from_le_bytes(file.get(4..8)?.try_into().ok()?);
    Some(outcome(decode_surface(
        f,
        w,
        h,
        file.get(8..)?,
        &Limits::default(),
    )))
}

/// A square surface of seeded random blocks, decoded again and again by the benchmark.
pub struct Surface {
    pub format: PixelFormat,
    pub side: u32,
    data: Vec<u8>,
}

impl Surface {
    pub fn new(format: PixelFormat, side: u32, seed: u64) -> Surface {
        let data = random_bytes(format.surface_size(side, side) as usize, seed);
        Surface { format, side, data }
    }

    pub fn decode(&self) -> Result<Image> {
        decode_surface(
            self.format,
            self.side,
            self.side,
            &self.data,
            &Limits::default(),
        )
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
