//! The Texture resource header (resource type 0x6bde20ba): seed 001's 180-byte Skate layout and the
//! other lengths and versions of notes/frostbite.md, chosen by length + version and confirmed by
//! the mip-size check.

use super::render_format::{FormatInfo, Profile};
use crate::codec::PixelFormat;
use crate::io::{Error, Limits, Reader, Result};
use crate::model::TextureKind;

/// Resource type of a Texture (seed 001's title).
pub const RESOURCE_TYPE_TEXTURE: u32 = 0x6bde20ba;
/// Seed 001: every stock Skate texture header is 180 bytes.
pub const SKATE_HEADER_LEN: usize = 180;
/// Seed 001: the resource metadata in front of the header is 16 bytes (version, flags, two zeros).
pub const RES_META_LEN: usize = 16;
/// Flag bits (notes: Frosty's TextureFlags).
pub const FLAG_STREAMING: u32 = 0x1;
pub const FLAG_SRGB_GAMMA: u32 = 0x2;
pub const FLAG_SWIZZLED_DATA: u32 = 0x800;
/// Seed 001: fifteen mip byte sizes.
pub const MIP_SLOTS: usize = 15;

/// Where the fields sit, by header generation (notes, "Header versions").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderLayout {
    /// Version 10: the version word leads the header, flags are a u32, chunk GUID at 0x1C.
    V10,
    /// Version 11: the two compressed mip-block offsets lead, u16 flags, chunk GUID at 0x1C.
    V11,
    /// Version 12/13: a u32 at 0x10 (customPoolId; seed 001's "unknown"), u16 flags at 0x14, and the
    /// chunk GUID at 0x20 (SWBF2/BFV/FIFA17-22), 0x24 (BF2042/NFSU), 0x28 (FC24, Skate) or 0x2C
    /// (Dragon Age: Veilguard).
    V12 { guid_at: usize },
}

pub(crate) struct Pos {
    pub(crate) version: Option<usize>,
    pub(crate) mip_offsets: Option<usize>,
    pub(crate) kind: usize,
    pub(crate) format: usize,
    pub(crate) pool: Option<usize>,
    pub(crate) flags: usize,
    pub(crate) flags_u32: bool,
    pub(crate) dims: usize,
    pub(crate) mip_count: usize,
    /// Streaming mip floor and repeated mip count (seed 001: 0x20, 0x21), in layouts with room.
    pub(crate) floor: Option<usize>,
    pub(crate) guid: usize,
    /// h64 high half before the texture group (seed 001: 0x7C).
    pub(crate) h64_high: bool,
}

impl HeaderLayout {
    pub(crate) fn pos(self) -> Pos {
        match self {
            HeaderLayout::V10 => Pos {
                version: Some(0),
                mip_offsets: None,
                kind: 4,
                format: 8,
                pool: None,
                flags: 0xC,
                flags_u32: true,
                dims: 0x10,
                mip_count: 0x1A,
                floor: None,
                guid: 0x1C,
                h64_high: false,
            },
            HeaderLayout::V11 => Pos {
                version: None,
                mip_offsets: Some(0),
                kind: 8,
                format: 0xC,
                pool: None,
                flags: 0x10,
                flags_u32: false,
                dims: 0x12,
                mip_count: 0x1A,
                floor: None,
                guid: 0x1C,
                h64_high: false,
            },
            HeaderLayout::V12 { guid_at } => Pos {
                version: None,
                mip_offsets: Some(0),
                kind: 8,
                format: 0xC,
                pool: Some(0x10),
                flags: 0x14,
                flags_u32: false,
                dims: 0x16,
                mip_count: 0x1E,
                floor: (guid_at >= 0x28).then_some(0x20),
                guid: guid_at,
                h64_high: guid_at >= 0x28,
            },
        }
    }

    /// Bytes the header needs up to and including the name hash.
    fn min_len(self) -> usize {
        self.pos().guid + 16 + 4 * MIP_SLOTS + 8
    }

    pub fn describe(self) -> String {
        match self {
            HeaderLayout::V10 => "version 10, chunk GUID at 0x1C".into(),
            HeaderLayout::V11 => "version 11, chunk GUID at 0x1C".into(),
            HeaderLayout::V12 { guid_at } => {
                let who = match guid_at {
                    0x20 => " (SWBF2, BFV, FIFA 17-22, Anthem)",
                    0x24 => " (BF2042, NFS Unbound, Dead Space)",
                    0x28 => " (Skate, FC 24)",
                    0x2C => " (Dragon Age: The Veilguard)",
                    _ => "",
                };
                format!("version 12/13, chunk GUID at {guid_at:#04X}{who}")
            }
        }
    }
}

/// The 16 bytes in front of the header (seed 001: 0x0c, the flags as u32, two zero words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResMeta {
    pub version: u32,
    pub flags: u32,
}

/// A parsed Texture header; field names follow seed 001's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureHeader {
    pub layout: HeaderLayout,
    pub res_meta: Option<ResMeta>,
    /// Length of the header proper (after any resource metadata).
    pub header_len: usize,
    /// The version word inside a version-10 header.
    pub version: Option<u32>,
    /// Compressed offsets of the mip 1 and mip 2 blocks in the chunk's CAS range (seed 0x0, 0x4).
    pub compressed_mip_offsets: [u32; 2],
    pub kind: u32,
    pub format: u32,
    /// Seed 001 0x10 "unknown" (notes: customPoolId).
    pub custom_pool_id: Option<u32>,
    pub flags: u32,
    pub width: u16,
    pub height: u16,
    pub depth: u16,
    pub slices: u16,
    pub mip_count: u8,
    pub first_mip: u8,
    pub streaming_mip_floor: Option<u8>,
    pub repeated_mip_count: Option<u8>,
    pub chunk_guid: [u8; 16],
    pub mip_sizes: [u32; MIP_SLOTS],
    pub chunk_size: u32,
    pub name_hash: u32,
    pub h64_high: Option<u32>,
    pub texture_group: Option<String>,
}

/// djb2-XOR over the lowercase name (seed 001: proven for every stock header; Frosty calls it Fnv1).
pub fn name_hash(name: &str) -> u32 {
    name.bytes().fold(5381u32, |h, b| {
        h.wrapping_mul(33) ^ b.to_ascii_lowercase() as u32
    })
}

/// Frostbite texture kind (seed 001: 0 2D, 1 cube, 2 volume, 3 array; notes: 4 1D array, 5 1D,
/// 6 cube array).
pub fn kind_of(kind: u32) -> Option<TextureKind> {
    Some(match kind {
        0 | 5 => TextureKind::Tex2D,
        1 | 6 => TextureKind::Cube,
        2 => TextureKind::Volume,
        3 | 4 => TextureKind::Array,
        _ => return None,
    })
}

pub fn kind_name(kind: u32) -> &'static str {
    match kind {
        0 => "2D",
        1 => "cube",
        2 => "volume",
        3 => "2D array",
        4 => "1D array",
        5 => "1D",
        6 => "cube array",
        _ => "unknown",
    }
}

impl TextureHeader {
    pub fn kind(&self) -> Option<TextureKind> {
        kind_of(self.kind)
    }

    /// Images per mip: the slice count, six faces for a cube that counts one slice per cube.
    pub fn layers(&self) -> u32 {
        let s = (self.slices as u32).max(1);
        match self.kind() {
            Some(TextureKind::Volume) => 1,
            Some(TextureKind::Cube) if s % 6 != 0 => s * 6,
            _ => s,
        }
    }

    /// Mip dimensions (width, height, depth) of level `m`.
    pub fn mip_dims(&self, m: u32) -> (u32, u32, u32) {
        let d = if self.kind() == Some(TextureKind::Volume) {
            self.depth as u32
        } else {
            1
        };
        crate::model::mip_dims(self.width as u32, self.height as u32, d, m)
    }

    /// Bytes of mip `m` of one layer as the format stores it (seed 001: block levels are
    /// ceil(w/4) * ceil(h/4) * block bytes with at least one block per axis; a volume mip covers the
    /// whole volume).
    pub fn expected_mip_size(&self, format: PixelFormat, m: u32) -> u64 {
        let (w, h, d) = self.mip_dims(m);
        format.surface_size(w, h) * d as u64
    }

    /// Logical offset in the chunk of mip `m` (mip-major: all layers of a mip, then the next mip).
    pub fn mip_offset(&self, m: usize) -> u64 {
        self.mip_sizes[..m.min(MIP_SLOTS)]
            .iter()
            .map(|&s| s as u64)
            .sum::<u64>()
            * self.layers() as u64
    }

    /// Bytes of the chunk from `first_mip` on: what a bundle holds when it carries only the tail.
    pub fn tail_size(&self) -> u64 {
        self.chunk_size as u64 - self.mip_offset(self.first_mip as usize)
    }

    pub fn guid_text(&self) -> String {
        super::guid_text(&self.chunk_guid)
    }

    pub fn flag_names(&self) -> String {
        let names = [
            (0x1, "Streaming"),
            (0x2, "SrgbGamma"),
            (0x4, "CpuResource"),
            (0x8, "OnDemandLoaded"),
            (0x10, "Mutable"),
            (0x20, "NoSkipmip"),
            (0x100, "XenonPackedMipmaps"),
            (0x200, "Ps3MemoryRsx"),
            (0x400, "StreamingAlways"),
            (0x800, "SwizzledData"),
        ];
        let set: Vec<&str> = names
            .iter()
            .filter(|(bit, _)| self.flags & bit != 0)
            .map(|(_, n)| *n)
            .collect();
        if set.is_empty() {
            format!("{:#06x}", self.flags)
        } else {
            format!("{:#06x} ({})", self.flags, set.join(", "))
        }
    }

    /// Reads the fields at `layout`'s positions; no plausibility checks.
    fn read(body: &[u8], layout: HeaderLayout, res_meta: Option<ResMeta>) -> Result<Self> {
        let p = layout.pos();
        let at = |off: usize| {
            let mut r = Reader::new(body);
            r.seek(off).map(|_| r)
        };
        let u32_at = |off: usize| at(off)?.u32();
        let u16_at = |off: usize| at(off)?.u16();
        let u8_at = |off: usize| at(off)?.u8();
        let mut chunk_guid = [0u8; 16];
        chunk_guid.copy_from_slice(at(p.guid)?.bytes(16)?);
        let mut r = at(p.guid + 16)?;
        let mut mip_sizes = [0u32; MIP_SLOTS];
        for s in &mut mip_sizes {
            *s = r.u32()?;
        }
        let chunk_size = r.u32()?;
        let name_hash = r.u32()?;
        let h64_high = if p.h64_high { r.u32().ok() } else { None };
        let group_len = r.remaining().min(52);
        let texture_group = r.bytes(group_len).ok().and_then(group_name);
        Ok(TextureHeader {
            layout,
            res_meta,
            header_len: body.len(),
            version: p.version.map(u32_at).transpose()?,
            compressed_mip_offsets: match p.mip_offsets {
                Some(o) => [u32_at(o)?, u32_at(o + 4)?],
                None => [0, 0],
            },
            kind: u32_at(p.kind)?,
            format: u32_at(p.format)?,
            custom_pool_id: p.pool.map(u32_at).transpose()?,
            flags: if p.flags_u32 {
                u32_at(p.flags)?
            } else {
                u16_at(p.flags)? as u32
            },
            width: u16_at(p.dims)?,
            height: u16_at(p.dims + 2)?,
            depth: u16_at(p.dims + 4)?,
            slices: u16_at(p.dims + 6)?,
            mip_count: u8_at(p.mip_count)?,
            first_mip: u8_at(p.mip_count + 1)?,
            streaming_mip_floor: p.floor.map(u8_at).transpose()?,
            repeated_mip_count: p.floor.map(|f| u8_at(f + 1)).transpose()?,
            chunk_guid,
            mip_sizes,
            chunk_size,
            name_hash,
            h64_high,
            texture_group,
        })
    }

    /// The mip-size check of the notes: plausible kind, size and mip count, and the 15 mip sizes
    /// fit width/height/format with their sum x layers equal to the chunk size. `Err` says why not.
    fn check(
        &self,
        format: Option<PixelFormat>,
        limits: &Limits,
    ) -> std::result::Result<(), String> {
        if self.kind().is_none() {
            return Err(format!("kind {} is not 0-6", self.kind));
        }
        if self.width == 0 || self.height == 0 || self.depth == 0 {
            return Err(format!(
                "size {}x{}x{} has a zero axis",
                self.width, self.height, self.depth
            ));
        }
        limits
            .check_dims(self.width as u32, self.height as u32, self.depth as u32)
            .map_err(|e| e.message)?;
        if self.layers() > limits.max_slices {
            return Err(format!("{} slices is over the limit", self.layers()));
        }
        let mips = self.mip_count as usize;
        if mips == 0 || mips > MIP_SLOTS {
            return Err(format!("mip count {mips} is not 1-15"));
        }
        if self.first_mip as usize >= mips {
            return Err(format!(
                "first mip {} is not below the mip count {mips}",
                self.first_mip
            ));
        }
        if let Some(i) = (mips..MIP_SLOTS).find(|&i| self.mip_sizes[i] != 0) {
            return Err(format!(
                "mip size {i} is {} beyond the mip count {mips}",
                self.mip_sizes[i]
            ));
        }
        for m in 0..mips {
            let got = self.mip_sizes[m] as u64;
            match format {
                Some(f) => {
                    let want = self.expected_mip_size(f, m as u32);
                    if got != want {
                        let (w, h, d) = self.mip_dims(m as u32);
                        return Err(format!(
                            "mip {m} ({w}x{h}x{d} {}) needs {want} bytes but the header says {got}",
                            f.name()
                        ));
                    }
                }
                // Unknown storage: sizes must at least be present and never grow.
                None if got == 0 || (m > 0 && got > self.mip_sizes[m - 1] as u64) => {
                    return Err(format!("mip size {m} ({got}) does not fit a halving chain"));
                }
                None => {}
            }
        }
        let sum = self.mip_offset(mips);
        if sum != self.chunk_size as u64 {
            return Err(format!(
                "mip sizes add up to {sum} bytes over {} layers, but the chunk size is {}",
                self.layers(),
                self.chunk_size
            ));
        }
        Ok(())
    }
}

fn group_name(bytes: &[u8]) -> Option<String> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let s = &bytes[..end];
    (!s.is_empty() && s.iter().all(|b| b.is_ascii_graphic() || *b == b' '))
        .then(|| String::from_utf8_lossy(s).into_owned())
}

/// Why a file is not a Texture header.
#[derive(Debug)]
pub enum NotAHeader {
    /// Nothing about it looks like a Frostbite resource: leave it to other engines.
    Foreign,
    /// It looks like a Frostbite resource (resource metadata in front) but no Texture layout fits.
    Bad(Error),
}

/// The resource metadata when `data` starts with it: a version word, the flags, two zero words.
fn res_meta(data: &[u8]) -> Option<ResMeta> {
    let mut r = Reader::new(data);
    let (version, flags, z1, z2) = (r.u32().ok()?, r.u32().ok()?, r.u32().ok()?, r.u32().ok()?);
    (z1 == 0 && z2 == 0 && version != 0 && version < 0x100).then_some(ResMeta { version, flags })
}

/// Layouts to try for a header of `len` bytes and metadata `version`, most likely first.
fn candidates(len: usize, version: Option<u32>) -> Vec<HeaderLayout> {
    let v12 = |first: usize| -> Vec<HeaderLayout> {
        std::iter::once(first)
            .chain([0x20, 0x24, 0x28, 0x2C].into_iter().filter(|&g| g != first))
            .map(|guid_at| HeaderLayout::V12 { guid_at })
            .collect()
    };
    // The lengths the notes give: 180 for the 0x28 family (seed 001), 144 for 0x24.
    let first = match len {
        SKATE_HEADER_LEN => 0x28,
        144 => 0x24,
        l if l > SKATE_HEADER_LEN => 0x2C,
        _ => 0x20,
    };
    match version {
        Some(10) => vec![HeaderLayout::V10],
        Some(11) => vec![HeaderLayout::V11],
        Some(12 | 13) => v12(first),
        _ => {
            let mut all = v12(first);
            all.extend([HeaderLayout::V11, HeaderLayout::V10]);
            if len <= 128 {
                all.rotate_right(2);
            }
            all
        }
    }
}

/// Parses a Texture header file (with or without the 16-byte resource metadata in front).
pub fn parse(
    data: &[u8],
    profile: &Profile,
    limits: &Limits,
) -> std::result::Result<(TextureHeader, Option<FormatInfo>), NotAHeader> {
    let meta = res_meta(data).filter(|_| data.len() >= RES_META_LEN + HeaderLayout::V10.min_len());
    let mut attempts: Vec<(Option<ResMeta>, &[u8])> = Vec::new();
    if let Some(m) = meta {
        attempts.push((Some(m), &data[RES_META_LEN..]));
    }
    attempts.push((None, data));
    let mut first_reason = None;
    for (meta, body) in attempts {
        let version = meta.map(|m| m.version);
        if matches!(version, Some(v) if !(10..=13).contains(&v)) {
            first_reason.get_or_insert_with(|| {
                format!(
                    "resource metadata version {} is not a Texture header version (10-13)",
                    version.unwrap_or_default()
                )
            });
            continue;
        }
        for layout in candidates(body.len(), version) {
            if body.len() < layout.min_len() {
                continue;
            }
            let Ok(h) = TextureHeader::read(body, layout, meta) else {
                continue;
            };
            let info = profile.format(h.format);
            match h.check(info.as_ref().and_then(|i| i.format), limits) {
                Ok(()) => return Ok((h, info)),
                Err(why) => {
                    first_reason.get_or_insert_with(|| {
                        format!("as {} ({} bytes): {why}", layout.describe(), body.len())
                    });
                }
            }
        }
    }
    match (meta, first_reason) {
        (Some(_), Some(why)) => Err(NotAHeader::Bad(
            Error::malformed(format!(
                "a Frostbite resource, but no Texture header layout fits: {why}"
            ))
            .at_field("frostbite/Texture"),
        )),
        _ => Err(NotAHeader::Foreign),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn djb2_xor_of_lowercase_name() {
        // Worked by hand from the seed's definition: h = 5381; h = h*33 ^ b.
        // "a": 5381*33 = 177573; ^ 0x61 = 177604.
        assert_eq!(name_hash("a"), 177604);
        assert_eq!(name_hash("A"), 177604);
        assert_eq!(name_hash(""), 5381);
    }

    #[test]
    fn random_bytes_are_foreign() {
        let data: Vec<u8> = (0..196u32).map(|i| (i * 37 + 11) as u8).collect();
        let p = super::super::render_format::default_profile();
        assert!(matches!(
            parse(&data, p, &Limits::default()),
            Err(NotAHeader::Foreign)
        ));
        assert!(matches!(
            parse(&[], p, &Limits::default()),
            Err(NotAHeader::Foreign)
        ));
    }

    #[test]
    fn candidate_order_follows_length() {
        assert_eq!(
            candidates(180, Some(12))[0],
            HeaderLayout::V12 { guid_at: 0x28 }
        );
        assert_eq!(
            candidates(144, None)[0],
            HeaderLayout::V12 { guid_at: 0x24 }
        );
        assert_eq!(candidates(128, Some(10)), vec![HeaderLayout::V10]);
        assert_eq!(candidates(180, Some(12)).len(), 4);
    }
}
