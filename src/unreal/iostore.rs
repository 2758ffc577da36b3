//! Unreal IoStore containers: the `.utoc` table of contents (TOC versions 1 to 10, UE4.25 to UE6.0)
//! and the `.ucas` data with its partitions (`_s1.ucas` ...), read by compression block; the
//! directory index (also when AES-encrypted) names every chunk that is a file: packages
//! (`.uasset`/`.umap`, their ExportBundleData chunk) and their bulk data (`.ubulk`, optional
//! `.uptnl`, memory-mapped `.m.ubulk`).
//!
//! Field orders as UE writes them (FIoStoreTocHeader, FIoOffsetAndLength, FIoStoreTocCompressedBlockEntry,
//! FIoDirectoryIndexResource), checked on the UE 5.8 fixtures (cue4parse-fixtures UE5_8): 144-byte
//! header, 12-byte chunk ids, 5+5-byte big-endian offset/length, 12-byte block entries with
//! 40-bit offsets into partitions of `PartitionSize` bytes. Opening reads the TOC up to the end of
//! its directory index and nothing of the `.ucas`.
//!
//! UE 6.0 (TOC versions 9 and 10), read from the UE6_0 fixtures against their UE 5.8 twins, as no
//! public reader describes them yet: version 9 (source hashes) changes nothing before the
//! per-chunk metadata that follows the directory index, which Texscope does not read (every
//! table size of a v10 TOC equals its v8 twin's). Version 10 puts an encryption method in the
//! header byte after the container flags (UE's `Reserved3`: 0 in the unencrypted fixtures, 2 in
//! the AES-CTR ones; 1 is taken as ECB, the value `EIoEncryptionMethod::AES` has in UE's
//! headers) and, for CTR, a count at offset 0x68 (the first `Reserved8` word) of 12-byte nonces
//! stored between the compression block entries and the method names: one per block, then one
//! for the directory index. Each block, and the directory index, decrypts in CTR mode from its
//! nonce with a 32-bit big-endian counter starting at 0 (all 133 blocks of the fixture match
//! their unencrypted twin's bytes but the one holding the container id, which differs).

// The core's `SourceRef` is `Arc<dyn Source>` without Send/Sync (sources are used on one thread,
// and in the browser's worker), so a source wrapping one cannot be Send either.
#![allow(clippy::arc_with_non_send_sync)]

use super::index::{choose_key, fstring, method_at, method_names, mount_path, Methods};
use crate::io::aes::{align, ctr_iv, Guid, Keys};
use crate::io::blocks::{Block, BlockSource, BlockStore, Part};
use crate::io::{read_range, Error, Limits, Reader, Result, Source, SourceRef};
use std::sync::Arc;

pub const TOC_MAGIC: &[u8; 16] = b"-==--==--==--==-";
pub const HEADER_LEN: u64 = 144;
/// EIoStoreTocVersion values this reader knows (8 = ReplaceIoChunkHashWithIoHash, UE5.4+;
/// 9 source hashes and 10 a per-container encryption method, UE 6.0).
pub const MAX_VERSION: u8 = 10;
const V_ENCRYPTION_METHOD: u8 = 10;
const V_DIRECTORY_INDEX: u8 = 2;
const V_PARTITION_SIZE: u8 = 3;
const V_PERFECT_HASH: u8 = 4;
const V_PERFECT_HASH_OVERFLOW: u8 = 5;
/// EIoContainerFlags.
const FLAG_ENCRYPTED: u8 = 0x2;
const FLAG_SIGNED: u8 = 0x4;
const FLAG_INDEXED: u8 = 0x8;

/// Whether the first bytes are a TOC's magic.
pub fn sniff(head: &[u8]) -> bool {
    head.starts_with(TOC_MAGIC)
}

/// FIoStoreTocHeader (the fields Texscope uses).
#[derive(Debug, Clone)]
pub struct TocHeader {
    pub version: u8,
    pub header_size: u32,
    pub entries: u32,
    pub blocks: u32,
    pub block_entry_size: u32,
    pub method_names: u32,
    pub method_name_len: u32,
    pub block_size: u32,
    pub directory_size: u32,
    pub partitions: u32,
    pub container_id: u64,
    pub guid: Guid,
    pub flags: u8,
    /// Version 10+: 0 none, 1 AES-ECB, 2 AES-CTR (see the module's notes).
    pub encryption_method: u8,
    pub perfect_hash_seeds: u32,
    pub partition_size: u64,
    pub without_perfect_hash: u32,
    /// Version 10 with AES-CTR: 12-byte nonces after the block entries.
    pub nonces: u64,
}

impl TocHeader {
    pub fn encrypted(&self) -> bool {
        self.flags & FLAG_ENCRYPTED != 0
    }
    pub fn indexed(&self) -> bool {
        self.flags & FLAG_INDEXED != 0 && self.version >= V_DIRECTORY_INDEX
    }
    /// Whether its encrypted bytes are AES-CTR (else ECB).
    pub fn ctr(&self) -> bool {
        self.version >= V_ENCRYPTION_METHOD && self.encryption_method == METHOD_CTR
    }
}

/// The version-10 encryption method of AES-CTR.
const METHOD_CTR: u8 = 2;

fn header(src: &dyn Source, limits: &Limits) -> Result<TocHeader> {
    let b = read_range(src, 0, HEADER_LEN.min(src.len()), limits)?;
    if !sniff(&b) {
        return Err(Error::not_recognised(
            "not an IoStore .utoc (no -==--==--==--==- magic)",
        ));
    }
    let mut r = Reader::new(&b);
    r.skip(16)?;
    let version = r.u8()?;
    r.skip(3)?;
    let h = TocHeader {
        version,
        header_size: r.u32()?,
        entries: r.u32()?,
        blocks: r.u32()?,
        block_entry_size: r.u32()?,
        method_names: r.u32()?,
        method_name_len: r.u32()?,
        block_size: r.u32()?,
        directory_size: r.u32()?,
        partitions: r.u32()?,
        container_id: r.u64()?,
        guid: Guid::from_le_bytes(r.array()?),
        flags: r.u8()?,
        encryption_method: r.u8()?,
        perfect_hash_seeds: {
            r.skip(2)?;
            r.u32()?
        },
        partition_size: r.u64()?,
        without_perfect_hash: r.u32()?,
        nonces: {
            r.skip(4)?;
            r.u64()?
        },
    };
    if version == 0 || version > MAX_VERSION {
        return Err(Error::unsupported(format!(
            "TOC version {version}; Texscope reads versions 1 to {MAX_VERSION} (UE4.25 to UE6.0)"
        )));
    }
    let mut h = h;
    if version < V_ENCRYPTION_METHOD {
        // Reserved bytes before version 10: never read as a method or a count.
        h.encryption_method = 0;
        h.nonces = 0;
    } else if h.encryption_method > METHOD_CTR {
        return Err(Error::unsupported(format!(
            "TOC encryption method {}; Texscope reads 0 (none), 1 (AES-ECB) and 2 (AES-CTR)",
            h.encryption_method
        )));
    }
    if !h.ctr() {
        h.nonces = 0;
    } else if !h.encrypted() || h.nonces < h.blocks as u64 || h.nonces > h.blocks as u64 + 1 {
        // One nonce per block, and one for the directory index when there is one.
        return Err(Error::malformed(format!(
            "the TOC's AES-CTR nonce count is {} for {} blocks{}",
            h.nonces,
            h.blocks,
            if h.encrypted() {
                ""
            } else {
                " of a container not flagged encrypted"
            }
        )));
    }
    if (h.header_size as u64) < HEADER_LEN || h.block_entry_size != 12 {
        return Err(Error::malformed(format!(
            "TOC header of {} bytes with {}-byte block entries (expected 144 and 12)",
            h.header_size, h.block_entry_size
        )));
    }
    if h.block_size == 0 {
        return Err(Error::malformed("the TOC's compression block size is 0"));
    }
    // A block names its method by a byte; UE writes 32-byte names (the ue_toc fuzz target found
    // 4 billion names of 0 bytes each: a hang).
    if h.method_names > 255 || !(1..=1024).contains(&h.method_name_len) {
        return Err(Error::malformed(format!(
            "the TOC claims {} compression method names of {} bytes",
            h.method_names, h.method_name_len
        )));
    }
    // Each partition holds at least one block (found by the ue_toc fuzz target: a hostile count
    // made a name for each of 4 billion partitions).
    if h.partitions > h.blocks.max(1) {
        return Err(Error::malformed(format!(
            "the TOC claims {} partitions for {} blocks",
            h.partitions, h.blocks
        )));
    }
    Ok(h)
}

/// FIoChunkId: 8-byte id, big-endian u16 index, pad, type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChunkId(pub [u8; 12]);

impl ChunkId {
    pub fn id(&self) -> u64 {
        u64::from_le_bytes(self.0[..8].try_into().unwrap_or_default())
    }
    pub fn kind(&self) -> u8 {
        self.0[11]
    }
}

/// A compression block entry: 40-bit offset (into the partitions' concatenation), 24-bit stored
/// and decoded sizes, method index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TocBlock {
    pub offset: u64,
    pub compressed: u32,
    pub size: u32,
    pub method: u8,
}

/// One file the directory index names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TocFile {
    /// Mount point + path (see `index::mount_path`).
    pub path: String,
    /// Its chunk (index into the TOC's tables).
    pub chunk: u32,
}

/// An opened TOC with the partitions it reads from.
pub struct Toc {
    pub name: String,
    pub header: TocHeader,
    pub chunk_ids: Vec<ChunkId>,
    /// Offset and length of each chunk in the decoded stream.
    pub chunks: Vec<(u64, u64)>,
    pub blocks: Vec<TocBlock>,
    /// AES-CTR nonces (TOC version 10): one per block, then the directory index's.
    pub nonces: Vec<[u8; 12]>,
    pub methods: Methods,
    pub mount: String,
    pub files: Vec<TocFile>,
    pub keyed: bool,
    /// Partition files (`.ucas`) that were not given.
    pub missing_parts: Vec<String>,
    /// How many partition files it has.
    pub part_count: usize,
    store: Arc<BlockStore>,
}

/// The partition file names of `utoc`: `X.ucas`, then `X_s1.ucas` ...
pub fn partition_names(utoc: &str, count: u32) -> Vec<String> {
    let stem = utoc
        .strip_suffix(".utoc")
        .or_else(|| utoc.strip_suffix(".UTOC"))
        .unwrap_or(utoc);
    (0..count.max(1))
        .map(|k| {
            if k == 0 {
                format!("{stem}.ucas")
            } else {
                format!("{stem}_s{k}.ucas")
            }
        })
        .collect()
}

/// Opens a TOC. `find_part` gives the source of a partition by its name (`None` when it was not
/// dropped: the container opens, and reading a block there says which file to drop).
pub fn open(
    utoc: &SourceRef,
    mut find_part: impl FnMut(&str) -> Option<SourceRef>,
    keys: &Keys,
    limits: &Limits,
) -> Result<Toc> {
    let name = utoc.name().to_string();
    let h = header(utoc.as_ref(), limits).map_err(|e| e.in_file(&name))?;
    let n = h.entries as u64;
    let seeds = if h.version >= V_PERFECT_HASH {
        h.perfect_hash_seeds as u64
    } else {
        0
    };
    let overflow = if h.version >= V_PERFECT_HASH_OVERFLOW {
        h.without_perfect_hash as u64
    } else {
        0
    };
    // Everything up to the end of the directory index, checked against the file before reading.
    let mut need = (h.header_size as u64)
        .saturating_add(n.saturating_mul(22))
        .saturating_add(seeds.saturating_mul(4))
        .saturating_add(overflow.saturating_mul(4))
        .saturating_add((h.blocks as u64).saturating_mul(12))
        .saturating_add(h.nonces.saturating_mul(12))
        .saturating_add((h.method_names as u64).saturating_mul(h.method_name_len as u64));
    for (count, what) in [
        (n, "TOC chunks"),
        (h.blocks as u64, "TOC compression blocks"),
    ] {
        limits
            .check_count(count, 0, u64::MAX, what)
            .map_err(|e| e.in_file(&name))?;
    }
    if need > utoc.len() {
        return Err(Error::truncated(0, need, utoc.len())
            .at_field("TOC tables (the header's counts do not fit the file)")
            .in_file(&name));
    }
    let tables_end = need;
    let head = read_range(utoc.as_ref(), 0, tables_end, limits)?;
    let mut r = Reader::new(&head);
    r.seek(h.header_size as usize)?;
    let mut chunk_ids = Vec::with_capacity(n as usize);
    for _ in 0..n {
        chunk_ids.push(ChunkId(r.array()?));
    }
    let mut chunks = Vec::with_capacity(n as usize);
    let be40 = |b: &[u8]| b.iter().fold(0u64, |a, &x| (a << 8) | x as u64);
    for _ in 0..n {
        let b = r.bytes(10)?;
        chunks.push((be40(&b[..5]), be40(&b[5..])));
    }
    r.skip(((seeds + overflow) * 4) as usize)?;
    let mut blocks = Vec::with_capacity(h.blocks as usize);
    let le = |b: &[u8]| b.iter().rev().fold(0u64, |a, &x| (a << 8) | x as u64);
    for _ in 0..h.blocks {
        let b = r.bytes(12)?;
        blocks.push(TocBlock {
            offset: le(&b[..5]),
            compressed: le(&b[5..8]) as u32,
            size: le(&b[8..11]) as u32,
            method: b[11],
        });
    }
    // Counted against the blocks in `header` and against the file in `need` above.
    let mut nonces = Vec::with_capacity(h.nonces as usize);
    for _ in 0..h.nonces {
        nonces.push(r.array::<12>()?);
    }
    let methods = method_names(&mut r, h.method_names as usize, h.method_name_len as usize)?;
    // Signatures (signed containers) lie between the method names and the directory index.
    if h.flags & FLAG_SIGNED != 0 {
        let b = read_range(utoc.as_ref(), need, 4, limits)?;
        let hs = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if hs < 0 {
            return Err(Error::malformed(format!("TOC signature size {hs}")).in_file(&name));
        }
        need = need
            .saturating_add(4 + 2 * hs as u64)
            .saturating_add((h.blocks as u64).saturating_mul(20));
    }
    let parts: Vec<Part> = partition_names(&name, h.partitions)
        .into_iter()
        .map(|p| Part {
            source: find_part(&p),
            name: p,
        })
        .collect();
    let mut key = None;
    let mut mount = String::new();
    let mut files = Vec::new();
    if h.indexed() && h.directory_size > 0 {
        let raw = read_range(utoc.as_ref(), need, h.directory_size as u64, limits)
            .map_err(|e| e.at_field("TOC directory index").in_file(&name))?;
        let parsed = if h.encrypted() {
            let iv = if h.ctr() {
                let nonce = nonces.get(h.blocks as usize).ok_or_else(|| {
                    Error::malformed("the TOC has no AES-CTR nonce for its directory index")
                        .in_file(&name)
                })?;
                Some(ctr_iv(nonce, 0))
            } else {
                None
            };
            let (k, v) = choose_key(&name, h.guid, keys, "the directory index", |k| {
                let mut d = raw.clone();
                match &iv {
                    Some(iv) => k.apply_ctr(iv, &mut d)?,
                    None => k.decrypt(&mut d)?,
                }
                parse_directory(&d, n, limits)
            })?;
            key = Some(k);
            v
        } else {
            parse_directory(&raw, n, limits)
                .map_err(|e| e.at_field("TOC directory index").in_file(&name))?
        };
        mount = parsed.0;
        files = parsed.1;
    } else if h.encrypted() {
        // No directory to check the key on: the first block must decode.
        let first = blocks.first().copied();
        let (k, ()) = choose_key(&name, h.guid, keys, "the container's blocks", |k| {
            let Some(b) = first else { return Ok(()) };
            let store =
                BlockStore::new("probe", clone_parts(&parts), limits).with_key(Some(k.clone()));
            store
                .block(&to_block(&h, &methods, &b, nonces.first())?)
                .map(|_| ())
        })?;
        key = Some(k);
    }
    let keyed = key.is_some();
    let part_count = parts.len();
    let missing_parts = parts
        .iter()
        .filter(|p| p.source.is_none())
        .map(|p| p.name.clone())
        .collect();
    let store = BlockStore::new(name.clone(), parts, limits).with_key(key);
    Ok(Toc {
        name,
        header: h,
        chunk_ids,
        chunks,
        blocks,
        nonces,
        methods,
        mount,
        files,
        keyed,
        missing_parts,
        part_count,
        store: Arc::new(store),
    })
}

fn clone_parts(parts: &[Part]) -> Vec<Part> {
    parts
        .iter()
        .map(|p| Part {
            name: p.name.clone(),
            source: p.source.clone(),
        })
        .collect()
}

/// The store's view of block `b`; `nonce` is its AES-CTR nonce when the container uses CTR.
fn to_block(
    h: &TocHeader,
    methods: &Methods,
    b: &TocBlock,
    nonce: Option<&[u8; 12]>,
) -> Result<Block> {
    let method = method_at(methods, b.method as u32, "the TOC's")?;
    let psize = if h.version >= V_PARTITION_SIZE && h.partition_size > 0 {
        h.partition_size
    } else {
        u64::MAX
    };
    let part = b.offset / psize;
    let stored = b.compressed as u64;
    Ok(Block {
        part: u32::try_from(part).unwrap_or(u32::MAX),
        offset: b.offset % psize,
        stored: if h.encrypted() { align(stored) } else { stored },
        payload: stored,
        size: b.size as u64,
        method,
        encrypted: h.encrypted(),
        ctr: if h.encrypted() && h.ctr() {
            let nonce = nonce.ok_or_else(|| Error::malformed("a block has no AES-CTR nonce"))?;
            Some(ctr_iv(nonce, 0))
        } else {
            None
        },
    })
}

/// FIoDirectoryIndexResource: mount point, directory entries (name, first child, next sibling,
/// first file), file entries (name, next file, chunk index), string table. Walked from the root
/// with every index checked, each entry visited at most once (a cycle cannot hang it).
fn parse_directory(d: &[u8], chunks: u64, limits: &Limits) -> Result<(String, Vec<TocFile>)> {
    let mut r = Reader::new(d);
    let mount = fstring(&mut r)?;
    let nd = r.count_i32(16, limits, "TOC directories")?;
    let mut dirs = Vec::with_capacity(nd);
    for _ in 0..nd {
        dirs.push([r.u32()?, r.u32()?, r.u32()?, r.u32()?]);
    }
    let nf = r.count_i32(12, limits, "TOC files")?;
    let mut fl = Vec::with_capacity(nf);
    for _ in 0..nf {
        fl.push([r.u32()?, r.u32()?, r.u32()?]);
    }
    let ns = r.count_i32(4, limits, "TOC directory strings")?;
    let mut strings = Vec::with_capacity(ns);
    for _ in 0..ns {
        strings.push(fstring(&mut r)?);
    }
    const NONE: u32 = u32::MAX;
    let name = |i: u32| -> Result<&str> {
        strings.get(i as usize).map(String::as_str).ok_or_else(|| {
            Error::malformed(format!("name {i} of a string table of {}", strings.len()))
        })
    };
    let mut files = Vec::new();
    if dirs.is_empty() {
        return Ok((mount, files));
    }
    let mut seen_dirs = vec![false; dirs.len()];
    let mut seen_files = vec![false; fl.len()];
    // (directory, its path under the mount point)
    let mut stack = vec![(0u32, String::new())];
    while let Some((di, path)) = stack.pop() {
        let Some(&[_, first_child, _, first_file]) = dirs.get(di as usize) else {
            return Err(Error::malformed(format!(
                "directory {di} of {}",
                dirs.len()
            )));
        };
        if std::mem::replace(&mut seen_dirs[di as usize], true) {
            return Err(Error::malformed("the directory tree has a cycle"));
        }
        let mut f = first_file;
        while f != NONE {
            let Some(&[fname, next, chunk]) = fl.get(f as usize) else {
                return Err(Error::malformed(format!("file {f} of {}", fl.len())));
            };
            if std::mem::replace(&mut seen_files[f as usize], true) {
                return Err(Error::malformed("a directory's file list has a cycle"));
            }
            if chunk as u64 >= chunks {
                return Err(Error::malformed(format!(
                    "file {} names chunk {chunk} of {chunks}",
                    name(fname)?
                )));
            }
            files.push(TocFile {
                path: mount_path(&mount, &format!("{path}{}", name(fname)?)),
                chunk,
            });
            f = next;
        }
        let mut c = first_child;
        while c != NONE {
            let Some(&[cname, _, next_sibling, _]) = dirs.get(c as usize) else {
                return Err(Error::malformed(format!("directory {c} of {}", dirs.len())));
            };
            if seen_dirs[c as usize] {
                return Err(Error::malformed("the directory tree has a cycle"));
            }
            stack.push((c, format!("{path}{}/", name(cname)?)));
            c = next_sibling;
            if stack.len() > dirs.len() {
                return Err(Error::malformed("the directory tree has a cycle"));
            }
        }
    }
    Ok((mount, files))
}

impl Toc {
    /// Chunk `i`'s bytes as a source named `name` (the container's file name + path inside).
    pub fn chunk_source(&self, i: u32, name: String) -> Result<SourceRef> {
        let &(offset, len) = self
            .chunks
            .get(i as usize)
            .ok_or_else(|| Error::malformed(format!("no chunk {i}")).in_file(&name))?;
        let bs = self.header.block_size as u64;
        let first = offset / bs;
        let last = if len == 0 {
            first
        } else {
            (offset + len - 1) / bs
        };
        if last >= self.blocks.len() as u64 || (len > 0 && first > last) {
            return Err(Error::malformed(format!(
                "chunk {i} ({len} bytes at {offset}) needs blocks {first}..={last}, but the TOC lists {}",
                self.blocks.len()
            ))
            .in_file(&name));
        }
        let mut blocks = Vec::with_capacity((last - first + 1) as usize);
        for i in first as usize..=last as usize {
            let b = to_block(
                &self.header,
                &self.methods,
                &self.blocks[i],
                self.nonces.get(i),
            )
            .map_err(|e| e.in_file(&name))?;
            blocks.push(b);
        }
        // Blocks decode to `block_size` bytes except the chunk's last; the offset inside the
        // first is the chunk's offset modulo the block size.
        let src = BlockSource::new(name, self.store.clone(), blocks, offset % bs, len)?;
        Ok(Arc::new(src))
    }

    /// The store the chunks read through (block-level checks in tests).
    pub fn store(&self) -> &Arc<BlockStore> {
        &self.store
    }

    /// Block `i` as the store reads it.
    pub fn block(&self, i: usize) -> Result<Block> {
        let b = self
            .blocks
            .get(i)
            .ok_or_else(|| Error::malformed(format!("no block {i}")))?;
        to_block(&self.header, &self.methods, b, self.nonces.get(i))
    }

    /// The key that opened it (tests compare keys; never printed).
    pub fn key_fits(&self) -> bool {
        self.keyed
    }
}

/// Whether a partition name belongs to a TOC (`X.ucas`, `X_sN.ucas` for `X.utoc`).
pub fn is_partition_of(ucas: &str, utoc: &str) -> bool {
    let Some(stem) = utoc.strip_suffix(".utoc") else {
        return false;
    };
    let Some(rest) = ucas.strip_prefix(stem) else {
        return false;
    };
    rest == ".ucas"
        || rest
            .strip_prefix("_s")
            .and_then(|r| r.strip_suffix(".ucas"))
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_names_follow_the_engine() {
        assert_eq!(
            partition_names("a/X.utoc", 3),
            vec!["a/X.ucas", "a/X_s1.ucas", "a/X_s2.ucas"]
        );
        assert!(is_partition_of("a/X_s2.ucas", "a/X.utoc"));
        assert!(is_partition_of("a/X.ucas", "a/X.utoc"));
        assert!(!is_partition_of("a/X_P.ucas", "a/X.utoc"));
        assert!(!is_partition_of("a/X_s.ucas", "a/X.utoc"));
    }

    #[test]
    fn hostile_directories_fail_cleanly() {
        let l = Limits::default();
        // Mount "/", one directory whose first child is itself.
        let mut d = 2i32.to_le_bytes().to_vec();
        d.extend(b"/\0");
        d.extend(1i32.to_le_bytes());
        d.extend(
            [u32::MAX, 0, u32::MAX, u32::MAX]
                .iter()
                .flat_map(|v| v.to_le_bytes()),
        );
        d.extend(0i32.to_le_bytes());
        d.extend(0i32.to_le_bytes());
        assert!(parse_directory(&d, 0, &l).is_err());
        // A count far past the bytes.
        let mut d = 2i32.to_le_bytes().to_vec();
        d.extend(b"/\0");
        d.extend(i32::MAX.to_le_bytes());
        assert!(parse_directory(&d, 0, &l).is_err());
    }
}
