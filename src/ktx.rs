//! Loose KTX 2 files (.ktx2) without supercompression: header, level index and key/value data
//! are read as ranges; each level's images become `Storage::Range`s into the file.
//!
//! Layout facts from the Khronos KTX 2.0 specification: the 12-byte identifier, nine u32 header
//! fields, the index (dfd/kvd offsets as u32, sgd as u64), then `max(1, levelCount)` level
//! entries of three u64 (byteOffset, byteLength, uncompressedByteLength) from byte 80. A level
//! holds, for each layer, each face, each z slice, one image. Format numbers are Vulkan's VkFormat.

use crate::codec::{PixelFormat, ASTC_FOOTPRINTS};
use crate::io::{read_range, Error, Reader, Result};
use crate::model::{
    mip_dims, ColorSpace, Engine, Layout, Mip, NativeFormat, RowOrder, Storage, Texture,
    TextureKind,
};
use crate::{file_stem, FileProblem, OpenContext};

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

/// Claims .ktx2 (and names .ktx 1 files, which are not read yet) among the opened files.
pub fn open(ctx: &mut OpenContext) {
    for i in ctx.unclaimed() {
        let Ok(head) = ctx.head(i, HEADER_LEN) else {
            continue;
        };
        let name = ctx.sources[i].name().to_string();
        if head.starts_with(&KTX1_IDENTIFIER) {
            ctx.claimed[i] = true;
            let e = Error::unsupported(
                "KTX 1 files are not read yet: convert it with `ktx create` (KTX-Software) to .ktx2",
            )
            .in_file(&name);
            ctx.problems
                .push(FileProblem::new(&name, Some(Engine::Ktx), &e));
            continue;
        }
        if !head.starts_with(&KTX2_IDENTIFIER) {
            continue;
        }
        ctx.claimed[i] = true;
        match describe(ctx, i, &head) {
            Ok(t) => ctx.textures.push(t),
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

fn describe(ctx: &OpenContext, source: usize, head: &[u8]) -> Result<Texture> {
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

    let mut error = None;
    let (format, srgb) = match vk_format(h.vk_format) {
        Some(f) => f,
        None => {
            error = Some(if h.vk_format == 0 {
                if h.supercompression_scheme == 1 {
                    "Basis Universal ETC1S (BasisLZ) data is not decoded yet".to_string()
                } else {
                    "Basis Universal UASTC (vkFormat 0) data is not decoded yet".to_string()
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
    if error.is_none() && h.supercompression_scheme != 0 {
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

    let mut notes = Vec::new();
    let mut r = Reader::new(&index);
    let mut mips = Vec::with_capacity(levels as usize);
    for level in 0..levels {
        let byte_offset = r.u64()?;
        let byte_length = r.u64()?;
        let _uncompressed_byte_length = r.u64()?;
        let (w, hh, d) = mip_dims(h.pixel_width, h.pixel_height, depth, level);
        let mut surfaces = Vec::new();
        if error.is_none() {
            let image = format.surface_size(w, hh) * d as u64;
            let need = image * slices as u64;
            if byte_length < need {
                return Err(Error::malformed(format!(
                    "level {level} holds {byte_length} bytes, but {slices} {w}x{hh}x{d} {} image(s) need {need}",
                    format.name()
                ))
                .at_field("ktx2/levelIndex/byteLength"));
            }
            let in_file = byte_offset
                .checked_add(need)
                .is_some_and(|end| end <= file_len);
            if !in_file {
                notes.push(format!(
                    "level {level} (bytes {byte_offset}+{need}) lies past the end of the file ({file_len} bytes): the file is cut short"
                ));
            }
            for s in 0..slices as u64 {
                surfaces.push(if in_file {
                    Storage::Range {
                        source,
                        offset: byte_offset + s * image,
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
    Ok(Texture {
        file: name.clone(),
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
        metadata: meta,
        notes,
        error,
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
        let c = open_one(ktx2([145, 1, 4, 4, 0, 0, 1, 1, 2], &[(104, 16)], &[0; 16]));
        assert!(c.textures[0]
            .error
            .as_deref()
            .unwrap()
            .contains("Zstandard"));
        let c = open_one(ktx2([7777, 1, 4, 4, 0, 0, 1, 1, 0], &[(104, 16)], &[0; 16]));
        assert!(c.textures[0]
            .error
            .as_deref()
            .unwrap()
            .contains("vkFormat 7777"));
    }
}
