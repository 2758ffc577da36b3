//! The cooked platform data of a texture export: anchor search, FTexturePlatformData, the mip
//! chain with its bulk-data headers, and the virtual-texture switch (notes §3, §4; seed 000).

use super::cursor::Cursor;
use super::package::{Export, Flavor, Package};
use super::vt::{self, VtRaw};
use crate::codec::PixelFormat;
use crate::io::{Error, Limits, Result, Source};

/// EBulkDataFlags (notes §4).
pub mod bulk_flags {
    pub const PAYLOAD_AT_END_OF_FILE: u32 = 0x1;
    pub const COMPRESSED_ZLIB: u32 = 0x2;
    pub const UNUSED: u32 = 0x20;
    pub const FORCE_INLINE_PAYLOAD: u32 = 0x40;
    pub const PAYLOAD_IN_SEPARATE_FILE: u32 = 0x100;
    pub const OPTIONAL_PAYLOAD: u32 = 0x800;
    pub const MEMORY_MAPPED: u32 = 0x1000;
    pub const COMPRESSED_LZO: u32 = 0x10;
    pub const SIZE_64BIT: u32 = 0x2000;
    pub const DUPLICATE_NON_OPTIONAL: u32 = 0x4000;
    pub const BAD_DATA_VERSION: u32 = 0x8000;
    pub const NO_OFFSET_FIXUP: u32 = 0x10000;

    pub fn describe(f: u32) -> String {
        const NAMES: &[(u32, &str)] = &[
            (0x1, "PayloadAtEndOfFile"),
            (0x2, "SerializeCompressedZLIB"),
            (0x4, "ForceSingleElementSerialization"),
            (0x8, "SingleUse"),
            (0x10, "SerializeCompressedLZO"),
            (0x20, "Unused"),
            (0x40, "ForceInlinePayload"),
            (0x80, "ForceStreamPayload"),
            (0x100, "PayloadInSeperateFile"),
            (0x200, "SerializeCompressedBitWindow"),
            (0x400, "Force_NOT_InlinePayload"),
            (0x800, "OptionalPayload"),
            (0x1000, "MemoryMappedPayload"),
            (0x2000, "Size64Bit"),
            (0x4000, "DuplicateNonOptionalPayload"),
            (0x8000, "BadDataVersion"),
            (0x10000, "NoOffsetFixUp"),
            (0x20000, "WorkspaceDomainPayload"),
            (0x40000, "LazyLoadable"),
        ];
        let v: Vec<&str> = NAMES
            .iter()
            .filter(|(b, _)| f & b != 0)
            .map(|(_, n)| *n)
            .collect();
        if v.is_empty() {
            "none".into()
        } else {
            v.join("|")
        }
    }
}
use bulk_flags as bf;

/// Which cooked layout precedes FTexturePlatformData (notes §3.1: SkipOffset encoding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailLayout {
    /// UE < 4.20: i32 absolute SkipOffset; no SizeZ, no bIsVirtual.
    Ue4Old,
    /// UE4.20-4.27: i64 absolute SkipOffset.
    Ue4,
    /// UE5: i64 SkipOffset relative to its own position, 16 placeholder bytes before SizeX.
    Ue5,
}

impl TailLayout {
    /// Bytes from the pixel-format FName to the FString's length prefix.
    fn fname_distance(self) -> u64 {
        match self {
            TailLayout::Ue4Old => 8 + 4 + 12,
            TailLayout::Ue4 => 8 + 8 + 12,
            TailLayout::Ue5 => 8 + 8 + 16 + 12,
        }
    }
}

/// Which file a streamed payload lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkFile {
    Ubulk,
    Uptnl,
    /// PayloadInSeperateFile + MemoryMappedPayload: `Name.m.ubulk` (notes §4).
    MappedUbulk,
    /// A non-zero CookedIndex (UE5.2+ data resources v2): `Name.NNN.ubulk` / `.uptnl` (notes §4).
    Cooked {
        index: u8,
        optional: bool,
    },
}

impl BulkFile {
    /// The sibling's extension, dot included.
    pub fn ext(self) -> String {
        match self {
            BulkFile::Ubulk => ".ubulk".into(),
            BulkFile::Uptnl => ".uptnl".into(),
            BulkFile::MappedUbulk => ".m.ubulk".into(),
            BulkFile::Cooked { index, optional } => {
                format!(".{index:03}.{}", if optional { "uptnl" } else { "ubulk" })
            }
        }
    }

    fn of(flags: u32, cooked_index: u8) -> BulkFile {
        let optional = flags & bf::OPTIONAL_PAYLOAD != 0;
        if cooked_index > 0 {
            BulkFile::Cooked {
                index: cooked_index,
                optional,
            }
        } else if optional {
            BulkFile::Uptnl
        } else if flags & bf::MEMORY_MAPPED != 0 {
            BulkFile::MappedUbulk
        } else {
            BulkFile::Ubulk
        }
    }
}

/// Where one mip's (or VT chunk's) bytes live, in the coordinates of the package's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    /// In the file holding the export data (the .uexp or the zen package), at `pos`.
    Inline { pos: u64, size: u64 },
    /// In the .ubulk / .uptnl at `offset`.
    External {
        file: BulkFile,
        offset: u64,
        size: u64,
    },
    /// Flagged as carrying no data.
    Nothing,
    /// Stored in a way that cannot be read (LZO-compressed bulk data); the reason.
    Unreadable(String),
    /// BULKDATA_SerializeCompressedZLIB: `stored` holds an FCompressedChunk stream of zlib
    /// blocks that inflates to `raw_size` bytes (0 = not stated; the stream's summary says).
    Zlib { stored: Box<Payload>, raw_size: u64 },
}

#[derive(Debug, Clone)]
pub struct RawMip {
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub payload: Payload,
    pub flags: u32,
    /// How the bulk reference was written ("index 3", "header").
    pub how: String,
}

#[derive(Debug, Clone)]
pub struct PlatformData {
    pub pixel_format: String,
    pub layout: TailLayout,
    pub size_x: u32,
    pub size_y: u32,
    pub packed_data: u32,
    pub first_mip: i32,
    pub mips: Vec<RawMip>,
    pub is_virtual: bool,
    pub vt: Option<VtRaw>,
    /// False when UTexture2D's bSerializeMipData (UE 5.3+) is 0: each mip is only its size.
    pub mip_data: bool,
    /// Position of the pixel-format FName and of the end of the block (SkipOffset target).
    pub start: u64,
    pub end: u64,
}

impl PlatformData {
    pub fn is_cube(&self) -> bool {
        self.packed_data & 0x8000_0000 != 0
    }
    pub fn has_opt_data(&self) -> bool {
        self.packed_data & 0x4000_0000 != 0
    }
    pub fn has_cpu_copy(&self) -> bool {
        self.packed_data & 0x2000_0000 != 0
    }
    pub fn num_slices(&self) -> u32 {
        self.packed_data & 0x3FFF_FFFF
    }
}

/// EPixelFormat name -> pixel format (notes §6; issue 5's list plus the other names UE uses for
/// formats Texscope decodes). DXGI memory orders: PF_A32B32G32R32F is R32G32B32A32_FLOAT and
/// PF_FloatRGBA is R16G16B16A16_FLOAT (UE4-DDS-Tools PF_TO_DXGI).
pub fn pixel_format(name: &str) -> Option<PixelFormat> {
    use PixelFormat::*;
    let name = name.strip_suffix("_crunched").unwrap_or(name);
    if let Some(rest) = name.strip_prefix("PF_ASTC_") {
        let (dims, hdr) = match rest.strip_suffix("_HDR") {
            Some(d) => (d, true),
            None => (rest, false),
        };
        let (w, h) = dims.split_once('x')?;
        let f = ASTC {
            w: w.parse().ok()?,
            h: h.parse().ok()?,
            hdr,
        };
        return PixelFormat::from_name(&f.name());
    }
    Some(match name {
        "PF_DXT1" => BC1,
        "PF_DXT3" => BC2,
        "PF_DXT5" => BC3,
        "PF_BC4" => BC4,
        "PF_BC5" => BC5,
        "PF_BC6H" => BC6HU,
        "PF_BC7" => BC7,
        "PF_B8G8R8A8" => BGRA8,
        "PF_R8G8B8A8" | "PF_R8G8B8A8_UINT" => RGBA8,
        "PF_G8" | "PF_R8" | "PF_R8_UINT" => R8,
        "PF_L8" => L8,
        "PF_A8" => A8,
        "PF_G16" | "PF_R16_UINT" => R16,
        "PF_R8G8" => RG8,
        "PF_G16R16" | "PF_R16G16_UINT" => RG16,
        "PF_R16F" | "PF_R16F_FILTER" => R16F,
        "PF_G16R16F" | "PF_G16R16F_FILTER" => RG16F,
        "PF_R32_FLOAT" => R32F,
        "PF_G32R32F" => RG32F,
        "PF_FloatRGBA" => RGBA16F,
        "PF_A32B32G32R32F" => RGBA32F,
        "PF_A16B16G16R16" | "PF_R16G16B16A16_UNORM" | "PF_R16G16B16A16_UINT" => RGBA16,
        "PF_A2B10G10R10" => RGB10A2,
        "PF_FloatR11G11B10" => RG11B10F,
        "PF_R5G6B5_UNORM" => RGB565,
        "PF_B5G5R5A1_UNORM" => BGRA5551,
        "PF_ETC1" => ETC1,
        "PF_ETC2_RGB" => ETC2RGB,
        "PF_ETC2_RGBA" => ETC2RGBA8,
        "PF_ETC2_R11_EAC" => EACR11,
        "PF_ETC2_RG11_EAC" => EACRG11,
        "PF_PVRTC2" => PVRTC2RGBA,
        "PF_PVRTC4" => PVRTC4RGBA,
        "PF_ATC_RGB" => ATCRGB,
        "PF_ATC_RGBA_E" => ATCRGBAExplicit,
        "PF_ATC_RGBA_I" => ATCRGBAInterpolated,
        _ => return None,
    })
}

/// Finds every plausible platform-data anchor `len "PF_...\0"` inside `[start, start+size)` of
/// `src`, reading it in windows; returns the positions of the length prefixes in file order.
fn anchors(src: &dyn Source, start: u64, size: u64, limits: &Limits) -> Result<Vec<u64>> {
    const WINDOW: u64 = 1 << 16;
    const OVERLAP: u64 = 80;
    // The block follows the property block, which is small (under 2 KiB in every sample); inline
    // mips come after the anchor. 4 MiB bounds the scan of a hostile or huge export.
    const MAX_SCAN: u64 = 4 << 20;
    let end = start.saturating_add(size.min(MAX_SCAN)).min(src.len());
    let mut out = Vec::new();
    let mut at = start;
    while at < end {
        let n = (end - at).min(WINDOW + OVERLAP);
        let buf = crate::io::read_range(src, at, n, limits)?;
        let scan = (n.min(WINDOW)) as usize;
        for i in 0..scan {
            if buf.len() < i + 7 || &buf[i + 4..i + 7] != b"PF_" {
                continue;
            }
            let len = u32::from_le_bytes([buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]) as usize;
            if !(5..=64).contains(&len) || buf.len() < i + 4 + len {
                continue;
            }
            let s = &buf[i + 4..i + 4 + len];
            if s[len - 1] == 0 && s[..len - 1].iter().all(|b| b.is_ascii_graphic()) {
                out.push(at + i as u64);
            }
        }
        at += WINDOW;
    }
    Ok(out)
}

/// Locates and parses the export's cooked platform data. Every candidate anchor is confirmed by
/// the FName before it naming the same PF_ string and by the SkipOffset landing exactly after the
/// parsed block (notes §3). Returns the blocks in file order (one per cooked format).
pub fn find_platform_data(
    src: &dyn Source,
    pkg: &Package,
    export: &Export,
    limits: &Limits,
) -> Result<Vec<PlatformData>> {
    let end = export.start.saturating_add(export.size);
    let mut last_err = None;
    for anchor in anchors(src, export.start, export.size, limits)? {
        for layout in [TailLayout::Ue5, TailLayout::Ue4, TailLayout::Ue4Old] {
            if matches!(pkg.flavor, Flavor::Legacy) {
                // The summary already told UE4 from UE5.
                if (pkg.ue5_version > 0) != (layout == TailLayout::Ue5) {
                    continue;
                }
                if pkg
                    .forced_old_tail
                    .is_some_and(|old| old != (layout == TailLayout::Ue4Old))
                {
                    continue;
                }
            }
            let Some(fname_at) = anchor.checked_sub(layout.fname_distance()) else {
                continue;
            };
            if fname_at < export.start {
                continue;
            }
            // Read once, before the first block: the flag is UTexture2D's, for every format.
            let mip_data =
                layout != TailLayout::Ue5 || serializes_mip_data(src, export, fname_at, limits)?;
            let parse = |at| parse_block(src, pkg, export, layout, at, end, mip_data, limits);
            match parse(fname_at) {
                Ok(Some(first)) => {
                    let mut blocks = vec![first];
                    // Multi-format packages: FName, SkipOffset, data ... until FName "None".
                    while blocks.len() < 16 {
                        let next = blocks.last().map(|b| b.end).unwrap_or(end);
                        match parse(next) {
                            Ok(Some(b)) => blocks.push(b),
                            _ => break,
                        }
                    }
                    return Ok(blocks);
                }
                Ok(None) => {}
                Err(e) => last_err = Some(e),
            }
        }
    }
    Err(last_err.unwrap_or_else(|| {
        Error::unsupported(format!(
            "export {} holds no cooked pixel data (no PF_ platform-data block in its serial \
             range): render targets and runtime textures carry none",
            export.name
        ))
    }))
}

/// Whether the platform data whose first FName is at `fname_at` has pixels in its mips: UE 5.3+
/// writes UTexture2D's bSerializeMipData (u32) between bCooked (u32 1) and that FName, and cooks
/// some textures with it 0, each mip then only its size (the UE 5.8 set's landscape heightmaps:
/// bytes "01000000 00000000" before the FName). Before 5.3 the u32 before the FName is bCooked
/// (1) and the one before it the strip flags, never 1, so those read as true. Only the first
/// block's FName has these before it: a second format's follows the first's data, which can end
/// in the same bytes (a last mip's SizeZ 1, bIsVirtual 0).
fn serializes_mip_data(
    src: &dyn Source,
    export: &Export,
    fname_at: u64,
    limits: &Limits,
) -> Result<bool> {
    let Some(from) = fname_at.checked_sub(8).filter(|&f| f >= export.start) else {
        return Ok(true);
    };
    let b = crate::io::read_range(src, from, 8, limits)?;
    let word = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    Ok(!(b.len() == 8 && word(0) == 1 && word(4) == 0))
}

/// Parses one FName + SkipOffset + FTexturePlatformData block at `at`. `Ok(None)` when the FName
/// does not name a pixel format (not this layout, or the terminating "None"). `mip_data`: see
/// [`serializes_mip_data`].
#[allow(clippy::too_many_arguments)]
fn parse_block(
    src: &dyn Source,
    pkg: &Package,
    export: &Export,
    layout: TailLayout,
    at: u64,
    end: u64,
    mip_data: bool,
    limits: &Limits,
) -> Result<Option<PlatformData>> {
    let mut c = Cursor::new(src, at, end, limits);
    let fname = c.i32()?;
    let number = c.i32()?;
    let Some(pf_name) = pkg.name(fname) else {
        return Ok(None);
    };
    if number != 0 || !pf_name.starts_with("PF_") {
        return Ok(None);
    }
    let pf_name = pf_name.to_string();
    let skip_at = c.pos;
    let block_end = match layout {
        TailLayout::Ue4Old => (c.i32()? as i64).checked_sub(export.coord_delta),
        TailLayout::Ue4 => c.i64()?.checked_sub(export.coord_delta),
        TailLayout::Ue5 => c.i64()?.checked_add(skip_at as i64),
    };
    let Some(block_end) = block_end.filter(|&e| e > c.pos as i64 && e as u64 <= end) else {
        return Ok(None);
    };
    let block_end = block_end as u64;
    c.end = block_end;
    if layout == TailLayout::Ue5 {
        c.skip(16)?; // placeholder / bUsingDerivedData (notes §3.2.1)
    }
    let size_x = c.u32()?;
    let size_y = c.u32()?;
    let packed_data = c.u32()?;
    // One surface record is made per slice: a flipped high byte (16M slices) took seconds and
    // gigabytes in the mutation sweep before any pixel was read.
    let slices = packed_data & 0x3FFF_FFFF;
    if slices > limits.max_slices {
        return Err(Error::limit(format!(
            "{} declares {slices} slices, over the limit of {}",
            export.name, limits.max_slices
        ))
        .at_field("unreal/FTexturePlatformData/PackedData"));
    }
    let pf_string = c.fstring()?;
    if pf_string != pf_name && !pf_string.starts_with(&pf_name) {
        return Ok(None);
    }
    let mut pd = PlatformData {
        pixel_format: pf_name,
        layout,
        size_x,
        size_y,
        packed_data,
        first_mip: 0,
        mips: Vec::new(),
        is_virtual: false,
        vt: None,
        mip_data,
        start: at,
        end: block_end,
    };
    if pd.has_opt_data() {
        c.skip(8)?; // ExtData, NumMipsInTail
    }
    if pd.has_cpu_copy() {
        // FSharedImage (UE5.4+; notes §3.2.4, reader-only): SizeX, SizeY, SizeZ, format, gamma,
        // then an i64-sized byte array.
        c.skip(12)?;
        c.skip(4)?;
        c.skip(1)?;
        let n = c.i64()?;
        if n < 0 {
            return Err(Error::malformed("negative CPU-copy size"));
        }
        c.skip(n as u64)?;
    }
    pd.first_mip = c.i32()?;
    let num_mips = c.i32()?;
    if num_mips < 0 || num_mips as u32 > limits.max_mips {
        return Err(Error::malformed(format!("NumMips {num_mips}")));
    }
    read_mips(&mut c, pkg, export.coord_delta, &mut pd, num_mips as u32)?;
    if c.pos != block_end && layout != TailLayout::Ue4Old {
        pd.is_virtual = c.bool32()?;
        if pd.is_virtual {
            pd.vt = Some(if layout == TailLayout::Ue5 {
                vt::read_built_data(&mut c, pkg, export)?
            } else {
                read_ue4_vt(&mut c, pkg, export, block_end)?
            });
        }
    }
    if c.pos != block_end {
        return Err(Error::malformed(format!(
            "platform data of {} ends at {} but its SkipOffset says {block_end}",
            export.name, c.pos
        )));
    }
    Ok(Some(pd))
}

/// A UE4 FVirtualTextureBuiltData: the 4.23-4.26 record (u16 CodecPayloadOffsets) or the 4.27
/// one (u32). The version decides when the package or the user states it; a cooked package
/// states none (notes §1.1), so then both forms are read and only one may come out consistent:
/// every chunk record agreeing with its bulk header (`vt::check_ue4_chunk`) and the record
/// ending exactly at the block's SkipOffset.
fn read_ue4_vt(c: &mut Cursor, pkg: &Package, export: &Export, block_end: u64) -> Result<VtRaw> {
    use vt::VtForm::{Ue427, Ue4Pre427};
    let v = &pkg.versions;
    let source = if v.forced.is_some() {
        "forced"
    } else {
        "SavedByEngineVersion"
    };
    let (forms, why) = match v.ue4_minor() {
        Some(m @ 23..=26) => (vec![Ue4Pre427], format!("UE4.{m}, {source}")),
        Some(27) => (vec![Ue427], format!("UE4.27, {source}")),
        Some(m) => {
            return Err(Error::unsupported(format!(
                "{} is flagged virtual, but UE4.{m} ({source}) has no virtual textures \
                 (they came with 4.23)",
                export.name
            )))
        }
        None if v.below_427() => (
            vec![Ue4Pre427],
            format!("FileVersionUE4 {} is older than 4.27's 522", v.file_ue4),
        ),
        None => (
            vec![Ue4Pre427, Ue427],
            "no version in the package; the one form whose chunk records are consistent".into(),
        ),
    };
    let start = c.pos;
    let mut ok = Vec::new();
    let mut errs = Vec::new();
    for form in forms {
        let mut t = Cursor::new(c.src, start, c.end, c.limits);
        match vt::read_built_data_form(&mut t, pkg, export, form) {
            Ok(raw) if t.pos == block_end => ok.push((form, raw, t.pos)),
            Ok(_) => errs.push(format!(
                "as {}, the record ends at {} but SkipOffset says {block_end}",
                form.label(),
                t.pos
            )),
            Err(e) => errs.push(format!("as {}: {e}", form.label())),
        }
    }
    // With no chunk records the two forms are the same bytes: nothing to tell apart.
    if ok.len() == 2 && ok.iter().all(|(_, raw, _)| raw.layout.chunks.is_empty()) {
        ok.truncate(1);
    }
    match ok.len() {
        1 => {
            let (form, mut raw, end) = ok.remove(0);
            c.pos = end;
            raw.layout.record_form = format!("{} ({why})", form.label());
            Ok(raw)
        }
        0 => Err(Error::malformed(format!(
            "the UE4 virtual-texture data of {} reads in no record form ({why}): {}",
            export.name,
            errs.join("; ")
        ))
        .at_field("unreal/FVirtualTextureBuiltData")),
        _ => Err(Error::unsupported(format!(
            "the UE4 virtual-texture data of {} reads consistently both as 4.23-4.26 (u16 codec \
             offsets) and as 4.27 (u32); open it with --ue-version 4.26 or 4.27",
            export.name
        ))),
    }
}

fn bytes_of(pd: &PlatformData, f: Option<PixelFormat>, w: u32, h: u32, d: u32) -> u64 {
    let faces = if pd.is_cube() {
        pd.num_slices().max(6) as u64
    } else {
        pd.num_slices().max(1) as u64
    };
    let per = f.map(|f| f.surface_size(w, h)).unwrap_or(0);
    // A volume's slice count is its depth, already counted in `d`.
    let faces = if d > 1 { 1 } else { faces };
    per.saturating_mul(d.max(1) as u64).saturating_mul(faces)
}

fn read_mips(
    c: &mut Cursor,
    pkg: &Package,
    coord_delta: i64,
    pd: &mut PlatformData,
    n: u32,
) -> Result<()> {
    let format = pixel_format(&pd.pixel_format);
    let index_form = pd.layout == TailLayout::Ue5 && pkg.resources.is_some();
    let mut external_cursor = 0u64;
    for i in 0..n {
        let mut how = String::new();
        if pd.layout != TailLayout::Ue5 {
            c.bool32()?; // bCooked
        }
        let (payload, flags) = if !pd.mip_data {
            how.push_str("no mip data");
            (
                Payload::Unreadable(
                    "the texture is cooked without its pixels (UTexture2D's bSerializeMipData \
                     is 0, as UE 5.3+ cooks landscape heightmaps, which the engine fills at \
                     load): the package holds only each mip's size"
                        .into(),
                ),
                0,
            )
        } else if index_form {
            let idx = c.i32()?;
            how = format!("data resource {idx}");
            let entry = usize::try_from(idx)
                .ok()
                .and_then(|i| pkg.resources.as_ref().and_then(|r| r.get(i)).copied());
            // Seed 000's probe: the trailer right at the cursor means the payload is streamed;
            // otherwise it is inline and the trailer must sit exactly payload-size further on.
            let prev = pd.mips.last().map(|m| (m.width, m.height, m.depth));
            let cands = expected_dims(pd, prev);
            let probe = probe_trailer(c, &cands, |w, h, d| bytes_of(pd, format, w, h, d))?;
            match (entry, probe) {
                (Some(e), Some((_, inline_size))) => {
                    let inline = e.flags & bf::FORCE_INLINE_PAYLOAD != 0;
                    let agree = match inline_size {
                        Some(s) => inline && s == e.size,
                        None => !inline,
                    };
                    if !agree {
                        return Err(Error::malformed(format!(
                            "mip {i}: the data-resource table ({}, {} bytes) disagrees with the \
                             stream (trailer probe)",
                            bf::describe(e.flags),
                            e.size
                        )));
                    }
                    (entry_payload(c, pkg, coord_delta, e)?, e.flags)
                }
                (Some(e), None) => (entry_payload(c, pkg, coord_delta, e)?, e.flags),
                (None, Some((_, Some(size)))) => {
                    let p = Payload::Inline { pos: c.pos, size };
                    c.skip(size)?;
                    (p, bf::FORCE_INLINE_PAYLOAD)
                }
                (None, Some((dims, None))) => {
                    // No table row: streamed mips are concatenated in chain order from offset 0.
                    let size = bytes_of(pd, format, dims.0, dims.1, dims.2);
                    let p = Payload::External {
                        file: BulkFile::Ubulk,
                        offset: external_cursor,
                        size,
                    };
                    external_cursor += size;
                    (p, bf::PAYLOAD_IN_SEPARATE_FILE)
                }
                (None, None) => {
                    return Err(Error::malformed(format!(
                        "mip {i}: bulk index {idx} has no table row and no mip trailer follows"
                    )))
                }
            }
        } else {
            how.push_str("header");
            read_bulk_header(c, pkg, coord_delta)?
        };
        let width = c.u32()?;
        let height = c.u32()?;
        let depth = if pd.layout == TailLayout::Ue4Old {
            1
        } else {
            c.u32()?
        };
        if width == 0 || height == 0 || width > 65536 || height > 65536 || depth > 65536 {
            return Err(Error::malformed(format!(
                "mip {i} claims {width}x{height}x{depth}"
            )));
        }
        pd.mips.push(RawMip {
            width,
            height,
            depth,
            payload,
            flags,
            how,
        });
    }
    Ok(())
}

/// Mip sizes the chain can have next: the previous mip halved, or for mip 0 SizeX >>
/// (FirstMipToSerialize + k) for a whole-mip LOD bias k (seed 000).
fn expected_dims(pd: &PlatformData, prev: Option<(u32, u32, u32)>) -> Vec<(u32, u32, u32)> {
    let half = |v: u32| (v / 2).max(1);
    match prev {
        // A volume halves its depth each mip; an array's SizeZ is its slice count in every mip
        // (nothing in the platform data says which, so both are candidates).
        Some((w, h, d)) if d > 1 => vec![(half(w), half(h), half(d)), (half(w), half(h), d)],
        Some((w, h, _)) => vec![(half(w), half(h), 1)],
        None => {
            let depth = if pd.is_cube() {
                1
            } else {
                pd.num_slices().max(1)
            };
            (0..16u32)
                .map(|k| {
                    let s = (pd.first_mip.max(0) as u32 + k).min(31);
                    let sh = |v: u32| (v >> s).max(1);
                    (sh(pd.size_x), sh(pd.size_y), {
                        let d = sh(depth);
                        if depth > 1 {
                            d
                        } else {
                            1
                        }
                    })
                })
                .chain(std::iter::once((pd.size_x, pd.size_y, 1)))
                .collect()
        }
    }
}

/// Returns the matched dims and `Some(size)` for an inline payload, `None` for streamed.
#[allow(clippy::type_complexity)]
fn probe_trailer(
    c: &Cursor,
    cands: &[(u32, u32, u32)],
    size: impl Fn(u32, u32, u32) -> u64,
) -> Result<Option<((u32, u32, u32), Option<u64>)>> {
    let read3 = |pos: u64| -> Option<(u32, u32, u32)> {
        let mut p = Cursor::new(c.src, pos, c.end, c.limits);
        Some((p.u32().ok()?, p.u32().ok()?, p.u32().ok()?))
    };
    for &d in cands {
        if read3(c.pos) == Some(d) {
            return Ok(Some((d, None)));
        }
    }
    for &d in cands {
        let s = size(d.0, d.1, d.2);
        if s > 0 && read3(c.pos.saturating_add(s)) == Some(d) {
            return Ok(Some((d, Some(s))));
        }
    }
    Ok(None)
}

/// Payload of a data-resource / zen BulkDataMap row; an inline one follows in the stream.
pub fn entry_payload(
    c: &mut Cursor,
    pkg: &Package,
    coord_delta: i64,
    e: super::package::BulkEntry,
) -> Result<Payload> {
    if e.flags & bf::COMPRESSED_LZO != 0 {
        return Ok(lzo(e.flags));
    }
    let p = if e.flags
        & (bf::FORCE_INLINE_PAYLOAD | bf::PAYLOAD_IN_SEPARATE_FILE | bf::OPTIONAL_PAYLOAD)
        == 0
        && e.flags & bf::PAYLOAD_AT_END_OF_FILE != 0
        && e.size > 0
    {
        // PayloadAtEndOfFile alone: in the package file itself. The offset follows the legacy
        // header's rule (notes §4: + BulkDataStartOffset unless NoOffsetFixUp), an assumption for
        // data resources, which no sample exercises.
        let mut off = e.offset as i64;
        if e.flags & bf::NO_OFFSET_FIXUP == 0 {
            off = off.saturating_add(pkg.bulk_data_start);
        }
        let pos = off
            .checked_sub(coord_delta)
            .filter(|&p| p >= 0)
            .ok_or_else(|| {
                Error::malformed(format!(
                    "end-of-file bulk data at combined offset {off} lies before the export data"
                ))
            })?;
        Payload::Inline {
            pos: pos as u64,
            size: e.size,
        }
    } else {
        entry_location(c, e)?
    };
    Ok(zlib_wrap(p, e.flags, e.raw_size))
}

fn lzo(flags: u32) -> Payload {
    Payload::Unreadable(format!(
        "LZO-compressed bulk data ({}) is not supported",
        bf::describe(flags)
    ))
}

fn zlib_wrap(p: Payload, flags: u32, raw_size: u64) -> Payload {
    match p {
        Payload::Inline { .. } | Payload::External { .. } if flags & bf::COMPRESSED_ZLIB != 0 => {
            Payload::Zlib {
                stored: Box::new(p),
                raw_size,
            }
        }
        p => p,
    }
}

fn entry_location(c: &mut Cursor, e: super::package::BulkEntry) -> Result<Payload> {
    if e.flags & bf::FORCE_INLINE_PAYLOAD != 0 {
        let p = Payload::Inline {
            pos: c.pos,
            size: e.size,
        };
        c.skip(e.size)?;
        return Ok(p);
    }
    if e.flags & bf::UNUSED != 0 || e.size == 0 {
        return Ok(Payload::Nothing);
    }
    Ok(Payload::External {
        file: BulkFile::of(e.flags, e.cooked_index),
        offset: e.offset,
        size: e.size,
    })
}

/// A full legacy FByteBulkData header (notes §4) and where its payload lives.
pub fn read_bulk_header(c: &mut Cursor, pkg: &Package, coord_delta: i64) -> Result<(Payload, u32)> {
    let flags = c.u32()?;
    let big = flags & bf::SIZE_64BIT != 0;
    let count = if big { c.i64()? } else { c.i32()? as i64 };
    let size = if big { c.i64()? } else { c.i32()? as i64 };
    let offset = c.i64()?;
    if flags & bf::BAD_DATA_VERSION != 0 {
        c.skip(2)?;
    }
    if flags & bf::DUPLICATE_NON_OPTIONAL != 0 {
        c.skip(4)?;
        c.skip(if big { 8 } else { 4 })?;
        c.skip(8)?;
    }
    if size < 0 {
        return Err(Error::malformed(format!("bulk data of size {size}")));
    }
    let size = size as u64;
    if flags & bf::COMPRESSED_LZO != 0 {
        return Ok((lzo(flags), flags));
    }
    // ElementCount of byte bulk data is its uncompressed size.
    let (p, flags) = header_location(c, pkg, coord_delta, flags, size, offset)?;
    Ok((zlib_wrap(p, flags, count.max(0) as u64), flags))
}

fn header_location(
    c: &mut Cursor,
    pkg: &Package,
    coord_delta: i64,
    flags: u32,
    size: u64,
    mut offset: i64,
) -> Result<(Payload, u32)> {
    if flags & bf::FORCE_INLINE_PAYLOAD != 0 {
        let p = Payload::Inline { pos: c.pos, size };
        c.skip(size)?;
        return Ok((p, flags));
    }
    if flags & bf::UNUSED != 0 || size == 0 {
        return Ok((Payload::Nothing, flags));
    }
    if flags & bf::NO_OFFSET_FIXUP == 0 {
        offset = offset.saturating_add(pkg.bulk_data_start);
    }
    if offset < 0 {
        return Err(Error::malformed(format!("bulk data at offset {offset}")));
    }
    let file = if flags & (bf::OPTIONAL_PAYLOAD | bf::PAYLOAD_IN_SEPARATE_FILE) != 0 {
        Some(BulkFile::of(flags, 0))
    } else {
        None
    };
    Ok(match file {
        Some(file) => (
            Payload::External {
                file,
                offset: offset as u64,
                size,
            },
            flags,
        ),
        // PayloadAtEndOfFile alone: same package at a combined-file offset (notes §4).
        None => {
            let pos = offset
                .checked_sub(coord_delta)
                .filter(|&p| p >= 0)
                .ok_or_else(|| {
                    Error::malformed(format!(
                        "bulk data at combined offset {offset} lies before the export data"
                    ))
                })?;
            (
                Payload::Inline {
                    pos: pos as u64,
                    size,
                },
                flags,
            )
        }
    })
}

/// The FCompressedChunk stream of FArchive::SerializeCompressed (UE's Archive.cpp, described in
/// the public UE4 docs of BULKDATA_SerializeCompressedZLIB): i64 tag 0x9E2A83C1 + i64 chunk size,
/// i64 total compressed + i64 total uncompressed, one (compressed, uncompressed) i64 pair per
/// chunk, then the zlib chunks back to back. Inflates at most `max_raw` bytes.
pub fn inflate_chunks(data: &[u8], max_raw: u64, limits: &Limits) -> Result<Vec<u8>> {
    let mut r = crate::io::Reader::new(data);
    let tag = r.i64()?;
    let chunk = r.i64()?;
    if tag != super::package::PACKAGE_TAG as i64 {
        return Err(Error::malformed(format!(
            "compressed bulk data does not start with the package tag (found 0x{tag:X})"
        ))
        .at_field("unreal/FCompressedChunkInfo/Tag"));
    }
    let _packed = r.i64()?;
    let total = r.i64()?;
    if chunk <= 0 || total < 0 || total as u64 > max_raw {
        return Err(Error::malformed(format!(
            "compressed bulk data says {total} bytes in chunks of {chunk}, but at most {max_raw} \
             are expected"
        ))
        .at_field("unreal/FCompressedChunkInfo/UncompressedSize"));
    }
    limits.check_alloc(total as u64, "inflated bulk data")?;
    let n = (total as u64).div_ceil(chunk as u64);
    limits.check_count(n, 16, r.remaining() as u64, "compressed bulk chunks")?;
    let mut sizes = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let (p, u) = (r.i64()?, r.i64()?);
        if p < 0 || u < 0 || u > chunk {
            return Err(Error::malformed(format!(
                "compressed bulk chunk of {p} -> {u} bytes (chunk size {chunk})"
            )));
        }
        sizes.push((p as usize, u as usize));
    }
    let mut out = Vec::with_capacity(total as usize);
    for (p, u) in sizes {
        let block = r.bytes(p)?;
        let got = crate::io::compress::inflate_zlib(block, u as u64)
            .map_err(|e| Error::malformed(format!("a zlib bulk chunk does not inflate: {e}")))?;
        if got.len() != u {
            return Err(Error::malformed(format!(
                "a zlib bulk chunk gives {} bytes, its header says {u}",
                got.len()
            )));
        }
        out.extend_from_slice(&got);
    }
    if out.len() as u64 != total as u64 {
        return Err(Error::malformed(format!(
            "compressed bulk data gives {} bytes, its summary says {total}",
            out.len()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixel_format_names() {
        // Issue 5's list and notes §6's table.
        assert_eq!(pixel_format("PF_DXT1"), Some(PixelFormat::BC1));
        assert_eq!(pixel_format("PF_DXT5"), Some(PixelFormat::BC3));
        assert_eq!(pixel_format("PF_BC6H"), Some(PixelFormat::BC6HU));
        assert_eq!(pixel_format("PF_FloatRGBA"), Some(PixelFormat::RGBA16F));
        assert_eq!(pixel_format("PF_A32B32G32R32F"), Some(PixelFormat::RGBA32F));
        assert_eq!(
            pixel_format("PF_ASTC_6x6"),
            Some(PixelFormat::ASTC {
                w: 6,
                h: 6,
                hdr: false
            })
        );
        assert_eq!(pixel_format("PF_Unknown"), None);
    }

    #[test]
    fn every_seed_census_and_issue_format_is_mapped() {
        // Seed 000's census table (DXT1 1867, BC7 1209, BC5 982, DXT5 316, B8G8R8A8 128, BC4 108,
        // FloatRGBA 65, BC6H 44, G8 32, A32B32G32R32F 24, R16F 12) and issue 5's list; UE spells
        // R32F as PF_R32_FLOAT. Block sizes from the formats' specs (BC1/BC4 8 bytes per 4x4,
        // BC2/3/5/6H/7 16, ASTC 16 bytes per block of any footprint, ETC2 RGB 8, RGBA 16).
        let table: &[(&str, PixelFormat, u64)] = &[
            ("PF_DXT1", PixelFormat::BC1, 8),
            ("PF_BC7", PixelFormat::BC7, 16),
            ("PF_BC5", PixelFormat::BC5, 16),
            ("PF_DXT5", PixelFormat::BC3, 16),
            ("PF_B8G8R8A8", PixelFormat::BGRA8, 64),
            ("PF_BC4", PixelFormat::BC4, 8),
            ("PF_FloatRGBA", PixelFormat::RGBA16F, 128),
            ("PF_BC6H", PixelFormat::BC6HU, 16),
            ("PF_G8", PixelFormat::R8, 16),
            ("PF_A32B32G32R32F", PixelFormat::RGBA32F, 256),
            ("PF_R16F", PixelFormat::R16F, 32),
            ("PF_DXT3", PixelFormat::BC2, 16),
            ("PF_R8G8B8A8", PixelFormat::RGBA8, 64),
            ("PF_G16", PixelFormat::R16, 32),
            ("PF_R32_FLOAT", PixelFormat::R32F, 64),
            ("PF_A2B10G10R10", PixelFormat::RGB10A2, 64),
            ("PF_R8G8", PixelFormat::RG8, 32),
            ("PF_ETC2_RGB", PixelFormat::ETC2RGB, 8),
            ("PF_ETC2_RGBA", PixelFormat::ETC2RGBA8, 16),
            ("PF_ETC2_R11_EAC", PixelFormat::EACR11, 8),
            ("PF_ETC2_RG11_EAC", PixelFormat::EACRG11, 16),
        ];
        for &(name, f, bytes_4x4) in table {
            assert_eq!(pixel_format(name), Some(f), "{name}");
            assert_eq!(f.surface_size(4, 4), bytes_4x4, "{name}");
        }
        for (w, h) in [(4, 4), (5, 5), (6, 6), (8, 8), (10, 10), (12, 12)] {
            for hdr in ["", "_HDR"] {
                let name = format!("PF_ASTC_{w}x{h}{hdr}");
                let f = pixel_format(&name).unwrap_or_else(|| panic!("{name}"));
                // 24x24 texels: ceil(24/w) * ceil(24/h) blocks of 16 bytes.
                let blocks = 24u64.div_ceil(w) * 24u64.div_ceil(h);
                assert_eq!(f.surface_size(24, 24), blocks * 16, "{name}");
            }
        }
    }

    #[test]
    fn bulk_flags_read_as_names() {
        // Notes §4: 0x10501 is what every streamed mip in the samples carries.
        assert_eq!(
            bulk_flags::describe(0x10501),
            "PayloadAtEndOfFile|PayloadInSeperateFile|Force_NOT_InlinePayload|NoOffsetFixUp"
        );
    }

    #[test]
    fn anchors_need_a_terminated_pf_string() {
        let mut data = vec![0u8; 16];
        data.extend_from_slice(&8u32.to_le_bytes());
        data.extend_from_slice(b"PF_DXT1\0");
        data.extend_from_slice(&8u32.to_le_bytes());
        data.extend_from_slice(b"PF_DXT1X"); // no NUL: not an FString
        let src = crate::io::BytesSource::new("x", data);
        let found = anchors(&src, 0, 100, &Limits::default()).unwrap();
        assert_eq!(found, vec![16]);
    }
}
