//! Unity's containers around serialized files: UnityFS bundles (blocks of LZ4/LZ4HC/LZMA),
//! the legacy UnityWeb/UnityRaw bundles (one LZMA stream) and UnityWebData1.0 (WebGL .data, plain
//! concatenation). Each entry becomes a derived [`Source`]; a UnityFS entry decompresses only the
//! blocks a read touches.

// The core's `SourceRef` is `Arc<dyn Source>` without Send/Sync (sources are used on one thread,
// and in the browser's worker), so wrapping one in a derived source cannot be Send either.
#![allow(clippy::arc_with_non_send_sync)]

use crate::io::blocks::{Block, BlockSource, BlockStore};
use crate::io::compress::{decompress, lzma, Method};
use crate::io::{read_range, BytesSource, Error, Limits, Reader, Result, SourceRef, WindowSource};
use std::sync::Arc;

/// One file inside a container.
#[derive(Clone)]
pub struct Entry {
    /// The path the container gives it (`CAB-…`, `CAB-….resS`, `data.unity3d`, ...).
    pub path: String,
    pub source: SourceRef,
}

/// What a container's header says, for the info panel.
#[derive(Clone)]
pub struct Container {
    pub signature: String,
    pub format_version: u32,
    pub unity_version: String,
    pub entries: Vec<Entry>,
}

/// The container signatures this module reads, from the first bytes of a file.
pub fn sniff(head: &[u8]) -> Option<&'static str> {
    ["UnityFS", "UnityWeb", "UnityRaw", "UnityWebData1.0"]
        .into_iter()
        .find(|sig| {
            head.len() > sig.len() && head.starts_with(sig.as_bytes()) && head[sig.len()] == 0
        })
}

/// Reads a container's header and directory (nothing else).
pub fn open(src: &SourceRef, limits: &Limits) -> Result<Container> {
    let head = crate::io::read_up_to(src.as_ref(), 0, 512, limits)?;
    match sniff(&head) {
        Some("UnityFS") => open_unityfs(src, limits),
        Some("UnityWeb") | Some("UnityRaw") => open_legacy(src, limits),
        Some("UnityWebData1.0") => open_webdata(src, limits),
        _ => Err(Error::not_recognised("not a Unity bundle").in_file(src.name())),
    }
}

const MAX_HEADER: u64 = 4096;

/// Names a bundle entry `bundle/entry` so errors and the census say where it lives.
fn entry_name(bundle: &str, path: &str) -> String {
    format!("{bundle}/{path}")
}

fn open_unityfs(src: &SourceRef, limits: &Limits) -> Result<Container> {
    let name = src.name().to_string();
    let file_len = src.len();
    let head = crate::io::read_up_to(src.as_ref(), 0, MAX_HEADER, limits)?;
    let mut r = Reader::new(&head).big_endian();
    r.cstr()?;
    let format_version = r.u32()?;
    let unity_version = r.cstr()?.to_string();
    let _revision = r.cstr()?;
    let _size = r.i64()?;
    let compressed_info = r.u32()? as u64;
    let uncompressed_info = r.u32()? as u64;
    let flags = r.u32()?;
    // Format 7 (2019.4.19+/2020.3+) pads the header to 16 bytes.
    if format_version >= 7 {
        r.align(16)?;
    }
    let header_end = r.pos() as u64;
    // Flag 0x80: the block info sits at the end of the file.
    let info_at_end = flags & 0x80 != 0;
    let info_offset = if info_at_end {
        file_len.checked_sub(compressed_info).ok_or_else(|| {
            Error::malformed(format!(
                "block info of {compressed_info} bytes is larger than the {file_len} byte file"
            ))
        })?
    } else {
        header_end
    };
    limits.check_alloc(uncompressed_info, "UnityFS block info")?;
    let raw = read_range(src.as_ref(), info_offset, compressed_info, limits)?;
    let info = method(flags & 0x3f)
        .and_then(|m| decompress(m, &raw, uncompressed_info, limits))
        .map_err(|e| e.at_field("UnityFS block info").in_file(&name))?;
    let mut data_offset = if info_at_end {
        header_end
    } else {
        header_end + compressed_info
    };
    // Flag 0x200: the blocks start on a 16-byte boundary.
    if flags & 0x200 != 0 {
        data_offset = data_offset.div_ceil(16) * 16;
    }

    let mut r = Reader::new(&info).big_endian();
    r.skip(16)?; // hash of the uncompressed data
    let nblocks = r.count_i32(10, limits, "UnityFS blocks")?;
    let mut blocks = Vec::with_capacity(nblocks);
    let (mut comp, mut uncomp) = (data_offset, 0u64);
    for i in 0..nblocks {
        let usize_ = r.u32()? as u64;
        let csize = r.u32()? as u64;
        let bflags = r.u16()?;
        let end = comp.checked_add(csize).filter(|&e| e <= file_len);
        let Some(end) = end else {
            return Err(Error::truncated(comp, csize, file_len)
                .at_field(&format!("UnityFS block {i} of {nblocks}"))
                .in_file(&name));
        };
        let method = method((bflags & 0x3f) as u32).map_err(|e| {
            e.at_field(&format!("UnityFS block {i} of {nblocks}"))
                .in_file(&name)
        })?;
        blocks.push(Block {
            part: 0,
            offset: comp,
            stored: csize,
            payload: csize,
            size: usize_,
            method,
            encrypted: false,
            ctr: None,
        });
        comp = end;
        uncomp += usize_;
    }
    let nodes = r.count_i32(21, limits, "UnityFS directory")?;
    let store = BlockStore::single(name.clone(), src.clone(), limits).with_capacity(CACHE_BLOCKS);
    let data: SourceRef = Arc::new(BlockSource::new(
        name.clone(),
        Arc::new(store),
        blocks,
        0,
        uncomp,
    )?);
    let mut entries = Vec::with_capacity(nodes);
    for _ in 0..nodes {
        let offset = r.u64()?;
        let size = r.u64()?;
        let _flags = r.u32()?;
        let path = r.cstr()?.to_string();
        let win = WindowSource::new(entry_name(&name, &path), data.clone(), offset, size)
            .map_err(|e| {
                Error::malformed(format!(
                    "entry {path} claims {size} bytes at {offset}, but the bundle's blocks hold {uncomp}: {e}"
                ))
                .in_file(&name)
            })?;
        entries.push(Entry {
            path,
            source: Arc::new(win),
        });
    }
    Ok(Container {
        signature: "UnityFS".into(),
        format_version,
        unity_version,
        entries,
    })
}

/// A UnityFS compression code (0 none, 1 LZMA, 2 LZ4, 3 LZ4HC) as a block method.
fn method(code: u32) -> Result<Method> {
    match code {
        0 => Ok(Method::Stored),
        1 => Ok(Method::Lzma),
        2 | 3 => Ok(Method::Lz4),
        m => Err(Error::unsupported(format!(
            "compression method {m} (4 is LZHAM, which Unity never shipped in players) is not supported"
        ))),
    }
}

/// How many decompressed blocks a bundle keeps: enough for a read that straddles a boundary plus
/// a texture's neighbours (LZ4 bundles use 128 KiB blocks; an LZMA bundle is one block).
const CACHE_BLOCKS: usize = 4;

/// UnityWeb (LZMA) and UnityRaw (stored): a header, then one stream holding a directory and the
/// entries. The stream is decompressed whole on open (these bundles are Unity 3-5 era and small;
/// capped by the allocation limit).
fn open_legacy(src: &SourceRef, limits: &Limits) -> Result<Container> {
    let name = src.name().to_string();
    let head = crate::io::read_up_to(src.as_ref(), 0, MAX_HEADER, limits)?;
    let mut r = Reader::new(&head).big_endian();
    let signature = r.cstr()?.to_string();
    let format_version = r.u32()?;
    let unity_version = r.cstr()?.to_string();
    let _revision = r.cstr()?;
    if format_version >= 4 {
        r.skip(16 + 4)?; // hash, crc
    }
    let _min_streamed = r.u32()?;
    let header_size = r.u32()? as u64;
    let _levels_before_loading = r.u32()?;
    let levels = r.count_i32(8, limits, "UnityWeb levels")?;
    if levels == 0 {
        return Err(Error::malformed("UnityWeb bundle lists no levels").in_file(&name));
    }
    // Only the last level's sizes matter: it covers all the earlier ones.
    r.skip(8 * (levels - 1))?;
    let _compressed = r.u32()?;
    let uncompressed = r.u32()? as u64;
    let rest = src.len().checked_sub(header_size).ok_or_else(|| {
        Error::malformed(format!(
            "UnityWeb header claims {header_size} bytes in a {} byte file",
            src.len()
        ))
        .in_file(&name)
    })?;
    let raw = read_range(src.as_ref(), header_size, rest, limits)?;
    let blob: Vec<u8> = if signature == "UnityWeb" {
        if raw.len() < 13 {
            return Err(Error::truncated(header_size, 13, src.len()).in_file(&name));
        }
        let dict = u32::from_le_bytes([raw[1], raw[2], raw[3], raw[4]]);
        let mut declared = [0u8; 8];
        declared.copy_from_slice(&raw[5..13]);
        let declared = u64::from_le_bytes(declared);
        let size = if declared == u64::MAX {
            uncompressed
        } else {
            declared
        };
        limits.check_alloc(size, "a UnityWeb stream")?;
        lzma(&raw[13..], raw[0], dict, size)
            .and_then(|out| {
                if out.len() as u64 != size {
                    return Err(Error::malformed(format!(
                        "LZMA stream gives {} bytes, its header says {size}",
                        out.len()
                    )));
                }
                Ok(out)
            })
            .map_err(|e| e.in_file(&name))?
    } else {
        raw
    };
    let mut head = Reader::new(&blob).big_endian();
    let n = head.count_i32(9, limits, "UnityWeb directory")?;
    let mut dir = Vec::with_capacity(n);
    for _ in 0..n {
        let path = head.cstr()?.to_string();
        let offset = head.u32()? as u64;
        let size = head.u32()? as u64;
        dir.push((path, offset, size));
    }
    let shared: SourceRef = BytesSource::shared(name.clone(), blob);
    let mut entries = Vec::with_capacity(n);
    for (path, offset, size) in dir {
        let win = WindowSource::new(entry_name(&name, &path), shared.clone(), offset, size)
            .map_err(|e| e.at_field(&format!("UnityWeb entry {path}")))?;
        entries.push(Entry {
            path,
            source: Arc::new(win),
        });
    }
    Ok(Container {
        signature,
        format_version,
        unity_version,
        entries,
    })
}

/// UnityWebData1.0 (a WebGL build's .data): a little-endian directory of (offset, size, name)
/// up to the header length, then the files stored as they are.
fn open_webdata(src: &SourceRef, limits: &Limits) -> Result<Container> {
    let name = src.name().to_string();
    let head = crate::io::read_up_to(src.as_ref(), 0, 20, limits)?;
    let mut r = Reader::new(&head);
    r.skip(16)?;
    let header_len = r.u32()? as u64;
    if header_len > src.len() || header_len < 20 {
        return Err(Error::malformed(format!(
            "UnityWebData header claims {header_len} bytes in a {} byte file",
            src.len()
        ))
        .in_file(&name));
    }
    let dir = read_range(src.as_ref(), 20, header_len - 20, limits)?;
    let mut r = Reader::at(&dir, 20);
    let mut entries = Vec::new();
    while r.remaining() > 0 {
        let offset = r.u32()? as u64;
        let size = r.u32()? as u64;
        let n = r.u32()? as usize;
        let path = r.string_lossy(n)?;
        let win = WindowSource::new(entry_name(&name, &path), src.clone(), offset, size)
            .map_err(|e| e.at_field(&format!("UnityWebData entry {path}")))?;
        entries.push(Entry {
            path,
            source: Arc::new(win),
        });
    }
    Ok(Container {
        signature: "UnityWebData1.0".into(),
        format_version: 0,
        unity_version: String::new(),
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::ErrorKind;

    fn unityfs(info: &[u8], flags: u32, compressed_info: u32, uncompressed_info: u32) -> Vec<u8> {
        let mut f = b"UnityFS\0".to_vec();
        f.extend(6u32.to_be_bytes());
        f.extend(b"5.x.x\0");
        f.extend(b"2018.4.4f1\0");
        f.extend(0i64.to_be_bytes());
        f.extend(compressed_info.to_be_bytes());
        f.extend(uncompressed_info.to_be_bytes());
        f.extend(flags.to_be_bytes());
        f.extend(info);
        f
    }

    fn info(nblocks: i32, blocks: &[(u32, u32)], nodes: i32) -> Vec<u8> {
        let mut i = vec![0u8; 16];
        i.extend(nblocks.to_be_bytes());
        for (u, c) in blocks {
            i.extend(u.to_be_bytes());
            i.extend(c.to_be_bytes());
            i.extend(0u16.to_be_bytes());
        }
        i.extend(nodes.to_be_bytes());
        i
    }

    #[test]
    fn hostile_block_counts_are_refused_before_allocating() {
        let inf = info(i32::MAX, &[], 0);
        let f = unityfs(&inf, 0, inf.len() as u32, inf.len() as u32);
        let src = BytesSource::shared("evil.bundle", f);
        let e = open(&src, &Limits::default()).err().unwrap();
        assert_eq!(e.kind, ErrorKind::LimitExceeded, "{e}");
        assert!(e.to_string().contains("UnityFS blocks"), "{e}");
        // Under the entry limit but more than the block info holds.
        let inf = info(1000, &[], 0);
        let f = unityfs(&inf, 0, inf.len() as u32, inf.len() as u32);
        let e = open(&BytesSource::shared("evil.bundle", f), &Limits::default())
            .err()
            .unwrap();
        assert_eq!(e.kind, ErrorKind::Malformed, "{e}");
    }

    #[test]
    fn block_sizes_past_the_file_end_are_refused() {
        // One stored block claiming 1 MiB in a file that ends right after the block info.
        let inf = info(1, &[(1 << 20, 1 << 20)], 0);
        let f = unityfs(&inf, 0, inf.len() as u32, inf.len() as u32);
        let src = BytesSource::shared("short.bundle", f);
        let e = open(&src, &Limits::default()).err().unwrap();
        assert_eq!(e.kind, ErrorKind::Truncated, "{e}");
        assert!(e.to_string().contains("short.bundle"), "{e}");
    }

    #[test]
    fn block_info_larger_than_the_file_is_refused() {
        let f = unityfs(&[], 0x80, 1 << 30, 16);
        let e = open(&BytesSource::shared("x", f), &Limits::default())
            .err()
            .unwrap();
        assert_eq!(e.kind, ErrorKind::Malformed, "{e}");
    }

    #[test]
    fn entries_past_the_blocks_are_refused() {
        let mut inf = info(1, &[(4, 4)], 1);
        inf.extend(0u64.to_be_bytes());
        inf.extend(100u64.to_be_bytes());
        inf.extend(0u32.to_be_bytes());
        inf.extend(b"CAB-x\0");
        let mut f = unityfs(&inf, 0, inf.len() as u32, inf.len() as u32);
        f.extend([1, 2, 3, 4]);
        let e = open(&BytesSource::shared("x", f), &Limits::default())
            .err()
            .unwrap();
        assert!(e.to_string().contains("CAB-x"), "{e}");
    }

    /// Flag 0x80 puts the block info at the end of the file; the blocks then start right after
    /// the header.
    #[test]
    fn block_info_at_the_end() {
        let mut inf = info(1, &[(6, 6)], 1);
        inf.extend(2u64.to_be_bytes());
        inf.extend(3u64.to_be_bytes());
        inf.extend(0u32.to_be_bytes());
        inf.extend(b"CAB-e\0");
        let mut f = unityfs(&[], 0x80, inf.len() as u32, inf.len() as u32);
        f.extend(b"abcdef");
        f.extend(&inf);
        let c = open(&BytesSource::shared("end.bundle", f), &Limits::default()).unwrap();
        assert_eq!(c.entries[0].path, "CAB-e");
        let got = read_range(c.entries[0].source.as_ref(), 0, 3, &Limits::default()).unwrap();
        assert_eq!(got, b"cde");
    }

    #[test]
    fn reads_straddle_blocks_and_decompress_lz4() {
        // Two blocks: one LZ4 (method 2) and one stored, read across the boundary.
        let a: Vec<u8> = (0..100u8).collect();
        let la = lz4_flex::block::compress(&a);
        let b = vec![7u8; 10];
        let mut inf = vec![0u8; 16];
        inf.extend(2i32.to_be_bytes());
        inf.extend(100u32.to_be_bytes());
        inf.extend((la.len() as u32).to_be_bytes());
        inf.extend(2u16.to_be_bytes());
        inf.extend(10u32.to_be_bytes());
        inf.extend(10u32.to_be_bytes());
        inf.extend(0u16.to_be_bytes());
        inf.extend(1i32.to_be_bytes());
        inf.extend(90u64.to_be_bytes());
        inf.extend(20u64.to_be_bytes());
        inf.extend(0u32.to_be_bytes());
        inf.extend(b"e\0");
        let mut f = unityfs(&inf, 0, inf.len() as u32, inf.len() as u32);
        f.extend(&la);
        f.extend(&b);
        let c = open(&BytesSource::shared("two.bundle", f), &Limits::default()).unwrap();
        let e = &c.entries[0];
        assert_eq!(e.source.name(), "two.bundle/e");
        let got = read_range(e.source.as_ref(), 0, 20, &Limits::default()).unwrap();
        let mut want: Vec<u8> = (90..100u8).collect();
        want.extend([7u8; 10]);
        assert_eq!(got, want);
    }
}
