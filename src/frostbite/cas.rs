//! CAS block streams: a chunk as stored in a .cas archive, a sequence of blocks each behind an
//! 8-byte big-endian header (notes/frostbite.md, "CAS chunk compression"):
//! bits 63-56 dictionary flag (ZStd with dictionary), 55-32 decompressed size (24 bits), 31-24 type
//! (low 7 bits; bit 7 = obfuscated), 23-20 always 0x7, 19-0 compressed size (type 0: the
//! decompressed size is the payload size).
//!
//! [`CasSource`] presents the decompressed chunk as a [`Source`] and decompresses only the blocks a
//! read touches. Its block index is either walked whole ([`CasSource::new`]) or on demand from the
//! nearest anchor ([`CasSource::lazy`]: the stream start and the Texture header's mip block offsets).

use crate::io::compress::Method;
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
    let method = match h.kind {
        BLOCK_NONE => Method::Stored,
        BLOCK_ZLIB => Method::Zlib,
        BLOCK_LZ4 => Method::Lz4,
        BLOCK_ZSTD => Method::Zstd,
        BLOCK_OODLE_KRAKEN | BLOCK_OODLE_SELKIE | BLOCK_OODLE_LEVIATHAN => Method::Oodle,
        t => {
            return Err(Error::unsupported(format!(
                "CAS block type {t:#04x} is not one Texscope knows (none, zlib, LZ4, ZStd, Oodle)"
            )))
        }
    };
    crate::io::compress::decompress(method, payload, h.size as u64, limits).map_err(|e| Error {
        message: e
            .message
            .replacen(method.name(), block_type_name(h.kind), 1),
        ..e
    })
}

/// A point where block indexing may start: a block header's offset in the stream and the logical
/// offset of that block's first decompressed byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    pub offset: u64,
    pub logical: u64,
}

/// The blocks walked from one anchor (issue 6: index on demand from the nearest anchor).
#[derive(Debug)]
struct Run {
    anchor: Anchor,
    blocks: Vec<Block>,
    /// Where the walk stands: the next block header's offset and logical start.
    next: Anchor,
    /// The walk reached the next anchor (at the logical offset it claims) or the stream's end (at
    /// the chunk's length). A run from a header anchor is only read from once done: that is what
    /// checks the anchor.
    done: bool,
}

/// The block index: runs sorted by anchor, the first from the stream start (always right).
#[derive(Debug)]
struct Index {
    runs: Vec<Run>,
    /// Block headers read so far, against `Limits::max_entries`.
    walked: u64,
    /// Header anchors found inconsistent with the walk and dropped.
    dropped: Vec<Anchor>,
}

/// The decompressed chunk of a CAS block stream, decompressing only the blocks a read touches.
pub struct CasSource {
    name: String,
    inner: SourceRef,
    index: std::cell::RefCell<Index>,
    len: u64,
    limits: Limits,
}

fn run_at(anchor: Anchor) -> Run {
    Run {
        anchor,
        blocks: Vec::new(),
        next: anchor,
        done: false,
    }
}

/// Why one step of a walk stopped.
enum Step {
    /// A block was added, or the run is now done.
    Went,
    /// The run disagrees with the anchor after it: drop that anchor (`true`) or this run's (`false`).
    Disagrees(bool),
    /// The walk cannot go on from this run's anchor.
    Failed(Error),
}

impl CasSource {
    /// Walks all of `inner`'s block headers at once; see [`index`].
    pub fn new(inner: SourceRef, limits: &Limits) -> Result<Self> {
        let blocks = index(inner.as_ref(), limits).map_err(|e| e.in_file(inner.name()))?;
        let len = blocks
            .last()
            .map_or(0, |b| b.logical + b.header.size as u64);
        let start = Anchor {
            offset: 0,
            logical: 0,
        };
        let next = Anchor {
            offset: inner.len(),
            logical: len,
        };
        Ok(CasSource {
            name: format!("{} (decompressed)", inner.name()),
            inner,
            index: std::cell::RefCell::new(Index {
                runs: vec![Run {
                    anchor: start,
                    blocks,
                    next,
                    done: true,
                }],
                walked: 0,
                dropped: Vec::new(),
            }),
            len,
            limits: limits.clone(),
        })
    }

    /// A stream that decompresses to `len` bytes (the length the Texture header gives), indexed on
    /// demand: a read walks block headers from the nearest of the stream start and `anchors` (the
    /// header's mip-1/mip-2 block offsets, seed 001; notes: set only where a block boundary falls on
    /// the mip boundary) until its range is covered. Nothing is read here.
    pub fn lazy(inner: SourceRef, limits: &Limits, len: u64, anchors: &[Anchor]) -> Self {
        let mut runs = vec![run_at(Anchor {
            offset: 0,
            logical: 0,
        })];
        for &a in anchors {
            let last = runs.last().map_or(a, |r| r.anchor);
            // Anchors must rise in both offsets and lie inside the file and the chunk.
            if a.offset > last.offset
                && a.logical > last.logical
                && a.offset < inner.len()
                && a.logical < len
            {
                runs.push(run_at(a));
            }
        }
        CasSource {
            name: format!("{} (decompressed)", inner.name()),
            inner,
            index: std::cell::RefCell::new(Index {
                runs,
                walked: 0,
                dropped: Vec::new(),
            }),
            len,
            limits: limits.clone(),
        }
    }

    /// The anchors in use after the stream start.
    pub fn anchors(&self) -> Vec<Anchor> {
        self.index.borrow().runs[1..]
            .iter()
            .map(|r| r.anchor)
            .collect()
    }

    /// Header anchors the walk disagreed with (dropped; the index walks from the anchor before).
    pub fn dropped_anchors(&self) -> Vec<Anchor> {
        self.index.borrow().dropped.clone()
    }

    /// Walks the run from the anchor at stream offset `offset` to its end, which checks it; `false`
    /// when the anchor is not (or no longer) in use.
    pub fn check_anchor(&self, offset: u64) -> Result<bool> {
        loop {
            let mut ix = self.index.borrow_mut();
            let Some(i) = ix.runs.iter().position(|r| r.anchor.offset == offset) else {
                return Ok(false);
            };
            if ix.runs[i].done {
                return Ok(true);
            }
            self.step(&mut ix, i)?;
        }
    }

    /// Every block walked so far, in stream order (all of them after [`CasSource::new`]).
    pub fn blocks(&self) -> Vec<Block> {
        let ix = self.index.borrow();
        ix.runs
            .iter()
            .flat_map(|r| r.blocks.iter().copied())
            .collect()
    }

    /// The block holding logical byte `offset`, walking block headers as needed.
    pub fn block_at(&self, offset: u64) -> Result<Block> {
        if offset >= self.len {
            return Err(Error::malformed(format!(
                "no CAS block holds byte {offset} of {}",
                self.len
            )));
        }
        let mut ix = self.index.borrow_mut();
        loop {
            let i = ix.runs.partition_point(|r| r.anchor.logical <= offset) - 1;
            let run = &ix.runs[i];
            // A header anchor's blocks are used only once its walk has met the next anchor or the end.
            if i == 0 || run.done {
                let k = run.blocks.partition_point(|b| b.logical <= offset);
                if let Some(b) = k.checked_sub(1).map(|k| run.blocks[k]) {
                    if offset < b.logical + b.header.size as u64 {
                        return Ok(b);
                    }
                }
                if run.done {
                    return Err(Error::malformed(format!(
                        "no CAS block holds byte {offset}"
                    )));
                }
            }
            self.step(&mut ix, i)?;
        }
    }

    /// One step of run `i`'s walk; settles disagreements by dropping an anchor.
    fn step(&self, ix: &mut Index, i: usize) -> Result<()> {
        match self.try_step(ix, i) {
            Step::Went => Ok(()),
            Step::Failed(e) if i == 0 => Err(e),
            Step::Failed(_) => {
                self.drop_run(ix, i);
                Ok(())
            }
            Step::Disagrees(later) => {
                self.drop_run(ix, if later { i + 1 } else { i });
                Ok(())
            }
        }
    }

    fn drop_run(&self, ix: &mut Index, i: usize) {
        let gone = ix.runs.remove(i);
        ix.dropped.push(gone.anchor);
        // The run before now has to walk on past where the dropped anchor was.
        ix.runs[i - 1].done = false;
    }

    fn try_step(&self, ix: &mut Index, i: usize) -> Step {
        let src = self.inner.as_ref();
        let file = src.name();
        let Run { next, .. } = ix.runs[i];
        if let Some(after) = ix.runs.get(i + 1).map(|r| (r.anchor, r.done)) {
            let (a, a_done) = after;
            if next.offset >= a.offset {
                if next == a {
                    ix.runs[i].done = true;
                    return Step::Went;
                }
                // The stream start is always right; otherwise keep whichever anchor is checked.
                return Step::Disagrees(i == 0 || !a_done);
            }
        }
        if next.offset == src.len() {
            if next.logical == self.len {
                ix.runs[i].done = true;
                return Step::Went;
            }
            return Step::Failed(
                Error::malformed(format!(
                    "the CAS blocks decompress to {} bytes, but the chunk holds {}",
                    next.logical, self.len
                ))
                .in_file(file),
            );
        }
        if ix.walked >= self.limits.max_entries {
            return Step::Failed(Error::limit(format!(
                "more than {} CAS blocks",
                self.limits.max_entries
            )));
        }
        if next.offset + HEADER_LEN > src.len() {
            return Step::Failed(
                Error::truncated(next.offset, HEADER_LEN, src.len()).in_file(file),
            );
        }
        let mut b = [0u8; 8];
        if let Err(e) = src.read_exact_at(next.offset, &mut b) {
            return Step::Failed(e);
        }
        ix.walked += 1;
        let Some(header) = parse_header(b) else {
            return Step::Failed(
                Error::malformed(format!(
                    "bytes {b:02x?} at offset {} are not a CAS block header",
                    next.offset
                ))
                .in_file(file),
            );
        };
        if let Err(e) = self.limits.check_alloc(header.size as u64, "a CAS block") {
            return Step::Failed(e);
        }
        let end = next.offset + HEADER_LEN + header.stored as u64;
        let logical = next.logical + header.size as u64;
        if end > src.len() || logical > self.len {
            return Step::Failed(if end > src.len() {
                Error::truncated(next.offset + HEADER_LEN, header.stored as u64, src.len())
                    .in_file(file)
            } else {
                Error::malformed(format!(
                    "the CAS block at offset {} ends past the chunk's {} bytes",
                    next.offset, self.len
                ))
                .in_file(file)
            });
        }
        let run = &mut ix.runs[i];
        run.blocks.push(Block {
            offset: next.offset,
            header,
            logical: next.logical,
        });
        run.next = Anchor {
            offset: end,
            logical,
        };
        Step::Went
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
        let end = crate::io::range_end(offset, buf.len() as u64, self.len)?;
        // Index the whole range first, so no payload is read for a range the walk then refuses.
        let mut blocks = Vec::new();
        let mut pos = offset;
        while pos < end {
            let b = self.block_at(pos)?;
            pos = b.logical + b.header.size as u64;
            blocks.push(b);
        }
        let mut pos = offset;
        for b in blocks {
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

    /// Four stored blocks of 16 bytes (block i holds bytes of value i): headers at 0, 24, 48, 72.
    fn four_blocks() -> SourceRef {
        let mut s = Vec::new();
        for i in 0..4u8 {
            s.extend(write_header(16, BLOCK_NONE, 16));
            s.extend([i; 16]);
        }
        BytesSource::shared("c", s)
    }

    fn at(offset: u64, logical: u64) -> Anchor {
        Anchor { offset, logical }
    }

    #[test]
    fn lazy_index_drops_anchors_the_walk_disagrees_with() {
        let l = Limits::default();
        // Right anchors: block 2 from its anchor, then the run from block 1 meets it.
        let c = CasSource::lazy(four_blocks(), &l, 64, &[at(24, 16), at(48, 32)]);
        assert!(c.check_anchor(48).unwrap());
        assert_eq!(c.blocks().len(), 2);
        let mut b = [0u8; 20];
        c.read_exact_at(14, &mut b).unwrap();
        assert_eq!(b[..2], [0, 0]);
        assert_eq!(b[2..18], [1; 16]);
        assert_eq!(b[18..], [2, 2]);
        assert!(c.dropped_anchors().is_empty());
        // Block 1 claimed to start at logical 20, and an offset inside block 2: both dropped.
        for wrong in [at(24, 20), at(50, 32)] {
            let c = CasSource::lazy(four_blocks(), &l, 64, &[wrong]);
            let mut b = [0u8; 64];
            c.read_exact_at(0, &mut b).unwrap();
            let want: Vec<u8> = (0..64).map(|i| i / 16).collect();
            assert_eq!(b.to_vec(), want);
            assert_eq!(c.dropped_anchors(), vec![wrong]);
            assert!(!c.check_anchor(wrong.offset).unwrap());
        }
        // A chunk length the stream does not decompress to is an error at the stream's end.
        let c = CasSource::lazy(four_blocks(), &l, 70, &[]);
        let e = c.read_exact_at(60, &mut [0u8; 8]).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Malformed);
        assert!(
            e.message.contains("decompress to 64 bytes"),
            "{}",
            e.message
        );
    }
}
