//! UE5's `FCompressedBuffer`: how the editor stores a payload (every `FEditorBulkData` in a package
//! trailer or inline, a `.upayload` sidecar, the derived-data cache).
//!
//! Layout (docs/unreal.md, "Editor payloads", with the source of each fact), big-endian: a
//! 64-byte header (`u32` magic 0xB7756362, `u32` CRC-32, `u8` method, `u8` compressor, `u8`
//! compression level, `u8` block-size exponent, `u32` block count, `u64` raw size, `u64` total
//! compressed size counting the header, 32-byte BLAKE3 hash of the raw bytes), then for the block
//! methods (Oodle 3, LZ4 4) one `u32` compressed size per block and the blocks; for method None
//! (0) the raw bytes. Every block but the last holds `1 << exponent` raw bytes; a block whose
//! compressed size is not below its raw size is stored raw. The CRC-32 (zlib's) covers the header
//! from the method byte to the end of the block sizes.

use crate::io::compress::{decompress, Method as BlockMethod};
use crate::io::{read_range, Context, Error, Limits, Reader, Result, Source};

/// The magic of every compressed buffer (`<dot>ucb`), stored big-endian.
pub const MAGIC: u32 = 0xB775_6362;
/// Bytes of the fixed header.
pub const HEADER_SIZE: u64 = 64;

/// How the blocks are stored (`UE::CompressedBuffer::Private::EMethod`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Method {
    /// One uncompressed block after the header.
    None,
    Oodle,
    Lz4,
}

impl Method {
    fn from_u8(m: u8) -> Option<Method> {
        Some(match m {
            0 => Method::None,
            3 => Method::Oodle,
            4 => Method::Lz4,
            _ => return None,
        })
    }
}

/// A compressed buffer's header and block table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CbufHeader {
    pub method: Method,
    /// Oodle's compressor (`ECompressedBufferCompressor`: 1 Selkie, 2 Mermaid, 3 Kraken,
    /// 4 Leviathan); 0 for the other methods.
    pub compressor: u8,
    /// `ECompressedBufferCompressionLevel`, a signed byte (-4 HyperFast4 to 9 Optimal4).
    pub level: i8,
    pub block_size_exponent: u8,
    /// Raw (decompressed) bytes.
    pub raw_size: u64,
    /// Bytes of the whole buffer, header and block table included.
    pub compressed_size: u64,
    /// BLAKE3 of the raw bytes; its first 20 bytes are the payload's FIoHash.
    pub raw_hash: [u8; 32],
    /// Compressed size of each block (empty for method None).
    pub blocks: Vec<u32>,
}

impl CbufHeader {
    /// Bytes of the header with its block table.
    pub fn header_size(&self) -> u64 {
        HEADER_SIZE + 4 * self.blocks.len() as u64
    }

    /// The method as a person names it: "Oodle Kraken", "LZ4", "stored".
    pub fn method_name(&self) -> String {
        match self.method {
            Method::None => "stored".into(),
            Method::Lz4 => "LZ4".into(),
            Method::Oodle => match self.compressor {
                1 => "Oodle Selkie".into(),
                2 => "Oodle Mermaid".into(),
                3 => "Oodle Kraken".into(),
                4 => "Oodle Leviathan".into(),
                c => format!("Oodle (compressor {c})"),
            },
        }
    }

    /// One line for Info: "Oodle Kraken, 1.3 MB -> 4 MB".
    pub fn describe(&self) -> String {
        format!(
            "{}, {} -> {}",
            self.method_name(),
            human_size(self.compressed_size),
            human_size(self.raw_size)
        )
    }
}

fn human_size(n: u64) -> String {
    const K: f64 = 1000.0;
    let f = n as f64;
    if f < K {
        format!("{n} B")
    } else if f < K * K {
        format!("{:.3} kB", f / K).replace(".000", "")
    } else if f < K * K * K {
        trim(format!("{:.1} MB", f / (K * K)))
    } else {
        trim(format!("{:.1} GB", f / (K * K * K)))
    }
}

fn trim(s: String) -> String {
    s.replace(".0 ", " ")
}

/// Reads and checks the header and block table of the compressed buffer at `offset`, which may
/// take at most `len` bytes (the size its owner records): magic, method, CRC-32, block count
/// against the raw size, and block sizes against the buffer's own total and `len`.
pub fn header(src: &dyn Source, offset: u64, len: u64, limits: &Limits) -> Result<CbufHeader> {
    read_header(src, offset, len, limits).in_file(src.name())
}

fn read_header(src: &dyn Source, offset: u64, len: u64, limits: &Limits) -> Result<CbufHeader> {
    let field = "FCompressedBuffer/Header";
    if len < HEADER_SIZE {
        return Err(Error::malformed(format!(
            "a compressed buffer of {len} bytes is shorter than its {HEADER_SIZE}-byte header"
        ))
        .at_field(field));
    }
    let fixed = read_range(src, offset, HEADER_SIZE, limits).at_field(field)?;
    let mut r = Reader::at(&fixed, offset).big_endian();
    let magic = r.u32()?;
    if magic != MAGIC {
        return Err(Error::malformed(format!(
            "no compressed buffer at {offset} (magic {magic:#010x}, expected {MAGIC:#010x})"
        ))
        .at_field("FCompressedBuffer/Magic"));
    }
    let crc = r.u32()?;
    let method_byte = r.u8()?;
    let method = Method::from_u8(method_byte).ok_or_else(|| {
        Error::unsupported(format!(
            "compression method {method_byte} (0 none, 3 Oodle, 4 LZ4 are known)"
        ))
        .at_field("FCompressedBuffer/Method")
    })?;
    let compressor = r.u8()?;
    let level = r.i8()?;
    let block_size_exponent = r.u8()?;
    let block_count = r.u32()?;
    let raw_size = r.u64()?;
    let compressed_size = r.u64()?;
    let raw_hash: [u8; 32] = r.array()?;
    if compressed_size > len {
        return Err(Error::malformed(format!(
            "the buffer says it takes {compressed_size} bytes, but only {len} are its own"
        ))
        .at_field("FCompressedBuffer/TotalCompressedSize"));
    }
    // The block table, which the CRC covers too, is read before any field is judged, so a
    // damaged header is named by its CRC (as UE's loader checks it first).
    let count = if method == Method::None {
        0
    } else {
        block_count as u64
    };
    let table = 4 * count;
    if HEADER_SIZE + table > compressed_size {
        return Err(Error::malformed(format!(
            "a table of {block_count} block sizes does not fit in a buffer of {compressed_size} bytes"
        ))
        .at_field("FCompressedBuffer/BlockCount"));
    }
    let t = read_range(src, offset + HEADER_SIZE, table, limits).at_field(field)?;
    // zlib's CRC-32, which `FCrc::MemCrc32` computes (checked on the samples), from the method
    // byte to the end of the block sizes.
    let mut crc_state = crc32fast::Hasher::new();
    crc_state.update(&fixed[8..]);
    crc_state.update(&t);
    let sum = crc_state.finalize();
    if sum != crc {
        return Err(Error::malformed(format!(
            "header CRC-32 is {sum:#010x}, but the header says {crc:#010x}"
        ))
        .at_field("FCompressedBuffer/Crc32"));
    }
    let mut blocks = Vec::new();
    match method {
        Method::None => {
            if compressed_size != raw_size.saturating_add(HEADER_SIZE) {
                return Err(Error::malformed(format!(
                    "an uncompressed buffer of {raw_size} raw bytes says it takes {compressed_size} bytes, not {}",
                    raw_size.saturating_add(HEADER_SIZE)
                ))
                .at_field("FCompressedBuffer/TotalCompressedSize"));
            }
        }
        Method::Oodle | Method::Lz4 => {
            // Blocks hold 2^exponent raw bytes, sizes are u32 (UE's encoder asserts a 32-bit
            // power of two), so an exponent past 31 cannot come from it.
            if block_size_exponent > 31 {
                return Err(Error::malformed(format!(
                    "block size 2^{block_size_exponent} is past the 32-bit sizes of its table"
                ))
                .at_field("FCompressedBuffer/BlockSizeExponent"));
            }
            let expect = raw_size.div_ceil(1u64 << block_size_exponent);
            if count != expect {
                return Err(Error::malformed(format!(
                    "{block_count} blocks of 2^{block_size_exponent} bytes cannot hold {raw_size} raw bytes ({expect} would)"
                ))
                .at_field("FCompressedBuffer/BlockCount"));
            }
            let mut tr = Reader::at(&t, offset + HEADER_SIZE).big_endian();
            blocks.reserve(count as usize);
            let block = 1u64 << block_size_exponent;
            let mut total = HEADER_SIZE + table;
            for i in 0..count {
                let size = tr.u32()?;
                let raw_here = block.min(raw_size - i * block);
                if size == 0 || size as u64 > raw_here {
                    return Err(Error::malformed(format!(
                        "block {i} of {raw_here} raw bytes says it takes {size} bytes"
                    ))
                    .at_field("FCompressedBuffer/CompressedBlockSizes"));
                }
                total += size as u64;
                blocks.push(size);
            }
            if total != compressed_size {
                return Err(Error::malformed(format!(
                    "the blocks and header add up to {total} bytes, but the buffer says {compressed_size}"
                ))
                .at_field("FCompressedBuffer/CompressedBlockSizes"));
            }
        }
    }
    Ok(CbufHeader {
        method,
        compressor,
        level,
        block_size_exponent,
        raw_size,
        compressed_size,
        raw_hash,
        blocks,
    })
}

/// Decodes the compressed buffer at `offset` (taking at most `len` bytes) to its raw bytes,
/// reading only its own range. The raw size is checked against [`Limits::max_alloc`] before
/// anything is allocated for it; each block must give exactly the bytes the header says.
pub fn decode(src: &dyn Source, offset: u64, len: u64, limits: &Limits) -> Result<Vec<u8>> {
    let h = header(src, offset, len, limits)?;
    decode_with(src, offset, &h, limits)
}

/// As [`decode`], with a header already read by [`header`] from the same place.
pub fn decode_with(
    src: &dyn Source,
    offset: u64,
    h: &CbufHeader,
    limits: &Limits,
) -> Result<Vec<u8>> {
    decode_range(src, offset, h, 0..h.raw_size, limits)
}

/// Raw bytes `range` of the compressed buffer at `offset` (header `h` read by [`header`] from
/// there), reading and decompressing only the blocks that hold them: one mip of a source whose
/// mips and blocks share one buffer costs that mip's blocks, not the whole buffer.
pub fn decode_range(
    src: &dyn Source,
    offset: u64,
    h: &CbufHeader,
    range: std::ops::Range<u64>,
    limits: &Limits,
) -> Result<Vec<u8>> {
    if range.start > range.end || range.end > h.raw_size {
        return Err(Error::malformed(format!(
            "the compressed buffer unpacks to {} bytes, but bytes {}..{} are asked for",
            h.raw_size, range.start, range.end
        ))
        .at_field("FCompressedBuffer/TotalRawSize")
        .in_file(src.name()));
    }
    limits
        .check_alloc(range.end - range.start, "a compressed buffer's raw bytes")
        .at_field("FCompressedBuffer/TotalRawSize")
        .in_file(src.name())?;
    let body_at = offset + h.header_size();
    if h.method == Method::None {
        return read_range(src, body_at + range.start, range.end - range.start, limits)
            .at_field("FCompressedBuffer/Blocks")
            .in_file(src.name());
    }
    if range.is_empty() {
        return Ok(Vec::new());
    }
    let method = match h.method {
        Method::Oodle => BlockMethod::Oodle,
        _ => BlockMethod::Lz4,
    };
    let block = 1u64 << h.block_size_exponent;
    let (first, last) = (
        (range.start / block) as usize,
        ((range.end - 1) / block) as usize,
    );
    // The header check made the block sizes sum to the buffer's size, so these stay inside it.
    let skip: u64 = h.blocks[..first].iter().map(|&b| b as u64).sum();
    let take: u64 = h.blocks[first..=last].iter().map(|&b| b as u64).sum();
    let body =
        read_range(src, body_at + skip, take, limits).at_field("FCompressedBuffer/Blocks")?;
    let mut out = Vec::with_capacity((range.end - range.start) as usize);
    let mut at = 0usize;
    for i in first..=last {
        let size = h.blocks[i] as usize;
        let block_start = i as u64 * block;
        let raw_here = block.min(h.raw_size - block_start);
        let data = &body[at..at + size];
        at += size;
        let decoded;
        let raw: &[u8] = if size as u64 == raw_here {
            // Not smaller than its raw bytes: UE's encoder stores such a block as it is.
            data
        } else {
            decoded = decompress(method, data, raw_here, limits)
                .map_err(|e| e.at_field(&format!("FCompressedBuffer/Block[{i}]")))
                .in_file(src.name())?;
            &decoded
        };
        // The part of this block inside `range`.
        let from = range
            .start
            .saturating_sub(block_start)
            .min(raw.len() as u64) as usize;
        let to = (range.end - block_start).min(raw.len() as u64) as usize;
        out.extend_from_slice(&raw[from..to]);
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::io::{BytesSource, ErrorKind, FileSource};
    use crate::unreal::editor_samples;
    use crate::unreal::trailer::read_trailer;

    /// Every local payload of every UE5 sample decodes to the raw size its header states, and to
    /// bytes whose BLAKE3 is the hash the header stores (blake3 crate: independent of the decoder,
    /// the header and the trailer's FIoHash were written by UE). `cbuf-png` payloads are PNG files
    /// and `cbuf-jpeg` ones are the original .jpg committed beside the package, byte for byte
    /// (manifest).
    #[test]
    fn every_ue5_payload_decodes_to_its_hash() {
        let l = Limits::default();
        let (mut decoded, mut pngs, mut multi) = (0, 0, 0);
        for row in editor_samples::ue5_rows() {
            let src = FileSource::open(&row.file).unwrap();
            let Some(t) = read_trailer(&src, None, &l).unwrap() else {
                continue;
            };
            for e in t.entries() {
                let (at, len) = (e.offset.unwrap(), e.compressed_size.unwrap());
                let h = header(&src, at, len, &l).unwrap();
                let raw = decode(&src, at, len, &l).unwrap();
                assert_eq!(raw.len() as u64, h.raw_size, "{}", row.file.display());
                // Any range decodes, from its own blocks, to those bytes of the whole (whose
                // hash is checked next): across block edges, inside one block, empty, whole.
                let n = h.raw_size;
                multi += usize::from(h.blocks.len() > 1);
                let block = if h.method == Method::None {
                    n
                } else {
                    1 << h.block_size_exponent
                };
                for (from, to) in [
                    (0, n),
                    (n / 3, n - n / 5),
                    (block - 1, block + 1),
                    (1, 2),
                    (n, n),
                ] {
                    let (from, to) = (from.min(n), to.min(n));
                    let part = decode_range(&src, at, &h, from..to, &l).unwrap();
                    assert!(
                        part == raw[from as usize..to as usize],
                        "{}",
                        row.file.display()
                    );
                }
                let e = decode_range(&src, at, &h, 0..n + 1, &l)
                    .unwrap_err()
                    .to_string();
                assert!(
                    e.contains("TotalRawSize") && e.contains(&format!("{n} bytes")),
                    "{e}"
                );
                assert_eq!(
                    blake3::hash(&raw).as_bytes(),
                    &h.raw_hash,
                    "{}",
                    row.file.display()
                );
                match row.storage.as_str() {
                    "cbuf-png" => {
                        assert_eq!(h.method, Method::None);
                        assert_eq!(&raw[..8], b"\x89PNG\r\n\x1a\n");
                    }
                    "cbuf-jpeg" => {
                        assert_eq!(h.method, Method::None);
                        let orig = std::fs::read(row.original.as_ref().unwrap()).unwrap();
                        assert!(raw == orig, "{} differs from its .jpg", row.file.display());
                    }
                    "cbuf-oodle" => assert_eq!(h.method, Method::Oodle),
                    "cbuf-raw" => assert_eq!(h.method, Method::None),
                    s => panic!("storage {s}"),
                }
                // TSCF_PNG sources are PNG files inside the buffer (Oodle or not), 16-bit for the
                // 16-bit source formats; UEDELTA ones are Oodle-compressed (manifest).
                match row.compression.as_str() {
                    "TSCF_PNG" => {
                        let img = crate::codec::image_file::decode(&raw, &l).unwrap();
                        let deep = matches!(row.source_format.as_str(), "TSF_RGBA16" | "TSF_G16");
                        assert_eq!(
                            img.bit_depth,
                            if deep { 16 } else { 8 },
                            "{}",
                            row.file.display()
                        );
                        pngs += 1;
                    }
                    "TSCF_UEDELTA" => assert_eq!(h.method, Method::Oodle),
                    _ => {}
                }
                decoded += 1;
            }
        }
        // 22 UE5 rows: one 5.0 package without a trailer, one render target without payloads.
        assert_eq!(decoded, 20);
        assert_eq!(pngs, 8);
        // 13 of them are Oodle buffers of several 256 KiB blocks (up to 256), whose ranges above
        // cross block edges.
        assert_eq!(multi, 13);
    }

    /// A compressed buffer written from the layout (docs/unreal.md): header, big-endian block
    /// sizes, CRC-32 over the header from the method byte on. Blocks the compressor could not
    /// shrink are stored raw, as UE's encoder does.
    pub(crate) fn write(method: u8, exponent: u8, raw: &[u8]) -> Vec<u8> {
        let block = 1usize << exponent;
        let mut blocks: Vec<Vec<u8>> = Vec::new();
        if method == 0 {
            blocks.push(raw.to_vec());
        } else {
            for c in raw.chunks(block) {
                let z = lz4_flex::block::compress(c);
                blocks.push(if z.len() < c.len() { z } else { c.to_vec() });
            }
        }
        let table = if method == 0 { 0 } else { 4 * blocks.len() };
        let total = 64 + table + blocks.iter().map(Vec::len).sum::<usize>();
        let mut b = Vec::new();
        b.extend_from_slice(&MAGIC.to_be_bytes());
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&[method, 0, 0, if method == 0 { 0 } else { exponent }]);
        b.extend_from_slice(&(blocks.len() as u32).to_be_bytes());
        b.extend_from_slice(&(raw.len() as u64).to_be_bytes());
        b.extend_from_slice(&(total as u64).to_be_bytes());
        b.extend_from_slice(blake3::hash(raw).as_bytes());
        if method != 0 {
            for z in &blocks {
                b.extend_from_slice(&(z.len() as u32).to_be_bytes());
            }
        }
        fix_crc(&mut b, table);
        for z in &blocks {
            b.extend_from_slice(z);
        }
        b
    }

    fn fix_crc(b: &mut [u8], table: usize) {
        let mut h = crc32fast::Hasher::new();
        h.update(&b[8..64 + table]);
        let crc = h.finalize();
        b[4..8].copy_from_slice(&crc.to_be_bytes());
    }

    fn sample_raw() -> Vec<u8> {
        // Compressible runs with an incompressible tail block (stored raw).
        let mut raw: Vec<u8> = (0..3000u32).map(|i| (i / 100) as u8).collect();
        let mut x = 0x1234_5678u32;
        raw.extend((0..1000).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        }));
        raw
    }

    #[test]
    fn lz4_and_stored_buffers_round_trip() {
        let raw = sample_raw();
        let l = Limits::default();
        for (method, want) in [(4u8, Method::Lz4), (0, Method::None)] {
            let b = write(method, 10, &raw);
            let mut file = vec![7u8; 33];
            file.extend_from_slice(&b);
            let src = BytesSource::new("lz4.bin", file);
            let h = header(&src, 33, b.len() as u64, &l).unwrap();
            assert_eq!(h.method, want);
            assert_eq!(decode(&src, 33, b.len() as u64, &l).unwrap(), raw);
        }
        // The 4th block of the LZ4 buffer is the random one, stored raw at its full 1000 bytes.
        let h = header(&BytesSource::new("x", write(4, 10, &raw)), 0, u64::MAX, &l).unwrap();
        assert_eq!(h.blocks.len(), 4);
        assert_eq!(h.blocks[3], 928);
        // 4000 raw bytes.
        let d = h.describe();
        assert!(d.starts_with("LZ4, ") && d.ends_with(" kB -> 4 kB"), "{d}");
    }

    #[test]
    fn hostile_buffers_are_errors_naming_the_field() {
        let raw = sample_raw();
        let l = Limits::default();
        let good = write(4, 10, &raw);
        let err = |b: Vec<u8>, len: u64, limits: &Limits| {
            let src = BytesSource::new("p.uasset", b);
            let e = decode(&src, 0, len, limits).unwrap_err();
            assert_eq!(e.file.as_deref(), Some("p.uasset"), "{e}");
            e
        };
        let n = good.len() as u64;
        // Cut short: the range the owner gives is smaller than the buffer says it is.
        let e = err(good.clone(), n - 1, &l);
        assert_eq!(
            e.field.as_deref(),
            Some("FCompressedBuffer/TotalCompressedSize")
        );
        // The file itself ends early.
        let e = err(good[..good.len() - 10].to_vec(), n, &l);
        assert_eq!(e.kind, ErrorKind::Truncated, "{e}");
        // A block size that disagrees with the total, and one larger than its raw bytes (CRC
        // made right, so the sizes are judged).
        let first = u32::from_be_bytes(good[64..68].try_into().unwrap());
        for size in [first + 1, 5000] {
            let mut m = good.clone();
            m[64..68].copy_from_slice(&size.to_be_bytes());
            fix_crc(&mut m, 16);
            let e = err(m, n, &l);
            let field = e.field.as_deref();
            assert_eq!(field, Some("FCompressedBuffer/CompressedBlockSizes"), "{e}");
        }
        // A block count that does not cover the raw size.
        let mut m = good.clone();
        m[12..16].copy_from_slice(&3u32.to_be_bytes());
        fix_crc(&mut m, 12);
        assert_eq!(
            err(m, n, &l).field.as_deref(),
            Some("FCompressedBuffer/BlockCount")
        );
        // A damaged header.
        let mut m = good.clone();
        m[20] ^= 1;
        assert_eq!(
            err(m, n, &l).field.as_deref(),
            Some("FCompressedBuffer/Crc32")
        );
        // A corrupt block: the decompressor's error, for that block.
        let mut m = good.clone();
        let first = 64 + 16;
        for b in &mut m[first..first + 20] {
            *b = 0xFF;
        }
        let e = err(m, n, &l);
        assert!(
            e.field
                .as_deref()
                .unwrap_or("")
                .starts_with("FCompressedBuffer/Block["),
            "{e}"
        );
        // A raw size over the allocation limit is refused before anything is allocated.
        let tight = Limits {
            max_alloc: 1000,
            ..Limits::default()
        };
        let e = err(good.clone(), n, &tight);
        assert_eq!(e.kind, ErrorKind::LimitExceeded, "{e}");
        // Unknown method; wrong magic.
        let mut m = good.clone();
        m[8] = 1;
        fix_crc(&mut m, 16);
        assert_eq!(err(m, n, &l).kind, ErrorKind::Unsupported);
        let mut m = good;
        m[0] = 0;
        assert_eq!(
            err(m, n, &l).field.as_deref(),
            Some("FCompressedBuffer/Magic")
        );
    }
}
