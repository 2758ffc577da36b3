//! Loose KTX 1 (.ktx) and KTX 2 files (.ktx2) without supercompression: header, level index and key/value data
//! are read as ranges; each level's images become `Storage::Range`s into the file.
//!
//! Layout facts from the Khronos KTX 2.0 specification: the 12-byte identifier, nine u32 header
//! fields, the index (dfd/kvd offsets as u32, sgd as u64), then `max(1, levelCount)` level
//! entries of three u64 (byteOffset, byteLength, uncompressedByteLength) from byte 80. A level
//! holds, for each layer, each face, each z slice, one image. Format numbers are Vulkan's VkFormat.

use crate::codec::{PixelFormat, ASTC_FOOTPRINTS};
use crate::io::{read_range, Error, Reader, Result};
use crate::io::{Limits, Source, SourceRef};
use crate::model::{
    mip_dims, ColorSpace, Engine, Layout, Mip, NativeFormat, RowOrder, Storage, Texture,
    TextureKind,
};
use crate::{file_stem, FileProblem, OpenContext};
use std::sync::{Arc, OnceLock};

/// One Zstandard-supercompressed KTX 2 level, decompressed whole on its first read (a level is
/// one frame, so no smaller range can be decoded) and kept for the next reads.
struct ZstdLevel {
    name: String,
    inner: SourceRef,
    offset: u64,
    length: u64,
    uncompressed: u64,
    limits: Limits,
    data: OnceLock<std::result::Result<Arc<[u8]>, Error>>,
}

impl ZstdLevel {
    fn decompress(&self) -> Result<Arc<[u8]>> {
        let packed = read_range(self.inner.as_ref(), self.offset, self.length, &self.limits)?;
        let out = crate::io::unzstd(&packed, self.uncompressed, "Zstandard data does not decode")
            .map_err(|e| e.at_field("ktx2/supercompressionScheme"))?;
        if out.len() as u64 != self.uncompressed {
            return Err(Error::malformed(format!(
                "the level decompresses to {}{} bytes, but uncompressedByteLength says {}",
                out.len(),
                if out.len() as u64 > self.uncompressed {
                    "+"
                } else {
                    ""
                },
                self.uncompressed
            ))
            .at_field("ktx2/levelIndex/uncompressedByteLength"));
        }
        Ok(out.into())
    }
}

impl Source for ZstdLevel {
    fn name(&self) -> &str {
        &self.name
    }
    fn len(&self) -> u64 {
        self.uncompressed
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let data = self
            .data
            .get_or_init(|| self.decompress())
            .as_ref()
            .map_err(|e| e.clone().in_file(self.inner.name()))?;
        crate::io::copy_at(data, offset, buf)
    }
}

const KTX2_IDENTIFIER: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];
const KTX1_IDENTIFIER: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x31, 0x31, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];
const HEADER_LEN: u64 = 80;
const LEVEL_ENTRY: u64 = 24;

/// VkFormat -> our format and whether it is the _SRGB variant (vulkan_core.h numbering).
fn vk_format(id: u32) -> Option<(PixelFormat, bool)> {
    use PixelFormat::*;
    Some(match id {
        2 => (RGBA4444, false),
        4 => (RGB565, false),
        8 => (BGRA5551, false),
        9 => (R8, false),
        15 => (R8, true),
        16 => (RG8, false),
        22 => (RG8, true),
        23 => (RGB8, false),
        29 => (RGB8, true),
        30 => (BGR8, false),
        36 => (BGR8, true),
        37 => (RGBA8, false),
        43 => (RGBA8, true),
        44 => (BGRA8, false),
        50 => (BGRA8, true),
        64 => (RGB10A2, false),
        70 => (R16, false),
        76 => (R16F, false),
        77 => (RG16, false),
        83 => (RG16F, false),
        91 => (RGBA16, false),
        97 => (RGBA16F, false),
        100 => (R32F, false),
        103 => (RG32F, false),
        106 => (RGB32F, false),
        109 => (RGBA32F, false),
        122 => (RG11B10F, false),
        123 => (RGB9E5, false),
        131 | 133 => (BC1, false),
        132 | 134 => (BC1, true),
        135 => (BC2, false),
        136 => (BC2, true),
        137 => (BC3, false),
        138 => (BC3, true),
        139 => (BC4, false),
        140 => (BC4S, false),
        141 => (BC5, false),
        142 => (BC5S, false),
        143 => (BC6HU, false),
        144 => (BC6HS, false),
        145 => (BC7, false),
        146 => (BC7, true),
        147 => (ETC2RGB, false),
        148 => (ETC2RGB, true),
        149 => (ETC2RGBA1, false),
        150 => (ETC2RGBA1, true),
        151 => (ETC2RGBA8, false),
        152 => (ETC2RGBA8, true),
        153 => (EACR11, false),
        154 => (EACR11S, false),
        155 => (EACRG11, false),
        156 => (EACRG11S, false),
        // ASTC_{w}x{h}_UNORM_BLOCK / _SRGB_BLOCK pairs in footprint order.
        157..=184 => {
            let (w, h) = ASTC_FOOTPRINTS[((id - 157) / 2) as usize];
            (ASTC { w, h, hdr: false }, (id - 157) % 2 == 1)
        }
        // VK_IMG_format_pvrtc: PVRTC1 2bpp/4bpp UNORM, then the SRGB pair (1000054004/5).
        1_000_054_000 => (PVRTC2RGBA, false),
        1_000_054_001 => (PVRTC4RGBA, false),
        1_000_054_004 => (PVRTC2RGBA, true),
        1_000_054_005 => (PVRTC4RGBA, true),
        // VK_IMG_format_pvrtc: PVRTC2 2bpp/4bpp UNORM (1000054002/3) and SRGB (1000054006/7).
        1_000_054_002 => (PVRTCII2, false),
        1_000_054_003 => (PVRTCII4, false),
        1_000_054_006 => (PVRTCII2, true),
        1_000_054_007 => (PVRTCII4, true),
        // VK_EXT_texture_compression_astc_hdr: ASTC_{w}x{h}_SFLOAT_BLOCK in footprint order.
        1_000_066_000..=1_000_066_013 => {
            let (w, h) = ASTC_FOOTPRINTS[(id - 1_000_066_000) as usize];
            (ASTC { w, h, hdr: true }, false)
        }
        // VK_EXT_4444_formats: A4R4G4B4_UNORM_PACK16 (A in bits 12-15, R 8-11, G 4-7, B 0-3).
        1_000_340_000 => (ARGB4444, false),
        _ => return None,
    })
}

/// Data format descriptor colour models (Khronos Data Format Specification, khr_df_model_e).
const DFD_MODEL_ETC1S: u8 = 163;
const DFD_MODEL_UASTC: u8 = 166;
const DFD_MODEL_UASTC_HDR_4X4: u8 = 167;
const DFD_MODEL_UASTC_HDR_6X6: u8 = 168;
/// The transfer function KHR_DF_TRANSFER_SRGB.
const DFD_TRANSFER_SRGB: u8 = 2;
/// BasisLZ image flag: a P-frame of an animation (KTX 2.0 specification, "BasisLZ Global Data").
#[cfg(feature = "codec-basis")]
const ETC1S_P_FRAME: u32 = 2;

/// What the first (basic) block of a data format descriptor says: its colour model, whether the
/// transfer function is sRGB, and its number of samples (ETC1S: 2 when there are alpha slices).
/// Layout: the u32 total size, then the block's vendor/type and version/size words, then the bytes
/// colorModel, colorPrimaries, transferFunction, flags, four texel block dimensions, eight
/// bytesPlane, then 16 bytes a sample (KTX 2.0 and Khronos Data Format specifications).
struct Dfd {
    color_model: u8,
    srgb: bool,
    samples: usize,
}

impl Dfd {
    fn parse(d: &[u8]) -> Option<Dfd> {
        let block_size = u16::from_le_bytes([*d.get(10)?, *d.get(11)?]) as usize;
        Some(Dfd {
            color_model: *d.get(12)?,
            srgb: *d.get(14)? == DFD_TRANSFER_SRGB,
            samples: block_size.saturating_sub(24) / 16,
        })
    }

    fn model_name(&self) -> String {
        let name = match self.color_model {
            DFD_MODEL_ETC1S => "ETC1S",
            DFD_MODEL_UASTC => "UASTC LDR 4x4",
            DFD_MODEL_UASTC_HDR_4X4 => "UASTC HDR 4x4",
            DFD_MODEL_UASTC_HDR_6X6 => "UASTC HDR 6x6",
            _ => "",
        };
        format!("{} {name}", self.color_model)
    }
}

/// A transcodable Basis Universal payload of vkFormat 0.
#[derive(Clone, Copy, PartialEq)]
enum Basis {
    Etc1s,
}

/// A BasisLZ file's global data (codebooks) and image descriptors; without the Basis codec there
/// is none (such a file is a NotInBuild problem).
#[cfg(feature = "codec-basis")]
type Etc1s = (Arc<crate::formats::basis::Etc1sGlobal>, Vec<ImageDesc>);
#[cfg(not(feature = "codec-basis"))]
type Etc1s = std::convert::Infallible;

/// One BasisLZ image descriptor: flags, colour slice and alpha slice (offset, length) in its level.
#[cfg(feature = "codec-basis")]
struct ImageDesc {
    flags: u32,
    rgb: (u32, u32),
    alpha: (u32, u32),
}

/// The BasisLZ global data of a KTX 2 file: its codebooks (decoded on first use) and its image
/// descriptors, `levels * slices` of them, level by level.
#[cfg(feature = "codec-basis")]
#[allow(clippy::arc_with_non_send_sync)]
fn etc1s_global(
    ctx: &OpenContext,
    source: usize,
    h: &Header,
    levels: u32,
    slices: u32,
) -> Result<(Arc<crate::formats::basis::Etc1sGlobal>, Vec<ImageDesc>)> {
    let src = ctx.sources[source].as_ref();
    let images = levels as u64 * slices as u64;
    let fixed = 20 + 20 * images;
    let sgd = |e: Error| e.at_field("ktx2/supercompressionGlobalData");
    if h.sgd_byte_length < fixed {
        return Err(sgd(Error::malformed(format!(
            "{} bytes of BasisLZ global data cannot hold the header and {images} image descriptors",
            h.sgd_byte_length
        ))));
    }
    let head = read_range(src, h.sgd_byte_offset, fixed, &ctx.limits).map_err(sgd)?;
    let mut r = Reader::new(&head);
    let endpoint_count = r.u16()? as u32;
    let selector_count = r.u16()? as u32;
    let lengths = [r.u32()? as u64, r.u32()? as u64, r.u32()? as u64];
    let extended = r.u32()? as u64;
    if fixed + lengths.iter().sum::<u64>() + extended != h.sgd_byte_length {
        return Err(sgd(Error::malformed(format!(
            "sgdByteLength is {}, but the BasisLZ header and {images} image descriptors add up to {}",
            h.sgd_byte_length,
            fixed + lengths.iter().sum::<u64>() + extended
        ))));
    }
    let mut descs = Vec::with_capacity(images as usize);
    for _ in 0..images {
        descs.push(ImageDesc {
            flags: r.u32()?,
            rgb: (r.u32()?, r.u32()?),
            alpha: (r.u32()?, r.u32()?),
        });
    }
    let mut at = h.sgd_byte_offset + fixed;
    let ranges = lengths.map(|l| {
        let range = (at, l);
        at += l;
        range
    });
    Ok((
        Arc::new(crate::formats::basis::Etc1sGlobal::new(
            ctx.sources[source].clone(),
            ranges,
            endpoint_count,
            selector_count,
            &ctx.limits,
        )),
        descs,
    ))
}

/// The surfaces of one level of a BasisLZ file: a derived source per image (its colour and alpha
/// slices, from the last I-frame for a P-frame of an animation) that decodes to the ETC1 blocks of
/// `format` on first read.
#[cfg(feature = "codec-basis")]
#[allow(clippy::too_many_arguments, clippy::arc_with_non_send_sync)]
fn etc1s_surfaces(
    ctx: &OpenContext,
    source: usize,
    (global, descs): &Etc1s,
    meta: &[(String, String)],
    level: u32,
    slices: u32,
    format: PixelFormat,
    (w, hh): (u32, u32),
    (byte_offset, byte_length): (u64, u64),
    surfaces: &mut Vec<Storage>,
    derived: &mut Vec<SourceRef>,
    notes: &mut Vec<String>,
) -> Result<()> {
    let name = ctx.sources[source].name().to_string();
    let file_len = ctx.sources[source].len();
    let limits = &ctx.limits;
    let in_file = byte_offset
        .checked_add(byte_length)
        .is_some_and(|end| end <= file_len);
    if !in_file {
        notes.push(format!(
                "level {level} (bytes {byte_offset}+{byte_length}) lies past the end of the file ({file_len} bytes): the file is cut short"
            ));
    }
    let animated = meta.iter().any(|(k, _)| k == "KTXanimData");
    for s in 0..slices as usize {
        let image = format.surface_size(w, hh);
        if !in_file {
            surfaces.push(Storage::Missing {
                file: name.clone(),
                length: image,
            });
            continue;
        }
        let at = level as usize * slices as usize;
        // Frames of an animation are its layers; a P-frame decodes from the last I-frame.
        let mut start = s;
        while animated && start > 0 && descs[at + start].flags & ETC1S_P_FRAME != 0 {
            start -= 1;
        }
        let mut frames = Vec::new();
        for k in start..=s {
            let dsc = &descs[at + k];
            let slice = |o: u32, l: u32, what: &str| -> Result<(u64, u64)> {
                if o as u64 + l as u64 > byte_length || l == 0 {
                    return Err(Error::malformed(format!(
                            "image {k} of level {level}: its {what} slice ({o}+{l}) is not inside the level's {byte_length} bytes"
                        ))
                        .at_field("ktx2/supercompressionGlobalData/imageDescs"));
                }
                Ok((byte_offset + o as u64, l as u64))
            };
            let rgb = slice(dsc.rgb.0, dsc.rgb.1, "colour")?;
            let alpha = if format == PixelFormat::BasisETC1SA {
                Some(slice(dsc.alpha.0, dsc.alpha.1, "alpha")?)
            } else {
                None
            };
            frames.push((rgb, alpha, animated && dsc.flags & ETC1S_P_FRAME != 0));
        }
        derived.push(Arc::new(crate::formats::basis::Etc1sImage::new(
            format!("{name} (level {level}, image {s}, ETC1S)"),
            ctx.sources[source].clone(),
            global.clone(),
            frames,
            w,
            hh,
            format == PixelFormat::BasisETC1SA,
            limits,
        )) as SourceRef);
        surfaces.push(Storage::Range {
            source: ctx.sources.len() + derived.len() - 1,
            offset: 0,
            length: image,
        });
    }
    Ok(())
}

/// Claims the .ktx (KTX 1) and .ktx2 files among the opened files.
pub fn open(ctx: &mut OpenContext) {
    for i in ctx.unclaimed() {
        let Ok(head) = ctx.head(i, HEADER_LEN) else {
            continue;
        };
        let name = ctx.sources[i].name().to_string();
        let ktx1 = head.starts_with(&KTX1_IDENTIFIER);
        if !ktx1 && !head.starts_with(&KTX2_IDENTIFIER) {
            continue;
        }
        ctx.claimed[i] = true;
        let found = if ktx1 {
            describe_ktx1(ctx, i, &head).map(|t| (t, Vec::new()))
        } else {
            describe(ctx, i, &head)
        };
        match found {
            Ok((t, derived)) => {
                // describe() numbered these from the current end of ctx.sources.
                for d in derived {
                    ctx.add_source(d);
                }
                ctx.textures.push(t)
            }
            Err(e) => ctx.problems.push(FileProblem::new(
                &name,
                Some(Engine::Ktx),
                &e.in_file(&name),
            )),
        }
    }
}

/// The header fields of KTX 2, by their specification names.
struct Header {
    vk_format: u32,
    type_size: u32,
    pixel_width: u32,
    pixel_height: u32,
    pixel_depth: u32,
    layer_count: u32,
    face_count: u32,
    level_count: u32,
    supercompression_scheme: u32,
    dfd_byte_offset: u32,
    dfd_byte_length: u32,
    kvd_byte_offset: u32,
    kvd_byte_length: u32,
    #[cfg_attr(not(feature = "codec-basis"), allow(dead_code))]
    sgd_byte_offset: u64,
    #[cfg_attr(not(feature = "codec-basis"), allow(dead_code))]
    sgd_byte_length: u64,
}

fn parse_header(head: &[u8], file_len: u64) -> Result<Header> {
    if (head.len() as u64) < HEADER_LEN {
        return Err(
            Error::truncated(head.len() as u64, HEADER_LEN - head.len() as u64, file_len)
                .at_field("ktx2/header"),
        );
    }
    let mut r = Reader::new(head);
    r.skip(12)?;
    Ok(Header {
        vk_format: r.u32()?,
        type_size: r.u32()?,
        pixel_width: r.u32()?,
        pixel_height: r.u32()?,
        pixel_depth: r.u32()?,
        layer_count: r.u32()?,
        face_count: r.u32()?,
        level_count: r.u32()?,
        supercompression_scheme: r.u32()?,
        dfd_byte_offset: r.u32()?,
        dfd_byte_length: r.u32()?,
        kvd_byte_offset: r.u32()?,
        kvd_byte_length: r.u32()?,
        sgd_byte_offset: r.u64()?,
        sgd_byte_length: r.u64()?,
    })
}

/// Key/value pairs whose value is text (KTXorientation, KTXwriter, ...), for the info panel.
fn key_values(data: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut r = Reader::new(data);
    while let Ok(len) = r.u32() {
        let Ok(entry) = r.bytes(len as usize) else {
            break;
        };
        if let Some(nul) = entry.iter().position(|&b| b == 0) {
            let key = String::from_utf8_lossy(&entry[..nul]).into_owned();
            let value = &entry[nul + 1..];
            let value = value.strip_suffix(&[0]).unwrap_or(value);
            if value.iter().all(|b| (0x20..0x7f).contains(b)) {
                out.push((key, String::from_utf8_lossy(value).into_owned()));
            } else {
                out.push((key, format!("{} bytes", value.len())));
            }
        }
        if r.align(4).is_err() {
            break;
        }
    }
    out
}

/// The texture of a KTX 2 file, and the derived sources (decompressed levels) its surfaces
/// name, numbered from `ctx.sources.len()`.
// ZstdLevel wraps the file's SourceRef, which the core's `Source` does not require to be
// Send/Sync (browser files are not); an Arc is still what `SourceRef` is.
#[allow(clippy::arc_with_non_send_sync)]
fn describe(ctx: &OpenContext, source: usize, head: &[u8]) -> Result<(Texture, Vec<SourceRef>)> {
    let src = ctx.sources[source].as_ref();
    let name = src.name().to_string();
    let file_len = src.len();
    let limits = &ctx.limits;
    let h = parse_header(head, file_len)?;

    let mut meta: Vec<(String, String)> = vec![
        ("vkFormat".into(), h.vk_format.to_string()),
        ("typeSize".into(), h.type_size.to_string()),
        ("layerCount".into(), h.layer_count.to_string()),
        ("faceCount".into(), h.face_count.to_string()),
        ("levelCount".into(), h.level_count.to_string()),
        (
            "dfdByteOffset / dfdByteLength".into(),
            format!("{} / {}", h.dfd_byte_offset, h.dfd_byte_length),
        ),
        (
            "supercompressionScheme".into(),
            h.supercompression_scheme.to_string(),
        ),
    ];
    if h.pixel_width == 0 || h.pixel_height == 0 {
        return Err(Error::malformed(format!(
            "pixelWidth x pixelHeight is {}x{}: 1D textures and zero sizes are not shown",
            h.pixel_width, h.pixel_height
        ))
        .at_field("ktx2/pixelHeight"));
    }
    let depth = h.pixel_depth.max(1);
    limits.check_dims(h.pixel_width, h.pixel_height, depth)?;
    if h.face_count != 1 && h.face_count != 6 {
        return Err(
            Error::malformed(format!("faceCount is {}; it must be 1 or 6", h.face_count))
                .at_field("ktx2/faceCount"),
        );
    }
    let layers = h.layer_count.max(1);
    let slices = layers
        .checked_mul(h.face_count)
        .filter(|&s| s <= limits.max_slices)
        .ok_or_else(|| {
            Error::limit(format!(
                "{layers} layers x {} faces is over the limit of {} slices",
                h.face_count, limits.max_slices
            ))
        })?;
    if h.pixel_depth > 0 && slices > 1 {
        return Err(Error::unsupported(
            "arrays and cubes of volume textures are not shown",
        ));
    }
    let levels = h.level_count.max(1);
    if levels > limits.max_mips {
        return Err(Error::limit(format!(
            "levelCount {levels} is over the limit of {}",
            limits.max_mips
        ))
        .at_field("ktx2/levelCount"));
    }
    let index = read_range(src, HEADER_LEN, levels as u64 * LEVEL_ENTRY, limits)
        .map_err(|e| e.at_field("ktx2/levelIndex"))?;
    if h.kvd_byte_length > 0 {
        // Key/value data is small by design; a hostile length is caught by read_range's checks.
        if let Ok(kvd) = read_range(
            src,
            h.kvd_byte_offset as u64,
            h.kvd_byte_length as u64,
            limits,
        ) {
            meta.extend(key_values(&kvd));
        }
    }
    let orientation = meta
        .iter()
        .find(|(k, _)| k == "KTXorientation")
        .map(|(_, v)| v.clone());
    // KTXorientation "rd" is the default: rows go down. A 'u' second letter stores rows bottom first.
    let rows = match orientation.as_deref().and_then(|o| o.chars().nth(1)) {
        Some('u') => RowOrder::BottomFirst,
        _ => RowOrder::TopFirst,
    };

    let dfd = if h.dfd_byte_length > 0 {
        read_range(
            src,
            h.dfd_byte_offset as u64,
            (h.dfd_byte_length as u64).min(4096),
            limits,
        )
        .ok()
        .and_then(|d| Dfd::parse(&d))
    } else {
        None
    };
    if let Some(d) = &dfd {
        meta.push(("colorModel".into(), d.model_name()));
    }
    let mut notes = Vec::new();
    let mut error = None;
    let mut basis = None;
    let (format, srgb) = match (vk_format(h.vk_format), &dfd) {
        (
            Some((
                PixelFormat::ASTC {
                    w: 4,
                    h: 4,
                    hdr: true,
                },
                s,
            )),
            Some(d),
        ) if d.color_model == DFD_MODEL_UASTC_HDR_4X4 => {
            // Basis Universal UASTC HDR 4x4: restricted ASTC HDR 4x4 blocks, decoded as such.
            notes.push("Basis Universal UASTC HDR 4x4 (ASTC HDR 4x4 blocks)".to_string());
            (
                PixelFormat::ASTC {
                    w: 4,
                    h: 4,
                    hdr: true,
                },
                s,
            )
        }
        (Some(f), _) => f,
        (None, Some(d)) if h.vk_format == 0 && d.color_model == DFD_MODEL_ETC1S => {
            if h.supercompression_scheme != 1 {
                error = Some(format!(
                    "ETC1S data with supercompression {} (BasisLZ, 1, is the only one it has)",
                    h.supercompression_scheme
                ));
            }
            basis = Some(Basis::Etc1s);
            let f = if d.samples > 1 {
                PixelFormat::BasisETC1SA
            } else {
                PixelFormat::BasisETC1S
            };
            (f, d.srgb)
        }
        (None, Some(d)) if h.vk_format == 0 && d.color_model == DFD_MODEL_UASTC => {
            (PixelFormat::BasisUASTC, d.srgb)
        }
        (None, _) => {
            error = Some(if h.vk_format == 0 {
                match dfd.as_ref().map(|d| d.color_model) {
                    Some(DFD_MODEL_UASTC_HDR_6X6) => {
                        "Basis Universal UASTC HDR 6x6 (intermediate) data is not decoded yet".to_string()
                    }
                    Some(m) => format!(
                        "vkFormat 0 with data format descriptor colour model {m} is not a format Texscope reads"
                    ),
                    None => "vkFormat 0 (a Basis Universal or other transcodable format) without a readable data format descriptor".to_string(),
                }
            } else {
                format!(
                    "vkFormat {} is not a format Texscope reads (the format shown is a placeholder)",
                    h.vk_format
                )
            });
            (PixelFormat::RGBA8, false)
        }
    };
    let zstd = h.supercompression_scheme == 2;
    if error.is_none() && h.supercompression_scheme != 0 && !zstd && basis.is_none() {
        let scheme = match h.supercompression_scheme {
            1 => "BasisLZ",
            2 => "Zstandard",
            3 => "ZLIB",
            _ => "an unknown scheme",
        };
        error = Some(format!(
            "supercompression {} ({scheme}) is not read yet: save the file without supercompression",
            h.supercompression_scheme
        ));
    }
    // BasisLZ: the global data (codebooks, then one image descriptor per image of every level).
    let etc1s: Option<Etc1s> = match (basis, &error) {
        (Some(Basis::Etc1s), None) => {
            if h.pixel_depth > 0 {
                return Err(Error::unsupported("ETC1S volume textures are not shown"));
            }
            #[cfg(feature = "codec-basis")]
            {
                Some(etc1s_global(ctx, source, &h, levels, slices)?)
            }
            #[cfg(not(feature = "codec-basis"))]
            return Err(Error::not_in_build(
                "Basis Universal ETC1S (BasisLZ) data",
                "codec-basis",
            ));
        }
        _ => None,
    };
    let color_space = if srgb {
        ColorSpace::Srgb
    } else if error.is_none() {
        ColorSpace::Linear
    } else {
        ColorSpace::Unknown
    };
    let volume = h.pixel_depth > 0;
    let kind = if volume {
        TextureKind::Volume
    } else if h.face_count == 6 {
        TextureKind::Cube
    } else if h.layer_count > 0 {
        TextureKind::Array
    } else {
        TextureKind::Tex2D
    };

    let mut derived: Vec<SourceRef> = Vec::new();
    let mut r = Reader::new(&index);
    let mut mips = Vec::with_capacity(levels as usize);
    for level in 0..levels {
        let byte_offset = r.u64()?;
        let byte_length = r.u64()?;
        let uncompressed_byte_length = r.u64()?;
        let (w, hh, d) = mip_dims(h.pixel_width, h.pixel_height, depth, level);
        let mut surfaces = Vec::new();
        if let Some(etc1s) = &etc1s {
            #[cfg(feature = "codec-basis")]
            etc1s_surfaces(
                ctx,
                source,
                etc1s,
                &meta,
                level,
                slices,
                format,
                (w, hh),
                (byte_offset, byte_length),
                &mut surfaces,
                &mut derived,
                &mut notes,
            )?;
            #[cfg(not(feature = "codec-basis"))]
            match *etc1s {}
        } else if error.is_none() {
            let image = format.surface_size(w, hh) * d as u64;
            let need = image * slices as u64;
            let stored = if zstd {
                uncompressed_byte_length
            } else {
                byte_length
            };
            if stored < need {
                return Err(Error::malformed(format!(
                    "level {level} holds {stored} bytes, but {slices} {w}x{hh}x{d} {} image(s) need {need}",
                    format.name()
                ))
                .at_field("ktx2/levelIndex/byteLength"));
            }
            let stored_len = if zstd { byte_length } else { need };
            let in_file = byte_offset
                .checked_add(stored_len)
                .is_some_and(|end| end <= file_len);
            // A Zstandard level is one frame: it is decompressed whole, on first read.
            let (level_source, level_offset) = if zstd && in_file {
                limits
                    .check_alloc(uncompressed_byte_length, "a decompressed KTX 2 level")
                    .map_err(|e| e.at_field("ktx2/levelIndex/uncompressedByteLength"))?;
                derived.push(Arc::new(ZstdLevel {
                    name: format!("{name} (level {level}, Zstandard)"),
                    inner: ctx.sources[source].clone(),
                    offset: byte_offset,
                    length: byte_length,
                    uncompressed: uncompressed_byte_length,
                    limits: limits.clone(),
                    data: OnceLock::new(),
                }) as SourceRef);
                (ctx.sources.len() + derived.len() - 1, 0)
            } else {
                (source, byte_offset)
            };
            if !in_file {
                notes.push(format!(
                    "level {level} (bytes {byte_offset}+{need}) lies past the end of the file ({file_len} bytes): the file is cut short"
                ));
            }
            for s in 0..slices as u64 {
                surfaces.push(if in_file {
                    Storage::Range {
                        source: level_source,
                        offset: level_offset + s * image,
                        length: image,
                    }
                } else {
                    Storage::Missing {
                        file: name.clone(),
                        length: image,
                    }
                });
            }
        }
        mips.push(Mip {
            width: w,
            height: hh,
            depth: d,
            surfaces,
            location_note: "inline".into(),
        });
    }
    if h.dfd_byte_length == 0 {
        notes.push("no data format descriptor (dfdByteLength 0)".into());
    }
    Ok((
        Texture {
            file: name.clone(),
            path: None,
            engine: Engine::Ktx,
            name: file_stem(&name).to_string(),
            class: "KTX2".into(),
            kind,
            format,
            native_format: NativeFormat::Id(h.vk_format as i64),
            width: h.pixel_width,
            height: h.pixel_height,
            depth,
            authored: None,
            slices,
            mips,
            color_space,
            normal_map: None,
            rows,
            layout: Layout::Surfaces,
            platform: None,
            tiling: crate::codec::tiling::Tiling::Linear,
            metadata: meta,
            notes,
            error,
        },
        derived,
    ))
}

/// OpenGL internal formats of compressed KTX 1 data (glInternalFormat; GL/GLES extension
/// registry values) and whether they are sRGB.
fn gl_compressed(internal: u32) -> Option<(PixelFormat, bool)> {
    use PixelFormat::*;
    Some(match internal {
        0x83F0 | 0x83F1 => (BC1, false),
        0x8C4C | 0x8C4D => (BC1, true),
        0x83F2 => (BC2, false),
        0x8C4E => (BC2, true),
        0x83F3 => (BC3, false),
        0x8C4F => (BC3, true),
        0x8DBB => (BC4, false),
        0x8DBC => (BC4S, false),
        0x8DBD => (BC5, false),
        0x8DBE => (BC5S, false),
        0x8E8C => (BC7, false),
        0x8E8D => (BC7, true),
        0x8E8E => (BC6HS, false),
        0x8E8F => (BC6HU, false),
        0x8D64 => (ETC1, false),
        0x9274 => (ETC2RGB, false),
        0x9275 => (ETC2RGB, true),
        0x9276 => (ETC2RGBA1, false),
        0x9277 => (ETC2RGBA1, true),
        0x9278 => (ETC2RGBA8, false),
        0x9279 => (ETC2RGBA8, true),
        0x9270 => (EACR11, false),
        0x9271 => (EACR11S, false),
        0x9272 => (EACRG11, false),
        0x9273 => (EACRG11S, false),
        0x93B0..=0x93BD => {
            let (w, h) = ASTC_FOOTPRINTS[(internal - 0x93B0) as usize];
            (ASTC { w, h, hdr: false }, false)
        }
        0x93D0..=0x93DD => {
            let (w, h) = ASTC_FOOTPRINTS[(internal - 0x93D0) as usize];
            (ASTC { w, h, hdr: false }, true)
        }
        0x8C00 => (PVRTC4RGB, false),
        0x8C01 => (PVRTC2RGB, false),
        0x8C02 => (PVRTC4RGBA, false),
        0x8C03 => (PVRTC2RGBA, false),
        // GL_EXT_pvrtc_sRGB: SRGB_PVRTC_2BPPV1, SRGB_PVRTC_4BPPV1, SRGB_ALPHA_PVRTC_2BPPV1/4BPPV1.
        0x8A54 => (PVRTC2RGB, true),
        0x8A55 => (PVRTC4RGB, true),
        0x8A56 => (PVRTC2RGBA, true),
        0x8A57 => (PVRTC4RGBA, true),
        // GL_IMG_texture_compression_pvrtc2: RGBA_PVRTC_2BPPV2 / 4BPPV2.
        0x9137 => (PVRTCII2, false),
        0x9138 => (PVRTCII4, false),
        0x8C92 => (ATCRGB, false),
        0x8C93 => (ATCRGBAExplicit, false),
        0x87EE => (ATCRGBAInterpolated, false),
        _ => return None,
    })
}

/// Uncompressed KTX 1 data by (glFormat, glType) (GL enum values).
fn gl_uncompressed(format: u32, ty: u32) -> Option<PixelFormat> {
    use PixelFormat::*;
    const RED: u32 = 0x1903;
    const RG: u32 = 0x8227;
    const RGB: u32 = 0x1907;
    const RGBA: u32 = 0x1908;
    const BGR: u32 = 0x80E0;
    const BGRA: u32 = 0x80E1;
    Some(match (format, ty) {
        // GL_UNSIGNED_BYTE
        (RGBA, 0x1401) => RGBA8,
        (BGRA, 0x1401) => BGRA8,
        (RGB, 0x1401) => RGB8,
        (BGR, 0x1401) => BGR8,
        (RED, 0x1401) => R8,
        (RG, 0x1401) => RG8,
        (0x1909, 0x1401) => L8,
        (0x1906, 0x1401) => A8,
        (0x190A, 0x1401) => LA8,
        // GL_UNSIGNED_SHORT
        (RED, 0x1403) => R16,
        (RG, 0x1403) => RG16,
        (RGBA, 0x1403) => RGBA16,
        // GL_HALF_FLOAT and GL_HALF_FLOAT_OES
        (RED, 0x140B | 0x8D61) => R16F,
        (RG, 0x140B | 0x8D61) => RG16F,
        (RGBA, 0x140B | 0x8D61) => RGBA16F,
        // GL_FLOAT
        (RED, 0x1406) => R32F,
        (RG, 0x1406) => RG32F,
        (RGB, 0x1406) => RGB32F,
        (RGBA, 0x1406) => RGBA32F,
        // Packed types: 5_6_5 and 4_4_4_4 put red in the high bits; the _REV types low.
        (RGB, 0x8363) => RGB565,
        (RGBA, 0x8033) => RGBA4444,
        (RGB, 0x8C3E) => RGB9E5,
        (RGB, 0x8C3B) => RG11B10F,
        (RGBA, 0x8368) => RGB10A2,
        _ => return None,
    })
}

/// A KTX 1 file: 64-byte header, key/value data, then per level a u32 imageSize and the level's
/// images (array elements, faces, z slices), each non-array cube face and each level padded to
/// 4 bytes (Khronos KTX 1.1 specification).
fn describe_ktx1(ctx: &OpenContext, source: usize, head: &[u8]) -> Result<Texture> {
    let src = ctx.sources[source].as_ref();
    let name = src.name().to_string();
    let file_len = src.len();
    let limits = &ctx.limits;
    const KTX1_HEADER: u64 = 64;
    if (head.len() as u64) < KTX1_HEADER {
        return Err(
            Error::truncated(head.len() as u64, KTX1_HEADER - head.len() as u64, file_len)
                .at_field("ktx/header"),
        );
    }
    let mut r = Reader::new(head);
    r.skip(12)?;
    let endianness = r.u32()?;
    let big = match endianness {
        0x0403_0201 => false,
        0x0102_0304 => true,
        other => {
            return Err(
                Error::malformed(format!("endianness is 0x{other:08x}, not 0x04030201"))
                    .at_field("ktx/endianness"),
            )
        }
    };
    if big {
        r.set_endian(crate::io::Endian::Big);
    }
    let gl_type = r.u32()?;
    let gl_type_size = r.u32()?;
    let gl_format = r.u32()?;
    let gl_internal_format = r.u32()?;
    let _gl_base_internal_format = r.u32()?;
    let pixel_width = r.u32()?;
    let pixel_height = r.u32()?;
    let pixel_depth = r.u32()?;
    let number_of_array_elements = r.u32()?;
    let number_of_faces = r.u32()?;
    let number_of_mipmap_levels = r.u32()?;
    let bytes_of_key_value_data = r.u32()?;
    let mut meta: Vec<(String, String)> = vec![
        ("glType".into(), format!("0x{gl_type:04x}")),
        ("glFormat".into(), format!("0x{gl_format:04x}")),
        (
            "glInternalFormat".into(),
            format!("0x{gl_internal_format:04x}"),
        ),
        (
            "numberOfArrayElements".into(),
            number_of_array_elements.to_string(),
        ),
        ("numberOfFaces".into(), number_of_faces.to_string()),
        (
            "numberOfMipmapLevels".into(),
            number_of_mipmap_levels.to_string(),
        ),
    ];
    if pixel_width == 0 || pixel_height == 0 {
        return Err(Error::malformed(format!(
            "pixelWidth x pixelHeight is {pixel_width}x{pixel_height}: 1D textures and zero sizes are not shown"
        ))
        .at_field("ktx/pixelHeight"));
    }
    let depth = pixel_depth.max(1);
    limits.check_dims(pixel_width, pixel_height, depth)?;
    if number_of_faces != 1 && number_of_faces != 6 {
        return Err(Error::malformed(format!(
            "numberOfFaces is {number_of_faces}; it must be 1 or 6"
        ))
        .at_field("ktx/numberOfFaces"));
    }
    let layers = number_of_array_elements.max(1);
    let slices = layers
        .checked_mul(number_of_faces)
        .filter(|&s| s <= limits.max_slices)
        .ok_or_else(|| {
            Error::limit(format!(
                "{layers} array elements x {number_of_faces} faces is over the limit of {} slices",
                limits.max_slices
            ))
        })?;
    if pixel_depth > 0 && slices > 1 {
        return Err(Error::unsupported(
            "arrays and cubes of volume textures are not shown",
        ));
    }
    let levels = number_of_mipmap_levels.max(1);
    if levels > limits.max_mips {
        return Err(Error::limit(format!(
            "numberOfMipmapLevels {levels} is over the limit of {}",
            limits.max_mips
        ))
        .at_field("ktx/numberOfMipmapLevels"));
    }
    if bytes_of_key_value_data > 0 {
        if let Ok(kvd) = read_range(src, KTX1_HEADER, bytes_of_key_value_data as u64, limits) {
            if !big {
                meta.extend(key_values(&kvd));
            }
        }
    }

    let (format, srgb, mut error) = if gl_type == 0 {
        match gl_compressed(gl_internal_format) {
            Some((f, s)) => (f, s, None),
            None => (
                PixelFormat::RGBA8,
                false,
                Some(format!("glInternalFormat 0x{gl_internal_format:04x} is not a format Texscope reads (the format shown is a placeholder)")),
            ),
        }
    } else {
        // GL_SRGB8 and GL_SRGB8_ALPHA8.
        let srgb = matches!(gl_internal_format, 0x8C41 | 0x8C43);
        match gl_uncompressed(gl_format, gl_type) {
            Some(f) => (f, srgb, None),
            None => (
                PixelFormat::RGBA8,
                false,
                Some(format!("glFormat 0x{gl_format:04x} with glType 0x{gl_type:04x} is not a format Texscope reads (the format shown is a placeholder)")),
            ),
        }
    };
    if error.is_none() && big && gl_type_size > 1 {
        error = Some("big-endian KTX files of multi-byte texels are not read yet".into());
    }
    let non_array_cube = number_of_faces == 6 && number_of_array_elements == 0;
    let kind = if pixel_depth > 0 {
        TextureKind::Volume
    } else if number_of_faces == 6 {
        TextureKind::Cube
    } else if number_of_array_elements > 0 {
        TextureKind::Array
    } else {
        TextureKind::Tex2D
    };

    let mut notes = Vec::new();
    let mut mips = Vec::with_capacity(levels as usize);
    let mut offset = Some(KTX1_HEADER + bytes_of_key_value_data as u64);
    for level in 0..levels {
        let (w, h, d) = mip_dims(pixel_width, pixel_height, depth, level);
        let mut surfaces = Vec::new();
        if error.is_none() {
            // Uncompressed rows are aligned to 4 bytes (GL_UNPACK_ALIGNMENT 4); our surfaces
            // are tightly packed, so padded rows cannot be described as one range.
            let row = w as u64 * format.block().bytes as u64;
            if !format.is_block_compressed() && row % 4 != 0 {
                error = Some(format!(
                    "level {level} has {row}-byte rows padded to 4 bytes; padded rows are not read yet"
                ));
            }
        }
        if error.is_none() {
            let image = format.surface_size(w, h) * d as u64;
            let stride = if non_array_cube {
                image.next_multiple_of(4)
            } else {
                image
            };
            let level_bytes = stride * slices as u64;
            let size_field = offset.and_then(|o| read_range(src, o, 4, limits).ok());
            match (offset, size_field) {
                (Some(o), Some(b)) => {
                    let image_size = if big {
                        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
                    } else {
                        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
                    } as u64;
                    let want = if non_array_cube {
                        image
                    } else {
                        image * slices as u64
                    };
                    if image_size != want {
                        return Err(Error::malformed(format!(
                            "level {level}: imageSize is {image_size}, but {} {w}x{h}x{d} image(s) need {want}",
                            format.name()
                        ))
                        .at_field("ktx/imageSize"));
                    }
                    let data = o + 4;
                    for s in 0..slices as u64 {
                        let at = data + s * stride;
                        surfaces.push(if at + image <= file_len {
                            Storage::Range {
                                source,
                                offset: at,
                                length: image,
                            }
                        } else {
                            Storage::Missing {
                                file: name.clone(),
                                length: image,
                            }
                        });
                    }
                    let end = (data + level_bytes).next_multiple_of(4);
                    offset = (end <= file_len).then_some(end);
                }
                _ => {
                    for _ in 0..slices {
                        surfaces.push(Storage::Missing {
                            file: name.clone(),
                            length: image,
                        });
                    }
                    offset = None;
                }
            }
        }
        mips.push(Mip {
            width: w,
            height: h,
            depth: d,
            surfaces,
            location_note: "inline".into(),
        });
    }
    if error.is_none() && mips.iter().any(|m| !m.is_present()) {
        notes.push(format!(
            "the file ({file_len} bytes) is cut short: some levels are missing"
        ));
    }
    if error.is_some() {
        for m in &mut mips {
            m.surfaces.clear();
        }
    }
    let orientation = meta
        .iter()
        .find(|(k, _)| k == "KTXorientation")
        .map(|(_, v)| v.clone());
    // KTX 1 orientation values look like "S=r,T=d"; T=u stores rows bottom first.
    let rows = if orientation.as_deref().is_some_and(|o| o.contains("T=u")) {
        RowOrder::BottomFirst
    } else {
        RowOrder::TopFirst
    };
    let color_space = if srgb {
        ColorSpace::Srgb
    } else if error.is_none() {
        ColorSpace::Linear
    } else {
        ColorSpace::Unknown
    };
    Ok(Texture {
        file: name.clone(),
        path: None,
        engine: Engine::Ktx,
        name: file_stem(&name).to_string(),
        class: "KTX".into(),
        kind,
        format,
        native_format: NativeFormat::Id(gl_internal_format as i64),
        width: pixel_width,
        height: pixel_height,
        depth,
        authored: None,
        slices,
        mips,
        color_space,
        normal_map: None,
        rows,
        layout: Layout::Surfaces,
        platform: None,
        tiling: crate::codec::tiling::Tiling::Linear,
        metadata: meta,
        notes,
        error,
    })
}

// ---- writing (issue 19: `texscope export --format ktx2`) ------------------------------------

/// A Khronos Data Format basic descriptor sample: bit offset, bit length, channel id with its
/// qualifier bits (0x80 float, 0x40 signed, 0x10 linear), lower and upper values.
struct Sample(u16, u8, u8, u32, u32);

/// vkFormat, typeSize, colour model, texel block width and height, samples.
type Descriptor = (u32, u32, u8, (u8, u8), Vec<Sample>);

/// vkFormat, typeSize, DFD colour model, texel block dimensions and samples of the formats the
/// writer stores. The block formats' descriptors equal those PVRTexTool 5.5 and libktx 4.0 wrote
/// into the shared KTX 2 test files (UniversalGameExtraction_texture2ddecoder; checked by a test);
/// RGBA8/BGRA8 follow the Khronos Data Format 1.3 example of an 8-bit RGBA descriptor.
/// Signed and HDR variants are left out: no reference file shows their sample bounds.
fn descriptor(format: PixelFormat, srgb: bool) -> Option<Descriptor> {
    use PixelFormat::*;
    const MAX: u32 = u32::MAX;
    let s = |srgb_id: u32, id: u32| if srgb { srgb_id } else { id };
    let one = |bits: u8, ch: u8| vec![Sample(0, bits - 1, ch, 0, MAX)];
    let two = |ch0: u8, ch1: u8| vec![Sample(0, 63, ch0, 0, MAX), Sample(64, 63, ch1, 0, MAX)];
    // An alpha sample of an sRGB format is linear (qualifier 0x10).
    let alpha = if srgb { 0x1F } else { 0x0F };
    Some(match format {
        // BC1 with its punch-through alpha (VK_FORMAT_BC1_RGBA; channel 1 = alpha present).
        BC1 => (s(134, 133), 1, 128, (4, 4), one(64, 1)),
        BC2 => (s(136, 135), 1, 129, (4, 4), two(alpha, 0)),
        BC3 => (s(138, 137), 1, 130, (4, 4), two(alpha, 0)),
        BC4 if !srgb => (139, 1, 131, (4, 4), one(64, 0)),
        BC5 if !srgb => (141, 1, 132, (4, 4), two(0, 1)),
        BC6HU if !srgb => (
            143,
            1,
            133,
            (4, 4),
            vec![Sample(0, 127, 0x80, 0, 0x3F80_0000)],
        ),
        BC7 => (s(146, 145), 1, 134, (4, 4), one(128, 0)),
        // ETC1 blocks are ETC2 RGB blocks (libktx wrote Compressonator's ETC1 file as 147 too).
        ETC1 | ETC2RGB => (s(148, 147), 1, 161, (4, 4), one(64, 2)),
        ETC2RGBA1 => (
            s(150, 149),
            1,
            161,
            (4, 4),
            vec![Sample(0, 63, 2, 0, MAX), Sample(0, 63, alpha, 0, MAX)],
        ),
        ETC2RGBA8 => (s(152, 151), 1, 161, (4, 4), two(alpha, 2)),
        EACR11 if !srgb => (153, 1, 161, (4, 4), one(64, 0)),
        EACRG11 if !srgb => (155, 1, 161, (4, 4), two(0, 1)),
        ASTC { w, h, hdr: false } => {
            let k = ASTC_FOOTPRINTS.iter().position(|&f| f == (w, h))? as u32;
            (157 + 2 * k + srgb as u32, 1, 162, (w, h), one(128, 0))
        }
        PVRTC4RGBA => (s(1_000_054_005, 1_000_054_001), 1, 164, (4, 4), one(64, 0)),
        PVRTC2RGBA => (s(1_000_054_004, 1_000_054_000), 1, 164, (8, 4), one(64, 0)),
        RGBA8 | BGRA8 => {
            let order: [u8; 4] = if format == RGBA8 {
                [0, 1, 2, 3]
            } else {
                [2, 1, 0, 3]
            };
            let samples = order
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let ch = if c == 3 { alpha } else { c };
                    Sample(8 * i as u16, 7, ch, 0, 255)
                })
                .collect();
            let id = match (format, srgb) {
                (RGBA8, false) => 37,
                (RGBA8, true) => 43,
                (_, false) => 44,
                _ => 50,
            };
            (id, 1, 1, (1, 1), samples)
        }
        _ => return None,
    })
}

/// The DFD block of `format`: dfdTotalSize, then one basic descriptor block (Khronos Data Format
/// 1.3: vendor 0, type 0, version 2, size 24 + 16 a sample; BT.709 primaries; linear or sRGB).
fn dfd(format: PixelFormat, srgb: bool) -> Option<(u32, u32, Vec<u8>)> {
    let (vk, type_size, model, (bw, bh), samples) = descriptor(format, srgb)?;
    let block = 24 + 16 * samples.len() as u32;
    let mut out = Vec::new();
    let mut u32s = |vs: &[u32]| {
        for v in vs {
            out.extend_from_slice(&v.to_le_bytes());
        }
    };
    let bytes = format.block().bytes;
    u32s(&[
        4 + block,
        0,
        2 | block << 16,
        model as u32 | 1 << 8 | (if srgb { 2 } else { 1 }) << 16,
        (bw as u32 - 1) | (bh as u32 - 1) << 8,
        bytes,
        0,
    ]);
    for Sample(offset, len, ch, lower, upper) in samples {
        u32s(&[
            offset as u32 | (len as u32) << 16 | (ch as u32) << 24,
            0,
            lower,
            upper,
        ]);
    }
    Some((vk, type_size, out))
}

/// Whether [`write`] can store `format` (with `srgb`).
pub fn can_write(format: PixelFormat, srgb: bool) -> bool {
    descriptor(format, srgb).is_some()
}

/// Writes a KTX 2 file (no supercompression) holding every mip and slice of `desc`, as
/// [`crate::formats::dds::write`] takes them (`surface(mip, slice)`; a volume's slice 0 holds all
/// its depth slices). `rows_up`: the stored rows run bottom first (Unity), said by
/// KTXorientation "ru" instead of "rd". Levels are stored smallest first, each at a multiple of
/// lcm(block bytes, 4), as the KTX 2.0 specification lays them out.
pub fn write(
    desc: &crate::formats::dds::Desc,
    rows_up: bool,
    mut surface: impl FnMut(u32, u32) -> Result<Vec<u8>>,
) -> Result<Vec<u8>> {
    use crate::model::TextureKind;
    let (vk, type_size, dfd) = dfd(desc.format, desc.srgb).ok_or_else(|| {
        Error::unsupported(format!(
            "{}{} has no KTX 2 writer here (--format dds keeps it)",
            desc.format.name(),
            if desc.srgb { " (sRGB)" } else { "" }
        ))
    })?;
    let (faces, layers, depth) = match desc.kind {
        TextureKind::Cube if desc.slices % 6 == 0 && desc.slices > 0 => {
            (6, if desc.slices > 6 { desc.slices / 6 } else { 0 }, 0)
        }
        TextureKind::Cube => {
            return Err(Error::malformed(format!(
                "a cube needs a multiple of 6 slices, not {}",
                desc.slices
            )))
        }
        TextureKind::Array => (1, desc.slices, 0),
        TextureKind::Volume => (1, 0, desc.depth),
        TextureKind::Tex2D => (1, 0, 0),
    };
    let slices = if desc.kind == TextureKind::Volume {
        1
    } else {
        desc.slices
    };
    let mut kv = Vec::new();
    let orientation: &[u8] = if rows_up { b"ru" } else { b"rd" };
    let writer = format!("texscope {}", env!("CARGO_PKG_VERSION"));
    for (key, value) in [
        (&b"KTXorientation"[..], orientation),
        (b"KTXwriter", writer.as_bytes()),
    ] {
        let len = key.len() + 1 + value.len() + 1;
        kv.extend_from_slice(&(len as u32).to_le_bytes());
        kv.extend_from_slice(key);
        kv.push(0);
        kv.extend_from_slice(value);
        kv.push(0);
        while kv.len() % 4 != 0 {
            kv.push(0);
        }
    }
    let levels = desc.mips.max(1);
    let dfd_offset = HEADER_LEN + LEVEL_ENTRY * levels as u64;
    let kvd_offset = dfd_offset + dfd.len() as u64;
    let bytes = desc.format.block().bytes as u64;
    let align = bytes * 4 / gcd(bytes, 4);
    let mut data = Vec::new();
    let mut index = vec![(0u64, 0u64); levels as usize];
    let mut at = kvd_offset + kv.len() as u64;
    for m in (0..levels).rev() {
        let (w, h, d) = mip_dims(desc.width, desc.height, desc.depth, m);
        let image = desc.format.surface_size(w, h)
            * if desc.kind == TextureKind::Volume {
                d as u64
            } else {
                1
            };
        let pad = (align - at % align) % align;
        data.resize(data.len() + pad as usize, 0);
        at += pad;
        let start = at;
        for s in 0..slices {
            let b = surface(m, s)?;
            if b.len() as u64 != image {
                return Err(Error::malformed(format!(
                    "mip {m} slice {s} has {} bytes, but a {w}x{h}x{d} {} image needs {image}",
                    b.len(),
                    desc.format.name()
                )));
            }
            data.extend_from_slice(&b);
            at += image;
        }
        index[m as usize] = (start, at - start);
    }
    let mut out = KTX2_IDENTIFIER.to_vec();
    for v in [
        vk,
        type_size,
        desc.width,
        desc.height,
        depth,
        layers,
        faces,
        levels,
        0,
        dfd_offset as u32,
        dfd.len() as u32,
        kvd_offset as u32,
        kv.len() as u32,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&[0; 16]); // no supercompression global data
    for (offset, length) in index {
        for v in [offset, length, length] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out.extend_from_slice(&dfd);
    out.extend_from_slice(&kv);
    out.extend_from_slice(&data);
    Ok(out)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Writes texture `tex` of `cat` as a .ktx2, every mip and slice exactly as stored.
pub fn export(cat: &crate::Catalog, tex: usize) -> Result<Vec<u8>> {
    let t = cat
        .textures
        .get(tex)
        .ok_or_else(|| Error::malformed(format!("no texture number {tex}")))?;
    let desc = crate::formats::dds::Desc::of(t);
    write(&desc, t.rows == RowOrder::BottomFirst, |m, s| {
        crate::formats::dds::stored(cat, tex, m, s)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::BytesSource;
    use crate::OpenOptions;

    fn ktx2(fields: [u32; 9], levels: &[(u64, u64)], data: &[u8]) -> Vec<u8> {
        let mut b = KTX2_IDENTIFIER.to_vec();
        for v in fields {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&[0; 32]);
        for (o, l) in levels {
            for v in [*o, *l, *l] {
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
        b.extend_from_slice(data);
        b
    }

    fn open_one(b: Vec<u8>) -> crate::Catalog {
        crate::open(
            vec![BytesSource::shared("t.ktx2", b)],
            &OpenOptions::default(),
        )
    }

    #[test]
    fn hostile_headers_are_refused() {
        // 2^31 x 2^31 (pixelWidth/pixelHeight, spec header fields 3 and 4).
        let c = open_one(ktx2(
            [145, 1, 1 << 31, 1 << 31, 0, 0, 1, 1, 0],
            &[(104, 16)],
            &[0; 16],
        ));
        assert!(c.problems[0].error.contains("limit"), "{:?}", c.problems);
        let c = open_one(ktx2(
            [145, 1, 4, 4, 0, u32::MAX, 6, 1, 0],
            &[(104, 16)],
            &[0; 16],
        ));
        assert!(c.problems[0].error.contains("limit"), "{:?}", c.problems);
        let c = open_one(ktx2(
            [145, 1, 4, 4, 0, 0, 1, 1000, 0],
            &[(104, 16)],
            &[0; 16],
        ));
        assert!(
            c.problems[0].error.contains("levelCount"),
            "{:?}",
            c.problems
        );
        let c = open_one(ktx2([145, 1, 4, 4, 0, 0, 3, 1, 0], &[(104, 16)], &[0; 16]));
        assert!(
            c.problems[0].error.contains("faceCount"),
            "{:?}",
            c.problems
        );
        // A level that points past the end is listed as missing, not read.
        let c = open_one(ktx2([145, 1, 4, 4, 0, 0, 1, 1, 0], &[(1 << 40, 16)], &[]));
        assert_eq!(c.textures[0].mips_present(), vec![false]);
        assert_eq!(
            c.read_surface(0, 0, 0).unwrap_err().kind,
            crate::ErrorKind::Truncated
        );
        // Too short for the header.
        let c = open_one(KTX2_IDENTIFIER[..].to_vec());
        assert!(c.problems[0].error.contains("ends"), "{:?}", c.problems);
    }

    #[test]
    fn supercompressed_and_unknown_are_listed_with_errors() {
        let c = open_one(ktx2([145, 1, 4, 4, 0, 0, 1, 1, 3], &[(104, 16)], &[0; 16]));
        assert!(c.textures[0].error.as_deref().unwrap().contains("ZLIB"));
        // Zstandard is read, but these 16 zero bytes are no Zstandard frame.
        let c = open_one(ktx2([145, 1, 4, 4, 0, 0, 1, 1, 2], &[(104, 16)], &[0; 16]));
        assert_eq!(c.textures[0].error, None);
        let e = c.read_surface(0, 0, 0).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Malformed, "{e}");
        assert!(e.to_string().contains("Zstandard"), "{e}");
        let c = open_one(ktx2([7777, 1, 4, 4, 0, 0, 1, 1, 0], &[(104, 16)], &[0; 16]));
        assert!(c.textures[0]
            .error
            .as_deref()
            .unwrap()
            .contains("vkFormat 7777"));
    }
}
