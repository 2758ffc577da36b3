//! Loose PlayStation textures (.gnf): version 2 (PS4, written by the PS4 SDK's image2gnf) and
//! version 5 (PS5). A GNF is a small header, one texture descriptor (the GPU's own 8-dword image
//! resource, "T#") and the surface, tiled as the console's GPU reads it: GCN tile modes on PS4,
//! RDNA swizzle modes on PS5 ([`crate::codec::tiling`]).
//!
//! Layout, as read from the shared PS4 and PS5 sample files (their sources beside them confirm
//! every field below):
//! - `GNF ` magic, then u32 `contentsSize`: the surface starts at `8 + contentsSize`
//!   (0x100 on PS4, 0x10000 on PS5).
//! - byte 8 `version`, byte 9 `count` (textures in the file), byte 10 `alignment` (log2).
//! - the descriptor at 0x10 (version 2) or 0x28 (version 5); its last dword holds the surface's
//!   byte size in a file (a GPU's base-address bits there are not used).
//!
//! The descriptors' bit fields are the AMD ISA documents': the "Southern Islands Series
//! Instruction Set Architecture" (image resource, T#) for PS4 and the "RDNA 1.0 Instruction Set
//! Architecture" image descriptor for PS5; both cited field by field below.
//!
//! Without the `gnf` feature (the page's core module) a GNF is only recognised, as NotInBuild, and
//! the page reopens it in the full module.
#![cfg_attr(not(feature = "gnf"), allow(dead_code, unused_imports))]

use crate::codec::tiling::Tiling;
#[cfg(feature = "gnf")]
use crate::codec::tiling::{gcn, rdna};
use crate::codec::PixelFormat;
use crate::io::{read_up_to, Error, Result};
use crate::model::{
    ColorSpace, Engine, Layout, Mip, NativeFormat, Platform, RowOrder, Storage, Texture,
    TextureKind,
};
use crate::{file_stem, FileProblem, OpenContext};

pub const MAGIC: &[u8; 4] = b"GNF ";
/// Bytes of header read: the version 5 descriptor ends at 0x48.
const HEADER_LEN: u64 = 0x48;

/// Claims every file that starts with the `GNF ` magic.
pub fn open(ctx: &mut OpenContext) {
    for i in ctx.unclaimed() {
        let name = ctx.sources[i].name().to_string();
        let Ok(head) = ctx.head(i, HEADER_LEN) else {
            continue;
        };
        if !head.starts_with(MAGIC) {
            continue;
        }
        ctx.claimed[i] = true;
        #[cfg(not(feature = "gnf"))]
        let described = Err(Error::not_in_build("a PS4/PS5 texture (.gnf)", "gnf"));
        #[cfg(feature = "gnf")]
        let described = describe(ctx, i, &name);
        match described {
            Ok(t) => ctx.textures.push(t),
            Err(e) => ctx.problems.push(FileProblem::new(
                &name,
                Some(Engine::Gnf),
                &e.in_file(&name),
            )),
        }
    }
}

/// The fields of a texture descriptor this reader uses, in the ISA documents' names.
#[cfg(feature = "gnf")]
#[derive(Debug)]
struct Descriptor {
    platform: Platform,
    format: PixelFormat,
    native: String,
    srgb: bool,
    width: u32,
    height: u32,
    /// Mips of the allocation (`last_level + 1` on PS4, `max_mip + 1` on PS5).
    mips: u32,
    tiling: Tiling,
    layout: String,
    notes: Vec<String>,
}

#[cfg(feature = "gnf")]
fn describe(ctx: &OpenContext, i: usize, name: &str) -> Result<Texture> {
    let src = ctx.sources[i].as_ref();
    let file_len = src.len();
    let head = read_up_to(src, 0, HEADER_LEN, &ctx.limits)?;
    if head.len() < 16 {
        return Err(Error::malformed(format!(
            "the file ends at byte {} inside the 16-byte GNF header",
            head.len()
        )));
    }
    let u32_at =
        |at: usize| u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    let contents_size = u32_at(4);
    let (version, count) = (head[8], head[9]);
    if count != 1 {
        return Err(Error::unsupported(format!(
            "the GNF header's count says {count} textures; this build reads GNF files of one texture"
        )));
    }
    let desc_at = match version {
        2 => 0x10,
        5 => 0x28,
        v => {
            return Err(Error::unsupported(format!(
                "GNF version {v}: this build reads version 2 (PS4) and 5 (PS5)"
            )))
        }
    };
    if head.len() < desc_at + 32 {
        return Err(Error::malformed(format!(
            "the file ends at byte {} inside the texture descriptor (bytes {desc_at:#x}-{:#x})",
            head.len(),
            desc_at + 32
        )));
    }
    let mut w = [0u32; 8];
    for (k, word) in w.iter_mut().enumerate() {
        *word = u32_at(desc_at + 4 * k);
    }
    let d = if version == 2 {
        gcn_descriptor(&w)?
    } else {
        rdna_descriptor(&w)?
    };
    ctx.limits.check_dims(d.width, d.height, 1)?;
    if d.mips > ctx.limits.max_mips {
        return Err(Error::limit(format!(
            "the descriptor's {} mips are over the {} mip limit",
            d.mips, ctx.limits.max_mips
        )));
    }
    let data_start = 8 + contents_size as u64;
    let data_size = w[7] as u64;
    if data_start.saturating_add(data_size) > file_len {
        return Err(Error::malformed(format!(
            "the descriptor's surface size ({data_size} bytes from offset {data_start}) runs past the end of the {file_len}-byte file"
        )));
    }
    let dims = |l: u32| ((d.width >> l).max(1), (d.height >> l).max(1));
    // Where each mip lives inside the surface data.
    let places: Vec<(u64, u64)> = match d.tiling {
        Tiling::Rdna { swizzle_mode, .. } => {
            let (places, _, total) =
                rdna::chain(swizzle_mode, d.format, d.width, d.height, d.mips)?;
            if total > data_size {
                return Err(size_error(&d, total, data_size));
            }
            places.iter().map(|p| (p.offset, p.length)).collect()
        }
        tiling => {
            // GCN: mip 0 first; the smaller mips' placement is not known (codec::tiling::gcn),
            // so they point at the rest of the data and decoding one says so.
            let (w0, h0) = dims(0);
            let first = crate::codec::tiling::stored_size(tiling, d.format, 0, w0, h0)?;
            if first > data_size {
                return Err(size_error(&d, first, data_size));
            }
            let mut v = vec![(0, first)];
            v.extend((1..d.mips).map(|_| (first, data_size - first)));
            v
        }
    };
    let mips = places
        .iter()
        .enumerate()
        .map(|(l, &(offset, length))| {
            let (mw, mh) = dims(l as u32);
            Mip {
                width: mw,
                height: mh,
                depth: 1,
                surfaces: vec![Storage::Range {
                    source: i,
                    offset: data_start + offset,
                    length,
                }],
                location_note: "inline".into(),
            }
        })
        .collect();
    Ok(Texture {
        file: name.to_string(),
        path: None,
        engine: Engine::Gnf,
        name: file_stem(name).to_string(),
        class: "GNF".into(),
        kind: TextureKind::Tex2D,
        format: d.format,
        native_format: NativeFormat::Name(d.native.clone()),
        width: d.width,
        height: d.height,
        depth: 1,
        authored: None,
        slices: 1,
        mips,
        color_space: if d.srgb {
            ColorSpace::Srgb
        } else {
            ColorSpace::Linear
        },
        normal_map: None,
        rows: RowOrder::TopFirst,
        layout: Layout::Surfaces,
        platform: Some(d.platform),
        tiling: d.tiling,
        metadata: vec![
            ("GNF version".into(), version.to_string()),
            ("layout".into(), d.layout.clone()),
            ("native format".into(), d.native.clone()),
            ("surface bytes".into(), data_size.to_string()),
        ],
        notes: d.notes,
        error: None,
    })
}

#[cfg(feature = "gnf")]
fn size_error(d: &Descriptor, need: u64, have: u64) -> Error {
    Error::malformed(format!(
        "the descriptor ({}x{} {}, {} mips, {}) needs {need} bytes of surface, but its size field says {have}",
        d.width,
        d.height,
        d.native,
        d.mips,
        d.layout
    ))
}

/// `dst_sel_x..w` of both descriptors (bits 96-107, 3 bits each): 4-7 pick the stored
/// component X-W, 0 and 1 the constants.
#[cfg(feature = "gnf")]
fn channel_order(word3: u32) -> [u32; 4] {
    [0, 3, 6, 9].map(|s| (word3 >> s) & 7)
}

/// An 8_8_8_8 surface's pixel format from its channel selects: image2gnf writes BGRA as
/// `dst_sel = Z, Y, X, W` (or `1` for an opaque alpha).
#[cfg(feature = "gnf")]
fn rgba8_order(sel: [u32; 4], notes: &mut Vec<String>) -> PixelFormat {
    match sel {
        [4, 5, 6, 7] | [4, 5, 6, 1] => PixelFormat::RGBA8,
        [6, 5, 4, 7] => PixelFormat::BGRA8,
        [6, 5, 4, 1] => PixelFormat::BGRX8,
        other => {
            notes.push(format!(
                "channel selects {other:?} (4-7 = stored X-W) are shown as stored"
            ));
            PixelFormat::RGBA8
        }
    }
}

/// The PS4 (GCN) T#. Bit positions: Southern Islands ISA, "Image Resource Definition":
/// data_format 52-57, num_format 58-61, width-1 64-77, height-1 78-91, dst_sel 96-107,
/// base_level 108-111, last_level 112-115, tiling_index 116-120, type 124-127, pitch-1 141-154.
#[cfg(feature = "gnf")]
fn gcn_descriptor(w: &[u32; 8]) -> Result<Descriptor> {
    let data_format = (w[1] >> 20) & 0x3f;
    let num_format = (w[1] >> 26) & 0xf;
    let width = (w[2] & 0x3fff) + 1;
    let height = ((w[2] >> 14) & 0x3fff) + 1;
    let last_level = (w[3] >> 16) & 0xf;
    let tile_mode = (w[3] >> 20) & 0x1f;
    let kind = (w[3] >> 28) & 0xf;
    let pitch = ((w[4] >> 13) & 0x3fff) + 1;
    // SQ_RSRC_IMG_2D.
    if kind != 9 {
        return Err(Error::unsupported(format!(
            "the descriptor's type is {kind}; this build reads 2D textures (type 9) from a GNF"
        )));
    }
    // IMG_NUM_FORMAT_SRGB = 9, SNORM = 1 (same ISA document).
    let srgb = num_format == 9;
    let mut notes = Vec::new();
    // IMG_DATA_FORMAT values of the ISA document: 1 = 8, 3 = 8_8, 10 = 8_8_8_8, 35-41 = BC1-BC7.
    let (format, native) = match data_format {
        1 => (PixelFormat::R8, "8"),
        3 => (PixelFormat::RG8, "8_8"),
        10 => (rgba8_order(channel_order(w[3]), &mut notes), "8_8_8_8"),
        35 => (PixelFormat::BC1, "BC1"),
        36 => (PixelFormat::BC2, "BC2"),
        37 => (PixelFormat::BC3, "BC3"),
        38 if num_format == 1 => (PixelFormat::BC4S, "BC4"),
        38 => (PixelFormat::BC4, "BC4"),
        39 if num_format == 1 => (PixelFormat::BC5S, "BC5"),
        39 => (PixelFormat::BC5, "BC5"),
        40 if num_format == 1 => (PixelFormat::BC6HS, "BC6"),
        40 => (PixelFormat::BC6HU, "BC6"),
        41 => (PixelFormat::BC7, "BC7"),
        other => {
            return Err(Error::unsupported(format!(
                "the descriptor's data_format {other} (num_format {num_format}) is not one this build decodes"
            )))
        }
    };
    let layout = if tile_mode == gcn::DISPLAY_LINEAR_ALIGNED {
        format!("PS4 GCN linear aligned, pitch {pitch}")
    } else {
        format!("PS4 GCN {}, pitch {pitch}", gcn::mode_name(tile_mode))
    };
    Ok(Descriptor {
        platform: Platform::Ps4,
        format,
        native: format!("{native} (num_format {num_format})"),
        srgb,
        width,
        height,
        mips: last_level + 1,
        tiling: Tiling::Gcn { tile_mode, pitch },
        layout,
        notes,
    })
}

/// The PS5 (GFX10) image descriptor. Bit positions: RDNA 1.0 ISA, "Image Resource" table:
/// format 52-60, width-1 62-75 (split over dwords 1 and 2), height-1 78-93, dst_sel 96-107,
/// base_level 108-111, last_level 112-115, sw_mode 116-120, type 124-127, max_mip 164-167.
#[cfg(feature = "gnf")]
fn rdna_descriptor(w: &[u32; 8]) -> Result<Descriptor> {
    let fmt = (w[1] >> 20) & 0x1ff;
    let width = ((w[1] >> 30) | ((w[2] & 0xfff) << 2)) + 1;
    let height = ((w[2] >> 14) & 0xffff) + 1;
    let last_level = (w[3] >> 16) & 0xf;
    let sw_mode = (w[3] >> 20) & 0x1f;
    let kind = (w[3] >> 28) & 0xf;
    let max_mip = (w[5] >> 4) & 0xf;
    if kind != 9 {
        return Err(Error::unsupported(format!(
            "the descriptor's type is {kind}; this build reads 2D textures (type 9) from a GNF"
        )));
    }
    if last_level > max_mip {
        return Err(Error::malformed(format!(
            "the descriptor's last_level {last_level} is past its max_mip {max_mip}"
        )));
    }
    let mut notes = Vec::new();
    // GFX10 IMG_FORMAT values (RDNA ISA format table): 56 8_8_8_8_UNORM, 62 8_8_8_8_SRGB,
    // 169-182 BC1_UNORM, BC1_SRGB ... BC7_SRGB.
    let (format, native, srgb) = match fmt {
        56 => (
            rgba8_order(channel_order(w[3]), &mut notes),
            "8_8_8_8_UNORM",
            false,
        ),
        62 => (
            rgba8_order(channel_order(w[3]), &mut notes),
            "8_8_8_8_SRGB",
            true,
        ),
        169 => (PixelFormat::BC1, "BC1_UNORM", false),
        170 => (PixelFormat::BC1, "BC1_SRGB", true),
        171 => (PixelFormat::BC2, "BC2_UNORM", false),
        172 => (PixelFormat::BC2, "BC2_SRGB", true),
        173 => (PixelFormat::BC3, "BC3_UNORM", false),
        174 => (PixelFormat::BC3, "BC3_SRGB", true),
        175 => (PixelFormat::BC4, "BC4_UNORM", false),
        176 => (PixelFormat::BC4S, "BC4_SNORM", false),
        177 => (PixelFormat::BC5, "BC5_UNORM", false),
        178 => (PixelFormat::BC5S, "BC5_SNORM", false),
        179 => (PixelFormat::BC6HU, "BC6_UFLOAT", false),
        180 => (PixelFormat::BC6HS, "BC6_SFLOAT", false),
        181 => (PixelFormat::BC7, "BC7_UNORM", false),
        182 => (PixelFormat::BC7, "BC7_SRGB", true),
        other => {
            return Err(Error::unsupported(format!(
                "the descriptor's format {other} is not one this build decodes"
            )))
        }
    };
    let mips = max_mip + 1;
    let (_, first_mip_in_tail, _) = rdna::chain(sw_mode, format, width, height, mips)?;
    Ok(Descriptor {
        platform: Platform::Ps5,
        format,
        native: native.to_string(),
        srgb,
        width,
        height,
        mips,
        tiling: Tiling::Rdna {
            swizzle_mode: sw_mode,
            first_mip_in_tail,
        },
        layout: format!("PS5 RDNA {}", rdna::mode_name(sw_mode)),
        notes,
    })
}
