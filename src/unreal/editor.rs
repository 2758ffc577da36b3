//! Editor (uncooked) packages: what a texture export of a package saved by the editor holds
//! instead of cooked platform data. Its tagged properties (UTexture's `Source`, an
//! `FTextureSource` struct: size, slices, mips, layers, blocks, format, compression) say what the
//! source art is; after them UObject's GUID flag, UTexture's FStripDataFlags and the source's
//! bulk data say where its bytes are: UE4's `FUntypedBulkData` (inline, or at the end of the file
//! after the summary's BulkDataStartOffset, zlib-compressed or not) or UE5's `FEditorBulkData`
//! (a payload in the package trailer, a `.upayload` sidecar, or virtualized). docs/unreal.md,
//! "Editor packages", gives the layout with the source of each fact.
//!
//! [`read_image`] unwraps and decodes only what one mip and slice needs, at decode time.

use super::bulk::{self, Payload};
use super::cursor::Cursor;
use super::package::{Export, Package};
use super::props::Walk;
use crate::codec::PixelFormat;
use crate::io::{Error, Limits, Result, Source};
use crate::model::{SourceCoding, SourceLayout, SourcePlane, SourceTexels, SourceWrap, Storage};

/// Render-target classes: an editor package keeps only their settings (the engine draws them).
pub fn is_render_target(class: &str) -> bool {
    class.starts_with("TextureRenderTarget")
}

/// One UDIM tile of a multi-block source (FTextureSourceBlock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub x: i32,
    pub y: i32,
    pub size_x: u32,
    pub size_y: u32,
    pub slices: u32,
    pub mips: u32,
}

/// What a texture's `Source` property (FTextureSource) says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInfo {
    pub size_x: u32,
    pub size_y: u32,
    pub slices: u32,
    pub mips: u32,
    pub layers: u32,
    /// ETextureSourceFormat name ("TSF_BGRA8").
    pub format: String,
    /// UE4's bPNGCompressed.
    pub png: bool,
    /// UE5's ETextureSourceCompressionFormat name, when stored ("TSCF_PNG").
    pub compression: Option<String>,
    /// Every block after the first (UDIM tiles); block 0 is `size_x` x `size_y` at (`base_x`,
    /// `base_y`).
    pub blocks: Vec<Block>,
    /// BaseBlockX, BaseBlockY: block 0's place in the UDIM grid.
    pub base_x: i32,
    pub base_y: i32,
    /// LayerFormat (UE 4.23+): each layer's ETextureSourceFormat name.
    pub layer_formats: Vec<String>,
    /// BlockDataOffsets (UE5): where each block starts in the unwrapped payload.
    pub block_offsets: Vec<u64>,
    pub long_lat_cubemap: bool,
}

fn num(w: &Walk, name: &str) -> Option<u32> {
    w.get(name).and_then(|v| v.parse().ok())
}

impl SourceInfo {
    /// Reads the `Source.*` values a tagged walk recorded; `None` when there is no `Source`.
    pub fn from_walk(w: &Walk) -> Option<SourceInfo> {
        let format = w.get("Source.Format")?.to_string();
        let blocks = (0..4096)
            .map_while(|i| {
                let k = |f: &str| format!("Source.Blocks[{i}].{f}");
                Some(Block {
                    x: w.get(&k("BlockX"))
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(0),
                    y: w.get(&k("BlockY"))
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(0),
                    size_x: num(w, &k("SizeX"))?,
                    size_y: num(w, &k("SizeY"))?,
                    slices: num(w, &k("NumSlices")).unwrap_or(1),
                    mips: num(w, &k("NumMips")).unwrap_or(1),
                })
            })
            .collect();
        Some(SourceInfo {
            size_x: num(w, "Source.SizeX").unwrap_or(0),
            size_y: num(w, "Source.SizeY").unwrap_or(0),
            // FTextureSource's constructor leaves these at 0 / 1; a stored 0 is still read as 1.
            slices: num(w, "Source.NumSlices").unwrap_or(1).max(1),
            mips: num(w, "Source.NumMips").unwrap_or(1).max(1),
            layers: num(w, "Source.NumLayers").unwrap_or(1).max(1),
            format,
            png: w.get("Source.bPNGCompressed") == Some("true"),
            compression: w.get("Source.CompressionFormat").map(str::to_string),
            blocks,
            base_x: w
                .get("Source.BaseBlockX")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
            base_y: w
                .get("Source.BaseBlockY")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
            layer_formats: (0..4096)
                .map_while(|i| {
                    w.get(&format!("Source.LayerFormat[{i}]"))
                        .map(str::to_string)
                })
                .collect(),
            block_offsets: (0..4096)
                .map_while(|i| {
                    w.get(&format!("Source.BlockDataOffsets[{i}]"))
                        .and_then(|v| v.parse().ok())
                })
                .collect(),
            long_lat_cubemap: w.get("Source.bLongLatCubemap") == Some("true"),
        })
    }

    /// Every block, block 0 first: UE's FTextureSource::GetBlock gives block 0 as the source's
    /// own SizeX, SizeY, NumSlices and NumMips at (BaseBlockX, BaseBlockY) and block i as
    /// Blocks[i - 1].
    pub fn all_blocks(&self) -> Vec<Block> {
        let first = Block {
            x: self.base_x,
            y: self.base_y,
            size_x: self.size_x,
            size_y: self.size_y,
            slices: self.slices,
            mips: self.mips,
        };
        std::iter::once(first)
            .chain(self.blocks.iter().copied())
            .collect()
    }

    /// Layer `layer`'s format: `Format` for layer 0 (what every package states; the shared UE5
    /// samples' one LayerFormat equals it), LayerFormat[layer] for the others.
    pub fn layer_format(&self, layer: u32) -> Option<&str> {
        if layer == 0 {
            Some(&self.format)
        } else {
            self.layer_formats.get(layer as usize).map(String::as_str)
        }
    }

    /// How the payload's bytes are coded: UE5's CompressionFormat, else UE4's PNG flag.
    pub fn coding(&self) -> Result<SourceCoding> {
        Ok(match self.compression.as_deref() {
            None | Some("TSCF_None") if !self.png => SourceCoding::Raw,
            None | Some("TSCF_None") | Some("TSCF_PNG") => SourceCoding::Png,
            // UEJPEG is UE's own JPEG variant; its decoder is not public.
            Some("TSCF_JPEG") => SourceCoding::Jpeg,
            Some("TSCF_UEDELTA") => SourceCoding::UeDelta,
            Some(other) => {
                return Err(Error::unsupported(format!(
                    "source compression {other} (known: TSCF_None, TSCF_PNG, TSCF_JPEG, \
                     TSCF_UEDELTA)"
                ))
                .at_field("unreal/FTextureSource/CompressionFormat"))
            }
        })
    }
}

/// ETextureSourceFormat -> (bytes per texel, the texture's pixel format, how texels widen).
/// TSF_RGBA8 and TSF_RGBE8 are UE4's names from before VER_UE4_TEXTURE_FORMAT_RGBA_SWIZZLE
/// renamed them BGRA8 / BGRE8 (the bytes were always B, G, R, A); UE5 keeps them as
/// *_DEPRECATED.
pub fn source_format(name: &str) -> Option<(u64, PixelFormat, SourceTexels)> {
    use PixelFormat as P;
    use SourceTexels as T;
    Some(match name {
        "TSF_G8" => (1, P::L8, T::Same),
        "TSF_BGRA8" | "TSF_RGBA8" | "TSF_RGBA8_DEPRECATED" => (4, P::BGRA8, T::Same),
        "TSF_BGRE8" | "TSF_RGBE8" | "TSF_RGBE8_DEPRECATED" => (4, P::RGBA32F, T::Bgre8),
        "TSF_RGBA16" => (8, P::RGBA16, T::Same),
        "TSF_RGBA16F" => (8, P::RGBA16F, T::Same),
        "TSF_RGBA32F" => (16, P::RGBA32F, T::Same),
        "TSF_G16" => (2, P::RGBA16, T::Gray16),
        "TSF_R16F" => (2, P::R16F, T::Same),
        "TSF_R32F" => (4, P::R32F, T::Same),
        _ => return None,
    })
}

/// Where an editor texture's source bytes are, as its bulk-data record says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bulk {
    /// UE4 `FUntypedBulkData`: its flags, the raw (ElementCount) size and where it is.
    Ue4 {
        flags: u32,
        raw_size: u64,
        payload: Payload,
    },
    /// UE5 `FEditorBulkData`: its flags, payload hash (FIoHash), raw size and, when the
    /// record says it, the payload's offset in the package file.
    Ue5 {
        flags: u32,
        hash: [u8; 20],
        raw_size: u64,
        offset: Option<i64>,
    },
    /// The strip flags say the editor data was stripped: no source.
    Stripped,
}

/// FEditorBulkData::EFlags (UE's EditorBulkData.h; CUE4Parse FEditorBulkData).
pub mod ebd {
    pub const IS_VIRTUALIZED: u32 = 1 << 0;
    pub const HAS_PAYLOAD_SIDECAR_FILE: u32 = 1 << 1;
    pub const REFERENCES_LEGACY_FILE: u32 = 1 << 2;
    pub const LEGACY_FILE_IS_COMPRESSED: u32 = 1 << 3;
    pub const REFERENCES_WORKSPACE_DOMAIN: u32 = 1 << 8;
    pub const STORED_IN_PACKAGE_TRAILER: u32 = 1 << 9;

    pub fn describe(f: u32) -> String {
        const NAMES: &[(u32, &str)] = &[
            (1 << 0, "IsVirtualized"),
            (1 << 1, "HasPayloadSidecarFile"),
            (1 << 2, "ReferencesLegacyFile"),
            (1 << 3, "LegacyFileIsCompressed"),
            (1 << 4, "DisablePayloadCompression"),
            (1 << 5, "LegacyKeyWasGuidDerived"),
            (1 << 6, "HasRegistered"),
            (1 << 7, "IsTornOff"),
            (1 << 8, "ReferencesWorkspaceDomain"),
            (1 << 9, "StoredInPackageTrailer"),
        ];
        super::super::bulk::flag_names(f, NAMES)
    }
}

/// Whether the source bytes follow in UE5's FEditorBulkData form: packages saved by UE5 with a
/// FileVersionUE5 (LegacyFileVersion -8 and later). UE 5.0 early-access packages (-7, no UE5
/// version) still wrote UE4's bulk data.
fn editor_bulk_data(pkg: &Package) -> bool {
    pkg.legacy_version <= -8 && pkg.ue5_version >= 1000
}

/// Reads what follows an editor texture export's tagged properties (which end at `at`):
/// UObject's i32 "has GUID" flag (+ the GUID), UTexture's FStripDataFlags (global and class
/// byte; global bit 1 = editor data stripped) and the source's bulk-data record.
pub fn read_bulk(
    src: &dyn Source,
    pkg: &Package,
    export: &Export,
    at: u64,
    limits: &Limits,
) -> Result<Bulk> {
    let end = export.start.saturating_add(export.size);
    let mut c = Cursor::new(src, at, end, limits);
    let field = |e: Error, f: &str| e.at_field(f).in_file(src.name());
    let has_guid = c
        .bool32()
        .map_err(|e| field(e, "unreal/UObject/bHasGuid"))?;
    if has_guid {
        c.skip(16).map_err(|e| field(e, "unreal/UObject/Guid"))?;
    }
    let strip = c
        .u8()
        .map_err(|e| field(e, "unreal/UTexture/FStripDataFlags"))?;
    c.u8()
        .map_err(|e| field(e, "unreal/UTexture/FStripDataFlags"))?;
    if strip & 1 != 0 {
        return Ok(Bulk::Stripped);
    }
    if editor_bulk_data(pkg) {
        let f = "unreal/FEditorBulkData";
        let flags = c.u32().map_err(|e| field(e, f))?;
        c.skip(16)
            .map_err(|e| field(e, "unreal/FEditorBulkData/BulkDataId"))?;
        let h = c
            .bytes(20)
            .map_err(|e| field(e, "unreal/FEditorBulkData/PayloadContentId"))?;
        let mut hash = [0u8; 20];
        hash.copy_from_slice(&h);
        let size = c
            .i64()
            .map_err(|e| field(e, "unreal/FEditorBulkData/PayloadSize"))?;
        if size < 0 {
            return Err(field(
                Error::malformed(format!("a payload of {size} bytes")),
                "unreal/FEditorBulkData/PayloadSize",
            ));
        }
        let offset = if flags & (ebd::STORED_IN_PACKAGE_TRAILER | ebd::IS_VIRTUALIZED) == 0 {
            Some(
                c.i64()
                    .map_err(|e| field(e, "unreal/FEditorBulkData/OffsetInFile"))?,
            )
        } else {
            None
        };
        return Ok(Bulk::Ue5 {
            flags,
            hash,
            raw_size: size as u64,
            offset,
        });
    }
    let (payload, flags) =
        bulk::read_bulk_header(&mut c, pkg, 0).map_err(|e| field(e, "unreal/FUntypedBulkData"))?;
    let raw_size = match &payload {
        Payload::Zlib { raw_size, .. } => *raw_size,
        Payload::Inline { size, .. } | Payload::External { size, .. } => *size,
        Payload::Nothing | Payload::Unreadable(_) => 0,
    };
    Ok(Bulk::Ue4 {
        flags,
        raw_size,
        payload,
    })
}

/// The byte ranges of every mip and slice of one block and layer of a raw source, the first
/// at `start`: each mip all its slices, mip after mip (UE's FTextureSource::CalcMipOffset and
/// CalcMipSize). `bpp` bytes per texel; a volume's slices halve with its mips from UE 5 on
/// (`volume_mips`: UE5's GetMippedNumSlices; the shared set has no volume texture).
pub fn raw_images(block: &Block, bpp: u64, volume_mips: bool, start: u64) -> Vec<Vec<(u64, u64)>> {
    let mut out = Vec::new();
    let mut at = start;
    for m in 0..block.mips.clamp(1, 32) {
        let w = (block.size_x >> m).max(1) as u64;
        let h = (block.size_y >> m).max(1) as u64;
        let d = if volume_mips {
            (block.slices >> m).max(1)
        } else {
            block.slices.max(1)
        } as u64;
        let one = w * h * bpp;
        out.push((0..d).map(|s| (at + s * one, one)).collect());
        at = at.saturating_add(one * d);
    }
    out
}

/// Where a block and layer's images end in the payload (the first byte after them).
pub fn raw_total(images: &[Vec<(u64, u64)>]) -> u64 {
    images
        .iter()
        .flat_map(|m| m.last())
        .map(|&(o, l)| o + l)
        .max()
        .unwrap_or(0)
}

/// The UDIM tile number of a block: 1001 + BlockX + 10 × BlockY (UE's UDIM naming, as its
/// importer reads `name.1002.png`; the same rule as the virtual-texture UDIM blocks).
pub fn udim(b: &Block) -> i64 {
    1001 + b.x as i64 + 10 * b.y as i64
}

/// One block and layer of a source and where its images are in the unwrapped payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Index in [`SourceInfo::all_blocks`] (0: the source's own size).
    pub block: usize,
    pub layer: u32,
    pub at: Block,
    /// The layer's ETextureSourceFormat name.
    pub format: String,
    /// `images[mip][slice]` = (offset, length) in the unwrapped payload; empty for PNG/JPEG.
    pub images: Vec<Vec<(u64, u64)>>,
}

impl Part {
    /// "block 1 (UDIM 1002), layer 0", for messages.
    pub fn label(&self) -> String {
        format!(
            "block {} (UDIM {}), layer {}",
            self.block,
            udim(&self.at),
            self.layer
        )
    }
}

/// Every block and layer of a raw or UEDELTA source, in the order the payload holds them (UE's
/// FTextureSource::CalcMipOffset, UE4 and UE5 alike): block after block, each block all its
/// layers, each layer all its mips, each mip all its slices. A UE5 package also states where each
/// block starts (`BlockDataOffsets`, which InitBlocked fills with the same running sum); where
/// it states one per block it is used, as UE5's CalcMipOffset does.
pub fn raw_parts(info: &SourceInfo, volume_mips: bool, limits: &Limits) -> Result<Vec<Part>> {
    let blocks = info.all_blocks();
    let count = blocks.len() as u64 * info.layers as u64;
    if count > limits.max_slices as u64 {
        return Err(Error::limit(format!(
            "the source has {} blocks of {} layers: {count} image sets, over the limit of {}",
            blocks.len(),
            info.layers,
            limits.max_slices
        ))
        .at_field("unreal/FTextureSource/NumLayers"));
    }
    let stated = info.block_offsets.len() == blocks.len();
    let mut parts = Vec::new();
    let mut at = 0u64;
    for (b, block) in blocks.iter().enumerate() {
        check_block(b, block, limits)?;
        if stated {
            at = info.block_offsets[b];
        }
        for layer in 0..info.layers {
            let format = info.layer_format(layer).ok_or_else(|| {
                Error::malformed(format!(
                    "the source has {} layers but states no format for layer {layer}",
                    info.layers
                ))
                .at_field("unreal/FTextureSource/LayerFormat")
            })?;
            let (bpp, ..) = source_format(format).ok_or_else(|| {
                Error::unsupported(format!(
                    "layer {layer} of the source is {format}, not a format Texscope reads"
                ))
                .at_field("unreal/FTextureSource/LayerFormat")
            })?;
            let images = raw_images(block, bpp, volume_mips, at);
            at = raw_total(&images).max(at);
            parts.push(Part {
                block: b,
                layer,
                at: *block,
                format: format.to_string(),
                images,
            });
        }
    }
    Ok(parts)
}

/// A block's size, slices and mips against the limits (block 0 is checked as the source's own).
fn check_block(index: usize, b: &Block, limits: &Limits) -> Result<()> {
    let field = if index == 0 {
        "unreal/FTextureSource/SizeX".to_string()
    } else {
        format!("unreal/FTextureSource/Blocks[{}]", index - 1)
    };
    if b.size_x == 0 || b.size_y == 0 {
        return Err(Error::malformed(format!(
            "block {index} (UDIM {}) of the source is {}x{}",
            udim(b),
            b.size_x,
            b.size_y
        ))
        .at_field(&field));
    }
    if b.size_x > limits.max_dim || b.size_y > limits.max_dim || b.slices > limits.max_slices {
        return Err(Error::limit(format!(
            "block {index} (UDIM {}) of the source is {}x{} with {} slices, over the limits ({} \
             texels a side, {} slices)",
            udim(b),
            b.size_x,
            b.size_y,
            b.slices,
            limits.max_dim,
            limits.max_slices
        ))
        .at_field(&field));
    }
    Ok(())
}

/// The stored range of a UE4 payload, and its wrap.
pub fn ue4_storage(payload: &Payload) -> Option<(u64, u64, SourceWrap)> {
    match payload {
        Payload::Inline { pos, size } => Some((*pos, *size, SourceWrap::Plain)),
        Payload::Zlib { stored, .. } => match stored.as_ref() {
            Payload::Inline { pos, size } => Some((*pos, *size, SourceWrap::UeZlib)),
            _ => None,
        },
        _ => None,
    }
}

/// Unwraps the stored payload `bytes` (all of it) as `s.wrap` says, at most `s.raw_size` bytes
/// where the payload states it.
fn unwrap(
    s: &SourceLayout,
    src: &dyn Source,
    offset: u64,
    length: u64,
    limits: &Limits,
) -> Result<Vec<u8>> {
    match s.wrap {
        SourceWrap::Plain => crate::io::read_range(src, offset, length, limits),
        SourceWrap::UeZlib => {
            let data = crate::io::read_range(src, offset, length, limits)?;
            bulk::inflate_chunks(&data, s.raw_size.max(1), limits)
                .map_err(|e| e.in_file(src.name()))
        }
        SourceWrap::CompressedBuffer => decode_compressed_buffer(src, offset, length, limits),
    }
}

/// FCompressedBuffer -> raw bytes; `length` bounds the buffer, whose header states its size.
fn decode_compressed_buffer(
    src: &dyn Source,
    offset: u64,
    length: u64,
    limits: &Limits,
) -> Result<Vec<u8>> {
    super::cbuf::decode(src, offset, length, limits)
}

use crate::codec::image_file::FileImage as DecodedFile;

fn decode_png(data: &[u8], limits: &Limits) -> Result<DecodedFile> {
    crate::codec::image_file::decode_png(data, limits)
}

fn decode_jpeg(data: &[u8], limits: &Limits) -> Result<DecodedFile> {
    crate::codec::image_file::decode_jpeg(data, limits)
}

/// The texels of `format` a decoded PNG/JPEG gives (8-bit: to BGRA8 or L8; 16-bit: to RGBA16).
/// `bgr_file`: the file's first three channels are blue, green, red ([`SourceTexels::BgrFile`]).
fn file_to_format(f: &DecodedFile, format: PixelFormat, bgr_file: bool) -> Result<Vec<u8>> {
    let n = f.width as usize * f.height as usize;
    let ch = f.channels as usize;
    let bytes = if f.bit_depth == 16 { 2 } else { 1 };
    if f.pixels.len() < n * ch * bytes {
        return Err(Error::malformed(
            "the decoded source image is shorter than its size",
        ));
    }
    // Sample k of texel i widened to 16 bits (an 8-bit one repeated in both bytes).
    let s16 = |i: usize, k: usize| -> u16 {
        let at = i * ch + k;
        if bytes == 2 {
            u16::from_le_bytes([f.pixels[2 * at], f.pixels[2 * at + 1]])
        } else {
            f.pixels[at] as u16 * 257
        }
    };
    // RGBA of texel i, from grey, grey + alpha, RGB or RGBA.
    let rgba = |i: usize| -> [u16; 4] {
        match ch {
            1 => {
                let g = s16(i, 0);
                [g, g, g, 65535]
            }
            2 => {
                let g = s16(i, 0);
                [g, g, g, s16(i, 1)]
            }
            3 => [s16(i, 0), s16(i, 1), s16(i, 2), 65535],
            _ => [s16(i, 0), s16(i, 1), s16(i, 2), s16(i, 3)],
        }
    };
    let mut out;
    match format {
        PixelFormat::BGRA8 => {
            out = Vec::with_capacity(n * 4);
            for i in 0..n {
                let [r, g, b, a] = rgba(i);
                let [x, z] = if bgr_file { [r, b] } else { [b, r] };
                out.extend_from_slice(&[
                    (x >> 8) as u8,
                    (g >> 8) as u8,
                    (z >> 8) as u8,
                    (a >> 8) as u8,
                ]);
            }
        }
        PixelFormat::L8 => {
            out = (0..n).map(|i| (rgba(i)[0] >> 8) as u8).collect();
        }
        PixelFormat::RGBA16 => {
            out = Vec::with_capacity(n * 8);
            for i in 0..n {
                for v in rgba(i) {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        other => {
            return Err(Error::unsupported(format!(
                "a PNG/JPEG source read as {}",
                other.name()
            )))
        }
    }
    Ok(out)
}

/// Widens raw source texels to the texture's format.
fn widen(texels: SourceTexels, raw: Vec<u8>) -> Vec<u8> {
    match texels {
        SourceTexels::Same | SourceTexels::BgrFile => raw,
        SourceTexels::Bgre8 | SourceTexels::Bgre8Ue4 => {
            let ue4 = texels == SourceTexels::Bgre8Ue4;
            let mut out = Vec::with_capacity(raw.len() * 4);
            for p in raw.chunks_exact(4) {
                // UE's FColor::FromRGBE over B, G, R, E: UE4 scaled m / 255 by 2^(E - 128); UE5
                // centres it, (m + 0.5) / 256 (its Color.cpp cites Ward's Graphics Gems II
                // article and the fix of its common off-by-half). 0 when E is 0.
                let (b, g, r, e) = (p[0], p[1], p[2], p[3]);
                let v = |m: u8| {
                    if e == 0 {
                        0.0f32
                    } else if ue4 {
                        m as f32 / 255.0 * 2f32.powi(e as i32 - 128)
                    } else {
                        (m as f32 + 0.5) * 2f32.powi(e as i32 - 136)
                    }
                };
                for c in [v(r), v(g), v(b), 1.0] {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }
            out
        }
        SourceTexels::Gray16 => {
            let mut out = Vec::with_capacity(raw.len() * 4);
            for p in raw.chunks_exact(2) {
                out.extend_from_slice(&[p[0], p[1], p[0], p[1], p[0], p[1], 0xFF, 0xFF]);
            }
            out
        }
    }
}

/// The texels of mip `mip`, slice `slice` of an editor source, in the texture's `format`
/// (`w` x `h`): the stored payload is read, unwrapped and decoded as its layout says.
#[allow(clippy::too_many_arguments)]
pub fn read_image(
    s: &SourceLayout,
    src: &dyn Source,
    format: PixelFormat,
    mip: usize,
    slice: u32,
    w: u32,
    h: u32,
    limits: &Limits,
) -> Result<Vec<u8>> {
    let Storage::Range { offset, length, .. } = &s.data else {
        return Err(Error::malformed("the source has no stored range"));
    };
    match s.coding {
        SourceCoding::Raw | SourceCoding::UeDelta => {
            let &(at, len) = s
                .images
                .get(mip)
                .and_then(|m| m.get(slice as usize))
                .ok_or_else(|| {
                    Error::malformed(format!("the source has no mip {mip} slice {slice}"))
                })?;
            let raw = if s.wrap == SourceWrap::Plain && s.coding == SourceCoding::Raw {
                if at.saturating_add(len) > *length {
                    return Err(Error::malformed(format!(
                        "the source payload holds {length} bytes, but mip {mip} slice {slice} \
                         needs bytes {at}..{}",
                        at + len
                    ))
                    .at_field("unreal/FTextureSource/BulkData")
                    .in_file(src.name()));
                }
                crate::io::read_range(src, offset + at, len, limits)?
            } else if s.wrap == SourceWrap::CompressedBuffer {
                read_from_buffer(s, src, (*offset, *length), (at, len), (mip, slice), limits)?
            } else {
                let mut all = unwrap(s, src, *offset, *length, limits)?;
                if s.coding == SourceCoding::UeDelta {
                    undelta(&mut all, s).map_err(|e| e.in_file(src.name()))?;
                }
                let end = at.saturating_add(len);
                if end > all.len() as u64 {
                    return Err(Error::malformed(format!(
                        "the source payload unpacks to {} bytes, but mip {mip} slice {slice} \
                         needs bytes {at}..{end}",
                        all.len()
                    ))
                    .at_field("unreal/FTextureSource/BulkData")
                    .in_file(src.name()));
                }
                all[at as usize..end as usize].to_vec()
            };
            // BGRE8 widens 4 bytes to 16, G16 2 to 8: checked before the wider copy is made.
            let factor = match s.texels {
                SourceTexels::Same | SourceTexels::BgrFile => 1,
                SourceTexels::Bgre8 | SourceTexels::Bgre8Ue4 | SourceTexels::Gray16 => 4,
            };
            limits.check_alloc(raw.len() as u64 * factor, "a widened source image")?;
            Ok(widen(s.texels, raw))
        }
        SourceCoding::Png | SourceCoding::Jpeg => {
            if mip != 0 || slice != 0 {
                return Err(Error::malformed(format!(
                    "a PNG/JPEG-stored source holds one image; there is no mip {mip} slice {slice}"
                )));
            }
            let data = unwrap(s, src, *offset, *length, limits)?;
            let f = if s.coding == SourceCoding::Png {
                decode_png(&data, limits)
            } else {
                decode_jpeg(&data, limits)
            }
            .map_err(|e| e.in_file(src.name()))?;
            if (f.width, f.height) != (w, h) {
                return Err(Error::malformed(format!(
                    "the stored image is {}x{}, but the source says {w}x{h}",
                    f.width, f.height
                ))
                .in_file(src.name()));
            }
            file_to_format(&f, format, s.texels == SourceTexels::BgrFile)
        }
    }
}

/// Lists every texture (and render-target) export of an editor package into `ctx.textures`;
/// returns how many.
pub(super) fn open_exports(
    ctx: &mut crate::OpenContext,
    files: &super::PackageSources,
    pkg: &Package,
    usmap: Option<&super::Mapping>,
) -> usize {
    let mut found = 0;
    for export in &pkg.exports {
        let Some(class) = export.class.as_deref() else {
            continue;
        };
        if !(super::is_texture_class(class) || is_render_target(class)) {
            continue;
        }
        let entries = build(ctx, files, pkg, export, usmap);
        found += entries.len();
        ctx.textures.extend(entries);
    }
    found
}

/// "UE 4.22.3 (saved by 4.22.3-7053642+++UE4+Release-4.22; object version 517)".
fn saved_by(pkg: &Package) -> String {
    let v = &pkg.versions;
    let objects = if v.file_ue5 > 0 {
        format!("object versions UE4 {} / UE5 {}", v.file_ue4, v.file_ue5)
    } else {
        format!("object version {}", v.file_ue4)
    };
    let engine = if v.saved_by.0 > 0 {
        format!("UE {}.{}.{}", v.saved_by.0, v.saved_by.1, v.saved_by_patch)
    } else {
        engine_of_object_version(v.file_ue4, v.file_ue5)
    };
    format!(
        "{engine} (saved by \"{}\"; {objects}; LegacyFileVersion {})",
        v.saved_by_text, pkg.legacy_version
    )
}

/// What the object versions say when the package names no engine release: a changelist alone
/// was written before ENGINE_VERSION_OBJECT (336), which UE 4.0.0 (object version 347 in the
/// shared samples) already wrote, so such a file comes from a UE 4.0 pre-release editor.
fn engine_of_object_version(ue4: i32, ue5: i32) -> String {
    if ue5 > 0 {
        "UE5, release not named".into()
    } else if ue4 < super::package::ue4v::ENGINE_VERSION_OBJECT {
        "a UE 4.0 pre-release editor".into()
    } else {
        "UE4, release not named".into()
    }
}

/// The texture entries of one export: block 0, layer 0 under the export's name, then every
/// other block and layer of its source (UDIM tiles, layers) as its own entry, or one entry with
/// the error that stopped it.
fn build(
    ctx: &mut crate::OpenContext,
    files: &super::PackageSources,
    pkg: &Package,
    export: &Export,
    usmap: Option<&super::Mapping>,
) -> Vec<crate::model::Texture> {
    let main = ctx.sources[files.main].clone();
    let mut t = super::error_texture(main.name(), export, &Error::malformed(""));
    t.error = None;
    t.add_meta(
        "Package",
        "editor package (uncooked .uasset; export data inline)",
    );
    t.add_meta("Engine (stated)", saved_by(pkg));
    t.add_meta("Package flags", format!("0x{:08X}", pkg.package_flags));
    let Some(w) = super::read_properties(ctx, pkg, export, files.main, export.size, usmap, &mut t)
    else {
        t.error = Some("the texture's properties could not be read".into());
        return vec![t];
    };
    if is_render_target(&t.class) {
        t.error = Some(format!(
            "{} is a render target: the engine draws it at run time, so the package stores \
             only its settings and no source art",
            t.class
        ));
        return vec![t];
    }
    let Some(info) = SourceInfo::from_walk(&w) else {
        t.error = Some(match &w.stopped {
            Some(s) => format!("the property walk stopped before the Source property: {s}"),
            None => "the texture has no Source property (FTextureSource): no source art".into(),
        });
        return vec![t];
    };
    t.native_format = crate::model::NativeFormat::Name(info.format.clone());
    match layout(ctx, pkg, export, &info, &w, &main, files.main) {
        Ok(entries) => entries
            .into_iter()
            .map(|e| {
                let mut t = t.clone();
                fill(&mut t, &info, e);
                t
            })
            .collect(),
        Err(e) => {
            t.error = Some(e.in_file(main.name()).to_string());
            vec![t]
        }
    }
}

/// One texture entry of a source: a block and layer, its layout and format, and why it cannot
/// be read when it cannot (a payload too short for it).
struct Entry {
    part: Part,
    layout: SourceLayout,
    format: PixelFormat,
    error: Option<Error>,
}

/// Fills texture `t` (the export's, properties read) with entry `e` of its source.
fn fill(t: &mut crate::model::Texture, info: &SourceInfo, e: Entry) {
    use crate::model::{Layout, TextureKind};
    let Entry {
        part,
        layout,
        format,
        error,
    } = e;
    let b = part.at;
    let blocks = info.blocks.len() + 1;
    if blocks > 1 || info.layers > 1 {
        let name = match (part.block, part.layer) {
            (0, 0) => t.name.clone(),
            (_, 0) => format!("{} [UDIM {}]", t.name, udim(&b)),
            (0, l) => format!("{} [layer {l}]", t.name),
            (_, l) => format!("{} [UDIM {}, layer {l}]", t.name, udim(&b)),
        };
        t.name = name;
        t.native_format = crate::model::NativeFormat::Name(part.format.clone());
        t.add_meta(
            "Source part",
            format!(
                "block {} of {blocks} (UDIM {}, at {}, {}), layer {} of {} ({})",
                part.block,
                udim(&b),
                b.x,
                b.y,
                part.layer,
                info.layers,
                part.format
            ),
        );
    }
    t.error = error.map(|e| e.in_file(&t.file).to_string());
    t.format = format;
    t.add_meta("Source", &layout.summary);
    let (kind, slices) = match t.class.as_str() {
        "TextureCube" | "TextureCubeArray" if b.slices >= 6 => (TextureKind::Cube, b.slices),
        "TextureCube" => {
            t.notes
                .push("the cube map's source is one long-lat (equirectangular) image".into());
            (TextureKind::Tex2D, 1)
        }
        "Texture2DArray" => (TextureKind::Array, b.slices.max(1)),
        "VolumeTexture" => (TextureKind::Volume, 1),
        _ if b.slices > 1 => (TextureKind::Array, b.slices),
        _ => (TextureKind::Tex2D, 1),
    };
    t.kind = kind;
    t.slices = slices;
    t.width = b.size_x;
    t.height = b.size_y;
    let mips = if matches!(layout.coding, SourceCoding::Raw | SourceCoding::UeDelta) {
        b.mips.max(1)
    } else {
        1
    };
    for m in 0..mips.min(32) {
        // A volume mip's depth slices are the images its raw layout holds (UE5 halves them per
        // mip, UE4 keeps NumSlices: `raw_images`).
        let d = if kind == TextureKind::Volume {
            layout
                .images
                .get(m as usize)
                .map_or(1, |v| v.len() as u32)
                .max(1)
        } else {
            1
        };
        t.mips.push(crate::model::Mip {
            width: (b.size_x >> m).max(1),
            height: (b.size_y >> m).max(1),
            depth: d,
            surfaces: Vec::new(),
            location_note: "source".into(),
        });
    }
    if let Storage::Missing { file, .. } = &layout.data {
        t.notes.push(format!(
            "the source art lives in {file}, which was not opened: drop it with the package"
        ));
    }
    t.depth = t.mips.first().map_or(1, |m| m.depth);
    t.layout = Layout::Source(Box::new(layout));
}

/// The source layout of each block and layer of one texture's source: where its payload is,
/// how it is wrapped and coded, and where each block and layer's images are in it.
fn layout(
    ctx: &mut crate::OpenContext,
    pkg: &Package,
    export: &Export,
    info: &SourceInfo,
    w: &Walk,
    main: &crate::io::SourceRef,
    main_id: usize,
) -> Result<Vec<Entry>> {
    source_format(&info.format).ok_or_else(|| {
        Error::unsupported(format!(
            "source format {} is not one Texscope reads (TSF_G8, BGRA8, BGRE8, RGBA16, RGBA16F, \
             RGBA32F, G16, R16F, R32F)",
            info.format
        ))
        .at_field("unreal/FTextureSource/Format")
    })?;
    if info.size_x == 0 || info.size_y == 0 {
        return Err(
            Error::malformed(format!("the source is {}x{}", info.size_x, info.size_y))
                .at_field("unreal/FTextureSource/SizeX"),
        );
    }
    let limits = &ctx.limits;
    if info.size_x > limits.max_dim
        || info.size_y > limits.max_dim
        || info.slices > limits.max_slices
    {
        return Err(Error::limit(format!(
            "the source is {}x{} with {} slices, over the limits ({} texels a side, {} slices)",
            info.size_x, info.size_y, info.slices, limits.max_dim, limits.max_slices
        ))
        .at_field("unreal/FTextureSource/SizeX"));
    }
    let coding = info.coding()?;
    let single = info.blocks.is_empty() && info.layers == 1;
    if matches!(coding, SourceCoding::Png | SourceCoding::Jpeg) && !single {
        // UE4's GetMipData decodes a bPNGCompressed source only when it has no extra block, one
        // layer and one slice (else it returns nothing), UE5's TryDecompressData the same for
        // every CompressionFormat but UEDELTA ("Compressed source art is in an invalid
        // format"), and CanPNGCompress never makes such a source: one image file cannot hold it.
        return Err(Error::unsupported(format!(
            "the source is one {} file but states {} blocks and {} layers; the editor decodes a \
             PNG/JPEG-coded source only with one block and one layer, so it cannot hold them",
            if coding == SourceCoding::Png {
                "PNG"
            } else {
                "JPEG"
            },
            info.blocks.len() + 1,
            info.layers
        ))
        .at_field("unreal/FTextureSource/CompressionFormat"));
    }
    let volume_mips = pkg.ue5_version > 0 && export.class.as_deref() == Some("VolumeTexture");
    let parts = if matches!(coding, SourceCoding::Raw | SourceCoding::UeDelta) {
        raw_parts(info, volume_mips, limits)?
    } else {
        vec![Part {
            block: 0,
            layer: 0,
            at: info.all_blocks()[0],
            format: info.format.clone(),
            images: Vec::new(),
        }]
    };
    let at = export.start + w.end as u64;
    let bulk = read_bulk(main.as_ref(), pkg, export, at, limits)?;
    let (data, wrap, raw_size, how) = match bulk {
        Bulk::Stripped => {
            return Err(Error::unsupported(
                "the package's editor data is stripped (FStripDataFlags): no source art",
            ))
        }
        Bulk::Ue4 {
            flags,
            raw_size,
            payload,
        } => {
            let (pos, size, wrap) = ue4_storage(&payload).ok_or_else(|| {
                Error::unsupported(format!(
                    "the source bulk data ({}) is not in the package",
                    bulk::bulk_flags::describe(flags)
                ))
            })?;
            if pos.saturating_add(size) > main.len() {
                return Err(Error::malformed(format!(
                    "the source bulk data ({size} bytes at {pos}) runs past the end of the file \
                     ({} bytes)",
                    main.len()
                ))
                .at_field("unreal/FUntypedBulkData/BulkDataOffsetInFile"));
            }
            let place = if flags & bulk::bulk_flags::PAYLOAD_AT_END_OF_FILE != 0 {
                "at the end of the file"
            } else {
                "inline after the export"
            };
            let how = format!(
                "UE4 bulk data ({}), {size} bytes {place} at {pos}{}",
                bulk::bulk_flags::describe(flags),
                if wrap == SourceWrap::UeZlib {
                    format!(", zlib-compressed from {raw_size} bytes")
                } else {
                    String::new()
                }
            );
            (
                Storage::Range {
                    source: main_id,
                    offset: pos,
                    length: size,
                },
                wrap,
                raw_size,
                how,
            )
        }
        Bulk::Ue5 {
            flags,
            hash,
            raw_size,
            offset,
        } => ue5_storage(ctx, pkg, main, main_id, flags, &hash, raw_size, offset)?,
    };
    ctx.limits
        .check_alloc(raw_size, "a source payload")
        .map_err(|e| e.at_field("unreal/FTextureSource/BulkData"))?;
    let compression = match &info.compression {
        Some(c) => format!("CompressionFormat {c}"),
        None if info.png => "bPNGCompressed (PNG)".into(),
        None => "uncompressed".into(),
    };
    // Every mip of every block and layer, in stored order: what UEDELTA was applied over.
    let planes: Vec<SourcePlane> = parts
        .iter()
        .flat_map(|p| {
            p.images.iter().enumerate().map(|(m, im)| SourcePlane {
                format: p.format.clone(),
                width: (p.at.size_x >> m).max(1),
                height: (p.at.size_y >> m).max(1),
                slices: im.len() as u32,
            })
        })
        .collect();
    // UEDELTA is undone over the whole payload, so one block or layer past its end stops all.
    let short = parts
        .iter()
        .find(|p| raw_total(&p.images) > raw_size)
        .map(|p| (p.label(), raw_total(&p.images)));
    if let (true, Some((label, end))) = (single || coding == SourceCoding::UeDelta, &short) {
        let what = if single {
            format!("the source's mips need {end} bytes")
        } else {
            format!("{label} of the source (delta-coded with the rest) ends at byte {end}")
        };
        return Err(
            Error::malformed(format!("{what}, but its payload holds {raw_size}"))
                .at_field("unreal/FTextureSource/BulkData"),
        );
    }
    let mut out = Vec::with_capacity(parts.len());
    for part in parts {
        let (_, format, texels) = source_format(&part.format).ok_or_else(|| {
            Error::unsupported(format!(
                "source format {} is not one Texscope reads",
                part.format
            ))
            .at_field("unreal/FTextureSource/LayerFormat")
        })?;
        // The editor puts TSF_BGRA8's bytes unchanged into an RGBA PNG: the shared UE4 samples
        // equal their committed originals only with red and blue swapped back, and UE 5.1's
        // PNG-stored T_GridChecker_A equals UE 5.6's raw (UEDELTA) one only so.
        let texels = if coding == SourceCoding::Png && format == PixelFormat::BGRA8 {
            SourceTexels::BgrFile
        } else if texels == SourceTexels::Bgre8 && pkg.ue5_version == 0 {
            SourceTexels::Bgre8Ue4
        } else {
            texels
        };
        let end = raw_total(&part.images);
        let error = (end > raw_size).then(|| {
            Error::malformed(format!(
                "the payload holds {raw_size} bytes, but {} of the source needs bytes up to \
                 {end}: the payload is too short for the blocks and layers the source declares",
                part.label()
            ))
            .at_field("unreal/FTextureSource/BulkData")
        });
        let b = &part.at;
        let summary = format!(
            "{} {}x{}, {} slice(s), {} mip(s){}, {compression}; {how}",
            part.format,
            b.size_x,
            b.size_y,
            b.slices,
            b.mips,
            if single {
                String::new()
            } else {
                format!(", {} of the payload", part.label())
            }
        );
        let layout = SourceLayout {
            data: data.clone(),
            wrap,
            coding,
            texels,
            raw_size,
            images: part.images.clone(),
            summary,
            package: "editor package".into(),
            source_format: part.format.clone(),
            size: (b.size_x, b.size_y),
            saved_by: saved_by(pkg),
            planes: planes.clone(),
        };
        out.push(Entry {
            part,
            layout,
            format,
            error,
        });
    }
    Ok(out)
}

/// Where a UE5 editor payload is: the package trailer (found by the payload's hash), a sidecar,
/// or nowhere local (virtualized).
#[allow(clippy::too_many_arguments)]
fn ue5_storage(
    ctx: &mut crate::OpenContext,
    pkg: &Package,
    main: &crate::io::SourceRef,
    main_id: usize,
    flags: u32,
    hash: &[u8; 20],
    raw_size: u64,
    offset: Option<i64>,
) -> Result<(Storage, SourceWrap, u64, String)> {
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    let what = format!("FEditorBulkData ({}), payload {hex}", ebd::describe(flags));
    if flags & ebd::IS_VIRTUALIZED != 0 {
        return Err(Error::unsupported(format!(
            "the source art was virtualized: the editor moved its payload ({raw_size} bytes, \
             {what}) to a remote store, and no local file holds it"
        )));
    }
    // A payload saved with HasPayloadSidecarFile (the editor's experimental
    // [Core.System.Experimental] EnablePackageSidecarSaving) goes to two places: the `.upayload`
    // beside the package and, by the legacy path, the package itself at OffsetInFile (UE's
    // EditorBulkData.cpp: BuildFlagsForSerialization, ShouldUseLegacySerialization and
    // SerializeToLegacyPath). The engine reads the sidecar only when asked to
    // (Serialization.LoadFromSidecar, LoadFromSidecarFile), else the package copy: Texscope
    // reads the sidecar when it was opened, else the package copy when OffsetInFile names one.
    let sidecar = flags & ebd::HAS_PAYLOAD_SIDECAR_FILE != 0;
    if sidecar {
        let file = super::with_ext(crate::base_name(main.name()), ".upayload");
        if let Some(j) = super::sibling(ctx, main_id, ".upayload") {
            let src = ctx.sources[j].clone();
            let (at, len) = super::trailer::sidecar_lookup(src.as_ref(), hash, &ctx.limits)?;
            return Ok((
                Storage::Range {
                    source: j,
                    offset: at,
                    length: len,
                },
                SourceWrap::CompressedBuffer,
                raw_size,
                format!("{what}, {len} bytes in the sidecar {file} at {at}"),
            ));
        }
        if offset.is_none_or(|o| o < 0 || o as u64 >= main.len()) {
            return Err(Error::missing_sibling(
                &file,
                format_args!("the source payload ({what})"),
            ));
        }
    }
    if flags & ebd::STORED_IN_PACKAGE_TRAILER != 0 {
        let (at, len) = trailer_lookup(main.as_ref(), pkg, hash, &ctx.limits)?;
        return Ok((
            Storage::Range {
                source: main_id,
                offset: at,
                length: len,
            },
            SourceWrap::CompressedBuffer,
            raw_size,
            format!("{what}, {len} bytes in the package trailer at {at}"),
        ));
    }
    if flags & (ebd::REFERENCES_LEGACY_FILE | ebd::REFERENCES_WORKSPACE_DOMAIN) != 0 {
        return Err(Error::unsupported(format!(
            "the source payload ({what}) is kept in another file the editor manages (a legacy \
             bulk-data file or the workspace domain), not in this package"
        )));
    }
    // Before the package trailer (UE 5.0's packages: the shared CA_Mannequin saved by 5.0 has
    // OffsetInFile 4250, where its FCompressedBuffer's magic is) the payload sits in the package
    // at an absolute offset; the buffer's header says how long it is.
    let off = offset.unwrap_or(-1);
    let len = main.len();
    let at = u64::try_from(off)
        .ok()
        .filter(|&o| o < len)
        .ok_or_else(|| {
            Error::malformed(format!(
                "the source payload is said to be at {off}, outside the file ({len} bytes)"
            ))
            .at_field("unreal/FEditorBulkData/OffsetInFile")
        })?;
    Ok((
        Storage::Range {
            source: main_id,
            offset: at,
            length: len - at,
        },
        SourceWrap::CompressedBuffer,
        raw_size,
        if sidecar {
            format!("{what}, in the package at {at} (the copy the engine reads by default; the sidecar was not opened)")
        } else {
            format!("{what}, in the package at {at}")
        },
    ))
}

/// The payload helper's trailer reader: the stored range of the payload with this hash.
fn trailer_lookup(
    src: &dyn Source,
    pkg: &Package,
    hash: &[u8; 20],
    limits: &Limits,
) -> Result<(u64, u64)> {
    use super::trailer::Access;
    let at = u64::try_from(pkg.payload_toc_offset).ok();
    let trailer = super::trailer::read_trailer(src, at, limits)?.ok_or_else(|| {
        Error::malformed(
            "the payload is said to be in the package trailer, but the package has none",
        )
        .at_field("unreal/FPackageFileSummary/PayloadTocOffset")
    })?;
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    let e = trailer.find(hash).ok_or_else(|| {
        Error::malformed(format!("the package trailer lists no payload {hex}"))
            .at_field("unreal/FPackageTrailer")
    })?;
    match (e.access, e.offset, e.compressed_size) {
        (Access::Local, Some(o), Some(n)) => Ok((o, n)),
        (Access::Virtualized, ..) => Err(Error::unsupported(format!(
            "the source art was virtualized: the editor moved its payload ({} bytes) to a remote \
             store, and no local file holds it",
            e.raw_size
        ))),
        (Access::Referenced, ..) => Err(Error::unsupported(format!(
            "the source payload {hex} is in another package's trailer (the editor's workspace \
             domain), not in this file"
        ))),
        _ => Err(
            Error::malformed(format!("the trailer entry of payload {hex} has no offset"))
                .at_field("unreal/FPackageTrailer"),
        ),
    }
}

/// The package's thumbnail table (UE's FThumbnailTable, at the summary's ThumbnailTableOffset):
/// i32 count, then per asset FString class name, FString object path (without the package),
/// i32 offset of its FObjectThumbnail: i32 width, i32 height (negative = JPEG, UE 5.1+), then
/// the compressed image as a byte array (i32 count + bytes). [data: the shared editor set, every
/// package; CUE4Parse's thumbnail pull request describes the same rows.]
pub fn read_thumbnails(
    src: &dyn Source,
    pkg: &Package,
    source: usize,
    limits: &Limits,
) -> Result<Vec<crate::model::Thumbnail>> {
    let len = src.len();
    let at = u64::try_from(pkg.thumbnail_offset).unwrap_or(u64::MAX);
    if at >= len {
        return Err(Error::malformed(format!(
            "the thumbnail table is said to start at {at}, past the end of the file ({len} bytes)"
        ))
        .at_field("unreal/FPackageFileSummary/ThumbnailTableOffset"));
    }
    let mut c = Cursor::new(src, at, len, limits);
    let f = "unreal/FThumbnailTable";
    let n = c.i32().map_err(|e| e.at_field(f))?;
    if n < 0 {
        return Err(Error::malformed(format!("{n} thumbnails")).at_field(f));
    }
    limits
        .check_count(n as u64, 12, len - c.pos, "thumbnails")
        .map_err(|e| e.at_field(f))?;
    let mut rows = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let class = c.fstring().map_err(|e| e.at_field(f))?;
        let object = c.fstring().map_err(|e| e.at_field(f))?;
        let offset = c.i32().map_err(|e| e.at_field(f))?;
        rows.push((class, object, offset));
    }
    let mut out = Vec::with_capacity(rows.len());
    for (class, object, offset) in rows {
        let fo = "unreal/FObjectThumbnail";
        let at = u64::try_from(offset)
            .ok()
            .filter(|&o| o < len)
            .ok_or_else(|| {
                Error::malformed(format!(
                    "the thumbnail of {object} is said to be at {offset}, outside the file \
                     ({len} bytes)"
                ))
                .at_field(fo)
            })?;
        let mut t = Cursor::new(src, at, len, limits);
        let w = t.i32().map_err(|e| e.at_field(fo))?;
        let h = t.i32().map_err(|e| e.at_field(fo))?;
        let size = t.i32().map_err(|e| e.at_field(fo))?;
        // An asset without a rendered thumbnail is stored 0x0 with no bytes.
        if w == 0 || size == 0 {
            continue;
        }
        let size = u64::try_from(size)
            .ok()
            .filter(|&s| t.pos.saturating_add(s) <= len)
            .ok_or_else(|| {
                Error::malformed(format!(
                    "the thumbnail of {object} says {size} bytes, past the end of the file"
                ))
                .at_field(fo)
            })?;
        let jpeg = h < 0;
        out.push(crate::model::Thumbnail {
            file: src.name().to_string(),
            class,
            object,
            width: w.unsigned_abs(),
            height: h.unsigned_abs(),
            jpeg,
            // The editor compresses the thumbnail's B, G, R, A bytes as if they were R, G, B, A,
            // in PNG (UE4: the LD33 originals) and JPEG (UE 5.1-5.7: the colour chart of
            // T_ColorGrid and the sources of RegionTexture and ca2c1515 match only with red and
            // blue swapped, by PIL's decode too). UE5's PNG thumbnails in the shared set are grey,
            // so they cannot tell; they are taken to come from the same BGRA buffer.
            bgr: true,
            data: Storage::Range {
                source,
                offset: t.pos,
                length: size,
            },
        });
    }
    Ok(out)
}

/// A PNG or JPEG file's bytes to an RGBA8 image (`bgr`: the file's channels are B, G, R).
pub fn decode_image_file(
    data: &[u8],
    jpeg: bool,
    bgr: bool,
    limits: &Limits,
) -> Result<crate::Image> {
    let f = if jpeg {
        decode_jpeg(data, limits)?
    } else {
        decode_png(data, limits)?
    };
    let bgra = file_to_format(&f, PixelFormat::BGRA8, bgr)?;
    let mut rgba = bgra;
    for p in rgba.chunks_exact_mut(4) {
        p.swap(0, 2);
    }
    Ok(crate::Image {
        width: f.width,
        height: f.height,
        pixels: crate::Pixels::Rgba8(rgba),
    })
}

/// Undoes TSCF_UEDELTA over the whole unwrapped payload: one plane per mip of each layer of each
/// block, in stored order ([`SourceLayout::planes`]; the payload helper's uedelta module).
fn undelta(raw: &mut [u8], s: &SourceLayout) -> Result<()> {
    super::uedelta::undelta(raw, &delta_planes(s)?)
}

/// The planes UEDELTA ran over, in stored order, as the transform sees them.
fn delta_planes(s: &SourceLayout) -> Result<Vec<super::uedelta::Plane>> {
    s.planes
        .iter()
        .map(|p| {
            super::uedelta::Plane::for_format(&p.format, p.width, p.height, p.slices).ok_or_else(
                || Error::unsupported(format!("UEDELTA over {} is not a known plane", p.format)),
            )
        })
        .collect()
}

/// Bytes `at..at + len` (mip `mip`, slice `slice`) of a raw or UEDELTA source stored in an
/// `FCompressedBuffer` at `offset` (`length` bytes), decompressing only the buffer's blocks that
/// hold them: a source's mips, layers and UDIM blocks share one buffer, and one image shown
/// should not cost them all. UEDELTA is undone over the one plane (mip of a layer of a block)
/// holding the image: each tile's rows refer only to rows of the same tile, so planes are
/// independent (the uedelta module).
fn read_from_buffer(
    s: &SourceLayout,
    src: &dyn Source,
    (offset, length): (u64, u64),
    (at, len): (u64, u64),
    (mip, slice): (usize, u32),
    limits: &Limits,
) -> Result<Vec<u8>> {
    let h = super::cbuf::header(src, offset, length, limits)?;
    let end = at.saturating_add(len);
    let outside = || {
        Error::malformed(format!(
            "the source payload unpacks to {} bytes, but mip {mip} slice {slice} needs bytes \
             {at}..{end}",
            h.raw_size
        ))
        .at_field("unreal/FTextureSource/BulkData")
        .in_file(src.name())
    };
    if s.coding == SourceCoding::Raw {
        if end > h.raw_size {
            return Err(outside());
        }
        return super::cbuf::decode_range(src, offset, &h, at..end, limits);
    }
    let planes = delta_planes(s).map_err(|e| e.in_file(src.name()))?;
    let total = planes.iter().fold(0u64, |t, p| t.saturating_add(p.size()));
    if total != h.raw_size {
        return Err(Error::malformed(format!(
            "{} bytes of delta-coded pixels, but the source's mips take {total}",
            h.raw_size
        ))
        .at_field("TSCF_UEDELTA")
        .in_file(src.name()));
    }
    let mut start = 0u64;
    for p in &planes {
        let plane_end = start + p.size();
        if at >= start && end <= plane_end {
            let mut bytes = super::cbuf::decode_range(src, offset, &h, start..plane_end, limits)?;
            super::uedelta::undelta_plane(&mut bytes, p).map_err(|e| e.in_file(src.name()))?;
            return Ok(bytes[(at - start) as usize..(end - start) as usize].to_vec());
        }
        start = plane_end;
    }
    // Past the planes, or across two: not an image of this source's layout.
    Err(outside())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(b: &[u8]) -> Vec<f32> {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn bgre8_widens_as_each_engine_reads_it() {
        // Worked by hand from the two FColor::FromRGBE forms: B 64, G 128, R 255, E 129.
        // UE4: m / 255 * 2^1 -> R 2.0, G 256/255, B 128/255. UE5: (m + 0.5) * 2^-7 -> R 255.5 /
        // 128, G 128.5 / 128, B 64.5 / 128. E 0 is black in both.
        let raw = vec![64, 128, 255, 129, 9, 9, 9, 0];
        let ue4 = f32s(&widen(SourceTexels::Bgre8Ue4, raw.clone()));
        assert_eq!(ue4[..4], [2.0, 256.0 / 255.0, 128.0 / 255.0, 1.0]);
        assert_eq!(ue4[4..], [0.0, 0.0, 0.0, 1.0]);
        let ue5 = f32s(&widen(SourceTexels::Bgre8, raw));
        assert_eq!(ue5[..4], [255.5 / 128.0, 128.5 / 128.0, 64.5 / 128.0, 1.0]);
    }

    #[test]
    fn gray16_widens_to_opaque_grey() {
        let out = widen(SourceTexels::Gray16, vec![0x34, 0x12]);
        assert_eq!(out, [0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 0xFF, 0xFF]);
    }

    #[test]
    fn raw_images_follow_the_mip_chain() {
        // A 4x2 cube of 3 mips, 4 bytes a texel: mip 0 is 6 faces of 32 bytes, mip 1 (2x1) 6 of
        // 8, mip 2 (1x1) 6 of 4, back to back.
        let block = Block {
            x: 0,
            y: 0,
            size_x: 4,
            size_y: 2,
            slices: 6,
            mips: 3,
        };
        let im = raw_images(&block, 4, false, 0);
        assert_eq!(im[0][5], (160, 32));
        assert_eq!(im[1][0], (192, 8));
        assert_eq!(im[2][5], (192 + 48 + 20, 4));
        assert_eq!(raw_total(&im), 192 + 48 + 24);
        // A UE5 volume halves its slices each mip.
        let v = raw_images(&block, 4, true, 0);
        assert_eq!(v.iter().map(Vec::len).collect::<Vec<_>>(), [6, 3, 1]);
    }

    #[test]
    fn blocks_then_layers_then_mips_as_calc_mip_offset_lays_them() {
        // Worked by hand from UE's CalcMipOffset order (docs/unreal.md): block 0 is 4x2 with 2
        // mips, layers BGRA8 and G8: layer 0 mip 0 = 32 bytes at 0, mip 1 (2x1) = 8 at 32;
        // layer 1 mip 0 = 8 at 40, mip 1 = 2 at 48. Block 1 (2x2 at grid (1, 1), UDIM 1012,
        // 1 mip) follows at 50: layer 0 16 bytes, layer 1 4 bytes at 66.
        let mut info = SourceInfo {
            size_x: 4,
            size_y: 2,
            slices: 1,
            mips: 2,
            layers: 2,
            format: "TSF_BGRA8".into(),
            png: false,
            compression: None,
            blocks: vec![Block {
                x: 1,
                y: 1,
                size_x: 2,
                size_y: 2,
                slices: 1,
                mips: 1,
            }],
            base_x: 0,
            base_y: 0,
            layer_formats: vec!["TSF_BGRA8".into(), "TSF_G8".into()],
            block_offsets: Vec::new(),
            long_lat_cubemap: false,
        };
        let limits = Limits::default();
        let parts = raw_parts(&info, false, &limits).unwrap();
        let got: Vec<_> = parts
            .iter()
            .map(|p| (p.block, p.layer, p.format.as_str(), p.images.clone()))
            .collect();
        assert_eq!(
            got,
            [
                (0, 0, "TSF_BGRA8", vec![vec![(0, 32)], vec![(32, 8)]]),
                (0, 1, "TSF_G8", vec![vec![(40, 8)], vec![(48, 2)]]),
                (1, 0, "TSF_BGRA8", vec![vec![(50, 16)]]),
                (1, 1, "TSF_G8", vec![vec![(66, 4)]]),
            ]
        );
        assert_eq!(udim(&parts[2].at), 1012);
        assert_eq!(parts[3].label(), "block 1 (UDIM 1012), layer 1");
        // UE5 states each block's start (BlockDataOffsets): used when there is one per block.
        info.block_offsets = vec![0, 100];
        let parts = raw_parts(&info, false, &limits).unwrap();
        assert_eq!(parts[2].images, [vec![(100, 16)]]);
        assert_eq!(parts[3].images, [vec![(116, 4)]]);
        // A layer without a stated format, and more layers than the limit, are errors.
        info.layers = 3;
        let e = raw_parts(&info, false, &limits).unwrap_err().to_string();
        assert!(e.contains("layer 2") && e.contains("LayerFormat"), "{e}");
        info.layers = 1 << 20;
        let e = raw_parts(&info, false, &limits).unwrap_err().to_string();
        assert!(e.contains("over the limit"), "{e}");
    }

    /// A source of 4 mips and 2 slices in an LZ4 `FCompressedBuffer` of 64-byte blocks (its
    /// planes cross block edges), stored UEDELTA and raw: every image reads back as the pixels
    /// written, and a small mip costs only its own plane's blocks. Expected values: the pixels
    /// before `uedelta::delta_plane` and the buffer writer (`cbuf::tests::write`), whose
    /// inverses are checked against engine-written payloads (the 5.6 sample, every UE5 buffer's
    /// BLAKE3).
    #[test]
    fn buffered_sources_decode_only_the_plane_shown() {
        use super::super::uedelta;
        let block = Block {
            x: 0,
            y: 0,
            size_x: 16,
            size_y: 8,
            slices: 2,
            mips: 4,
        };
        let images = raw_images(&block, 4, false, 0);
        let total = raw_total(&images) as usize;
        let pixels: Vec<u8> = (0..total).map(|i| (i / 3 + (i * 7919) % 5) as u8).collect();
        let planes: Vec<SourcePlane> = (0..4)
            .map(|m| SourcePlane {
                format: "TSF_BGRA8".into(),
                width: 16 >> m,
                height: (8 >> m).max(1),
                slices: 2,
            })
            .collect();
        let plane = |p: &SourcePlane| {
            uedelta::Plane::for_format(&p.format, p.width, p.height, p.slices).unwrap()
        };
        let mut coded = pixels.clone();
        let mut at = 0;
        for p in &planes {
            let n = plane(p).size() as usize;
            uedelta::delta_plane(&mut coded[at..at + n], &plane(p)).unwrap();
            at += n;
        }
        assert_eq!(at, total);
        assert_ne!(coded, pixels);
        let limits = Limits::default();
        let format = source_format("TSF_BGRA8").unwrap().1;
        for (coding, stored) in [
            (SourceCoding::UeDelta, &coded),
            (SourceCoding::Raw, &pixels),
        ] {
            let buffer = super::super::cbuf::tests::write(4, 6, stored);
            let mut layout = SourceLayout {
                data: Storage::Range {
                    source: 0,
                    offset: 0,
                    length: buffer.len() as u64,
                },
                wrap: SourceWrap::CompressedBuffer,
                coding,
                texels: SourceTexels::Same,
                raw_size: total as u64,
                images: images.clone(),
                summary: String::new(),
                package: String::new(),
                source_format: "TSF_BGRA8".into(),
                size: (16, 8),
                saved_by: String::new(),
                planes: planes.clone(),
            };
            for (mip, slices) in images.iter().enumerate() {
                for (slice, &(at, len)) in slices.iter().enumerate() {
                    let file = crate::io::BytesSource::shared("T.uasset", buffer.clone());
                    let src = crate::io::Counted::new(file);
                    let (w, h) = (16 >> mip, (8 >> mip).max(1));
                    let got = read_image(&layout, &src, format, mip, slice as u32, w, h, &limits)
                        .unwrap();
                    let want = &pixels[at as usize..(at + len) as usize];
                    assert!(got == want, "{coding:?} mip {mip} slice {slice}");
                    // Mip 3 is 2x1 (16 bytes a plane): its block and the header are a third of
                    // the buffer.
                    if mip == 3 {
                        assert!(src.bytes() * 3 < buffer.len() as u64, "{}", src.bytes());
                    }
                }
            }
            // Planes that do not add up to the buffer's raw size: a sentence, not a guess.
            if coding == SourceCoding::UeDelta {
                layout.planes.pop();
                let src = crate::io::BytesSource::new("T.uasset", buffer.clone());
                let e = read_image(&layout, &src, format, 0, 0, 16, 8, &limits).unwrap_err();
                let e = e.to_string();
                assert!(e.contains("T.uasset") && e.contains("TSCF_UEDELTA"), "{e}");
            }
        }
    }

    #[test]
    fn source_formats_map_to_pixel_formats() {
        assert_eq!(source_format("TSF_G8").map(|f| f.1), Some(PixelFormat::L8));
        assert_eq!(source_format("TSF_RGBA16F").map(|f| f.0), Some(8));
        assert_eq!(
            source_format("TSF_BGRE8").map(|f| f.2),
            Some(SourceTexels::Bgre8)
        );
        assert!(source_format("TSF_Invalid").is_none());
    }
}
