//! The cooked platform data of a texture export: anchor search, FTexturePlatformData, the mip
//! chain with its bulk-data headers, and the virtual-texture switch (notes §3, §4; seed 000).

use super::bulk::{bulk_flags as bf, entry_payload, read_bulk_header, BulkFile, Payload};
use super::cursor::Cursor;
use super::package::{Export, Flavor, Package};
use super::pixel_format::pixel_format;
use super::vt::{self, VtRaw};
use crate::codec::PixelFormat;
use crate::io::{Error, Limits, Result, Source};

/// Which cooked layout precedes FTexturePlatformData (notes §3.1: SkipOffset encoding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailLayout {
    /// UE 4.0-4.19: i32 absolute SkipOffset; no SizeZ, no bIsVirtual (UE 4.x source: the
    /// same fields from 4.0, where bCooked (125), i64 bulk offsets (198) and BulkDataStartOffset
    /// (212) already predate the oldest loadable package, 214).
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

#[cfg(test)]
mod tests {
    use super::*;

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
