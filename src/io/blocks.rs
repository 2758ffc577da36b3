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
        if b.payload > b.stored {
            return Err(Error::malformed(format!(
                "block at offset {} has a {}-byte payload in {} stored bytes",
                b.offset, b.payload, b.stored
            )));
        }
        let mut raw = read_range(src.as_ref(), b.offset, b.stored, &self.limits)?;
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
        let key = (b.part, b.offset);
        {
            let mut c = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(pos) = c.iter().position(|(k, _)| *k == key) {
                let hit = c.remove(pos);
                let data = hit.1.clone();
                c.push(hit);
                return data;
            }
        }
        let data: BlockData = self
            .read_stored(b)
            .and_then(|raw| decompress(b.method, &raw, b.size, &self.limits))
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
            });
        let mut c = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if c.len() >= self.capacity {
            drop(c.remove(0));
        }
        c.push((key, data.clone()));
        data
    }
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
                // The entry's name says both the container and the path inside it.
                let data = self.store.block(b).map_err(|e| Error {
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

    #[test]
    fn the_cache_stays_small() {
        let (src, blocks, _) = three();
        let store = Arc::new(BlockStore::single("c", src, &Limits::default()).with_capacity(1));
        let s = BlockSource::new("c/e", store.clone(), blocks, 0, 300).unwrap();
        read_range(&s, 0, 300, &Limits::default()).unwrap();
        assert_eq!(store.cache.lock().unwrap().len(), 1);
    }
}
