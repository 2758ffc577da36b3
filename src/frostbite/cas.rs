//! CAS block streams: a chunk as stored in a .cas archive, a sequence of blocks each behind an
//! 8-byte big-endian header (notes/frostbite.md, "CAS chunk compression"):
//! bits 63-56 dictionary flag (ZStd with dictionary), 55-32 decompressed size (24 bits), 31-24 type
//! (low 7 bits; bit 7 = obfuscated), 23-20 always 0x7, 19-0 compressed size (type 0: the
//! decompressed size is the payload size).
//!
//! [`CasSource`] presents the decompressed chunk as a [`Source`] and decompresses only the blocks a
//! read touches.

use crate::io::{read_range, Error, Limits, Result, Source, SourceRef};

/// Block types (notes).
pub const BLOCK_NONE: u8 = 0x00;
pub const BLOCK_ZLIB: u8 = 0x02;
pub const BLOCK_LZ4: u8 = 0x09;
pub const BLOCK_ZSTD: u8 = 0x0F;
pub const BLOCK_OODLE_KRAKEN: u8 = 0x11;
pub const BLOCK_OODLE_SELKIE: u8 = 0x15;
pub const BLOCK_OODLE_LEVIATHAN: u8 = 0x19;
/// The nibble at bits 23-20 of every block header (notes: "always 0x7").
const MAGIC_NIBBLE: u64 = 0x7;
pub const HEADER_LEN: u64 = 8;

pub fn block_type_name(t: u8) -> &'static str {
    match t {
        BLOCK_NONE => "stored",
        BLOCK_ZLIB => "zlib",
        BLOCK_LZ4 => "LZ4",
        BLOCK_ZSTD => "ZStd",
        BLOCK_OODLE_KRAKEN => "Oodle Kraken",
        BLOCK_OODLE_SELKIE => "Oodle Selkie",
        BLOCK_OODLE_LEVIATHAN => "Oodle Leviathan",
        _ => "unknown",
    }
}

/// One decoded block header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockHeader {
    pub dictionary: u8,
    pub size: u32,
    pub kind: u8,
    pub obfuscated: bool,
    /// Payload bytes after the header.
    pub stored: u32,
}

/// Decodes an 8-byte block header; `None` when the 0x7 nibble is absent or a size is zero.
pub fn parse_header(b: [u8; 8]) -> Option<BlockHeader> {
    let v = u64::from_be_bytes(b);
    if (v >> 20) & 0xF != MAGIC_NIBBLE {
        return None;
    }
    let size = ((v >> 32) & 0xFF_FFFF) as u32;
    let kind = ((v >> 24) & 0x7F) as u8;
    let stored = if kind == BLOCK_NONE {
        size
    } else {
        (v & 0xF_FFFF) as u32
    };
    (size != 0 && stored != 0).then_some(BlockHeader {
        dictionary: (v >> 56) as u8,
        size,
        kind,
        obfuscated: (v >> 31) & 1 == 1,
        stored,
    })
}

/// Packs a block header (used by the fixture builder).
pub fn write_header(size: u32, kind: u8, stored: u32) -> [u8; 8] {
    let v = ((size as u64 & 0xFF_FFFF) << 32)
        | ((kind as u64 & 0x7F) << 24)
        | (MAGIC_NIBBLE << 20)
        | (stored as u64 & 0xF_FFFF);
    v.to_be_bytes()
}

/// Where one block sits in the stream and in the decompressed chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// Offset of the block's header in the stream (the unit of the Texture header's compressed mip
    /// offsets, seed 001).
    pub offset: u64,
    pub header: BlockHeader,
    /// Offset of the block's first decompressed byte in the chunk.
    pub logical: u64,
}

/// Cheap test of the first 8 bytes of a file.
pub fn looks_like_cas(src: &dyn Source) -> bool {
    let mut b = [0u8; 8];
    src.len() > HEADER_LEN && src.read_exact_at(0, &mut b).is_ok() && parse_header(b).is_some()
}

/// Walks the block headers of `src` (8 bytes read per block, never the payloads) and returns the
/// index. Fails on anything but a stream that ends exactly at the end of the file.
pub fn index(src: &dyn Source, limits: &Limits) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    let (mut offset, mut logical) = (0u64, 0u64);
    while offset < src.len() {
        if blocks.len() as u64 >= limits.max_entries {
            return Err(Error::limit(format!(
                "more than {} CAS blocks",
                limits.max_entries
            )));
        }
        let mut b = [0u8; 8];
        if offset + HEADER_LEN > src.len() {
            return Err(Error::truncated(offset, HEADER_LEN, src.len()));
        }
        src.read_exact_at(offset, &mut b)?;
        let header = parse_header(b).ok_or_else(|| {
            Error::malformed(format!(
                "bytes {b:02x?} at offset {offset} are not a CAS block header (block {})",
                blocks.len()
            ))
        })?;
        limits.check_alloc(header.size as u64, "a CAS block")?;
        let end = offset + HEADER_LEN + header.stored as u64;
        if end > src.len() {
            return Err(Error::truncated(
                offset + HEADER_LEN,
                header.stored as u64,
                src.len(),
            ));
        }
        blocks.push(Block {
            offset,
            header,
            logical,
        });
        logical += header.size as u64;
        offset = end;
    }
    Ok(blocks)
}

/// Decompresses one block payload to exactly `h.size` bytes.
pub fn decompress(h: &BlockHeader, payload: &[u8], limits: &Limits) -> Result<Vec<u8>> {
    limits.check_alloc(h.size as u64, "a CAS block")?;
    if h.dictionary != 0 {
        return Err(Error::unsupported(
            "this block is ZStd with a dictionary; the dictionary lives in the game's install and is not read",
        ));
    }
    if h.obfuscated {
        return Err(Error::unsupported(
            "this block is obfuscated (FIFA 19 style); Texscope does not de-obfuscate",
        ));
    }
    let size = h.size as usize;
    let out = match h.kind {
        BLOCK_NONE => payload.to_vec(),
        BLOCK_ZLIB => miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(payload, size)
            .map_err(|e| Error::malformed(format!("zlib block does not inflate: {e:?}")))?,
        BLOCK_LZ4 => lz4_flex::decompress(payload, size)
            .map_err(|e| Error::malformed(format!("LZ4 block does not decompress: {e}")))?,
        BLOCK_ZSTD => zstd(payload, size)?,
        BLOCK_OODLE_KRAKEN | BLOCK_OODLE_SELKIE | BLOCK_OODLE_LEVIATHAN => {
            oodle(h.kind, payload, size)?
        }
        t => {
            return Err(Error::unsupported(format!(
                "CAS block type {t:#04x} is not one Texscope knows (none, zlib, LZ4, ZStd, Oodle)"
            )))
        }
    };
    if out.len() != size {
        return Err(Error::malformed(format!(
            "{} block gives {} bytes, but its header says {size}",
            block_type_name(h.kind),
            out.len()
        )));
    }
    Ok(out)
}

fn zstd(payload: &[u8], size: usize) -> Result<Vec<u8>> {
    use std::io::Read;
    let bad = |e: &dyn std::fmt::Display| Error::malformed(format!("ZStd block: {e}"));
    let mut dec = ruzstd::decoding::StreamingDecoder::new(payload).map_err(|e| bad(&e))?;
    let mut out = Vec::with_capacity(size);
    // One byte past the declared size shows an over-long frame without reading it all.
    (&mut dec)
        .take(size as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| bad(&e))?;
    Ok(out)
}

#[cfg(feature = "oodle")]
fn oodle(_kind: u8, payload: &[u8], size: usize) -> Result<Vec<u8>> {
    let mut out = vec![0u8; size];
    let mut ex = oozextract::Extractor::new();
    let n = ex
        .read_from_slice(payload, &mut out)
        .map_err(|e| Error::malformed(format!("Oodle block: {e:?}")))?;
    out.truncate(n);
    Ok(out)
}

#[cfg(not(feature = "oodle"))]
fn oodle(kind: u8, _payload: &[u8], _size: usize) -> Result<Vec<u8>> {
    Err(Error::unsupported(format!(
        "{} blocks need a build with the `oodle` feature (off by default: see README for its licence)",
        block_type_name(kind)
    )))
}

/// The decompressed chunk of a CAS block stream, decompressing only the blocks a read touches.
pub struct CasSource {
    name: String,
    inner: SourceRef,
    blocks: Vec<Block>,
    len: u64,
    limits: Limits,
}

impl CasSource {
    /// Walks `inner`'s block headers; see [`index`].
    pub fn new(inner: SourceRef, limits: &Limits) -> Result<Self> {
        let blocks = index(inner.as_ref(), limits).map_err(|e| e.in_file(inner.name()))?;
        let len = blocks
            .last()
            .map_or(0, |b| b.logical + b.header.size as u64);
        Ok(CasSource {
            name: format!("{} (decompressed)", inner.name()),
            inner,
            blocks,
            len,
            limits: limits.clone(),
        })
    }

    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The block holding logical byte `offset`.
    pub fn block_at(&self, offset: u64) -> Option<&Block> {
        let i = self.blocks.partition_point(|b| b.logical <= offset);
        self.blocks
            .get(i.checked_sub(1)?)
            .filter(|b| offset < b.logical + b.header.size as u64)
    }
}

impl Source for CasSource {
    fn name(&self) -> &str {
        &self.name
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= self.len)
            .ok_or_else(|| Error::truncated(offset, buf.len() as u64, self.len))?;
        let mut pos = offset;
        while pos < end {
            let b = *self
                .block_at(pos)
                .ok_or_else(|| Error::malformed(format!("no CAS block holds byte {pos}")))?;
            let payload = read_range(
                self.inner.as_ref(),
                b.offset + HEADER_LEN,
                b.header.stored as u64,
                &self.limits,
            )?;
            let data = decompress(&b.header, &payload, &self.limits).map_err(|e| {
                Error {
                    message: format!("block at offset {}: {}", b.offset, e.message),
                    ..e
                }
                .in_file(self.inner.name())
            })?;
            let from = (pos - b.logical) as usize;
            let take = ((end - pos) as usize).min(data.len() - from);
            let at = (pos - offset) as usize;
            buf[at..at + take].copy_from_slice(&data[from..from + take]);
            pos += take as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::BytesSource;

    #[test]
    fn header_bits_round_trip() {
        // Notes: 24-bit decompressed size at 55-32, type at 31-24, 0x7 at 23-20, 20-bit stored size.
        let b = write_header(0x10000, BLOCK_ZLIB, 0x81234);
        assert_eq!(b, [0x00, 0x01, 0x00, 0x00, 0x02, 0x78, 0x12, 0x34]);
        let h = parse_header(b).unwrap();
        assert_eq!((h.size, h.kind, h.stored), (0x10000, BLOCK_ZLIB, 0x81234));
        assert!(parse_header([0; 8]).is_none());
    }

    #[test]
    fn truncated_and_garbage_streams_fail() {
        let l = Limits::default();
        let mut s = write_header(16, BLOCK_NONE, 16).to_vec();
        s.extend([1u8; 10]);
        let e = index(&BytesSource::new("c", s.clone()), &l).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Truncated);
        s.extend([1u8; 6]);
        s.extend([9u8; 8]);
        let e = index(&BytesSource::new("c", s), &l).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Malformed);
    }

    #[test]
    fn declared_size_is_capped() {
        let tight = Limits {
            max_alloc: 1000,
            ..Limits::default()
        };
        let mut s = write_header(0xFF_FFFF, BLOCK_ZLIB, 4).to_vec();
        s.extend([0u8; 4]);
        let e = index(&BytesSource::new("c", s), &tight).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::LimitExceeded);
    }

    #[test]
    fn wrong_sizes_and_types_are_errors() {
        let l = Limits::default();
        let payload = miniz_oxide::deflate::compress_to_vec_zlib(&[7u8; 100], 6);
        let h = BlockHeader {
            dictionary: 0,
            size: 99,
            kind: BLOCK_ZLIB,
            obfuscated: false,
            stored: payload.len() as u32,
        };
        assert!(decompress(&h, &payload, &l).is_err());
        let h = BlockHeader { kind: 0x33, ..h };
        assert_eq!(
            decompress(&h, &payload, &l).unwrap_err().kind,
            crate::ErrorKind::Unsupported
        );
        let h = BlockHeader {
            dictionary: 1,
            kind: BLOCK_ZSTD,
            ..h
        };
        assert_eq!(
            decompress(&h, &payload, &l).unwrap_err().kind,
            crate::ErrorKind::Unsupported
        );
    }
}
