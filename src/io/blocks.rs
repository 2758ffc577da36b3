//! Block-compressed (and block-encrypted) data read by range: one [`BlockStore`] per container
//! (its files, its AES key, one small LRU of decompressed blocks shared by all its entries) and a
//! [`BlockSource`] per entry (a .pak entry, an IoStore chunk, a Unity bundle's data), which reads a
//! range by decoding only the blocks the range touches.
//!
//! The cache is per container, not per entry: listing 100,000 packages reads one block each and
//! must not keep 100,000 blocks alive.

// The core's `SourceRef` is `Arc<dyn Source>` without Send/Sync (sources are used on one thread,
// and in the browser's worker), so a source wrapping one cannot be Send either.
#![allow(clippy::arc_with_non_send_sync)]

use super::compress::{decompress, Method};
use super::{range_end, read_range, Error, Limits, Result, Source, SourceRef};
use std::sync::{Arc, Mutex};

/// One stored block: where its bytes are and how they become `size` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// Which of the store's files holds it (IoStore partitions; 0 otherwise).
    pub part: u32,
    /// Where it starts in that file.
    pub offset: u64,
    /// Bytes read from the file (the payload rounded up to 16 when encrypted).
    pub stored: u64,
    /// Bytes of the (decrypted) payload that are decompressed: `stored` or less.
    pub payload: u64,
    /// Bytes it decompresses to.
    pub size: u64,
    pub method: Method,
    pub encrypted: bool,
    /// The AES-CTR counter block its stored bytes decrypt from (UE 6.0 containers that chose
    /// CTR); `None`: ECB, as every earlier container.
    pub ctr: Option<[u8; 16]>,
}

/// One file of a store: a partition that may be missing from the drop.
pub struct Part {
    /// The file's name, for a missing-partition error ("drop X_s2.ucas too").
    pub name: String,
    pub source: Option<SourceRef>,
}

/// A decompressed block, or why it failed (kept, so a bad block is decoded once).
type BlockData = Result<Arc<[u8]>>;

/// The files of one container and the blocks decoded from them lately.
pub struct BlockStore {
    name: String,
    parts: Vec<Part>,
    #[cfg(feature = "containers")]
    key: Option<super::aes::AesKey>,
    limits: Limits,
    capacity: usize,
    /// Most recently used last, keyed by (part, offset).
    cache: Mutex<Vec<((u32, u64), BlockData)>>,
}

/// Decoded blocks a store keeps by default: a read that straddles a boundary, a texture's header
/// and first mip, and their neighbours (64 KiB blocks in every Unreal container seen).
pub const CACHE_BLOCKS: usize = 8;

/// At most this many stored bytes are read at once for a run of compressed blocks that follow
/// each other in a file. Read one block at a time, a mip of 64 KiB blocks is one read per block;
/// in the page each read of a remote file is an HTTP range request, and its remote reader merges
/// sequential reads only into requests of up to 256 KiB (www/lib/remote.js), so a 4K BC7 mip's
/// 16 MiB took 64 requests at best. One read per run makes it 4. The bound keeps the bytes held
/// at once small: a run's stored bytes and its decoded blocks.
///
/// Built with `containers` only: paks and IoStore, whose remote reads this is for, open in the
/// page's full module, and the run code took the first module over its 300,000-byte gzipped
/// budget (300,392 B by tests/browser/size.test.mjs).
#[cfg(feature = "containers")]
pub const RUN_BYTES: u64 = 4 << 20;

/// Bytes between two blocks of a run (alignment padding) that are read and dropped rather than
/// ending the run.
#[cfg(feature = "containers")]
const RUN_GAP: u64 = 4096;

impl BlockStore {
    /// A store over one file.
    pub fn single(name: impl Into<String>, source: SourceRef, limits: &Limits) -> BlockStore {
        let n = source.name().to_string();
        Self::new(
            name,
            vec![Part {
                name: n,
                source: Some(source),
            }],
            limits,
        )
    }

    pub fn new(name: impl Into<String>, parts: Vec<Part>, limits: &Limits) -> BlockStore {
        BlockStore {
            name: name.into(),
            parts,
            #[cfg(feature = "containers")]
            key: None,
            limits: limits.clone(),
            capacity: CACHE_BLOCKS,
            cache: Mutex::new(Vec::new()),
        }
    }

    /// Keeps up to `n` decoded blocks (at least 1).
    pub fn with_capacity(mut self, n: usize) -> Self {
        self.capacity = n.max(1);
        self
    }

    /// The key that decrypts its encrypted blocks.
    #[cfg(feature = "containers")]
    pub fn with_key(mut self, key: Option<super::aes::AesKey>) -> Self {
        self.key = key;
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    fn part(&self, b: &Block) -> Result<&SourceRef> {
        let p = self.parts.get(b.part as usize).ok_or_else(|| {
            Error::malformed(format!(
                "a block names file {} of the container, which has {}",
                b.part,
                self.parts.len()
            ))
        })?;
        p.source.as_ref().ok_or_else(|| {
            Error::missing_sibling(
                &p.name,
                format_args!("the block at offset {} of {}", b.offset, self.name),
            )
        })
    }

    /// Reads `b` from its file and decrypts it (whole AES blocks), without decompressing.
    pub fn read_stored(&self, b: &Block) -> Result<Vec<u8>> {
        let src = self.part(b)?;
        check_payload(b)?;
        let raw = read_range(src.as_ref(), b.offset, b.stored, &self.limits)?;
        self.unwrap_stored(b, raw)
    }

    /// A block's stored bytes as read: decrypted and cut to its payload.
    fn unwrap_stored(&self, b: &Block, mut raw: Vec<u8>) -> Result<Vec<u8>> {
        if b.encrypted {
            self.decrypt(&mut raw, b.ctr.as_ref())?;
        }
        raw.truncate(b.payload as usize);
        Ok(raw)
    }

    #[cfg(feature = "containers")]
    fn decrypt(&self, raw: &mut [u8], ctr: Option<&[u8; 16]>) -> Result<()> {
        match (&self.key, ctr) {
            (Some(k), Some(iv)) => k.apply_ctr(iv, raw),
            (Some(k), None) => k.decrypt(raw),
            (None, _) => Err(Error::unsupported(format!(
                "{} is encrypted: it needs an AES key",
                self.name
            ))),
        }
    }

    #[cfg(not(feature = "containers"))]
    fn decrypt(&self, _raw: &mut [u8], _ctr: Option<&[u8; 16]>) -> Result<()> {
        Err(Error::not_in_build(
            format_args!("the encrypted blocks of {}", self.name),
            "containers",
        ))
    }

    /// The decoded bytes of `b` (from the cache when it was decoded lately).
    pub fn block(&self, b: &Block) -> Result<Arc<[u8]>> {
        if let Some(data) = self.cached(b) {
            return data;
        }
        let data = self.decode(b, self.read_stored(b));
        self.keep(b, data.clone());
        data
    }

    /// `b` from the cache, made the most recently used.
    fn cached(&self, b: &Block) -> Option<BlockData> {
        let mut c = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let pos = c.iter().position(|(k, _)| *k == (b.part, b.offset))?;
        let hit = c.remove(pos);
        let data = hit.1.clone();
        c.push(hit);
        Some(data)
    }

    fn keep(&self, b: &Block, data: BlockData) {
        let mut c = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if c.len() >= self.capacity {
            drop(c.remove(0));
        }
        c.push(((b.part, b.offset), data));
    }

    /// The decoded bytes of `run`, blocks that follow each other in one file (at most
    /// [`RUN_GAP`] apart), read from it with one read. Each is kept in the cache as [`Self::block`]
    /// keeps it.
    #[cfg(feature = "containers")]
    fn run(&self, run: &[Block]) -> Vec<BlockData> {
        let (Some(first), Some(last)) = (run.first(), run.last()) else {
            return Vec::new();
        };
        let span = (last.offset + last.stored).saturating_sub(first.offset);
        let all = self
            .part(first)
            .and_then(|src| read_range(src.as_ref(), first.offset, span, &self.limits));
        run.iter()
            .map(|b| {
                let raw = all.as_ref().map_err(Clone::clone).and_then(|all| {
                    check_payload(b)?;
                    let at = (b.offset - first.offset) as usize;
                    let stored = all.get(at..at + b.stored as usize).ok_or_else(|| {
                        Error::malformed(format!("block at offset {} overlaps the next", b.offset))
                    })?;
                    self.unwrap_stored(b, stored.to_vec())
                });
                let data = self.decode(b, raw);
                self.keep(b, data.clone());
                data
            })
            .collect()
    }

    /// Decompresses a block's stored bytes; an error names the block (and its file when the
    /// store has several).
    fn decode(&self, b: &Block, raw: Result<Vec<u8>>) -> BlockData {
        raw.and_then(|raw| decompress(b.method, &raw, b.size, &self.limits))
            .map(Arc::from)
            .map_err(|e| {
                let where_ = format!(
                    "{} block at offset {}{}",
                    b.method.name(),
                    b.offset,
                    match self.parts.get(b.part as usize) {
                        Some(p) if self.parts.len() > 1 => format!(" of {}", p.name),
                        _ => String::new(),
                    }
                );
                e.at_field(&where_).in_file(&self.name)
            })
    }
}

/// A block cannot hold more payload than it stores.
fn check_payload(b: &Block) -> Result<()> {
    if b.payload > b.stored {
        return Err(Error::malformed(format!(
            "block at offset {} has a {}-byte payload in {} stored bytes",
            b.offset, b.payload, b.stored
        )));
    }
    Ok(())
}

/// One entry's bytes: the tail of its first block, whole middle blocks, the head of its last.
pub struct BlockSource {
    name: String,
    store: Arc<BlockStore>,
    blocks: Vec<Block>,
    /// Logical end of each block (cumulative sizes).
    ends: Vec<u64>,
    /// Where the entry starts in the first block's decoded bytes.
    skip: u64,
    len: u64,
}

impl BlockSource {
    /// The `len` bytes that start `skip` bytes into the concatenated decoded `blocks`. Fails when
    /// the blocks hold fewer bytes than that.
    pub fn new(
        name: impl Into<String>,
        store: Arc<BlockStore>,
        blocks: Vec<Block>,
        skip: u64,
        len: u64,
    ) -> Result<BlockSource> {
        let name = name.into();
        let mut ends = Vec::with_capacity(blocks.len());
        let mut total = 0u64;
        for b in &blocks {
            total = total
                .checked_add(b.size)
                .ok_or_else(|| Error::malformed("block sizes overflow").in_file(&name))?;
            ends.push(total);
        }
        let need = skip
            .checked_add(len)
            .ok_or_else(|| Error::malformed("entry range overflows").in_file(&name))?;
        if need > total {
            return Err(Error::malformed(format!(
                "the entry needs {need} bytes from its blocks, which decompress to {total}"
            ))
            .in_file(&name));
        }
        Ok(BlockSource {
            name,
            store,
            blocks,
            ends,
            skip,
            len,
        })
    }

    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    pub fn store(&self) -> &Arc<BlockStore> {
        &self.store
    }

    /// Whether block `i` is decoded through the store (stored, unencrypted ones are read in
    /// place).
    #[cfg(feature = "containers")]
    fn through_store(&self, i: usize) -> bool {
        let b = &self.blocks[i];
        b.method != Method::Stored || b.encrypted
    }

    /// The end of the run of blocks from `i` that one read can fetch for a read ending at
    /// logical `end`: blocks decoded through the store, in the same file, each starting at most
    /// [`RUN_GAP`] after the last one's stored bytes, at most [`RUN_BYTES`] stored and as many
    /// decoded (the run's blocks are all held at once until copied).
    #[cfg(feature = "containers")]
    fn run_end(&self, i: usize, end: u64) -> usize {
        let first = &self.blocks[i];
        let decoded_from = self.ends[i] - first.size;
        let mut j = i + 1;
        while j < self.blocks.len() && self.ends[j] - self.blocks[j].size < end {
            let (prev, b) = (&self.blocks[j - 1], &self.blocks[j]);
            let after = prev.offset.saturating_add(prev.stored);
            if !self.through_store(j)
                || b.part != first.part
                || b.offset < after
                || b.offset - after > RUN_GAP
                || b.offset.saturating_add(b.stored) - first.offset > RUN_BYTES
                || self.ends[j] - decoded_from > RUN_BYTES
            {
                break;
            }
            j += 1;
        }
        j
    }
}

impl Source for BlockSource {
    fn name(&self) -> &str {
        &self.name
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        range_end(offset, buf.len() as u64, self.len)?;
        let start = self.skip + offset;
        let end = start + buf.len() as u64;
        let mut i = self.ends.partition_point(|&e| e <= start);
        let mut pos = start;
        // Blocks of the current run decoded ahead of the copy, in block order.
        #[cfg(feature = "containers")]
        let mut ahead = std::collections::VecDeque::new();
        while pos < end {
            let b = self
                .blocks
                .get(i)
                .ok_or_else(|| Error::truncated(pos, end - pos, self.skip + self.len))?;
            let b_start = self.ends[i] - b.size;
            let from = pos - b_start;
            let n = (self.ends[i].min(end) - pos) as usize;
            let dst = (pos - start) as usize;
            let out = &mut buf[dst..dst + n];
            if b.method == Method::Stored && !b.encrypted {
                // Stored blocks are read in place: a header read costs its own bytes, not a block.
                if b.payload != b.size || b.stored < b.size {
                    return Err(Error::malformed(format!(
                        "stored block at offset {} declares {} bytes but holds {}",
                        b.offset, b.size, b.payload
                    ))
                    .in_file(self.store.name()));
                }
                let src = self.store.part(b).map_err(|e| e.in_file(&self.name))?;
                src.read_exact_at(b.offset + from, out)
                    .map_err(|e| e.in_file(src.name()))?;
            } else {
                #[cfg(feature = "containers")]
                let data = match ahead.pop_front() {
                    Some(d) => d,
                    None => match self.store.cached(b) {
                        Some(d) => d,
                        None => {
                            let j = self.run_end(i, end);
                            if j > i + 1 {
                                ahead = self.store.run(&self.blocks[i..j]).into();
                                ahead.pop_front().unwrap_or_else(|| self.store.block(b))
                            } else {
                                self.store.block(b)
                            }
                        }
                    },
                };
                #[cfg(not(feature = "containers"))]
                let data = self.store.block(b);
                // The entry's name says both the container and the path inside it.
                let data = data.map_err(|e| Error {
                    file: Some(self.name.clone()),
                    ..e
                })?;
                out.copy_from_slice(&data[from as usize..from as usize + n]);
            }
            pos += n as u64;
            i += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{BytesSource, ErrorKind};

    /// Three blocks of 100 bytes (values 0..300 mod 256): zlib, stored, LZ4.
    fn three() -> (SourceRef, Vec<Block>, Vec<u8>) {
        let data: Vec<u8> = (0..300u32).map(|i| i as u8).collect();
        let z = miniz_oxide::deflate::compress_to_vec_zlib(&data[..100], 6);
        let l = lz4_flex::block::compress(&data[200..]);
        let mut file = z.clone();
        file.extend(&data[100..200]);
        file.extend(&l);
        let b = |offset: u64, n: usize, method| Block {
            part: 0,
            offset,
            stored: n as u64,
            payload: n as u64,
            size: 100,
            method,
            encrypted: false,
            ctr: None,
        };
        let blocks = vec![
            b(0, z.len(), Method::Zlib),
            b(z.len() as u64, 100, Method::Stored),
            b(z.len() as u64 + 100, l.len(), Method::Lz4),
        ];
        (BytesSource::shared("c.pak", file), blocks, data)
    }

    #[test]
    fn ranges_touch_only_their_blocks() {
        let (src, blocks, data) = three();
        let store = Arc::new(BlockStore::single("c.pak", src, &Limits::default()));
        let s = BlockSource::new("c.pak/e", store.clone(), blocks.clone(), 50, 240).unwrap();
        assert_eq!(s.len(), 240);
        let got = read_range(&s, 0, 240, &Limits::default()).unwrap();
        assert_eq!(got, data[50..290]);
        // Only the two compressed blocks went through the cache (stored ones are read in place).
        assert_eq!(store.cache.lock().unwrap().len(), 2);
        let s2 = BlockSource::new("c.pak/f", store.clone(), blocks[1..2].to_vec(), 0, 100).unwrap();
        let got = read_range(&s2, 10, 5, &Limits::default()).unwrap();
        assert_eq!(got, data[110..115]);
        assert!(BlockSource::new("c.pak/g", store, blocks, 50, 251).is_err());
    }

    #[test]
    fn bad_blocks_and_missing_parts_name_the_container() {
        let (src, mut blocks, _) = three();
        blocks[0].size = 99;
        let store = Arc::new(BlockStore::single("c.pak", src, &Limits::default()));
        let s = BlockSource::new("c.pak/e", store, blocks.clone(), 0, 200).unwrap();
        let e = read_range(&s, 0, 10, &Limits::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed, "{e}");
        assert!(
            e.to_string().starts_with("c.pak/e: zlib block at offset 0"),
            "{e}"
        );
        let parts = vec![Part {
            name: "c_s1.ucas".into(),
            source: None,
        }];
        let store = Arc::new(BlockStore::new("c.utoc", parts, &Limits::default()));
        let s = BlockSource::new("c.utoc/e", store, blocks, 0, 10).unwrap();
        let e = read_range(&s, 0, 10, &Limits::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::MissingSibling, "{e}");
        assert!(e.to_string().contains("drop c_s1.ucas"), "{e}");
    }

    /// Five zlib blocks of 100 bytes back to back (the third `gap` bytes after the second).
    #[cfg(feature = "containers")]
    fn five(gap: usize) -> (Arc<crate::io::Counted>, Vec<Block>, Vec<u8>) {
        let data: Vec<u8> = (0..500u32).map(|i| (i * 7) as u8).collect();
        let (mut file, mut blocks) = (Vec::new(), Vec::new());
        for k in 0..5 {
            if k == 2 {
                file.extend(vec![0xEE; gap]);
            }
            let z = miniz_oxide::deflate::compress_to_vec_zlib(&data[k * 100..k * 100 + 100], 6);
            blocks.push(Block {
                part: 0,
                offset: file.len() as u64,
                stored: z.len() as u64,
                payload: z.len() as u64,
                size: 100,
                method: Method::Zlib,
                encrypted: false,
                ctr: None,
            });
            file.extend(z);
        }
        let src = Arc::new(crate::io::Counted::new(BytesSource::shared("c.pak", file)));
        (src, blocks, data)
    }

    /// A read over several compressed blocks that follow each other is one read of their stored
    /// bytes (one range request in the page), not one per block; a gap wider than RUN_GAP splits
    /// the run in two; the blocks still decode to the data they were made from.
    #[test]
    #[cfg(feature = "containers")]
    fn runs_of_blocks_are_read_at_once() {
        let l = Limits::default();
        for (gap, reads) in [(0, 1), (16, 1), (RUN_GAP as usize + 1, 2)] {
            let (src, blocks, data) = five(gap);
            let store = Arc::new(BlockStore::single("c.pak", src.clone(), &l));
            let s = BlockSource::new("c.pak/e", store.clone(), blocks.clone(), 0, 500).unwrap();
            assert_eq!(
                read_range(&s, 30, 440, &l).unwrap(),
                data[30..470],
                "gap {gap}"
            );
            assert_eq!(src.reads(), reads, "gap {gap}");
            // Decoded blocks were kept as single reads keep them: reading one again reads nothing.
            read_range(&s, 410, 20, &l).unwrap();
            assert_eq!(src.reads(), reads, "gap {gap}");
        }
        // A cut file fails the run with the error a single block read gives.
        let (src, blocks, _) = five(0);
        let short = src.len() - 3;
        let cut = BytesSource::shared("c.pak", read_range(src.as_ref(), 0, short, &l).unwrap());
        let store = Arc::new(BlockStore::single("c.pak", cut, &l));
        let s = BlockSource::new("c.pak/e", store, blocks, 0, 500).unwrap();
        let e = read_range(&s, 0, 500, &l).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated, "{e}");
        assert!(e.to_string().starts_with("c.pak/e: "), "{e}");
    }

    #[test]
    fn the_cache_stays_small() {
        let (src, blocks, _) = three();
        let store = Arc::new(BlockStore::single("c", src, &Limits::default()).with_capacity(1));
        let s = BlockSource::new("c/e", store.clone(), blocks, 0, 300).unwrap();
        read_range(&s, 0, 300, &Limits::default()).unwrap();
        assert_eq!(store.cache.lock().unwrap().len(), 1);
    }
}
