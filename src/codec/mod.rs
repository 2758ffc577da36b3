//! Pixel formats and the one surface-decode path: `decode_surface(format, w, h, bytes) -> Image`.
//! Codecs never see files or engines; engines map their own ids onto [`PixelFormat`].
//!
//! Output convention: an [`Image`] holds what a GPU sampler returns for the format (D3D/GL rules):
//! R8 and BC4 give (r, 0, 0, 1), RG formats and BC5 give (r, g, 0, 1), A8 gives (0, 0, 0, a),
//! luminance gives (l, l, l, 1). Views (solo channel as grey, rebuilt normal Z) are the viewer's job.
//! LDR formats of up to 8 bits per channel decode to RGBA8, 10-16-bit unorm formats to RGBA16, and
//! every float or HDR format (half, float, BC6H, RGB9E5, R11G11B10F) to RGBA f32, never clamped.
//! Signed-normalised formats (BC4S, BC5S, signed EAC) decode to f32 in -1..1, as an SNORM sampler
//! returns them.

// ASTC, crunch and PVRTC sit behind cargo features (on by default) so the page's first wasm module
// can leave them out and load the full module only for a texture that needs one (issue 8, size).
#[cfg(feature = "codec-astc")]
mod astc;
mod atc;
#[cfg(feature = "codec-basis")]
pub mod basislz;
mod bc;
pub mod crunch;
mod etc;
pub mod image_file;
mod plain;
#[cfg(feature = "codec-pvrtc")]
mod pvrtc;
pub mod sample;
#[cfg(target_arch = "wasm32")]
mod simd;
pub mod tiling;
#[cfg(feature = "codec-basis")]
mod uastc;

/// Stand-ins for the codecs a build leaves out: a format of theirs is a [`crate::io::ErrorKind::NotInBuild`]
/// error (the page then loads its full module); any other format is not theirs (`Ok(false)`).
#[cfg(not(feature = "codec-astc"))]
mod astc {
    use super::{Image, PixelFormat};
    use crate::io::{Error, Result};
    pub(super) fn decode(f: PixelFormat, _: u32, _: u32, _: &[u8], _: &mut Image) -> Result<bool> {
        match f {
            PixelFormat::ASTC { .. } => Err(Error::not_in_build(f.name(), "codec-astc")),
            _ => Ok(false),
        }
    }
}
#[cfg(not(feature = "codec-pvrtc"))]
mod pvrtc {
    use super::{Image, PixelFormat};
    use crate::io::{Error, Result};
    pub(super) fn decode(f: PixelFormat, _: u32, _: u32, _: &[u8], _: &mut Image) -> Result<bool> {
        use PixelFormat::*;
        match f {
            PVRTC2RGB | PVRTC2RGBA | PVRTC4RGB | PVRTC4RGBA | PVRTCII2 | PVRTCII4 => {
                Err(Error::not_in_build(f.name(), "codec-pvrtc"))
            }
            _ => Ok(false),
        }
    }
}

/// Without `codec-basis`: BasisLZ global data cannot be decoded (a NotInBuild error: the page then
/// loads its full module), and UASTC blocks are not this build's.
#[cfg(not(feature = "codec-basis"))]
pub mod basislz {
    use crate::io::{Error, Result};
    pub struct Codebooks;
    impl Codebooks {
        pub fn new(_: u32, _: u32, _: &[u8], _: &[u8], _: &[u8]) -> Result<Codebooks> {
            Err(Error::not_in_build(
                "Basis Universal ETC1S (BasisLZ) data",
                "codec-basis",
            ))
        }
        #[allow(clippy::too_many_arguments)]
        pub fn decode_slice(
            &self,
            _: &[u8],
            _: usize,
            _: usize,
            _: &mut [u8],
            _: usize,
            _: usize,
            _: Option<&mut Vec<(u16, u16)>>,
            _: bool,
        ) -> Result<()> {
            Err(Error::not_in_build(
                "Basis Universal ETC1S (BasisLZ) data",
                "codec-basis",
            ))
        }
    }
}

#[cfg(not(feature = "codec-basis"))]
mod uastc {
    use super::{Image, PixelFormat};
    use crate::io::{Error, Result};
    pub(super) fn decode(f: PixelFormat, _: u32, _: u32, _: &[u8], _: &mut Image) -> Result<bool> {
        match f {
            PixelFormat::BasisUASTC | PixelFormat::BasisETC1S | PixelFormat::BasisETC1SA => {
                Err(Error::not_in_build(f.name(), "codec-basis"))
            }
            _ => Ok(false),
        }
    }
}

use crate::io::{Error, Limits, Result};
use serde::Serialize;

/// Every pixel format Texscope knows by name. Engine ids map onto these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum PixelFormat {
    // 8-bit per channel and smaller
    R8,
    A8,
    L8,
    LA8,
    RG8,
    RGB8,
    BGR8,
    RGBA8,
    BGRA8,
    /// Byte 0 alpha, then R, G, B (Unity ARGB32, seed 004 "ARGB32 byte order").
    ARGB8,
    /// B, G, R and an unused byte (D3D B8G8R8X8).
    BGRX8,
    /// Little-endian u16: R in bits 11-15, G 5-10, B 0-4 (D3D B5G6R5, Unity RGB565).
    RGB565,
    /// Little-endian u16: A bit 15, R 10-14, G 5-9, B 0-4 (D3D B5G5R5A1).
    BGRA5551,
    /// Little-endian u16: A bits 12-15, R 8-11, G 4-7, B 0-3 (Unity ARGB4444 per seed 004; D3D B4G4R4A4).
    ARGB4444,
    /// Little-endian u16: R bits 12-15, G 8-11, B 4-7, A 0-3 (Unity RGBA4444; order not established by
    /// data, seed 004: this is the common decoders' reading).
    RGBA4444,
    // 16-bit unorm
    R16,
    RG16,
    RGBA16,
    /// R bits 0-9, G 10-19, B 20-29, A 30-31 of a little-endian u32 (DXGI R10G10B10A2_UNORM).
    RGB10A2,
    // float
    R16F,
    RG16F,
    RGBA16F,
    R32F,
    RG32F,
    RGB32F,
    RGBA32F,
    /// DXGI R9G9B9E5_SHAREDEXP.
    RGB9E5,
    /// DXGI R11G11B10_FLOAT.
    RG11B10F,
    // block-compressed (4x4)
    BC1,
    BC2,
    BC3,
    BC4,
    BC4S,
    BC5,
    BC5S,
    /// BC6H with unsigned half endpoints (DXGI BC6H_UF16; Unity's id 24, seed 004).
    BC6HU,
    /// BC6H with signed half endpoints (DXGI BC6H_SF16).
    BC6HS,
    BC7,
    // mobile block formats (codec issue)
    ETC1,
    ETC2RGB,
    ETC2RGBA1,
    ETC2RGBA8,
    EACR11,
    EACR11S,
    EACRG11,
    EACRG11S,
    /// ASTC with block footprint `w` x `h`; `hdr` says the texture is declared HDR (decode to float).
    ASTC {
        w: u8,
        h: u8,
        hdr: bool,
    },
    PVRTC2RGB,
    PVRTC2RGBA,
    PVRTC4RGB,
    PVRTC4RGBA,
    /// PVRTC version 2 (PVRTC-II), 2 bpp (8x4 texel blocks, any size, raster block order).
    PVRTCII2,
    /// PVRTC version 2, 4 bpp (4x4 texel blocks).
    PVRTCII4,
    ATCRGB,
    ATCRGBAExplicit,
    ATCRGBAInterpolated,
    /// Packed 4:2:2 Y0 U Y1 V (BT.601 studio range, decoded to RGBA8).
    YUY2,
    /// Basis Universal ETC1S (BasisLZ) colour, as the ETC1 blocks its slices decode to (ETC1S is
    /// a subset of ETC1): the containers decode the BasisLZ slices (codec::basislz), the surface
    /// holds 8-byte ETC1 blocks.
    BasisETC1S,
    /// Basis Universal ETC1S with an alpha slice: per 4x4 block the colour ETC1 block then the
    /// alpha slice's ETC1 block, whose green channel is the alpha.
    BasisETC1SA,
    /// Basis Universal UASTC LDR 4x4 (16-byte blocks, a subset of ASTC 4x4).
    BasisUASTC,
}

/// How a format's bytes are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockInfo {
    pub width: u32,
    pub height: u32,
    pub bytes: u32,
    /// PVRTC needs at least 2x2 blocks per surface.
    pub min_blocks: u32,
}

/// What kind of values a format decodes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    Unorm8,
    Unorm16,
    Float,
}

impl PixelFormat {
    /// Stable name used in the CLI census, the page and share links.
    pub fn name(&self) -> String {
        match self {
            PixelFormat::ASTC { w, h, hdr } => {
                format!("ASTC_{w}x{h}{}", if *hdr { "_HDR" } else { "" })
            }
            other => format!("{other:?}"),
        }
    }

    /// Parses [`PixelFormat::name`] back.
    pub fn from_name(s: &str) -> Option<PixelFormat> {
        if let Some(rest) = s.strip_prefix("ASTC_") {
            let (dims, hdr) = match rest.strip_suffix("_HDR") {
                Some(d) => (d, true),
                None => (rest, false),
            };
            let (w, h) = dims.split_once('x')?;
            let f = PixelFormat::ASTC {
                w: w.parse().ok()?,
                h: h.parse().ok()?,
                hdr,
            };
            return f.is_valid_astc().then_some(f);
        }
        ALL_FIXED.iter().copied().find(|f| f.name() == s)
    }

    fn is_valid_astc(&self) -> bool {
        match *self {
            PixelFormat::ASTC { w, h, .. } => ASTC_FOOTPRINTS.contains(&(w, h)),
            _ => false,
        }
    }

    pub fn block(&self) -> BlockInfo {
        use PixelFormat::*;
        let px = |bytes| BlockInfo {
            width: 1,
            height: 1,
            bytes,
            min_blocks: 1,
        };
        let b4 = |bytes| BlockInfo {
            width: 4,
            height: 4,
            bytes,
            min_blocks: 1,
        };
        match *self {
            R8 | A8 | L8 => px(1),
            LA8 | RG8 | RGB565 | BGRA5551 | ARGB4444 | RGBA4444 | R16 | R16F => px(2),
            RGB8 | BGR8 => px(3),
            RGBA8 | BGRA8 | ARGB8 | BGRX8 | RG16 | RGB10A2 | RG16F | R32F | RGB9E5 | RG11B10F => {
                px(4)
            }
            RGBA16 | RGBA16F | RG32F => px(8),
            RGB32F => px(12),
            RGBA32F => px(16),
            BC1 | BC4 | BC4S | ETC1 | ETC2RGB | ETC2RGBA1 | EACR11 | EACR11S | ATCRGB
            | BasisETC1S => b4(8),
            BC2 | BC3 | BC5 | BC5S | BC6HU | BC6HS | BC7 | ETC2RGBA8 | EACRG11 | EACRG11S
            | ATCRGBAExplicit | ATCRGBAInterpolated | BasisETC1SA | BasisUASTC => b4(16),
            ASTC { w, h, .. } => BlockInfo {
                width: w as u32,
                height: h as u32,
                bytes: 16,
                min_blocks: 1,
            },
            PVRTC2RGB | PVRTC2RGBA => BlockInfo {
                width: 8,
                height: 4,
                bytes: 8,
                min_blocks: 2,
            },
            PVRTC4RGB | PVRTC4RGBA => BlockInfo {
                width: 4,
                height: 4,
                bytes: 8,
                min_blocks: 2,
            },
            PVRTCII2 => BlockInfo {
                width: 8,
                height: 4,
                bytes: 8,
                min_blocks: 1,
            },
            PVRTCII4 => b4(8),
            YUY2 => BlockInfo {
                width: 2,
                height: 1,
                bytes: 4,
                min_blocks: 1,
            },
        }
    }

    pub fn is_block_compressed(&self) -> bool {
        let b = self.block();
        b.width > 1 || b.height > 1
    }

    pub fn precision(&self) -> Precision {
        use PixelFormat::*;
        match *self {
            R16 | RG16 | RGBA16 | RGB10A2 => Precision::Unorm16,
            // EAC carries 11 bits per channel.
            EACR11 | EACRG11 => Precision::Unorm16,
            R16F | RG16F | RGBA16F | R32F | RG32F | RGB32F | RGBA32F | RGB9E5 | RG11B10F
            | BC6HU | BC6HS => Precision::Float,
            // Signed formats keep their sign: an SNORM sampler returns -1..1.
            BC4S | BC5S | EACR11S | EACRG11S => Precision::Float,
            ASTC { hdr: true, .. } => Precision::Float,
            _ => Precision::Unorm8,
        }
    }

    pub fn is_hdr(&self) -> bool {
        self.precision() == Precision::Float
    }

    /// Bytes of one `w` x `h` image. A mip smaller than a block still costs a whole block (seed 000);
    /// PVRTC costs at least 2x2 blocks.
    pub fn surface_size(&self, w: u32, h: u32) -> u64 {
        let b = self.block();
        let bx = (w as u64).div_ceil(b.width as u64).max(b.min_blocks as u64);
        let by = (h as u64)
            .div_ceil(b.height as u64)
            .max(b.min_blocks as u64);
        // Saturating: dimensions come from files; an absurd size must fail the callers' size checks,
        // not overflow (found by the ue_legacy fuzz target).
        bx.saturating_mul(by).saturating_mul(b.bytes as u64)
    }
}

/// The ASTC block footprints of the Khronos specification.
pub const ASTC_FOOTPRINTS: [(u8, u8); 14] = [
    (4, 4),
    (5, 4),
    (5, 5),
    (6, 5),
    (6, 6),
    (8, 5),
    (8, 6),
    (8, 8),
    (10, 5),
    (10, 6),
    (10, 8),
    (10, 10),
    (12, 10),
    (12, 12),
];

/// Every format except ASTC (whose names are built from the footprint).
pub const ALL_FIXED: &[PixelFormat] = {
    use PixelFormat::*;
    &[
        R8,
        A8,
        L8,
        LA8,
        RG8,
        RGB8,
        BGR8,
        RGBA8,
        BGRA8,
        ARGB8,
        BGRX8,
        RGB565,
        BGRA5551,
        ARGB4444,
        RGBA4444,
        R16,
        RG16,
        RGBA16,
        RGB10A2,
        R16F,
        RG16F,
        RGBA16F,
        R32F,
        RG32F,
        RGB32F,
        RGBA32F,
        RGB9E5,
        RG11B10F,
        BC1,
        BC2,
        BC3,
        BC4,
        BC4S,
        BC5,
        BC5S,
        BC6HU,
        BC6HS,
        BC7,
        ETC1,
        ETC2RGB,
        ETC2RGBA1,
        ETC2RGBA8,
        EACR11,
        EACR11S,
        EACRG11,
        EACRG11S,
        PVRTC2RGB,
        PVRTC2RGBA,
        PVRTC4RGB,
        PVRTC4RGBA,
        PVRTCII2,
        PVRTCII4,
        ATCRGB,
        ATCRGBAExplicit,
        ATCRGBAInterpolated,
        YUY2,
        BasisETC1S,
        BasisETC1SA,
        BasisUASTC,
    ]
};

/// Decoded texels, rows top first as stored in the surface given to the codec.
#[derive(Debug, Clone, PartialEq)]
pub enum Pixels {
    Rgba8(Vec<u8>),
    Rgba16(Vec<u16>),
    Rgba32F(Vec<f32>),
}

/// Rows of an image's texels to decode into: all of them, or a band (`Pixels::band_mut`).
pub(crate) enum PixelRows<'a> {
    Rgba8(&'a mut [u8]),
    // No decoder that takes rows yet decodes to 16-bit; kept so every image has its rows.
    #[allow(dead_code)]
    Rgba16(&'a mut [u16]),
    Rgba32F(&'a mut [f32]),
}

impl Pixels {
    #[inline(always)]
    pub(crate) fn rows_mut(&mut self) -> PixelRows<'_> {
        match self {
            Pixels::Rgba8(p) => PixelRows::Rgba8(p),
            Pixels::Rgba16(p) => PixelRows::Rgba16(p),
            Pixels::Rgba32F(p) => PixelRows::Rgba32F(p),
        }
    }

    /// Texel rows `rows` of an image `w` texels wide.
    #[cfg(feature = "gnf")]
    fn band_mut(&mut self, w: usize, rows: std::ops::Range<usize>) -> PixelRows<'_> {
        let r = rows.start * w * 4..rows.end * w * 4;
        match self {
            Pixels::Rgba8(p) => PixelRows::Rgba8(&mut p[r]),
            Pixels::Rgba16(p) => PixelRows::Rgba16(&mut p[r]),
            Pixels::Rgba32F(p) => PixelRows::Rgba32F(&mut p[r]),
        }
    }
}

/// A decoded 2D surface.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub pixels: Pixels,
}

impl Image {
    /// A blank image of the given precision; the size was checked against `limits` first.
    /// The channel values (4 a texel) of an image of this size, checked against `limits`.
    fn checked_len(
        width: u32,
        height: u32,
        precision: Precision,
        limits: &Limits,
    ) -> Result<usize> {
        let texels = width as u64 * height as u64;
        let elem = match precision {
            Precision::Unorm8 => 1,
            Precision::Unorm16 => 2,
            Precision::Float => 4,
        };
        limits.check_alloc(texels * 4 * elem, "a decoded image")?;
        Ok((texels * 4) as usize)
    }

    pub fn new(width: u32, height: u32, precision: Precision, limits: &Limits) -> Result<Image> {
        let n = Image::checked_len(width, height, precision, limits)?;
        let pixels = match precision {
            Precision::Unorm8 => Pixels::Rgba8(vec![0; n]),
            Precision::Unorm16 => Pixels::Rgba16(vec![0; n]),
            Precision::Float => Pixels::Rgba32F(vec![0.0; n]),
        };
        Ok(Image {
            width,
            height,
            pixels,
        })
    }

    pub fn precision(&self) -> Precision {
        match self.pixels {
            Pixels::Rgba8(_) => Precision::Unorm8,
            Pixels::Rgba16(_) => Precision::Unorm16,
            Pixels::Rgba32F(_) => Precision::Float,
        }
    }

    /// The texel at (x, y) as floats (unorm values scaled to 0..1).
    pub fn texel(&self, x: u32, y: u32) -> Option<[f32; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        Some(match &self.pixels {
            Pixels::Rgba8(p) => std::array::from_fn(|c| p[i + c] as f32 / 255.0),
            Pixels::Rgba16(p) => std::array::from_fn(|c| p[i + c] as f32 / 65535.0),
            Pixels::Rgba32F(p) => std::array::from_fn(|c| p[i + c]),
        })
    }

    /// Reverses the row order (Unity stores rows bottom first).
    pub fn flip_rows(&mut self) {
        fn flip<T>(p: &mut [T], row: usize) {
            let rows = p.len().checked_div(row).unwrap_or(0);
            for y in 0..rows / 2 {
                let (a, b) = p.split_at_mut((rows - 1 - y) * row);
                a[y * row..(y + 1) * row].swap_with_slice(&mut b[..row]);
            }
        }
        let row = self.width as usize * 4;
        match &mut self.pixels {
            Pixels::Rgba8(p) => flip(p, row),
            Pixels::Rgba16(p) => flip(p, row),
            Pixels::Rgba32F(p) => flip(p, row),
        }
    }

    /// RGBA8 view for thumbnails and PNG: unorm16 is rounded, floats are clamped to 0..1.
    pub fn to_rgba8(&self) -> Vec<u8> {
        match &self.pixels {
            Pixels::Rgba8(p) => p.clone(),
            Pixels::Rgba16(p) => p
                .iter()
                .map(|&v| ((v as u32 * 255 + 32767) / 65535) as u8)
                .collect(),
            Pixels::Rgba32F(p) => p
                .iter()
                .map(|&v| (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8)
                .collect(),
        }
    }
}

/// [`decode_surface`] of blocks the caller hands over: the untiled surface of a console layout,
/// which `tiling::untile` has just written. RGBA8's decode is a copy, so its untiled bytes
/// become the image's pixels as they are: the untiler writes them once, straight into the
/// output, instead of untiling into a buffer that the decode then copies (that copy cost as much
/// as a linear surface's whole decode: docs/benchmarks.md, "Untiling console surfaces"). Other
/// formats decode from the blocks as usual.
#[cfg(feature = "gnf")]
pub fn decode_surface_owned(
    format: PixelFormat,
    w: u32,
    h: u32,
    mut data: Vec<u8>,
    limits: &Limits,
) -> Result<Image> {
    if format == PixelFormat::RGBA8 {
        limits.check_dims(w, h, 1)?;
        let n = Image::checked_len(w, h, Precision::Unorm8, limits)?;
        if data.len() >= n {
            data.truncate(n);
            return Ok(Image {
                width: w,
                height: h,
                pixels: Pixels::Rgba8(data),
            });
        }
    }
    decode_surface(format, w, h, &data, limits)
}

/// Untiles and decodes mip `level` (`w` x `h` texels) of `format` stored with `tiling` from
/// `tiled` (at least `tiling::stored_size` bytes): the image that [`decode_surface_owned`] makes
/// of `tiling::untile`'s output, with the same errors. BCn surfaces are untiled a band of rows
/// of blocks at a time into a small buffer reused across bands, each band decoded straight into
/// its rows of the image while its blocks are still in cache: untiling a whole surface first
/// wrote a fresh 2-4 MB buffer (page faults natively, zeroing in wasm) that the decode then read
/// back, which took a 2048x2048 BC1 or BC7 untile + decode 5-20% over the decode alone
/// (docs/benchmarks.md, "Untiling console surfaces"). Other formats untile whole, then decode
/// (RGBA8's untiled bytes become the image).
#[cfg(feature = "gnf")]
pub fn decode_tiled(
    tiling: tiling::Tiling,
    format: PixelFormat,
    level: u32,
    w: u32,
    h: u32,
    tiled: &[u8],
    limits: &Limits,
) -> Result<Image> {
    let untiler = tiling::Untiler::new(tiling, format, level, w, h, tiled, limits)?;
    decode_untiler(&untiler, format, w, h, limits)
}

/// The decoding half of [`decode_tiled`], from a surface checked against its tiled bytes (whose
/// errors a caller may name differently: `Catalog::decode_tiled`).
#[cfg(feature = "gnf")]
pub fn decode_untiler(
    untiler: &tiling::Untiler,
    format: PixelFormat,
    w: u32,
    h: u32,
    limits: &Limits,
) -> Result<Image> {
    decode_bands(untiler, format, w, h, limits, BAND_BYTES)
}

/// [`decode_untiler`] in bands of about `band_bytes` of blocks (the tests use small bands, so
/// that small surfaces take several).
#[cfg(feature = "gnf")]
fn decode_bands(
    untiler: &tiling::Untiler,
    format: PixelFormat,
    w: u32,
    h: u32,
    limits: &Limits,
    band_bytes: usize,
) -> Result<Image> {
    if !bc::is_bc(format) {
        return decode_surface_owned(format, w, h, untiler.to_vec(), limits);
    }
    limits.check_dims(w, h, 1)?;
    let mut img = Image::new(w, h, format.precision(), limits)?;
    let (row, rows) = untiler.shape();
    if w == 0 || h == 0 || row == 0 {
        return Ok(img);
    }
    // One band of the whole surface where it is smaller (then the only band starts at row 0).
    let band = band_rows(row, band_bytes).min(rows);
    let mut scratch = vec![0u8; band * row];
    let (wu, hu) = (w as usize, h as usize);
    for first in (0..rows).step_by(band) {
        let n = band.min(rows - first);
        let blocks = &mut scratch[..n * row];
        untiler.untile(first, blocks);
        let texel_rows = first * 4..((first + n) * 4).min(hu);
        bc::decode_rows(format, wu, blocks, img.pixels.band_mut(wu, texel_rows))?;
    }
    Ok(img)
}

/// Bytes of blocks in one band of [`decode_tiled`], so that a band stays in the first or second
/// cache level between its untile and its decode.
#[cfg(feature = "gnf")]
const BAND_BYTES: usize = 32 << 10;

/// Rows of blocks in one band: a multiple of the untilers' band alignment holding about
/// `band_bytes` of blocks (at least one aligned band).
#[cfg(feature = "gnf")]
fn band_rows(row: usize, band_bytes: usize) -> usize {
    let align = tiling::Untiler::BAND_ALIGN;
    ((band_bytes / row) / align * align).max(align)
}

/// Decodes one `w` x `h` image of `format` from `data` (which must hold at least
/// `format.surface_size(w, h)` bytes; extra bytes are ignored).
pub fn decode_surface(
    format: PixelFormat,
    w: u32,
    h: u32,
    data: &[u8],
    limits: &Limits,
) -> Result<Image> {
    limits.check_dims(w, h, 1)?;
    let need = format.surface_size(w, h);
    if (data.len() as u64) < need {
        return Err(Error::truncated(
            data.len() as u64,
            need - data.len() as u64,
            data.len() as u64,
        )
        .at_field(&format!(
            "{} surface of {w}x{h} needs {need} bytes",
            format.name()
        )));
    }
    // wasm: the formats with simd kernels are appended to an empty vector instead of overwriting a
    // zero-filled image (plain::append).
    #[cfg(target_arch = "wasm32")]
    if format.precision() == Precision::Unorm8 {
        let n = Image::checked_len(w, h, Precision::Unorm8, limits)?;
        if let Some(px) = plain::append(format, data, n) {
            return Ok(Image {
                width: w,
                height: h,
                pixels: Pixels::Rgba8(px),
            });
        }
    }
    let mut img = Image::new(w, h, format.precision(), limits)?;
    if w == 0 || h == 0 {
        return Ok(img);
    }
    if bc::decode(format, w, h, data, &mut img)?
        || etc::decode(format, w, h, data, &mut img)?
        || atc::decode(format, w, h, data, &mut img)?
        || astc::decode(format, w, h, data, &mut img)?
        || pvrtc::decode(format, w, h, data, &mut img)?
        || uastc::decode(format, w, h, data, &mut img)?
        || plain::decode(format, w, h, data, &mut img)?
    {
        Ok(img)
    } else {
        Err(Error::unsupported(format!(
            "decoding {} is not implemented yet",
            format.name()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The handed-over decode gives what `decode_surface` gives from the same bytes (RGBA8,
    /// whose pixels are the bytes, with a longer buffer too; BC1 and RGB8, decoded as usual),
    /// and a short RGBA8 buffer is the same truncation error.
    #[cfg(feature = "gnf")]
    #[test]
    fn owned_decode_equals_borrowed() {
        let limits = Limits::default();
        for (f, w, h) in [
            (PixelFormat::RGBA8, 13, 7),
            (PixelFormat::BC1, 13, 7),
            (PixelFormat::RGB8, 5, 3),
        ] {
            let n = f.surface_size(w, h) as usize;
            let data: Vec<u8> = (0..n + 9).map(|i| (i * 37 % 251) as u8).collect();
            let want = decode_surface(f, w, h, &data, &limits).unwrap();
            let got = decode_surface_owned(f, w, h, data.clone(), &limits).unwrap();
            assert_eq!((got.width, got.height), (want.width, want.height));
            assert!(got.pixels == want.pixels, "{f:?}");
        }
        let short = vec![0u8; 13 * 7 * 4 - 1];
        let want = decode_surface(PixelFormat::RGBA8, 13, 7, &short, &limits).unwrap_err();
        let got = decode_surface_owned(PixelFormat::RGBA8, 13, 7, short, &limits).unwrap_err();
        assert_eq!(got.to_string(), want.to_string());
    }

    /// The fused untile + decode (`decode_tiled`, band by band for BCn) against untiling the
    /// whole surface (`tiling::untile`, held to `tegra_swizzle` and to the shared console
    /// samples by its own tests) and then `decode_surface` (held to bcdec_rs and other decoders
    /// by tests/codec_reference.rs): the same image, bit for bit, or the same error. Every
    /// console layout (Switch block-linear at each block height, GCN 1D thin and linear aligned
    /// with a tight and a padded pitch, RDNA linear / 256B_S / 4KB_S / 64KB_S with their mip
    /// tails), every BCn format (BC6H and the signed BC4/BC5 to f32), RGBA8 and ASTC 4x4, sizes
    /// that are and are not whole blocks and bands, mips 0-3; each in the default bands and in
    /// one-alignment bands (8 rows of blocks), so that small surfaces take several. Tiled bytes
    /// are random, seeded.
    #[cfg(all(feature = "gnf", feature = "tiling-switch"))]
    #[test]
    fn fused_untile_decode_equals_untile_then_decode() {
        use tiling::{block_linear, rdna, untile, Tiling, Untiler};
        let limits = Limits::default();
        let bits = |img: &Image| match &img.pixels {
            Pixels::Rgba8(p) => p.iter().map(|&v| v as u32).collect::<Vec<_>>(),
            Pixels::Rgba16(p) => p.iter().map(|&v| v as u32).collect(),
            Pixels::Rgba32F(p) => p.iter().map(|v| v.to_bits()).collect(),
        };
        let formats = [
            PixelFormat::BC1,
            PixelFormat::BC2,
            PixelFormat::BC3,
            PixelFormat::BC4,
            PixelFormat::BC4S,
            PixelFormat::BC5,
            PixelFormat::BC5S,
            PixelFormat::BC6HU,
            PixelFormat::BC6HS,
            PixelFormat::BC7,
            PixelFormat::RGBA8,
            PixelFormat::ASTC {
                w: 4,
                h: 4,
                hdr: false,
            },
        ];
        let sizes: [(u32, u32); 8] = [
            (1, 1),
            (3, 5),
            (4, 4),
            (13, 7),
            (64, 64),
            (100, 37),
            (129, 257),
            (260, 36),
        ];
        let (mut seed, mut compared) = (0u64, 0);
        for f in formats {
            for &(w, h) in &sizes {
                let b = f.block();
                let pitch = w.div_ceil(b.width).next_multiple_of(8) * b.width;
                for level in 0..4u32 {
                    let (mw, mh) = ((w >> level).max(1), (h >> level).max(1));
                    let mut tilings: Vec<Tiling> = block_linear::BLOCK_HEIGHTS
                        .iter()
                        .map(|&block_height| Tiling::BlockLinear { block_height })
                        .collect();
                    for tile_mode in [8, 13] {
                        for pitch in [pitch, pitch + 8 * b.width] {
                            tilings.push(Tiling::Gcn { tile_mode, pitch });
                        }
                    }
                    for mode in [
                        rdna::SW_LINEAR,
                        rdna::SW_256B_S,
                        rdna::SW_4KB_S,
                        rdna::SW_64KB_S,
                    ] {
                        let first_mip_in_tail = rdna::chain(mode, f, w, h, 4).map_or(4, |c| c.1);
                        tilings.push(Tiling::Rdna {
                            swizzle_mode: mode,
                            first_mip_in_tail,
                        });
                    }
                    for t in tilings {
                        let Ok(size) = tiling::stored_size(t, f, level, mw, mh) else {
                            continue;
                        };
                        seed += 1;
                        let tiled = sample::random_bytes(size as usize, seed);
                        let want = untile(t, f, level, mw, mh, &tiled, &limits)
                            .and_then(|linear| decode_surface(f, mw, mh, &linear, &limits));
                        let fused = decode_tiled(t, f, level, mw, mh, &tiled, &limits);
                        let small = Untiler::new(t, f, level, mw, mh, &tiled, &limits)
                            .and_then(|u| decode_bands(&u, f, mw, mh, &limits, 1));
                        let case = format!("{f:?} {mw}x{mh} mip {level} {t:?}");
                        for got in [fused, small] {
                            match (&want, got) {
                                (Ok(want), Ok(got)) => {
                                    assert_eq!((got.width, got.height), (mw, mh), "{case}");
                                    assert!(bits(&got) == bits(want), "{case}");
                                }
                                (Err(want), Err(got)) => {
                                    assert_eq!(got.to_string(), want.to_string(), "{case}")
                                }
                                (want, got) => panic!("{case}: {want:?} against {got:?}"),
                            }
                        }
                        compared += 1;
                        // Short tiled data: the same error, from either path.
                        let short = &tiled[..tiled.len() - 1];
                        let want = untile(t, f, level, mw, mh, short, &limits).unwrap_err();
                        let got = decode_tiled(t, f, level, mw, mh, short, &limits).unwrap_err();
                        assert_eq!(got.to_string(), want.to_string(), "{case}");
                    }
                }
            }
        }
        // Whatever a layout cannot place (GCN's smaller mips) is skipped above; the rest is
        // most of the grid.
        assert!(compared > 2500, "{compared}");
    }

    /// Hostile sizes through the fused path: the untiled surface over the allocation limit, and
    /// a surface whose stored size overflows, are the errors `tiling::untile` gives.
    #[cfg(all(feature = "gnf", feature = "tiling-switch"))]
    #[test]
    fn fused_untile_decode_refuses_hostile_sizes() {
        use tiling::{untile, Tiling};
        let small = Limits {
            max_alloc: 1 << 16,
            ..Limits::default()
        };
        let tiled = vec![0u8; 1 << 20];
        for t in [
            Tiling::BlockLinear { block_height: 16 },
            Tiling::Gcn {
                tile_mode: 13,
                pitch: 1024,
            },
            Tiling::Rdna {
                swizzle_mode: 9,
                first_mip_in_tail: 1,
            },
        ] {
            for (w, h, limits) in [
                (1024, 1024, &small),
                (u32::MAX, u32::MAX, &Limits::default()),
            ] {
                let f = PixelFormat::BC7;
                let want = untile(t, f, 0, w, h, &tiled, limits).unwrap_err();
                let got = decode_tiled(t, f, 0, w, h, &tiled, limits).unwrap_err();
                assert_eq!(got.to_string(), want.to_string(), "{t:?} {w}x{h}");
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for f in ALL_FIXED {
            assert_eq!(PixelFormat::from_name(&f.name()), Some(*f));
        }
        for (w, h) in ASTC_FOOTPRINTS {
            for hdr in [false, true] {
                let f = PixelFormat::ASTC { w, h, hdr };
                assert_eq!(PixelFormat::from_name(&f.name()), Some(f));
            }
        }
        assert_eq!(PixelFormat::from_name("ASTC_7x7"), None);
    }

    #[test]
    fn sizes_cost_whole_blocks() {
        // seed 000: "a 1x1 DXT1 mip is 8 bytes"; a 136x136 DXT1 tile is 34x34 blocks = 9248 bytes.
        assert_eq!(PixelFormat::BC1.surface_size(1, 1), 8);
        assert_eq!(PixelFormat::BC1.surface_size(136, 136), 9248);
        // seed 000: BC7/DXT5/BC5 tiles are 18,496 bytes.
        for f in [PixelFormat::BC7, PixelFormat::BC3, PixelFormat::BC5] {
            assert_eq!(f.surface_size(136, 136), 18496);
        }
        assert_eq!(PixelFormat::RGBA8.surface_size(3, 5), 60);
        assert_eq!(PixelFormat::PVRTC4RGBA.surface_size(1, 1), 32);
        assert_eq!(
            PixelFormat::ASTC {
                w: 6,
                h: 6,
                hdr: false
            }
            .surface_size(492, 180),
            82 * 30 * 16
        );
    }

    #[test]
    fn short_data_is_refused() {
        let e = decode_surface(PixelFormat::BC1, 8, 8, &[0; 31], &Limits::default()).unwrap_err();
        assert_eq!(e.kind, crate::io::ErrorKind::Truncated);
    }

    #[test]
    fn flip_rows_swaps() {
        let mut img = Image {
            width: 1,
            height: 3,
            pixels: Pixels::Rgba8(vec![1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]),
        };
        img.flip_rows();
        assert_eq!(
            img.pixels,
            Pixels::Rgba8(vec![3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1])
        );
    }
}
