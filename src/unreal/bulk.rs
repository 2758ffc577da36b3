//! Legacy bulk data: the FByteBulkData header and data-resource rows of cooked packages (and
//! the FUntypedBulkData of editor ones), where their payload lives (inline, end of file, .ubulk,
//! .uptnl, .m.ubulk) and the zlib FCompressedChunk stream (notes §4). Texture platform data,
//! virtual textures and landscape heightmaps all read their payloads through this file, so none
//! of them imports another for it.

use super::cursor::Cursor;
use super::package::Package;
use crate::io::{Error, Limits, Result};

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
        super::flag_names(f, NAMES)
    }
}
use bulk_flags as bf;

/// The names of the bits set in `f` ("A|B"; "none" for none), from a table of (bit, name).
pub fn flag_names(f: u32, names: &[(u32, &str)]) -> String {
    let v: Vec<&str> = names
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
    fn bulk_flags_read_as_names() {
        // Notes §4: 0x10501 is what every streamed mip in the samples carries.
        assert_eq!(
            bulk_flags::describe(0x10501),
            "PayloadAtEndOfFile|PayloadInSeperateFile|Force_NOT_InlinePayload|NoOffsetFixUp"
        );
    }
}
